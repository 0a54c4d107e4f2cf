#!/bin/sh
# b610-retrieval.sh — recall@1, recall@5 and MRR of vector-only,
# lexical-only and hybrid recall on the labelled set in bench/retrieval/
# (b610-retrieval.c), for the model in effect: THATCH_MODEL if set, else
# the bge-small-shaped random model, on which only the lexical column
# means anything. With the real model:
#   thatch model pull && THATCH_MODEL=BAAI/bge-small-en-v1.5 bench/b610-retrieval.sh
# Numbers: bench/README.md.
set -eu
cd "$(dirname "$0")/.."
if [ -z "${THATCH_MODEL:-}" ]; then
	THATCH_MODEL=$PWD/bench/out/bge-small
	[ -f "$THATCH_MODEL/model.safetensors" ] ||
	    bench/random-bert "$THATCH_MODEL" --shape bge-small
	export THATCH_MODEL
fi
make -s -j2 build/libthatch.a
mkdir -p build/bench
make -s build/bench/b610-retrieval
build/bench/b610-retrieval bench/retrieval/memories.jsonl \
    bench/retrieval/queries.jsonl
