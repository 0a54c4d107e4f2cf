#!/bin/sh
# b500-engines.sh — build and run b500-engines.c against build/libthatch.a:
# auto-fire for one prompt vector against 1,000 (then 10,000) matchers,
# and the seeding stamp check. See bench/README.md for recorded numbers.
set -eu
cd "$(dirname "$0")/.."
make -s -j2 build/libthatch.a
mkdir -p build/bench
make -s build/bench/b500-engines
build/bench/b500-engines 1000 200
build/bench/b500-engines 10000 50
