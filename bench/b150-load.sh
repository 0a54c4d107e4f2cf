#!/bin/sh
# b150-load.sh — issue 17's benchmarks, each quiet and then under load in
# the same run, beside onnxruntime and the original, ending in one table:
#
#   embed   ~8, ~82, ~252 tokens (bench/embed-texts.tsv): thatch at its
#           default threads and at THATCH_THREADS=1 (b100-embed), and
#           transformers.js on onnxruntime at its default intra-op threads
#           and at one (bench/js/embed.mjs), on the same random bge-small
#           weights (bench/random-bert, exported by bench/onnx-bert); the
#           vectors of both are compared first (largest difference ≤ 1e-4)
#   mcp     memory_recall and memory_remember over `thatch mcp` at each
#           store size (b200-mcp), the store's part of them in-process
#           (b002-search: warm search, remember + similarity), then cold
#           `thatch search` (and `thatch list` at 10,000) as processes
#           (timeit)
#   original  the original's memory_remember, reconstructed (bench/js/
#           original-remember.mjs under Bun), at 1,000 memories
#
# "Loaded" is bench/load: one busy process per core (B150_LOAD_PROCS),
# started for each group's loaded pass and always stopped. Each case
# prints median, p95 and wall/CPU (bench_record); the table gives the
# ratio to onnxruntime or the original and the targets of issue 17.
# Without python3-onnx or npm, or Bun, those columns are skipped with a
# line saying why.
#
#   bench/b150-load.sh [ROUNDS]	 ROUNDS per case (default 50; cold
#				 commands ROUNDS/2), B150_SIZES (default
#				 "1000 10000 100000"), B150_GROUPS
#				 (default "embed mcp original")
set -eu
cd "$(dirname "$0")/.."
# shellcheck source=bench/lib.sh
. bench/lib.sh
ROUNDS=${1:-50}
COLD=$(( ROUNDS / 2 > 2 ? ROUNDS / 2 : 3 ))
SIZES=${B150_SIZES:-1000 10000 100000}
tmp=$(mktemp -d /tmp/thatch-b150.XXXXXX)
trap 'load_stop; rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM HUP
BENCH_RECORDS=$tmp/records
: >"$BENCH_RECORDS"

make -s -j2 thatch build/libthatch.a
mkdir -p build/bench
make -s build/bench/b100-embed build/bench/b200-mcp build/bench/b002-search \
    build/bench/load build/bench/timeit
bench_model
export THATCH_MODEL="$PWD/$BENCH_MODEL" HF_ENDPOINT=http://127.0.0.1:9
unset CLAUDE_PROJECT_DIR CURSOR_PROJECT_DIR THATCH_THREADS
THATCH=$PWD/thatch
js_missing=$(bench_js_missing)
bun_missing=$(bench_bun_missing)
BENCH_NOTES=$tmp/notes
: >"$BENCH_NOTES"
if [ -n "$js_missing" ]; then
	echo "onnxruntime columns skipped: $js_missing" >>"$BENCH_NOTES"
	bun_missing=${bun_missing:-"it embeds with transformers.js: $js_missing"}
fi
[ -z "$bun_missing" ] ||
    echo "original columns skipped: $bun_missing" >>"$BENCH_NOTES"

cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')
echo "machine: $(nproc) cores, $cpu," \
    "load average $(cut -d' ' -f1-3 /proc/loadavg) at start"
# the exported model must compute what thatch computes, or no ratio holds
if [ -z "$js_missing" ] && ! node bench/js/embed.mjs check "$BENCH_ONNX" \
    bench/embed-texts.tsv "$THATCH" "$THATCH_MODEL" >"$tmp/check" 2>&1; then
	echo "THE VECTORS DIFFER: the onnxruntime ratios below compare" \
	    "different computations" >>"$tmp/check"
fi
[ ! -f "$tmp/check" ] || tee -a "$BENCH_NOTES" <"$tmp/check"

# group_embed PHASE: the embedding cases
group_embed() {
	in_phase "$1" build/bench/b100-embed "$BENCH_MODEL" "$ROUNDS" \
	    bench/embed-texts.tsv
	in_phase "$1" env THATCH_THREADS=1 build/bench/b100-embed \
	    "$BENCH_MODEL" "$ROUNDS" bench/embed-texts.tsv
	[ -n "$js_missing" ] && return
	in_phase "$1" node bench/js/embed.mjs bench "$BENCH_ONNX" \
	    bench/embed-texts.tsv "$ROUNDS"
	in_phase "$1" node bench/js/embed.mjs bench "$BENCH_ONNX" \
	    bench/embed-texts.tsv "$ROUNDS" 1
}

