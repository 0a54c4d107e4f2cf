#!/bin/sh
# b103-reembed.sh — `thatch reembed` of N memories of ~340 characters
# (default 10,000; b103-reembed.c writes them in another space) with the
# bge-small-shaped random model: wall and CPU time of the whole command,
# rows per second. Target (issue 19): 10,000 in <= 2 minutes. Numbers:
# bench/README.md.
set -eu
cd "$(dirname "$0")/.."
n=${1:-10000}
model=$PWD/bench/out/bge-small
[ -f $model/model.safetensors ] || bench/random-bert $model --shape bge-small
make -s -j2 thatch build/libthatch.a
mkdir -p build/bench
make -s build/bench/b103-reembed
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
build/bench/b103-reembed "$dir/thatch.db" "$n"
export THATCH_DB_PATH=$dir/thatch.db THATCH_MODEL=$model XDG_CACHE_HOME=$dir/cache
/usr/bin/time -f "wall %e s, user %U s, system %S s, max resident %M KB" \
    ./thatch reembed bench
