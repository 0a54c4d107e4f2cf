#!/bin/sh
# b500-engines.sh — build and run b500-engines.c against build/libthatch.a:
# auto-fire for one prompt vector against 1,000 (then 10,000) matchers,
# and the seeding stamp check. See bench/README.md for recorded numbers.
set -eu
cd "$(dirname "$0")/.."
make -s -j2 build/libthatch.a
PKGS="sqlite3 jansson libcurl libutf8proc openblas libcrypto"
mkdir -p build/bench
# shellcheck disable=SC2046
cc -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -O2 -Isrc \
    $(pkg-config --cflags $PKGS) -o build/bench/b500-engines \
    bench/b500-engines.c build/libthatch.a $(pkg-config --libs $PKGS) -lm \
    -pthread
build/bench/b500-engines 1000 200
build/bench/b500-engines 10000 50
