#!/bin/sh
# b900-export-import.sh — `thatch export` and `thatch import` of a store of
# B900_N (default 10,000) memories with bge-small-shaped vectors: export as
# JSONL, with vectors and as markdown; import with vectors of the model in
# effect (kept) into an empty database; and import of B900_EMBED_N
# (default 1,000) memories without vectors, which embeds each again with
# the random bge-small-shaped model. Prints wall time and peak memory.
# Results: bench/README.md.
set -eu
cd "$(dirname "$0")/.."
make -s -j2 thatch build/libthatch.a
mkdir -p build/bench bench/out
make -s build/bench/b200-mcp
[ -f bench/out/bge-small/model.safetensors ] ||
    python3 bench/random-bert bench/out/bge-small --shape bge-small
tmp=$(mktemp -d /tmp/thatch-b900.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export THATCH_MODEL="$PWD/bench/out/bge-small" HF_ENDPOINT=http://127.0.0.1:9
unset CLAUDE_PROJECT_DIR CURSOR_PROJECT_DIR
n=${B900_N:-10000} m=${B900_EMBED_N:-1000}
src=$tmp/src.db
build/bench/b200-mcp populate "$src" bench "$n" 0 0
# the vectors are of the model in effect, as a store it wrote would be
sqlite3 "$src" "UPDATE entries SET model = '$THATCH_MODEL'"
t() { /usr/bin/time -f "  %e s wall, %M KB peak: $1" "$@" 2>&1 >/dev/null |
    tail -n 1 | sed "s|: .*/thatch|: thatch|"; }
echo "$n memories:"
for i in 1 2 3; do
	THATCH_DB_PATH=$src t ./thatch export all -o "$tmp/a.jsonl"
done
THATCH_DB_PATH=$src t ./thatch export all --with-vectors -o "$tmp/v.jsonl"
THATCH_DB_PATH=$src t ./thatch export all --format markdown -o "$tmp/md"
ls -l "$tmp/a.jsonl" "$tmp/v.jsonl" | awk '{ print "  " $5 " bytes: " $9 }'
for i in 1 2; do
	rm -f "$tmp/dst.db"*
	THATCH_DB_PATH=$tmp/dst.db t ./thatch import "$tmp/v.jsonl"
done
head -n $((m + 2)) "$tmp/a.jsonl" >"$tmp/e.jsonl"
echo "$m memories embedded again:"
THATCH_DB_PATH=$tmp/emb.db t ./thatch import "$tmp/e.jsonl"
