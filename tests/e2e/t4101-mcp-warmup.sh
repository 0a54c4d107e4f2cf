#!/usr/bin/env bash
# The idle warm-up of `thatch mcp`: once initialize is answered and the
# client is quiet, the server loads the model, seeds the default behaviors
# and loads the vector caches, so the first recall and the first hook do
# not pay for them. A busy client is served as before, THATCH_WARMUP=0
# keeps everything lazy, and a model that cannot load is reported once and
# left to the first call that needs it.
. "$(dirname "$0")/lib.sh"

mkdir -p proj && cd proj && git init -q
SRC=$(cd "$THATCH_FIXTURES/../.." && pwd)
NDEFAULTS=$(grep -c '\.key = ' "$SRC/src/text/behaviors.c")
export THATCH_DEBUG=mcp:warm
INIT='{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'

start() {	# start NAME [VAR=value...]: a server on its own database and fifo
	local name=$1; shift
	mkdir -p "$TEST_DIR/$name"
	mkfifo "$TEST_DIR/$name/in"
	env THATCH_DB_PATH="$TEST_DIR/$name/thatch.db" "$@" "$THATCH_BIN" mcp \
	    <"$TEST_DIR/$name/in" >"$TEST_DIR/$name/out" 2>"$TEST_DIR/$name/err" &
	eval "pid_$name=$!"
}
seeded() {	# seeded NAME: the default behaviors in the database's global store
	sqlite3 "$TEST_DIR/$1/thatch.db" \
	    "SELECT COUNT(*) FROM behaviors WHERE store = 'global'" 2>/dev/null || echo 0
}
all_seeded() { [ "$(seeded "$1")" = "$NDEFAULTS" ]; }
answer() {	# answer NAME ID: the text of the tool result with that id
	grep "\"id\":$2[,}]" "$TEST_DIR/$1/out" | python3 -c 'import json,sys
r=json.loads(sys.stdin.readline())["result"]
sys.stdout.write(("ERROR " if r["isError"] else "")+r["content"][0]["text"])'
}
call() {	# call ID TOOL ARGS: a tools/call line
	printf '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"%s","arguments":%s}}' "$1" "$2" "$3"
}

# --- an idle server warms up; one with THATCH_WARMUP=0 stays lazy
start lazy THATCH_WARMUP=0
exec 7>"$TEST_DIR/lazy/in"
start warm
exec 8>"$TEST_DIR/warm/in"
printf '%s\n' "$INIT" >&7
printf '%s\n' "$INIT" >&8
wait_for "both servers answer initialize" 10 \
    grep -q '"id":0,"result"' "$TEST_DIR/lazy/out" "$TEST_DIR/warm/out"
wait_for "an idle server loads the model and seeds the default behaviors" 20 \
    all_seeded warm
wait_for "then it loads the vector caches a recall reads" 20 \
    grep -q 'mcp:warm\] step 2: ok' "$TEST_DIR/warm/debug.log"
expect_eq "with THATCH_WARMUP=0 the database stays unseeded meanwhile" \
    0 "$(seeded lazy)"
expect_eq "and runs no warm-up step" "" "$(cat "$TEST_DIR/lazy/debug.log" 2>/dev/null)"
call 1 memory_recall '{"query":"build"}' >&7; echo >&7
wait_for "the lazy server answers its first recall" 20 grep -q '"id":1,' "$TEST_DIR/lazy/out"
expect_eq "its first model use seeds the defaults" "$NDEFAULTS" "$(seeded lazy)"
call 1 memory_recall '{"query":"build"}' >&8; echo >&8
wait_for "the warmed server answers its first recall" 10 grep -q '"id":1,' "$TEST_DIR/warm/out"
expect_eq "a warmed-up server recalls as usual" "No matching memories found." "$(answer warm 1)"
expect_eq "warming up logs nothing on stderr" "" "$(cat "$TEST_DIR/warm/err")"
exec 7>&- 8>&-
wait "$pid_lazy" "$pid_warm"

# --- a client that never pauses is served in order, warm-up or not
start busy
{
	printf '%s\n' "$INIT"
	call 1 memory_remember '{"label":"build command","content":"Run make -j2.","store":"s"}'; echo
	call 2 memory_recall '{"query":"how to build","store":"s"}'; echo
	call 3 behavior_list '{"store":"global"}'; echo
} >"$TEST_DIR/busy/in"
wait "$pid_busy"
expect_eq "every request right after initialize is answered, in order" "0 1 2 3" \
    "$(grep -o '"id":[0-9]*' "$TEST_DIR/busy/out" | cut -d: -f2 | tr '\n' ' ' | sed 's/ $//')"
expect_eq "the first call stores the memory" "[saved] s :: build command" \
    "$(answer busy 1 | head -1)"
expect_contains "the recall right after it finds it" "$(answer busy 2)" "Run make -j2."
expect_eq "the defaults are seeded when the first call loads the model" "$NDEFAULTS" \
    "$(answer busy 3 | grep -c '^\[0.50 conf, 0 tests\] ')"

# --- a model that cannot load: one warning, the first call reports it
start broken THATCH_MODEL="$TEST_DIR/no-model"
exec 9>"$TEST_DIR/broken/in"
printf '%s\n' "$INIT" >&9
wait_for "a failed warm-up is reported on stderr" 20 \
    grep -q 'warm-up stopped, the model will load on first use' "$TEST_DIR/broken/err"
call 1 memory_recall '{"query":"build"}' >&9; echo >&9
wait_for "the server still answers" 10 grep -q '"id":1,' "$TEST_DIR/broken/out"
expect_contains "the first recall reports the model error as before" \
    "$(answer broken 1)" "ERROR Tool error: model folder"
exec 9>&-
wait "$pid_broken"
expect_eq "the warm-up warning is logged once" 1 \
    "$(grep -c 'warm-up stopped' "$TEST_DIR/broken/err")"
expect_eq "nothing is seeded without a model" 0 "$(seeded broken)"
finish
