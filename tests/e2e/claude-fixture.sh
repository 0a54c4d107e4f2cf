# tests/e2e/claude-fixture.sh — sourced after lib.sh by the tests that run
# the real Claude Code client (npm @anthropic-ai/claude-code, no login):
# CLAUDE is the client, or the test ends with a "skipped" line when npm
# cannot install it (offline); HOSTS is tests/hosts, where the loopback
# fake model API lives. Setup writes the thatch PATH finds into the
# hooks, so the thatch under test goes first on PATH.
HOSTS=$(cd "$(dirname "${BASH_SOURCE[0]}")/../hosts" && pwd)
CLAUDE=$HOSTS/node_modules/.bin/claude
if [ ! -x "$CLAUDE" ] && ! (cd "$HOSTS" && npm install --no-audit --no-fund >/dev/null 2>&1); then
	echo "skipped: npm could not install @anthropic-ai/claude-code"
	finish; exit
fi
mkdir -p "$TEST_DIR/bin" && ln -s "$THATCH_BIN" "$TEST_DIR/bin/thatch" &&
    export PATH=$TEST_DIR/bin:$PATH
export DISABLE_TELEMETRY=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1
