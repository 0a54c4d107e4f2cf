#!/bin/sh
# b300-hygiene.sh — `thatch hygiene` on 10,000 memories whose vectors are
# mostly near-duplicates (the original needed 132 s and 8 GB on such a
# store): THEMES clusters of noisy copies of a random centre, so every
# pair inside a theme scores about 0.92 and is a candidate. Prints the
# report and wall time / peak memory of three runs. Results:
# bench/README.md.
set -eu
cd "$(dirname "$0")/.."
make -s -j2 thatch build/libthatch.a
mkdir -p build/bench
make -s build/bench/b200-mcp
tmp=$(mktemp -d /tmp/thatch-b300.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/hyg"
export CLAUDE_PROJECT_DIR="$tmp/hyg"	# not a repository: REPO is "hyg"
unset CURSOR_PROJECT_DIR
for themes in ${B300_THEMES:-20 1}; do
	export THATCH_DB_PATH="$tmp/$themes.db"
	build/bench/b200-mcp populate "$THATCH_DB_PATH" hyg \
	    "${B300_N:-10000}" "$themes" 0.3
	echo "${B300_N:-10000} memories in $themes theme(s):"
	for i in 1 2 3; do
		/usr/bin/time -f "  %e s wall, %M KB peak" ./thatch hygiene
	done
done
