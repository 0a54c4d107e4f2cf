#!/bin/sh
# b001-cli.sh — cold latency of `thatch --version`, `stores` and `list` on a
# store of 10,000 memories with random 384-dim vectors (filled with direct
# SQL), measured with hyperfine. `list` runs twice: with the store named
# (no git) and with the default store detected from a git repository.
# The original takes 100-145 ms for each; see bench/README.md. Also timed:
# an empty C program and one linked against the same libraries, which
# is the floor every thatch command pays.
set -eu
cd "$(dirname "$0")/.."
make -s -j2 thatch
T=$(mktemp -d /tmp/thatch-b001.XXXXXX)
trap 'rm -rf "$T"' EXIT
export HOME=$T/home XDG_CONFIG_HOME=$T/home/.config
export THATCH_DB_PATH=$T/thatch.db
mkdir -p "$HOME" "$T/proj"
git -C "$T/proj" init -q && git -C "$T/proj" remote add origin git@github.com:acme/api.git
cp thatch "$T/thatch"	# a frozen copy: make may relink ./thatch meanwhile
B=$T/thatch
$B stores >/dev/null
sqlite3 "$THATCH_DB_PATH" "INSERT INTO stores (name) VALUES ('acme/api');
WITH RECURSIVE i(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM i WHERE n < 9999)
INSERT INTO entries (slug, store, label, content, embedding, model,
  created_at, updated_at)
SELECT 'memory-' || n, 'acme/api', 'Memory ' || n,
  '# Memory ' || n || char(10) || char(10) || hex(randomblob(100)),
  randomblob(1536), 'Xenova/bge-small-en-v1.5',
  '2025-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z' FROM i;"
cd "$T/proj"
hyperfine -N --warmup 20 --runs 300 --style basic \
    --export-markdown "$T/cli.md" \
    "$B --version" "$B stores" "$B list acme/api" "$B list"
cat "$T/cli.md"
echo 'int main(void) { return 0; }' >"$T/empty.c"
cc -O2 -o "$T/empty" "$T/empty.c"
# shellcheck disable=SC2046
cc -O2 -o "$T/empty-libs" "$T/empty.c" -Wl,--no-as-needed \
    $(pkg-config --libs sqlite3 jansson libcurl libutf8proc openblas libcrypto)
hyperfine -N --warmup 20 --runs 300 --style basic "$T/empty" "$T/empty-libs"
