#!/bin/sh
# b003-cold.sh — cold commands (issue 17): a fresh `thatch search` (start,
# open, load the model, embed the query, search, print) on 10,000 and
# 100,000 memories with the vector file current and with none (the run
# that rebuilds it), `thatch list` of 10,000 memories, and `thatch
# hygiene` on 1,000 and 10,000 near-duplicates. Wall time by hyperfine
# (median via --export-json), CPU time (user + sys, children included)
# and page faults by perf stat, and the load average before each, since
# the machine is shared. B003_BASE=/path/to/an/older/thatch times it on
# the same stores too (the stores are upgraded by the first open of the
# newer binary, which is harmless to the older one). Numbers:
# bench/README.md, "Cold paths (issue 17)".
set -eu
cd "$(dirname "$0")/.."
model=$PWD/bench/out/bge-small
if [ ! -f "$model/model.safetensors" ]; then
	bench/random-bert "$model" --shape bge-small
	sync "$model/model.safetensors"
	dd if="$model/model.safetensors" iflag=nocache count=0 status=none
fi
make -s -j2 thatch build/libthatch.a
mkdir -p build/bench
make -s build/bench/b200-mcp
T=$(mktemp -d /tmp/thatch-b003.XXXXXX)
trap 'rm -rf "$T"' EXIT
repo=$PWD
cp thatch "$T/thatch"	# a frozen copy: make may relink ./thatch meanwhile
export THATCH_MODEL=$model HOME=$T/home XDG_CONFIG_HOME=$T/home/.config
mkdir -p "$HOME" "$T/proj"
cd "$T/proj"				# not a repository: the store is "proj"
export CLAUDE_PROJECT_DIR=$T/proj
RUNS=${B003_RUNS:-20}

# store N THEMES: a database of N memories in "proj" (THEMES > 0:
# near-duplicates), tagged with this model so no notice is printed
store() {
	db=$T/s$1-$2.db
	[ -f "$db" ] && return
	"$repo/build/bench/b200-mcp" populate "$db" proj "$1" "$2" 0.3
	sqlite3 "$db" "UPDATE entries SET model = '$model'" >/dev/null
}

# measure LABEL PREPARE ARGS: CPU (perf stat) and wall (hyperfine) of
# `thatch ARGS` (words without spaces), PREPARE run before each
measure() {
	echo "== $1   [$(uptime | sed 's/.*load/load/')]"
	for b in "$T/thatch" ${B003_BASE:+"$B003_BASE"}; do
		# perf stat -r cannot prepare: a shell does, its CPU included
		# (~1 ms); with nothing to prepare the binary runs alone
		if [ "$2" = true ]; then
			# shellcheck disable=SC2086
			perf stat -x, -r "$RUNS" -e task-clock,page-faults \
			    "$b" $3 2>"$T/perf" >/dev/null
		else
			perf stat -x, -r "$RUNS" -e task-clock,page-faults \
			    sh -c "$2; exec $b $3" 2>"$T/perf" >/dev/null
		fi
		cpu=$(awk -F, '$3 == "task-clock" { c = $1 }
			$3 == "page-faults" { f = $1 }
			END { printf "%.1f ms CPU, %d faults", c, f }' "$T/perf")
		hyperfine -N -w 2 -r "$RUNS" --style none --prepare "sh -c '$2'" \
		    --export-json "$T/h.json" "$b $3" >/dev/null 2>&1
		wall=$(python3 -c "import json,statistics as s; r=sorted(json.load(open('$T/h.json'))['results'][0]['times']); print('%.1f ms median, %.1f ms p95' % (s.median(r)*1e3, r[max(0,int(len(r)*0.95)-1)]*1e3))")
		echo "  $(basename "$b"): $wall; $cpu"
	done
}

for n in 10000 100000; do
	store $n 0
	export THATCH_DB_PATH=$T/s$n-0.db
	"$T/thatch" search warmup >/dev/null 2>&1
	measure "search, $n memories, vector file current" true \
	    "search indentation"
	measure "search, $n memories, no vector file (rebuilt)" \
	    "rm -f $THATCH_DB_PATH-vectors" "search indentation"
done
export THATCH_DB_PATH=$T/s10000-0.db
measure "list, 10,000 memories" true "list proj"
for n in 1000 10000; do
	store $n 20
	export THATCH_DB_PATH=$T/s$n-20.db
	measure "hygiene, $n memories in 20 themes" true hygiene
done
