#!/usr/bin/env bash
# `thatch sync --auto on` through the official MCP client: the server
# pulls a teammate's memories at start and pushes what the agent writes
# while the session goes on (docs/sync.md "Automatic sync").
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../e2e/lib.sh"
. "$here/node.sh"
export THATCH_WARMUP=0 GIT_CONFIG_NOSYSTEM=1
export GIT_AUTHOR_NAME=Tester GIT_AUTHOR_EMAIL=t@example.com
export GIT_COMMITTER_NAME=Tester GIT_COMMITTER_EMAIL=t@example.com
git init -q --bare team.git
for u in A B; do git clone -q team.git "$u/proj" 2>/dev/null || exit 1; done
# the teammate B shares one memory before A's server starts
(cd B/proj && HOME=$TEST_DIR/B THATCH_DB_PATH=$TEST_DIR/B/thatch.db \
    CLAUDE_PROJECT_DIR=$PWD "$THATCH_BIN" mcp >/dev/null 2>&1 <<'REQ'
{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"memory_remember","arguments":{"label":"Release steps","content":"Tag, then run scripts/release."}}}
REQ
)
(cd B/proj && HOME=$TEST_DIR/B THATCH_DB_PATH=$TEST_DIR/B/thatch.db \
    CLAUDE_PROJECT_DIR=$PWD "$THATCH_BIN" sync >/dev/null 2>&1) || exit 1
export CLAUDE_PROJECT_DIR=$TEST_DIR/A/proj SYNC_BARE=$TEST_DIR/team.git
(cd A/proj && "$THATCH_BIN" sync --auto on >/dev/null) || exit 1
run_node sync.test.mjs
finish
