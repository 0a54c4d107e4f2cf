# tests/mcp/node.sh — sourced by the tests/mcp/t*.sh scripts after
# tests/e2e/lib.sh: installs the official MCP client from npm when
# tests/mcp/node_modules is missing (CI starts from a clean checkout) and
# runs a node test, counting its "ok"/"FAIL" lines as checks.
MCP_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

mcp_deps() {
	[ -d "$MCP_DIR/node_modules/@modelcontextprotocol/sdk" ] && return 0
	(cd "$MCP_DIR" && npm install --no-audit --no-fund >/dev/null 2>&1)
}

run_node() {	# run_node SCRIPT.mjs: run it, count its checks
	local out line
	if ! mcp_deps; then _fail "the MCP client installs from npm"; return; fi
	out=$(cd "$MCP_DIR" && node "$MCP_DIR/$1" 2>&1)
	local rc=$?
	while IFS= read -r line; do
		case $line in
		"ok   "*) _pass "${line#ok   }" ;;
		"FAIL "*) _failed=$((_failed + 1)); echo "$line" ;;
		*) echo "$line" ;;
		esac
	done <<<"$out"
	[ $rc -eq 0 ] || _fail "$1 runs to its end" "exit $rc"
}
