# shellcheck shell=sh
# bench/lib.sh — what the benchmark scripts share (sourced, POSIX sh, from
# the repository's root): the random bge-small model, its ONNX export and
# the JavaScript side (transformers.js, Bun) for the comparisons, the load
# generator's lifetime, and the "@" records bench_record prints, tagged
# with the phase they were taken in.

BENCH_MODEL=bench/out/bge-small		# random bge-small, safetensors
BENCH_ONNX=bench/out/bge-small-onnx	# the same weights as ONNX
BENCH_BUN=tests/hosts/original/node_modules/.bin/bun

# The random bge-small model (bench/random-bert), written once.
bench_model() {
	[ -f $BENCH_MODEL/model.safetensors ] && return
	python3 bench/random-bert $BENCH_MODEL --shape bge-small
	# as hub.c does after a download: evict the freshly written file so
	# that the first run caches it in 2 MB folios (src/embed/st.c)
	sync $BENCH_MODEL/model.safetensors
	dd if=$BENCH_MODEL/model.safetensors iflag=nocache count=0 status=none
}

# Why the comparisons with transformers.js cannot run, or nothing: they
# need Debian's python3-onnx (for bench/onnx-bert) and npm (for bench/js).
# Installs bench/js and exports the model when they are missing or stale.
bench_js_missing() {
	if ! /usr/bin/python3 -c 'import onnx' 2>/dev/null; then
		echo "python3-onnx is not installed (apt-get install python3-onnx)"
		return
	fi
	command -v npm >/dev/null || { echo "npm is not installed"; return; }
	if [ ! -d bench/js/node_modules/@huggingface/transformers ] &&
	    ! (cd bench/js && npm ci --ignore-scripts --no-audit --no-fund \
	    >/dev/null 2>&1); then
		echo "npm could not install bench/js (transformers.js)"
		return
	fi
	# shellcheck disable=SC3013 # -nt: dash and bash have it
	[ $BENCH_ONNX/onnx/model.onnx -nt $BENCH_MODEL/model.safetensors ] ||
	    /usr/bin/python3 bench/onnx-bert $BENCH_MODEL $BENCH_ONNX \
	    >/dev/null || echo "bench/onnx-bert failed"
}

# Why the original's side cannot run, or nothing: its runtime is Bun from
# npm (tests/hosts/original), installed as the compatibility tests do.
bench_bun_missing() {
	[ -x $BENCH_BUN ] || (cd tests/hosts/original &&
	    npm install --no-audit --no-fund >/dev/null 2>&1) || true
	$BENCH_BUN --version >/dev/null 2>&1 ||
	    echo "npm could not install Bun, the original's runtime"
}

# load_start: two (one per core) busy processes in the background, for at
# most an hour, gone with this shell even if it is killed (bench/load.c);
# load_stop ends them. $BENCH_LOAD_PID is the generator's.
load_start() {
	build/bench/load -p $$ -t 3600 ${B150_LOAD_PROCS:+-n $B150_LOAD_PROCS} &
	BENCH_LOAD_PID=$!
	sleep 1		# the workers at full speed before the first sample
}
load_stop() {
	[ -n "${BENCH_LOAD_PID:-}" ] || return 0
	kill "$BENCH_LOAD_PID" 2>/dev/null || true
	wait "$BENCH_LOAD_PID" 2>/dev/null || true
	BENCH_LOAD_PID=
}

# in_phase PHASE CMD...: run CMD with its output shown, its "@" records
# appended to $BENCH_RECORDS as "PHASE<TAB>case<TAB>calls<TAB>median<TAB>
# p95<TAB>wall total<TAB>cpu total". A failure is said, and added to
# $BENCH_NOTES, and the run goes on: its cases are missing from the table.
in_phase() {
	_phase=$1
	shift
	{ "$@" || echo "@FAILED $*"; } | awk -v ph="$_phase" \
	    -v rec="$BENCH_RECORDS" -v notes="$BENCH_NOTES" '
	    /^@FAILED/ {
		s = "failed (" ph "): " substr($0, 9)
		print "  " s
		print s >> notes
		next
	    }
	    /^@\t/ { print ph "\t" substr($0, 3) >> rec; next }
	    { print; fflush() }'
}
