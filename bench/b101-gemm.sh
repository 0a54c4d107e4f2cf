#!/bin/sh
# b101-gemm.sh — gemm.c's sustained throughput on bge-small's linear
# layers (b101-gemm.c): the floor under b100's latencies. Numbers:
# bench/README.md.
set -eu
cd "$(dirname "$0")/.."
make -s -j2 build/libthatch.a
mkdir -p build/bench
make -s build/bench/b101-gemm
build/bench/b101-gemm 1
build/bench/b101-gemm 2
