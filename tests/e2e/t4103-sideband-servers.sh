#!/usr/bin/env bash
# Several MCP servers on one database (host-contracts §1.6, hosts-hooks-cli
# §6.2): started and stopped in every order, killed, or flooded with idle
# connections, a hook reaches a live one whenever one runs, a stale socket
# never blocks the next, and a flooded server neither stops serving nor
# spins, even at its descriptor limit.
. "$(dirname "$0")/lib.sh"

mkdir -p proj && cd proj && git init -q
export THATCH_RECALL_THRESHOLD=-1 THATCH_PREDICTION_THRESHOLD=2 THATCH_BEHAVIOR_THRESHOLD=2
HASH=$(printf '%s' "$THATCH_DB_PATH" | sha256sum | cut -c1-16)
INIT='{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
hook() { printf '{"session_id":"s1","hook_event_name":"UserPromptSubmit","prompt":"how do I build this project again?"}' | thatch flush-tools; }
reached() { expect_contains "$1" "$(hook)" "relates to this prompt ("; }
unreached() { expect_contains "$1" "$(hook)" "did you learn"; }
socks() { compgen -G "$XDG_RUNTIME_DIR/thatch-$HASH.${1:-*}.*.sock"; }

# start NAME [ULIMIT_N]: a server whose stdin never ends (the fifo is open
# read-write in the server alone), initialized; its pid in $NAME
start() {
	rm -f "$TEST_DIR/$1.in"
	mkfifo "$TEST_DIR/$1.in"
	(ulimit -n "${2:-1024}" && exec "$THATCH_BIN" mcp <>"$TEST_DIR/$1.in" \
	    >"$TEST_DIR/$1.out" 2>"$TEST_DIR/$1.err") &
	printf -v "$1" %s $!
	printf '%s\n' "$INIT" >"$TEST_DIR/$1.in"
	wait_for "$1 starts and listens" 10 socks "${!1}"
}
stop() {	# what `claude mcp list` does to its health-check server
	kill -TERM "${!1}"
	wait "${!1}"
	expect_eq "$1 stops cleanly and removes its own socket only" "" "$(socks "${!1}")"
}
crash() { kill -KILL "${!1}"; wait "${!1}" 2>/dev/null; }

start A
printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"memory_remember","arguments":{"label":"build command","content":"Run make -j2 to build the project."}}}' >"$TEST_DIR/A.in"
wait_for "a memory is stored" 20 grep -q '"id":1' "$TEST_DIR/A.out"
reached "A alone serves the hook"
start B
reached "A and B up: the hook is served"
stop A
reached "A up, B up, A down: the hook reaches B"
stop B
unreached "both down: the write nudge"
expect_eq "no socket is left behind" "" "$(socks)"

start A; start B
stop B
reached "A up, B up, B down: the hook reaches A"
stop A
start B
reached "A down, then B up: the hook reaches B"
start A
stop B
reached "B up, A up, B down: the hook reaches A"
stop A

start A; start B
crash A
expect_ok "a killed server leaves its socket behind" socks "$A"
reached "A killed under B: the hook reaches B"
expect_eq "the hook removed the stale socket" "" "$(socks "$A")"
crash B
unreached "B killed too: the write nudge"
expect_eq "and its stale socket is gone" "" "$(socks)"
start C
crash C
start D
reached "a server starts beside a stale socket and is reached"
expect_eq "only the live server's socket is left" "$(socks "$D")" "$(socks)"
stop D

start A; start B; start C; start D
stop C
reached "four up, the third down: served"
stop A
reached "the first down: served"
stop D
reached "the last down: B alone serves"
stop B
unreached "all down: the write nudge"

# --- idle floods ---------------------------------------------------------
# flood.py SOCKET N READY: hold N idle connections, touch READY, then print
# how many the server closed within 20 s
cat >"$TEST_DIR/flood.py" <<'PY'
import select, socket, sys, time
path, n, ready = sys.argv[1], int(sys.argv[2]), sys.argv[3]
conns = set()
for _ in range(n):
    s = socket.socket(socket.AF_UNIX)
    s.connect(path)	# blocking: waits while the backlog is full
    conns.add(s)
open(ready, "w").close()
end = time.time() + 20
while conns and time.time() < end:
    for s in select.select(list(conns), [], [], 1)[0]:
        try:
            if s.recv(1):
                continue
        except OSError:
            pass
        conns.discard(s)
print(n - len(conns))
PY
cpu() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }	# utime + stime, ticks
flood() {	# flood WHAT SERVER: 200 idle connections against a served hook
	local before after
	rm -f "$TEST_DIR/ready"
	python3 "$TEST_DIR/flood.py" "$(socks "$2")" 200 "$TEST_DIR/ready" >"$TEST_DIR/closed" &
	local pid=$!
	wait_for "$1: 200 idle connections are open" 15 test -e "$TEST_DIR/ready"
	before=$(cpu "$2")
	sleep 1		# the measurement window, not a wait for a state
	after=$(cpu "$2")
	expect_ok "$1: the server idles (CPU $((after - before)) ticks in 1 s)" \
	    test $((after - before)) -lt 10
	reached "$1: a hook is still served"
	wait "$pid"
	expect_eq "$1: the server hangs up on every idle connection" 200 "$(cat "$TEST_DIR/closed")"
}
start F
reached "F serves before the flood"
flood "at the client cap" "$F"
stop F
start G 40
reached "a server with 40 descriptors serves before the flood"
flood "at the descriptor limit" "$G"
stop G
finish
