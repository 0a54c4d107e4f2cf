#!/usr/bin/env bash
# Cross-session chat between two real opencode processes (npm opencode-ai
# 1.18.33, offline against tests/hosts/fake-openai.py), each an `opencode
# serve` with its own thatch core, sharing one thatch database: sessions
# register at start, a thatch_chat_send from one wakes the other, idle,
# with a prompt from its own process only, which reads the message; the
# call's transcript echo is a visible, non-synthetic message no model turn
# answers; a session lists the directory; a broadcast; two agents bouncing
# messages are stopped by the rate cap; a session that left is not
# registered again; a killed process's session goes stale; sessions
# starting at once get distinct names. Skipped, with a "skipped" line, when npm cannot install the client.
HOSTS=$(cd "$(dirname "$0")/../hosts" && pwd)
. "$(dirname "$0")/lib.sh"
OC=$HOSTS/opencode/node_modules/.bin/opencode
SEED=$HOSTS/opencode/config-seed
if { [ -x "$OC" ] || (cd "$HOSTS/opencode" && npm install --no-audit --no-fund >/dev/null 2>&1); } &&
   { [ -d "$SEED/node_modules/@opencode-ai/plugin" ] || (cd "$SEED" && npm install --no-audit --no-fund >/dev/null 2>&1); }; then :
else
	echo "skipped: npm could not install opencode-ai"
	finish; exit
fi
export XDG_DATA_HOME=$HOME/.local/share XDG_STATE_HOME=$HOME/.local/state
export OPENCODE_DISABLE_MODELS_FETCH=1 OPENCODE_DISABLE_AUTOUPDATE=1 \
    OPENCODE_DISABLE_LSP_DOWNLOAD=1 OPENCODE_DISABLE_SHARE=1 THATCH_DEBUG=chat
export THATCH_CHAT_TICK_MS=300 THATCH_CHAT_STALE_SECONDS=20 THATCH_CHAT_WAKE_CAP=2
unset OPENCODE_EXPERIMENTAL_BACKGROUND_SUBAGENTS OPENCODE_CONFIG OPENCODE_CONFIG_DIR
REQ=$TEST_DIR/requests
LOG=$XDG_CONFIG_HOME/thatch/debug.log
OCDB=$XDG_DATA_HOME/opencode/opencode.db
pids=()
cleanup() { for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; rm -rf "$TEST_DIR"; }
trap cleanup EXIT

python3 "$HOSTS/fake-openai.py" "$TEST_DIR/port" "$REQ" & pids+=($!)
wait_for "the fake model API is up" 180 test -f "$TEST_DIR/port"
CFG=$XDG_CONFIG_HOME/opencode
mkdir -p "$CFG"
cp "$SEED/package.json" "$SEED/package-lock.json" "$CFG/"
cp -al "$SEED/node_modules" "$CFG/node_modules" 2>/dev/null || cp -a "$SEED/node_modules" "$CFG/node_modules"
cat >"$CFG/opencode.json" <<J
{ "\$schema": "https://opencode.ai/config.json", "model": "fake/mock",
  "provider": { "fake": { "npm": "@ai-sdk/openai-compatible", "name": "Fake",
    "options": { "baseURL": "http://127.0.0.1:$(cat "$TEST_DIR/port")/v1", "apiKey": "dummy" },
    "models": { "mock": { "name": "Mock", "tool_call": true, "limit": { "context": 200000, "output": 8192 } } } } } }
J
mkdir -p proj && cd proj && git init -q
expect_ok "thatch setup --opencode succeeds" thatch setup --opencode

