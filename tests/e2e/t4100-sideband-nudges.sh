#!/usr/bin/env bash
# The sideband between hook commands and a running `thatch mcp`: recall
# nudges through it, the extraction tools over MCP, and every way the
# socket can be unavailable (down, stale, silent, garbage) ending in the
# write nudge instead of a blocked prompt.
. "$(dirname "$0")/lib.sh"

mkdir -p proj && cd proj && git init -q
# the tiny test model's cosines are random: recall always, the engines never
export THATCH_RECALL_THRESHOLD=-1 THATCH_PREDICTION_THRESHOLD=2 THATCH_BEHAVIOR_THRESHOLD=2
Q=$XDG_CACHE_HOME/thatch/queue
# a server's socket (§6.2): thatch-<16 hex of SHA-256(DB_PATH)>.<pid>.<8 hex>.sock
HASH=$(printf '%s' "$THATCH_DB_PATH" | sha256sum | cut -c1-16)
socks() { compgen -G "$XDG_RUNTIME_DIR/thatch-$HASH.*.sock"; }
prompt() { printf '{"session_id":"%s","hook_event_name":"UserPromptSubmit","prompt":"%s"}\n' "$1" "$2"; }
ask() {	# ask LINE: one raw request on the socket, the answer line
	python3 -c 'import socket,sys
s=socket.socket(socket.AF_UNIX); s.settimeout(10); s.connect(sys.argv[1])
s.sendall(sys.argv[2].encode()+b"\n"); b=b""
while not b.endswith(b"\n"):
    c=s.recv(65536)
    if not c: break
    b+=c
sys.stdout.write(b.decode())' "$SOCK" "$1"
}

w=$(prompt s1 "how do I build this project again?" | thatch flush-tools)
expect_contains "without a server the prompt gets the write nudge" "$w" "did you learn"

mkfifo "$TEST_DIR/in"
"$THATCH_BIN" mcp <"$TEST_DIR/in" >"$TEST_DIR/out" 2>"$TEST_DIR/err" &	# $! is the server
mcp_pid=$!
exec 7>"$TEST_DIR/in"
rpc() { printf '%s\n' "$1" >&7; }
rpc '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
rpc '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"memory_remember","arguments":{"label":"build command","content":"Run make -j2 to build the project."}}}'
rpc '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"memory_remember","arguments":{"label":"test command","content":"Run make check for the tests."}}}'
rpc '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"memory_remember","arguments":{"label":"style","content":"KNF with tabs."}}}'
wait_for "the MCP server answers" 20 grep -q '"id":3' "$TEST_DIR/out"
SOCK=$(socks)
expect_eq "the server listens on a socket named for the database and itself" \
    "$XDG_RUNTIME_DIR/thatch-$HASH.$mcp_pid.x.sock" "$(sed -E 's/\.[0-9a-f]{8}\.sock$/.x.sock/' <<<"$SOCK")"
expect_ok "the server's socket is a socket" test -S "$SOCK"
expect_eq "the socket is private to the user" 600 "$(stat -c %a "$SOCK")"
expect_eq "nothing is left in the shared temporary directory" "" "$(ls -A "$TMPDIR")"

r=$(prompt s1 "how do I build this project again?" | thatch flush-tools)
expect_contains "a related prompt gets the recall nudge" "$r" "3 stored memories relate to this prompt"
expect_contains "the recall nudge quotes two labels and says etc." "$r" ', etc.). Use memory_recall'
expect_not_contains "the recall nudge prints no scores" "$r" "0."
r=$(prompt s1 "how do I build this project again?" | THATCH_BEHAVIOR_THRESHOLD=-1 thatch flush-tools)
expect_contains "recall and behaviors come together, a blank line apart" "$r" $'read them before you respond.\n\n[thatch] Situational behaviors\n- ['
expect_contains "a behavior line has the spec's format" "$r" " conf, 0 tests] When "
rc_file=$XDG_CACHE_HOME/thatch/repo/$(printf '%s' "$PWD" | tr -c 'A-Za-z0-9_-' _)
expect_eq "the project store is remembered between prompts" "$PWD"$'\nproj' "$(cat "$rc_file")"
git remote add origin git@github.com:acme/api.git
prompt s1 "how do I build this project again?" | thatch flush-tools >/dev/null
expect_eq "a new remote is noticed on the next prompt" "$PWD"$'\nacme/api' "$(cat "$rc_file")"
git remote remove origin
prompt s1 "how do I build this project again?" | thatch flush-tools >/dev/null
r=$(THATCH_RECALL_THRESHOLD=2 prompt s1 "how do I build this project again?" | THATCH_RECALL_THRESHOLD=2 thatch flush-tools)
expect_contains "nothing above the threshold falls back to the write nudge" "$r" "did you learn"
r=$(prompt s1 "short" | thatch flush-tools)
expect_contains "a prompt under 10 units skips the sideband" "$r" "did you learn"

