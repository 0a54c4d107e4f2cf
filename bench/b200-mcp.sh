#!/bin/sh
# b200-mcp.sh — `thatch mcp` over its own protocol (initialize,
# memory_recall, memory_remember, resident memory) with a bge-small-shaped
# random model, against stores of 1,000, 10,000 and 100,000 memories
# populated by direct store calls; the first recall comes after a pause
# (B200_PAUSE_MS, default 1000) in which the server warms up unless
# THATCH_WARMUP=0. Results: bench/README.md.
set -eu
cd "$(dirname "$0")/.."
make -s -j2 thatch build/libthatch.a
mkdir -p build/bench bench/out
make -s build/bench/b200-mcp
. bench/lib.sh
bench_model
tmp=$(mktemp -d /tmp/thatch-b200.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export THATCH_MODEL="$PWD/$BENCH_MODEL" HF_ENDPOINT=http://127.0.0.1:9
unset CLAUDE_PROJECT_DIR CURSOR_PROJECT_DIR
for n in ${B200_SIZES:-1000 10000 100000}; do
	export THATCH_DB_PATH="$tmp/$n.db"
	build/bench/b200-mcp populate "$THATCH_DB_PATH" bench "$n" 0 0
	echo "$n memories:"
	build/bench/b200-mcp serve "$PWD/thatch" bench "${B200_ROUNDS:-200}"
done
