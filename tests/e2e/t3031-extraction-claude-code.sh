#!/usr/bin/env bash
# Anchors without asking, through the real Claude Code client (npm
# @anthropic-ai/claude-code, no login, a loopback fake model API scripted
# by $FAKE_ANTHROPIC_SCRIPT; issue 29): in one `claude -p` turn the model
# reads a file of a git repository, fetches the extraction payload the
# PostToolBatch hook queued for its session, and saves a memory with the
# payload's files as anchors. The memory is anchored, fresh, on that file;
# once the file is edited and committed, search marks it drifted. Skipped,
# with a "skipped" line, when npm cannot install the client (offline).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/claude-fixture.sh"
# a loaded machine may start the MCP server slowly: wait for its tools
export MCP_TIMEOUT=60000
py() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
g() { git -C "$TEST_DIR/proj" -c user.email=t@t -c user.name=t "$@"; }

git init -q -b main proj
mkdir -p proj/src
printf 'int\nretry(void)\n{\n\treturn 3;\n}\n' >proj/src/retry.c
g add -A && g commit -qm init
cd proj || exit 1
thatch setup --claude >/dev/null 2>&1
printf '{"projects":{"%s":{"hasTrustDialogAccepted":true}}}\n' "$PWD" >"$HOME/.claude.json"

# the model's turns: "$session" and "$files" are filled from the request
cat >"$TEST_DIR/script.json" <<JSON
[{"tool": "Read", "input": {"file_path": "$PWD/src/retry.c"}},
 {"tool": "mcp__thatch__get_extraction_payload", "input": {"session_id": "\$session"}},
 {"tool": "mcp__thatch__memory_remember", "input": {"label": "Retry count",
  "content": "retry() tries three times", "anchors": "\$files"}}]
JSON
FAKE_ANTHROPIC_SCRIPT=$TEST_DIR/script.json \
    python3 "$HOSTS/fake-anthropic.py" "$TEST_DIR/port" "$TEST_DIR/requests" &
api=$!
wait_for "the fake model API is up" 10 test -f "$TEST_DIR/port"
res=$(ANTHROPIC_BASE_URL=http://127.0.0.1:$(cat "$TEST_DIR/port") ANTHROPIC_API_KEY=dummy \
    timeout 120 "$CLAUDE" -p "how many times does retry() try?" --output-format json \
    --allowedTools Read mcp__thatch__get_extraction_payload mcp__thatch__memory_remember 2>&1)
kill "$api" 2>/dev/null; wait "$api" 2>/dev/null
expect_contains "the turn completes" "$res" '"subtype":"success"'
req=$(cat "$TEST_DIR/requests")
expect_contains "the payload names the file read, repository-relative" "$req" \
    '\"files\":[\"src/retry.c\"]'
expect_eq "the memory saved through extraction is anchored on it, fresh" \
    "src/retry.c $(git hash-object src/retry.c) fresh" \
    "$(thatch show "Retry count" --json | py '" ".join([d["anchors"][0][k] for k in ("spec", "blob", "state")])')"

sed -i 's/return 3/return 5/' src/retry.c
g commit -qam "retry five times"
expect_contains "once the file changes, search marks the memory drifted" \
    "$(thatch search "retry tries" 2>/dev/null)" "Retry count [code changed: src/retry.c]"
finish