# group_mcp PHASE: recall and remember over MCP, then cold commands, on
# a fresh copy of each populated store
group_mcp() {
	for n in $SIZES; do
		export THATCH_DB_PATH="$tmp/$1-$n.db"
		cp "$tmp/$n.db" "$THATCH_DB_PATH"
		echo "$n memories:"
		in_phase "$1" build/bench/b200-mcp serve "$THATCH" bench \
		    "$ROUNDS" "$n"
		in_phase "$1" build/bench/b002-search "$n" "$ROUNDS" recall
		in_phase "$1" build/bench/timeit "cold search $n | thatch" \
		    "$COLD" "$THATCH" search "how do we handle login errors" bench
		[ "$n" != 10000 ] || in_phase "$1" build/bench/timeit \
		    "cold list $n | thatch" "$COLD" "$THATCH" list bench
		rm -f "$THATCH_DB_PATH"*
	done
}

# group_original PHASE: the original's memory_remember at 1,000 memories
group_original() {
	[ -z "$bun_missing" ] && [ -z "$js_missing" ] || return 0
	in_phase "$1" "$BENCH_BUN" bench/js/original-remember.mjs \
	    "$BENCH_ONNX" "$tmp/$1-original.db" \
	    tests/fixtures/store/original.sql 1000 "$tmp/texts.jsonl"
}

for g in ${B150_GROUPS:-embed mcp original}; do
	case $g in
	mcp)	for n in $SIZES; do
			[ -f "$tmp/$n.db" ] || build/bench/b200-mcp populate \
			    "$tmp/$n.db" bench "$n" 0 0
		done ;;
	original) build/bench/b200-mcp texts "$ROUNDS" >"$tmp/texts.jsonl" ;;
	esac
	echo "== $g, quiet (load average $(cut -d' ' -f1 /proc/loadavg))"
	"group_$g" quiet
	load_start
	echo "== $g, loaded (load average $(cut -d' ' -f1 /proc/loadavg))"
	"group_$g" loaded
	load_stop
done

echo
cat "$BENCH_NOTES"
echo "load: ${B150_LOAD_PROCS:-$(nproc)} busy processes (bench/load) in the" \
    "loaded passes; rounds $ROUNDS, cold commands $COLD"
echo
# The table. TARGETS: case, its reference, the ratio it must reach quiet
# and loaded (reference median / case median), and whether the loaded
# ratio must also be at least the quiet one (issue 17).
TARGETS="embed ~8 tok | thatch	embed ~8 tok | onnxruntime	3	yes
embed ~82 tok | thatch	embed ~82 tok | onnxruntime	3	yes
embed ~252 tok | thatch	embed ~252 tok | onnxruntime	2	yes
embed ~8 tok | thatch 1t	embed ~8 tok | onnxruntime 1t	1	no
embed ~82 tok | thatch 1t	embed ~82 tok | onnxruntime 1t	1	no
embed ~252 tok | thatch 1t	embed ~252 tok | onnxruntime 1t	1	no
memory_remember 1000 | thatch	memory_remember 1000 | original	4	no"
printf '%s\n' "$TARGETS" | awk -F'\t' -v rec="$BENCH_RECORDS" '
# a time with three significant figures or so
function ms(x) {
	return x >= 100 ? sprintf("%.0f", x) : \
	    x >= 10 ? sprintf("%.1f", x) : sprintf("%.2f", x)
}
function has(ph, c) { return (ph SUBSEP c) in med }
# how many times faster case c is than its reference in phase ph, or ""
function ratio(ph, c) {
	return has(ph, ref[c]) && has(ph, c) ? med[ph, ref[c]] / med[ph, c] : ""
}
function times(ph, c) {
	return has(ph, c) ? ms(med[ph, c]) " / " ms(p95[ph, c]) : "—"
}
function mark(ok) { return ok ? "✓" : "✗" }
function who(c) { return substr(c, index(c, " | ") + 3) }
function shown(c) { sub(/ \| /, ", ", c); return c }
FILENAME == "-" { ref[$1] = $2; min[$1] = $3; ordered[$1] = $4; next }
index($2, " | ") {
	if (!($2 in seen)) { seen[$2] = 1; order[++n] = $2 }
	med[$1, $2] = $4; p95[$1, $2] = $5; wc[$1, $2] = $7 > 0 ? $6 / $7 : 0
}
END {
	print "| case | quiet median / p95 ms | loaded median / p95 ms " \
	    "| wall/CPU quiet / loaded | × vs reference quiet / loaded " \
	    "| target |"
	print "| --- | --- | --- | --- | --- | --- |"
	for (i = 1; i <= n; i++) {
		c = order[i]
		x = "—"; t = ""
		if (c in ref) {
			rq = ratio("quiet", c); rl = ratio("loaded", c)
			if (rq == "" || rl == "") {
				t = "? (" who(ref[c]) " not measured)"
			} else {
				x = sprintf("%.2f× / %.2f×", rq, rl)
				t = "≥" min[c] "×: " mark(rq >= min[c]) " " \
				    mark(rl >= min[c])
				if (ordered[c] == "yes")
					t = t ", loaded ≥ quiet: " mark(rl >= rq)
			}
		}
		printf "| %s | %s | %s | %.2f / %.2f | %s | %s |\n", shown(c),
		    times("quiet", c), times("loaded", c), wc["quiet", c],
		    wc["loaded", c], x, t
	}
}' - "$BENCH_RECORDS"
