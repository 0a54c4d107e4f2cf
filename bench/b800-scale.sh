#!/bin/sh
# b800-scale.sh — recall at scale (issue 28): stores of realistic coding-
# agent memories (bench/gen-memories.py, 200-600 characters) written
# through `thatch import` (which embeds each with the model in effect),
# "dense" (the random bge-small-shaped model's own vectors: every memory
# scores 0.93-0.96 against any query) and "spread" (the same rows with
# gen-memories.py's synthetic topic vectors). For each store and binary:
# a cold `thatch search` (hyperfine median, vector file current), the
# pread64 calls one cold search makes (strace -c, the SQLite pages it
# reads), and warm memory_recall / memory_remember medians through the
# MCP server (build/bench/b200-mcp serve); `thatch embed --query` alone
# once as the floor. B800_BINS="name=/path/to/thatch ..." compares
# binaries on copies of the same stores, in one run; B800_SIZES (default
# "100 1000 10000"), B800_RUNS (10), B800_ROUNDS (40). B800_DIR keeps the
# stores between runs (a store already there is used as is: 100,000 is
# built outside, see bench/README.md). Cold searches are also given in
# CPU (user + sys, perf stat) where perf runs: on a loaded machine wall
# times say little. Numbers: bench/README.md, "Recall at scale".
set -eu
cd "$(dirname "$0")/.."
model=$PWD/bench/out/bge-small
[ -f "$model/model.safetensors" ] ||
    python3 bench/random-bert "$model" --shape bge-small
make -s -j2 thatch build/libthatch.a
mkdir -p build/bench
make -s build/bench/b200-mcp
T=${B800_DIR:-$(mktemp -d /tmp/thatch-b800.XXXXXX)}
mkdir -p "$T/home" "$T/proj"
repo=$PWD
cp thatch "$T/thatch.cur"
BINS=${B800_BINS:-"cur=$T/thatch.cur"}
SIZES=${B800_SIZES:-"100 1000 10000"}
RUNS=${B800_RUNS:-10}
ROUNDS=${B800_ROUNDS:-40}
export THATCH_MODEL=$model HOME=$T/home XDG_CONFIG_HOME=$T/home/.config
export HF_ENDPOINT=http://127.0.0.1:9 CLAUDE_PROJECT_DIR=$T/proj
cd "$T/proj"				# not a repository: the store is "proj"
Q="why does the payment webhook retry fail with ECONNREFUSED on CI"

# store N KIND: $T/N-KIND.db (built once)
store() {
	db=$T/$1-$2.db
	[ -f "$db" ] && return
	if [ "$2" = dense ]; then
		python3 "$repo/bench/gen-memories.py" "$1" proj >"$T/g.jsonl"
		THATCH_DB_PATH=$db "$T/thatch.cur" import "$T/g.jsonl" \
		    >/dev/null
	else
		store "$1" dense
		cp "$T/$1-dense.db" "$db"
		python3 "$repo/bench/gen-memories.py" spread "$db" 384
	fi
	sqlite3 "$db" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null
}

# cpu CMD...: CPU ms of CMD, the mean of B800_RUNS runs ("-" without perf)
cpu() {
	perf stat -r "$RUNS" -x, -e task-clock "$@" 2>&1 >/dev/null |
	    awk -F, '/task-clock/ { printf "%.1f", $1; ok = 1 }
	    END { if (!ok) print "-" }'
}

median() {
	python3 -c "import json,statistics as s; print('%.1f' % (1e3 * s.median(json.load(open('$1'))['results'][0]['times'])))"
}

echo "load: $(uptime | sed 's/.*load/load/')"
hyperfine -N -w 2 -r "$RUNS" --style none --export-json "$T/h.json" \
    "$T/thatch.cur embed --query '$Q'" >/dev/null 2>&1
echo "embed --query alone: $(median "$T/h.json") ms," \
    "$(cpu "$T/thatch.cur" embed --query "$Q") ms CPU"
for n in $SIZES; do
	for kind in dense spread; do
		store "$n" "$kind"
		for b in $BINS; do
			name=${b%%=*} bin=${b#*=}
			db=$T/$n-$kind-$name.db
			rm -f "$db" "$db"-*
			cp "$T/$n-$kind.db" "$db"
			export THATCH_DB_PATH=$db
			"$bin" search "$Q" >/dev/null 2>&1	# the vector file
			hyperfine -N -w 2 -r "$RUNS" --style none \
			    --export-json "$T/h.json" \
			    "$bin search '$Q'" >/dev/null 2>&1
			cold=$(median "$T/h.json")
			cv=$(cpu "$bin" search --mode=vector "$Q")
			ch=$(cpu "$bin" search "$Q")
			cl=$(cpu "$bin" search --mode=lexical "$Q")
			pl=$(strace -f -c -e trace=pread64 "$bin" search \
			    --mode=lexical "$Q" 2>&1 >/dev/null |
			    awk '$NF == "pread64" { print $4 }')
			pv=$(strace -f -c -e trace=pread64 "$bin" search \
			    --mode=vector "$Q" 2>&1 >/dev/null |
			    awk '$NF == "pread64" { print $4 }')
			ph=$(strace -f -c -e trace=pread64 "$bin" search "$Q" \
			    2>&1 >/dev/null | awk '$NF == "pread64" { print $4 }')
			# b200's "@" records: name calls median p95 wall cpu
			warm=$("$repo/build/bench/b200-mcp" serve "$bin" proj \
			    "$ROUNDS" 2>&1 | awk -F '\t' '$1 == "@" {
				printf "%s %.1f ms median, %.1f ms CPU a call; ",
				    $2, $4, $7 / $3 }')
			echo "$n $kind $name: cold search $cold ms;" \
			    "CPU vector $cv, hybrid $ch, lexical $cl ms;" \
			    "preads vector ${pv:-0}, hybrid ${ph:-0}," \
			    "lexical ${pl:-0};" \
			    "$warm[$(uptime | sed 's/.*load/load/')]"
		done
	done
done
