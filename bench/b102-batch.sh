#!/bin/sh
# b102-batch.sh — per-text embedding time one text per forward pass
# against several (b102-batch.c), on the bge-small-shaped random model.
# Numbers: bench/README.md.
set -eu
cd "$(dirname "$0")/.."
model=bench/out/bge-small
[ -f $model/model.safetensors ] || bench/random-bert $model --shape bge-small
make -s -j2 build/libthatch.a
mkdir -p build/bench
make -s build/bench/b102-batch
build/bench/b102-batch $model "${1:-120}"