freeport() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
up() { python3 -c 'import socket,sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1)' "$1"; }
p1=$(freeport); p2=$(freeport)
# the second starts once the first has run a session: two opencodes
# creating their database at once race on its migrations, and one exits
"$OC" serve --port "$p1" --hostname 127.0.0.1 >"$TEST_DIR/serve1.out" 2>"$TEST_DIR/serve1.err" & pids+=($!)
wait_for "the first opencode serve listens" 120 up "$p1"
run() { local p=$1; shift; timeout 150 "$OC" run --attach "http://127.0.0.1:$p" "$@" 2>>"$TEST_DIR/run.err"; }
db() { python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); print("\n".join("|".join(map(str,r)) for r in c.execute(sys.argv[2])))' "$THATCH_DB_PATH" "$1"; }
# the text parts opencode stored in session $1 that start with $2, as
# "<synthetic>|<text>" (read-only, with the WAL)
parts() { python3 -c 'import json,sqlite3,sys
c = sqlite3.connect("file:" + sys.argv[1] + "?mode=ro", uri=True)
for (d,) in c.execute("SELECT data FROM part WHERE session_id = ? ORDER BY id", (sys.argv[2],)):
    p = json.loads(d)
    if p.get("type") == "text" and p.get("text", "").startswith(sys.argv[3]):
        print("%s|%s" % (bool(p.get("synthetic")), p["text"].replace("\n", "\\n")))' "$OCDB" "$1" "$2"; }
requests() { cat "$REQ" 2>/dev/null; }

# --- 1. sessions register at start ---------------------------------------------
expect_contains "a first session runs on the first opencode" "$(run "$p1" hello from A)" "ok"
A=$(db "SELECT session_id FROM chat_sessions")
nA=$(db "SELECT name FROM chat_sessions")
expect_contains "it is registered by its own process" "$A|opencode|1" "$(db "SELECT session_id, host_kind, auto FROM chat_sessions")"
"$OC" serve --port "$p2" --hostname 127.0.0.1 >"$TEST_DIR/serve2.out" 2>"$TEST_DIR/serve2.err" & pids+=($!)
serve2=$!
wait_for "the second opencode serve listens" 120 up "$p2"
expect_contains "a second session runs on the second opencode" "$(run "$p2" hello from B)" "ok"
B=$(db "SELECT session_id FROM chat_sessions WHERE session_id <> '$A'")
nB=$(db "SELECT name FROM chat_sessions WHERE session_id = '$B'")
expect_ok "both are registered, under distinct names" test -n "$B" -a "$nA" != "$nB"

# --- 2. a send wakes the idle recipient, which reads it --------------------------
out=$(run "$p1" --session "$A" please chat "$nB" ping from A)
expect_contains "the send's turn completes" "$out" "done"
expect_contains "the model saw the send's result" "$(requests)" "[sent] to $nB ($(printf %.12s "$B"))"
wait_for "the idle recipient gets a wake prompt" 180 sh -c "grep -q '\[thatch\] chat: 1 new message from $nA' '$REQ'"
wait_for "and reads the message with thatch_chat_read" 180 sh -c "grep -qF 'Z]\nping from A' '$REQ'"
expect_eq "the wake prompt is a real user turn in B, once" "False|[thatch] chat: 1 new message from $nA — call thatch_chat_read." \
    "$(parts "$B" "[thatch] chat:")"
expect_eq "nothing wakes the sender" "" "$(parts "$A" "[thatch] chat:")"
wait_for "the send's transcript echo is in A's transcript" 180 sh -c "[ -n \"\$(python3 -c 'import sqlite3,sys; c=sqlite3.connect(\"file:\"+sys.argv[1]+\"?mode=ro\",uri=True); print(c.execute(\"SELECT 1 FROM part WHERE data LIKE ?\", (\"%[chat] $nA%\",)).fetchone() or \"\")' '$OCDB')\" ]"
expect_eq "visible: not synthetic" "False|[chat] $nA → $nB: ping from A" "$(parts "$A" "[chat] $nA →")"
expect_contains "the read's echo is in B's transcript" "$(parts "$B" "[chat]")" "False|[chat] $nB read 1 message"
# an echo lands in the transcript while its turn still runs: a request
# may end with one only right after that turn's tool result, never start
# a turn of its own
expect_eq "no model turn answers an echo" "" "$(python3 -c 'import json,sys
text = lambda m: m.get("content") if isinstance(m.get("content"), str) else \
    " ".join(p.get("text", "") for p in m.get("content") or [])
for l in open(sys.argv[1]):
    m = [x for x in json.loads(l).get("messages", []) if x.get("role") != "system"]
    while m and m[-1].get("role") == "user" and text(m[-1]).startswith("[chat]"):
        m.pop()
        if not m or m[-1].get("role") != "tool": print(l[:300])' "$REQ")"
expect_ok "the check has echoes to look at" test "$(parts "$A" "[chat]" | wc -l)" -ge 1

# --- 2b. the directory as a session lists it -------------------------------------
out=$(run "$p2" --session "$B" please list chat)
list=$(python3 -c 'import json,sys
for l in open(sys.argv[1]):
    for m in json.loads(l).get("messages", []):
        if m.get("role") == "tool" and "participants registered" in str(m.get("content")): r = m["content"]
print(r)' "$REQ")
expect_contains "chat_list in the real client counts both sessions" "$list" "[chat] 2 participants registered"
expect_contains "and marks the caller, fresh" "$list" "- $nB (${B:0:12}) project:proj fresh [you] "
expect_contains "and shows the other, fresh" "$list" "- $nA (${A:0:12}) project:proj fresh "

# --- 3. a broadcast reaches the other session ----------------------------------
out=$(run "$p2" --session "$B" please broadcast standup now)
expect_contains "the broadcast names its recipient" "$(requests)" "[broadcast] to 1 participant\\nrecipients: $nA"
wait_for "the other session is woken and reads it" 180 sh -c "grep -qF 'Z]\nstandup now' '$REQ'"

# --- 4. two agents bouncing messages: the rate cap stops the loop ----------------
run "$p1" --session "$A" please chat "$nB" bounce >/dev/null
wait_for "the loop hits the rate cap" 180 sh -c "grep -q 'chat:ratecap' '$LOG'"
capped=$(sed -n 's/.*\[chat:ratecap\] \([^:]*\):.*/\1/p' "$LOG" | head -n 1)
expect_eq "the capped recipient got exactly two wake prompts" 2 "$(parts "$capped" "[thatch] chat:" | wc -l)"
expect_eq "its mail waits in the inbox, unannounced" 1 "$(db "SELECT count(*) FROM chat_messages WHERE to_session = '$capped' AND delivered_at IS NULL")"

# --- 5. a session that leaves is not registered again ----------------------------
out=$(run "$p1" --session "$A" please leave chat)
expect_contains "unregistering reaches the model" "$(requests)" "[unregistered] $nA left the chat directory."
run "$p1" --session "$A" hello again >/dev/null
expect_eq "the session that left stays out" 0 "$(db "SELECT count(*) FROM chat_sessions WHERE session_id = '$A'")"
expect_contains "the tombstone guard is logged" "$(cat "$LOG")" "[chat:startup] $A left the chat earlier (tombstone)"

# --- 6. sessions starting at once get distinct names ------------------------------
run "$p1" hello from C >/dev/null & c1=$!
run "$p2" hello from D >/dev/null & c2=$!
wait "$c1" "$c2"
expect_eq "with A gone, three sessions stay registered, no name twice" "3|3" "$(db "SELECT count(*), count(DISTINCT lower(name)) FROM chat_sessions")"

expect_not_contains "neither opencode reports an error" "$(cat "$TEST_DIR"/serve*.err "$TEST_DIR/run.err")" "rror"

# --- 7. a killed opencode's session goes stale ------------------------------------
kill -9 "$serve2"; wait "$serve2" 2>/dev/null
stale_b() { thatch chat list --all | grep -q -- "- $nB (.*) opencode project:proj stale"; }
wait_for "the killed process's session is listed stale" 180 stale_b
expect_contains "stale sessions are hidden by default" "$(thatch chat list)" "stale hidden"
finish
