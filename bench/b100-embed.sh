#!/bin/sh
# b100-embed.sh — embedding speed and memory on a model with bge-small's
# exact architecture (random weights, generated into bench/out/ by
# bench/random-bert): cold `thatch embed` from process start to vector
# (hyperfine), then b100-embed.c's load time, per-text latency at ~8, ~70
# and ~250 tokens and resident memory. Numbers: bench/README.md.
set -eu
cd "$(dirname "$0")/.."
model=bench/out/bge-small
[ -f $model/model.safetensors ] || bench/random-bert $model --shape bge-small
make -s -j2 thatch build/libthatch.a
PKGS="sqlite3 jansson libcurl libutf8proc openblas libcrypto"
mkdir -p build/bench
# shellcheck disable=SC2046
cc -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -O2 -Isrc \
    $(pkg-config --cflags $PKGS) -o build/bench/b100-embed \
    bench/b100-embed.c build/libthatch.a $(pkg-config --libs $PKGS) -lm \
    -pthread
build/bench/b100-embed $model 50
THATCH_MODEL=$PWD/$model hyperfine -N -w 3 -r 30 \
    "./thatch embed 'user prefers tabs over spaces'"
