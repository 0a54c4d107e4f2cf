#!/usr/bin/env bash
# What `thatch setup --claude` writes, run by the real Claude Code client
# (npm @anthropic-ai/claude-code, no login, a loopback fake model API):
# `claude mcp list` connects to the server, and a `claude -p` turn runs
# the SessionStart, PostToolBatch and UserPromptSubmit hooks, whose text
# reaches the model; `claude -p /thatch:defrag` expands the command file
# setup wrote. Skipped, with a "skipped" line, when npm cannot
# install the client (offline).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/claude-fixture.sh"
mkdir -p proj && cd proj && git init -q
thatch setup --claude >/dev/null 2>&1
printf '{"projects":{"%s":{"hasTrustDialogAccepted":true}}}\n' "$PWD" >"$HOME/.claude.json"

out=$(timeout 120 "$CLAUDE" mcp list 2>&1)
expect_contains "claude mcp list reports the thatch server connected" "$out" "thatch: "
expect_contains "claude mcp list says Connected" "$(grep '^thatch:' <<<"$out")" "Connected"

python3 "$HOSTS/fake-anthropic.py" "$TEST_DIR/port" "$TEST_DIR/requests" &
api=$!
wait_for "the fake model API is up" 10 test -f "$TEST_DIR/port"
res=$(ANTHROPIC_BASE_URL=http://127.0.0.1:$(cat "$TEST_DIR/port") ANTHROPIC_API_KEY=dummy \
    timeout 120 "$CLAUDE" -p "please run the echo command for me" \
    --allowedTools "Bash(echo:*)" --output-format json 2>&1)
kill "$api" 2>/dev/null; wait "$api" 2>/dev/null
expect_contains "the turn completes" "$res" '"subtype":"success"'
req=$(cat "$TEST_DIR/requests")
expect_not_contains "Claude Code accepts the settings file" "$res" "Settings Error"
expect_contains "the SessionStart reminder reaches the model" "$req" 'SessionStart:startup hook success: [thatch] Before you respond'
expect_contains "the UserPromptSubmit nudge reaches the model" "$req" 'UserPromptSubmit hook success: [thatch]'
expect_contains "the PostToolBatch hook queued the tool call" \
    "$(cat "$XDG_CACHE_HOME"/thatch/queue/*.jsonl 2>/dev/null)" '"tool":"Bash"'

# The /thatch:<action> command files: Claude Code expands one into the
# prompt the model receives.
rm -f "$TEST_DIR/port" "$TEST_DIR/requests"
python3 "$HOSTS/fake-anthropic.py" "$TEST_DIR/port" "$TEST_DIR/requests" &
api=$!
wait_for "the fake model API is up again" 10 test -f "$TEST_DIR/port"
res=$(ANTHROPIC_BASE_URL=http://127.0.0.1:$(cat "$TEST_DIR/port") ANTHROPIC_API_KEY=dummy \
    timeout 120 "$CLAUDE" -p "/thatch:defrag" --output-format json 2>&1)
kill "$api" 2>/dev/null; wait "$api" 2>/dev/null
expect_contains "the /thatch:defrag turn completes" "$res" '"subtype":"success"'
req=$(cat "$TEST_DIR/requests")
expect_contains "Claude Code expands /thatch:defrag into the action's text" "$req" \
    "Consolidate this project's thatch store"
expect_contains "the expanded action names Claude Code's tool spelling" "$req" \
    'mcp__thatch__find_duplicates'
finish
