#!/usr/bin/env bash
# tests/fuzz/smoke.sh — run each libFuzzer harness for a while.
#
#   tests/fuzz/smoke.sh [NAME...]     run the harnesses (all by default)
#   tests/fuzz/smoke.sh --available   exit 0 when $FUZZ_CC (clang) links
#                                     -fsanitize=fuzzer
#
# THATCH_FUZZ_DIR holds the harnesses `make fuzzers` built (build-fuzz/fuzz);
# unset or empty, there is nothing to run and the script says so and passes:
# make test sets it only where clang has libFuzzer. Each harness runs for
# FUZZ_TIME seconds (default 12: a smoke, not a search; `make fuzz` is the
# long run), FUZZ_JOBS at a time (default: the core count), from its seeds
# and regression inputs, growing a corpus in FUZZ_WORK/<name> (default: a temporary directory, removed after; `make
# fuzz` keeps build-fuzz/work between runs). A crash, a sanitizer report,
# a failed property, an input slower than 10 s or a leak fails the
# harness; its input is kept in FUZZ_WORK and named in the output, for
# tests/fuzz/regress/<name>/. A harness with an open defect listed in
# tests/fuzz/known-crashes is skipped, since it would only find that
# crash again. The last line counts harnesses, as tests/run adds up:
# "e2e fuzz-smoke: N passed, N failed".
set -u
cd "$(dirname "$0")/../.."
: "${FUZZ_CC:=clang}" "${FUZZ_TIME:=12}" "${FUZZ_JOBS:=$(nproc)}"
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}

if [ "${1:-}" = --available ]; then
	probe=$(mktemp -d)
	trap 'rm -rf "$probe"' EXIT
	printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
	    'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);' \
	    'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)' \
	    '{ (void)d; (void)n; return 0; }' >"$probe/p.c"
	"$FUZZ_CC" -fsanitize=fuzzer,address,undefined -o "$probe/p" \
	    "$probe/p.c" >/dev/null 2>&1
	exit
fi

if [ -z "${THATCH_FUZZ_DIR:-}" ]; then
	echo "skipped: no libFuzzer harnesses built (make test builds them" \
	    "when $FUZZ_CC links -fsanitize=fuzzer; see docs/testing.md)"
	echo "e2e fuzz-smoke: 0 passed, 0 failed"
	exit 0
fi
export THATCH_FIXTURES=$PWD/tests/fixtures
work=${FUZZ_WORK:-}
[ -z "$work" ] && { work=$(mktemp -d); trap 'rm -rf "$work"' EXIT; }
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
	for f in tests/fuzz/fuzz_*.c; do
		n=${f#tests/fuzz/fuzz_}
		names+=("${n%.c}")
	done
fi

# One harness: its verdict lines go to $work/<name>.out, its status
# (ok, fail or skip) to $work/<name>.rc, so that harnesses can run side by
# side and still report in order.
run_one() {
	local n=$1 bin=$THATCH_FUZZ_DIR/$1 out=$work/$1.out known log rc runs
	local dirs d
	if [ ! -x "$bin" ]; then
		echo "FAIL $n: no $bin (make fuzzers)" >"$out"
		echo fail >"$work/$n.rc"
		return
	fi
	known=$(grep -E "^[a-z]+/$n/" tests/fuzz/known-crashes | head -n 1)
	if [ -n "$known" ]; then
		echo "skip $n: open defect in tests/fuzz/known-crashes: $known" \
		    >"$out"
		echo skip >"$work/$n.rc"
		return
	fi
	mkdir -p "$work/$n"
	log=$work/$n.log
	dirs=("$work/$n")	# the first directory is the one libFuzzer grows
	for d in tests/fuzz/corpus/$n tests/fuzz/regress/$n; do
		[ -d "$d" ] && dirs+=("$d")
	done
	"$bin" -max_total_time="$FUZZ_TIME" -timeout=10 -rss_limit_mb=2048 \
	    -artifact_prefix="$work/$n-" -print_final_stats=1 "${dirs[@]}" \
	    >"$log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	if [ $rc -eq 0 ]; then
		echo "ok   $n: ${runs:-?} inputs in ${FUZZ_TIME}s" >"$out"
		echo ok >"$work/$n.rc"
	else
		{ echo "FAIL $n (exit $rc); inputs kept:" "$work/$n"-*
		  grep -E -A 30 '^==[0-9]+==|runtime error|property failed' \
		    "$log" | head -n 60; } >"$out"
		echo fail >"$work/$n.rc"
	fi
}

# Each harness is single-threaded: FUZZ_JOBS of them (one per core by
# default) run at once, which halves the smoke's wall time on two cores.
running=0
for n in "${names[@]}"; do
	run_one "$n" &
	running=$((running + 1))
	if [ $running -ge "$FUZZ_JOBS" ]; then
		wait -n
		running=$((running - 1))
	fi
done
wait

passed=0 failed=0
for n in "${names[@]}"; do
	cat "$work/$n.out"
	case $(cat "$work/$n.rc") in
	ok) passed=$((passed + 1)) ;;
	fail) failed=$((failed + 1)) ;;
	esac
done
echo "e2e fuzz-smoke: $passed passed, $failed failed"
[ $failed -eq 0 ]
