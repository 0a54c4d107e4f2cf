#!/usr/bin/env bash
# thatch inside the real opencode (npm opencode-ai 1.18.33, offline: a
# loopback fake of the OpenAI Chat Completions API is its model), set up by
# `thatch setup --opencode`: opencode accepts the config and loads the
# plugin; the system prompt and the thatch_* tools reach the model; a bash
# call lands in the buffer; the idle parent starts a child extraction
# session whose memory lands in the store, draining the buffer; a
# later prompt carries the recall nudge; a thatch_memory_remember by the
# model saves and drains; a killed opencode loses no buffered call.
# One `opencode serve` with `opencode run --attach` turns (under plain
# `run` the process exits before a child's turn). Skipped, with a
# "skipped" line, when npm cannot install the client.
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
    OPENCODE_DISABLE_LSP_DOWNLOAD=1 OPENCODE_DISABLE_SHARE=1 THATCH_DEBUG=opencode
unset OPENCODE_EXPERIMENTAL_BACKGROUND_SUBAGENTS OPENCODE_CONFIG OPENCODE_CONFIG_DIR
Q=$XDG_CACHE_HOME/thatch/queue/opencode
REQ=$TEST_DIR/requests
pids=()
cleanup() { for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; rm -rf "$TEST_DIR"; }
trap cleanup EXIT

python3 "$HOSTS/fake-openai.py" "$TEST_DIR/port" "$REQ" & pids+=($!)
wait_for "the fake model API is up" 10 test -f "$TEST_DIR/port"
# opencode npm-installs its plugin SDK into the user config folder at every
# start; a copy of that install spares each start the registry round trip
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

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
URL=http://127.0.0.1:$port
"$OC" serve --port "$port" --hostname 127.0.0.1 >"$TEST_DIR/serve.out" 2>"$TEST_DIR/serve.err" & pids+=($!)
serve=$!
up() { python3 -c 'import socket,sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1)' "$port"; }
wait_for "opencode serve listens" 120 up
run() { timeout 150 "$OC" run --attach "$URL" "$@" 2>>"$TEST_DIR/run.err"; }
requests() { cat "$REQ" 2>/dev/null; }
last_turn() { grep -v 'You are a title generator' "$REQ" | tail -n 1; }
sessions() { ls "$Q" 2>/dev/null | grep -c '\.json$'; }

# --- 1. a bash call: system prompt, tools, buffer, then the child extraction ---
out=$(run please run bash)
expect_contains "the turn completes" "$out" "done"
expect_not_contains "opencode reports no config or plugin error" "$(cat "$TEST_DIR/serve.err" "$TEST_DIR/run.err")" "rror"
req=$(last_turn)
expect_contains "the system prompt reaches the model" "$req" "Thatch provides persistent memory across opencode sessions"
expect_contains "the system prompt names the detected store" "$req" 'The project store is \"proj\"'
expect_contains "the system prompt has the Before Responding rule" "$req" "## Before Responding"
expect_contains "the thatch tools reach the model" "$req" '"name":"thatch_memory_remember"'
expect_contains "with the MCP schema (optional arguments optional)" \
    "$(python3 -c 'import json,sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    for t in r.get("tools") or []:
        f = t["function"]
        if f["name"] == "thatch_memory_remember": print(sorted(f["parameters"].get("required", [])))' "$REQ" | tail -n 1)" "['content', 'label']"
expect_contains "the bash call ran" "$(requests)" "thatch-e2e-marker\\n"
wait_for "the idle parent's child extracts a memory into the store" 120 \
    sh -c "'$THATCH_BIN' list proj 2>/dev/null | grep -q 'shell marker'"
expect_contains "the child fetched the buffered bash call" "$(requests)" 'echo thatch-e2e-marker\",\"output\":\"thatch-e2e-marker'
wait_for "the finished child's buffer is drained" 30 sh -c "[ \$(ls '$Q' 2>/dev/null | wc -l) -eq 0 ]"
expect_contains "the child prompt reached the model" "$(requests)" "Direct extraction for session ses_"

# --- 2. a later prompt carries the recall nudge; the model saves ------------
out=$(run please remember the deploy target)
expect_contains "the remember turn completes" "$out" "done"
req=$(last_turn)
expect_contains "the recall nudge reaches the model" "$req" '[thatch] 1 stored memory relates to this prompt'
expect_contains "the nudge names the extracted memory" "$req" '(\"shell marker\")'
expect_contains "the nudge uses opencode's tool names" "$req" 'Use thatch_memory_recall'
first=$(grep -v 'You are a title generator' "$REQ" | grep -m1 'please run bash')
expect_contains "the first prompt's request is found" "$first" "please run bash"
expect_not_contains "the first prompt, on an empty store, had no recall nudge" "$first" "to this prompt ("
expect_contains "the session-start reminder reached the model" "$(requests)" "[thatch] Before you respond, recall"
expect_contains "the model's memory is saved" "$("$THATCH_BIN" list proj)" "deploy target"
expect_eq "a memory write leaves nothing buffered" 0 "$(sessions)"

# --- 3. a killed opencode loses no buffered interaction -----------------------
run please run bash slowly >/dev/null &
slow=$!
wait_for "the slow turn's bash call is buffered" 120 sh -c "grep -qs 'thatch-e2e-marker' '$Q'/*.json"
kill -9 "$serve" "$slow" 2>/dev/null
wait "$serve" 2>/dev/null
wait "$slow" 2>/dev/null
f=$(grep -ls 'thatch-e2e-marker' "$Q"/*.json | head -n 1)
sid=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["entries"][0]["rec"]["sessionID"])' "$f")
pay=$(printf '{"id":1,"op":"tool","name":"thatch_get_extraction_payload","args":{"session_id":"%s"},"sessionID":"x"}\n' "$sid" |
    THATCH_WARMUP=0 "$THATCH_BIN" opencode)
expect_contains "a new core reads the killed session's call back" "$pay" 'echo thatch-e2e-marker'
finish
