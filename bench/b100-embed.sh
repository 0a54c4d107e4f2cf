#!/bin/sh
# b100-embed.sh — embedding speed and memory on a model with bge-small's
# exact architecture (random weights, generated into bench/out/ by
# bench/random-bert): b100-embed.c's load time, per-text latency at ~8,
# ~70 and ~250 tokens and resident memory, then cold `thatch embed` from
# process start to vector (perf stat, hyperfine; `thatch --version` for
# the process-start floor). Numbers: bench/README.md.
set -eu
cd "$(dirname "$0")/.."
. bench/lib.sh
bench_model
model=$BENCH_MODEL
make -s -j2 thatch build/libthatch.a
mkdir -p build/bench
make -s build/bench/b100-embed
build/bench/b100-embed $model 50
# CPU time of a cold embed: a busy machine disturbs it less than wall time
if command -v perf >/dev/null; then
	THATCH_MODEL=$PWD/$model perf stat -r 20 -e task-clock,page-faults \
	    ./thatch embed 'user prefers tabs over spaces' >/dev/null
fi
THATCH_MODEL=$PWD/$model hyperfine -N -w 3 -r 30 \
    "./thatch embed 'user prefers tabs over spaces'" \
    "./thatch --version"
