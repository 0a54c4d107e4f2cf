# tests/e2e/lib.sh — sourced by every end-to-end script.
#
# Each script gets a private HOME, XDG dirs, database and queue (like tmux's
# regress/ private sockets), runs the real binary, and counts checks:
#
#   expect_eq "what a user sees" "$expected" "$actual"
#   expect_ok "what a user sees" command args...
#   expect_fail "what a user sees" command args...
#   expect_contains "what" "$haystack" "needle"
#   wait_for "what" 5 command args...      poll with a deadline, never sleep
#   finish                                  prints "e2e <script>: N passed, N failed"
set -u
: "${THATCH_BIN:?run through make check or tests/run}"
: "${THATCH_FIXTURES:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../fixtures" && pwd)}"
TEST_NAME=$(basename "$0" .sh)
TEST_DIR=$(mktemp -d "${TMPDIR:-/tmp}/thatch-$TEST_NAME.XXXXXX")
trap 'rm -rf "$TEST_DIR"' EXIT
export HOME=$TEST_DIR/home
export XDG_CONFIG_HOME=$HOME/.config XDG_CACHE_HOME=$HOME/.cache
export THATCH_DB_PATH=$XDG_CONFIG_HOME/thatch/thatch.db
export THATCH_MODEL=$THATCH_FIXTURES/embed/tiny-bert
export HF_ENDPOINT=http://127.0.0.1:9	# nothing listens: never the network
unset CLAUDE_PROJECT_DIR CURSOR_PROJECT_DIR CLAUDE_CONFIG_DIR CURSOR_CONFIG_DIR \
      THATCH_QUEUE_DIR THATCH_DEBUG HF_HOME HF_TOKEN TMPDIR VISUAL EDITOR
export TMPDIR=$TEST_DIR/tmp
# the sideband's sockets live here (hosts-hooks-cli §6.2); private like
# the real one, so no test meets the user's own servers
export XDG_RUNTIME_DIR=$TEST_DIR/run
mkdir -p "$HOME" "$TMPDIR"
mkdir -m 700 "$XDG_RUNTIME_DIR"
cd "$TEST_DIR" || exit 1
thatch() { "$THATCH_BIN" "$@"; }
_passed=0 _failed=0

_pass() { _passed=$((_passed + 1)); echo "ok   $1"; }
_fail() { _failed=$((_failed + 1)); echo "FAIL $1"; shift; printf '     %s\n' "$@"; }

expect_eq() {
	if [ "$2" == "$3" ]; then _pass "$1"; else
		_fail "$1" "expected:" "$(printf '%s' "$2" | sed 's/^/  |/')" \
		    "actual:" "$(printf '%s' "$3" | sed 's/^/  |/')"; fi
}
expect_contains() {
	if [[ $2 == *"$3"* ]]; then _pass "$1"; else
		_fail "$1" "missing: $3" "in: $(printf '%s' "$2" | head -c 2000)"; fi
}
expect_not_contains() {
	if [[ $2 != *"$3"* ]]; then _pass "$1"; else
		_fail "$1" "unexpected: $3" "in: $(printf '%s' "$2" | head -c 2000)"; fi
}
expect_ok() {
	local what=$1; shift
	local out; out=$("$@" 2>&1); local rc=$?
	if [ $rc -eq 0 ]; then _pass "$what"; else _fail "$what" "exit $rc: $*" "$out"; fi
}
expect_fail() {
	local what=$1; shift
	local out; out=$("$@" 2>&1); local rc=$?
	if [ $rc -ne 0 ]; then _pass "$what"; else _fail "$what" "exit 0: $*" "$out"; fi
}
wait_for() {	# wait_for WHAT SECONDS CMD...: true once CMD succeeds
	local what=$1 secs=$2; shift 2
	local deadline=$((SECONDS + secs))
	until "$@" >/dev/null 2>&1; do
		if [ $SECONDS -ge $deadline ]; then _fail "$what" "timed out after ${secs}s: $*"; return 1; fi
		sleep 0.05
	done
	_pass "$what"
}
finish() {
	echo "e2e $TEST_NAME: $_passed passed, $_failed failed"
	[ $_failed -eq 0 ]
}
