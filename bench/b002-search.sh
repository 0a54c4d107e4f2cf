#!/bin/sh
# b002-search.sh — build and run b002-search.c against build/libthatch.a:
# memory_recall's store work (exact search + recall stamp) at 1,000,
# 10,000 and 100,000 memories. See bench/README.md for recorded numbers.
set -eu
cd "$(dirname "$0")/.."
make -s -j2 build/libthatch.a
mkdir -p build/bench
make -s build/bench/b002-search
build/bench/b002-search 1000 500
build/bench/b002-search 10000 200
build/bench/b002-search 100000 50
