#!/usr/bin/env bash
# The wrap-up commands through the real opencode (npm opencode-ai 1.18.33,
# `opencode serve` with `opencode run --attach --command`, the loopback
# fake model; engines-and-extras B8): the plugin installs
# /thatch/compact and /thatch/exit; a wrap-up whose last reply carries the
# greenlight token compacts the session (a summarization request reaches
# the model), one without it does nothing, and the mark does not outlive
# its turn (a later plain turn compacts nothing); a green-lit exit asks
# the app to close and its idle is not a "done" alert. Skipped, with a
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
    OPENCODE_DISABLE_LSP_DOWNLOAD=1 OPENCODE_DISABLE_SHARE=1 THATCH_DEBUG=wrapup,alerts,chat
unset OPENCODE_EXPERIMENTAL_BACKGROUND_SUBAGENTS OPENCODE_CONFIG OPENCODE_CONFIG_DIR OPENCODE_DB
REQ=$TEST_DIR/requests
LOG=$XDG_CONFIG_HOME/thatch/debug.log
pids=()
cleanup() { for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; rm -rf "$TEST_DIR"; }
trap cleanup EXIT
# alerts go to fake notifiers that record what they were asked to say
mkdir -p bin
printf '#!/bin/sh\nprintf "%%s\\n" "$*" >>"%s"\n' "$TEST_DIR/alerts" >bin/notify-send
chmod +x bin/notify-send
export PATH=$TEST_DIR/bin:$PATH

python3 "$HOSTS/fake-openai.py" "$TEST_DIR/port" "$REQ" & pids+=($!)
wait_for "the fake model API is up" 180 test -f "$TEST_DIR/port"
CFG=$XDG_CONFIG_HOME/opencode
mkdir -p "$CFG" "$XDG_CONFIG_HOME/thatch"
printf '{"notifications":{"mode":"banner"}}\n' >"$XDG_CONFIG_HOME/thatch/config.json"
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
expect_contains "setup installs the wrap-up commands for opencode" \
    "$(cat "$CFG/command/thatch/compact.md")" "[thatch:greenlight]"

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
URL=http://127.0.0.1:$port
"$OC" serve --port "$port" --hostname 127.0.0.1 >"$TEST_DIR/serve.out" 2>"$TEST_DIR/serve.err" & pids+=($!)
up() { python3 -c 'import socket,sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1)' "$port"; }
wait_for "opencode serve listens" 120 up
run() { timeout 150 "$OC" run --attach "$URL" "$@" 2>>"$TEST_DIR/run.err"; }
summaries() { cat "$REQ" 2>/dev/null | grep -c 'You are a context summarization agent'; }
resolved() { grep -c 'wrapup:resolve.*: \(compact\|exit\), ' "$LOG" 2>/dev/null; }

# --- no token: nothing happens ------------------------------------------------
before=$(summaries)
out=$(run --title Hold --command thatch/compact hold)
expect_contains "the wrap-up turn reaches the model and answers" "$out" "One question needs you first"
expect_contains "the command's text is thatch's wrap-up" "$(grep -v 'You are a title generator' "$REQ" | tail -n 1)" \
    "end your reply with the"
wait_for "the idle resolved the wrap-up" 180 sh -c "[ \"\$(grep -c 'wrapup:resolve.*no token' '$LOG')\" -ge 1 ]"
expect_eq "without the token nothing is compacted" "$before" "$(summaries)"

# --- the token: the session is compacted -------------------------------------
out=$(run --title Go --command thatch/compact)
expect_contains "the green-lit reply" "$out" "[thatch:greenlight]"
wait_for "a green light compacts: a summarization request reaches the model" 180 \
    sh -c "[ \"\$(grep -c 'You are a context summarization agent' '$REQ')\" -gt $before ]"
expect_contains "the core said so" "$(cat "$LOG")" "compact, green light"
sid=$(grep 'compact, green light' "$LOG" | head -n 1 | sed 's/.*\] \(ses_[^:]*\):.*/\1/')
n=$(resolved)
after=$(summaries)
out=$(run --session "$sid" nothing special now)
expect_contains "a later plain turn runs" "$out" "ok"
expect_eq "the mark did not outlive its turn" "$n" "$(resolved)"
expect_eq "and nothing more is compacted" "$after" "$(summaries)"

# --- exit ----------------------------------------------------------------------
out=$(run --title Bye --command thatch/exit)
expect_contains "the exit wrap-up is green-lit" "$out" "[thatch:greenlight]"
wait_for "a green-lit exit asks the app to close" 180 grep -q 'exit, green light' "$LOG"
xsid=$(grep 'exit, green light' "$LOG" | head -n 1 | sed 's/.*\] \(ses_[^:]*\):.*/\1/')
# alerts are labelled by the sessions' chat names (B3)
chat_name() { sed -n "s/.*\[chat:startup\] $1 registered as \(.*\)\$/\1/p" "$LOG" | head -n 1; }
gname=$(chat_name "$sid") xname=$(chat_name "$xsid")
expect_ok "both sessions had chat names" test -n "$gname" -a -n "$xname" -a "$gname" != "$xname"
wait_for "the other turns had their done alerts" 180 grep -qF -- "-- thatch $gname is done" "$TEST_DIR/alerts"
expect_not_contains "the exit's idle is not a done alert" "$(cat "$TEST_DIR/alerts")" "$xname is done"
expect_contains "a session that did not exit stays in the chat directory" "$(thatch chat list --all)" "(${sid:0:12})"
expect_not_contains "the exiting session left the chat directory first" "$(thatch chat list --all)" "(${xsid:0:12})"
expect_not_contains "opencode reports no plugin error" "$(cat "$TEST_DIR/serve.err" "$TEST_DIR/run.err")" "[thatch]"
finish