a=$(ask '{"method":"match","text":"build","stores":["proj","global"],"threshold":null,"limit":2}')
expect_contains "match answers ok with at most limit matches" "$a" '{"ok":true,"matches":[{"label":"'
expect_eq "match honours the limit" 2 "$(grep -o '"label"' <<<"$a" | wc -l)"
expect_eq "a garbage request gets Invalid JSON" '{"ok":false,"error":"Invalid JSON"}' "$(ask 'garbage')"
expect_eq "an unknown method is named" '{"ok":false,"error":"Unknown method: frob"}' \
    "$(ask '{"method":"frob","text":"x","stores":[],"threshold":0,"limit":5}')"
a=$(ask '{"method":"predictions","text":"build the project","stores":["proj","global"],"threshold":0.6,"limit":5}')
expect_contains "predictions answers with an array" "$a" '{"ok":true,"predictions":['
a=$(ask '{"method":"behaviors","text":"build the project","stores":["proj","global"],"threshold":0.6,"limit":5}')
expect_contains "behaviors answers with an array" "$a" '{"ok":true,"behaviors":['
p=$(printf '{"prompt":"how do I build this project again?"}' | thatch flush-predictions --json)
expect_eq "flush-predictions --json with nothing firing is empty context" '{"additional_context":""}' "$p"

# --- the extraction tools over MCP ------------------------------------------
printf '{"session_id":"s9","tool_calls":[{"tool_name":"Bash","tool_input":{"command":"git log --oneline -5"},"tool_response":"abc first"}]}' | thatch buffer-batch
rpc '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"get_extraction_payload","arguments":{"session_id":"s9"}}}'
wait_for "the payload call is answered" 10 grep -q '"id":4' "$TEST_DIR/out"
expect_contains "the payload has the spec's shape" "$(grep '"id":4' "$TEST_DIR/out")" \
    '{\"interactions\":[{\"tool\":\"Bash\",\"title\":\"git log --oneline -5\",\"args\":\"git log --oneline -5\",\"output\":\"abc first\"}],\"projectStore\":\"proj\",\"globalStore\":\"global\"}'
expect_ok "fetching the payload drains nothing" test -f "$Q/s9.jsonl"
rpc '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"get_extraction_payload","arguments":{"session_id":"nobody"}}}'
wait_for "an unknown session is answered" 10 grep -q '"id":5' "$TEST_DIR/out"
expect_contains "an unknown session has nothing queued" "$(grep '"id":5' "$TEST_DIR/out")" "No queued tool interactions found for this session."
rpc '{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"extraction_done","arguments":{"session_id":"s9"}}}'
wait_for "extraction_done is answered" 10 grep -q '"id":6' "$TEST_DIR/out"
expect_contains "extraction_done acknowledges" "$(grep '"id":6' "$TEST_DIR/out")" "[acknowledged]"
expect_fail "extraction_done with a session id drains that queue" test -e "$Q/s9.jsonl"

# --- down, stale, silent -----------------------------------------------------
exec 7>&-
wait "$mcp_pid"
expect_fail "the server removes its socket when stdin ends" test -e "$SOCK"
SOCK=$XDG_RUNTIME_DIR/thatch-$HASH.1.0badf00d.sock
python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' "$SOCK"
expect_ok "a crashed server leaves a socket file behind" test -S "$SOCK"
r=$(prompt s1 "how do I build this project again?" | thatch flush-tools)
expect_contains "a stale socket degrades to the write nudge" "$r" "did you learn"
expect_fail "the stale socket file is removed" test -e "$SOCK"

python3 -c 'import socket,sys,time
s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(8)
open(sys.argv[2],"w").close()
conns=[]
end=time.time()+20
while time.time()<end:
    s.settimeout(end-time.time())
    try: conns.append(s.accept()[0])
    except Exception: break' "$SOCK" "$TEST_DIR/ready" &
silent=$!
wait_for "a silent server is listening" 10 test -e "$TEST_DIR/ready"
r=$(prompt s1 "how do I build this project again?" | thatch flush-tools)
expect_contains "a server that never answers times out into the write nudge" "$r" "did you learn"
expect_ok "a live but slow server keeps its socket" test -S "$SOCK"
kill "$silent" 2>/dev/null; wait "$silent" 2>/dev/null
finish
