#!/bin/sh
# b002-search.sh — build and run b002-search.c against build/libthatch.a:
# memory_recall's store work (exact search + recall stamp) at 1,000,
# 10,000 and 100,000 memories. See bench/README.md for recorded numbers.
set -eu
cd "$(dirname "$0")/.."
make -s -j2 build/libthatch.a
PKGS="sqlite3 jansson libcurl libutf8proc openblas libcrypto"
mkdir -p build/bench
# shellcheck disable=SC2046
cc -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -O2 -Isrc \
    $(pkg-config --cflags $PKGS) -o build/bench/b002-search \
    bench/b002-search.c build/libthatch.a $(pkg-config --libs $PKGS) -lm \
    -pthread
build/bench/b002-search 1000 500
build/bench/b002-search 10000 200
build/bench/b002-search 100000 50
