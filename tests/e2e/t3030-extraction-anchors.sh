#!/usr/bin/env bash
# Anchors without asking (issue 29): the extraction payload names, per
# queued tool call, the files it read, edited or searched in (Claude
# Code's Read/Edit/Write/MultiEdit file_path, Grep/Glob path; opencode's
# filePath), relative to the repository, each once; a path outside the
# repository is left out. Through the PostToolUse hook and the MCP server,
# as the fact extractor uses them: the files come back as anchors.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
py() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }

git init -q -b main proj
mkdir -p proj/src
printf 'int\nretry(void)\n{\n\treturn 3;\n}\n' >proj/src/retry.c
git -C proj add -A && git -C proj -c user.email=t@t -c user.name=t commit -qm init
export CLAUDE_PROJECT_DIR=$TEST_DIR/proj
cd proj || exit 1
post() {	# post TOOL INPUT-JSON: one PostToolUse as Claude Code sends it
	printf '{"session_id":"s-anch","transcript_path":"/t.jsonl","cwd":"%s","hook_event_name":"PostToolUse","tool_name":"%s","tool_input":%s,"tool_use_id":"toolu_%s","tool_response":"ok"}\n' \
	    "$PWD" "$1" "$2" "$RANDOM" | thatch buffer-tool >/dev/null 2>&1
}
post Read '{"file_path":"'"$PWD"'/src/retry.c"}'
post MultiEdit '{"file_path":"'"$PWD"'/src/retry.c","edits":[]}'
post Grep '{"pattern":"retry","path":"src"}'
post Read '{"file_path":"/etc/hostname"}'
post Bash '{"command":"make"}'
mcp() {		# mcp TOOL ARGS-JSON...: one MCP session, its tools/call answers
	local i=0 req=
	while [ $# -gt 0 ]; do
		req+='{"jsonrpc":"2.0","id":'$((i++))',"method":"tools/call","params":{"name":"'$1'","arguments":'$2'}}'$'\n'
		shift 2
	done
	printf '%s' "$req" | THATCH_WARMUP=0 thatch mcp 2>/dev/null
}
payload=$(mcp get_extraction_payload '{"session_id":"s-anch"}' |
    py 'd["result"]["content"][0]["text"].partition("{")[1] + d["result"]["content"][0]["text"].partition("{")[2]')
files() { printf '%s' "$payload" | py '"|".join(",".join(i.get("files", [])) for i in d["interactions"])'; }
expect_eq "each call names its files, repository-relative; none outside it or for Bash" \
    "src/retry.c|src/retry.c|src||" "$(files)"
anchors=$(printf '%s' "$payload" | py 'json.dumps(sorted({f for i in d["interactions"] for f in i.get("files", []) if "." in f}))')
expect_eq "the extractor's anchors" '["src/retry.c"]' "$anchors"
mcp memory_remember '{"label":"Retry count","content":"retry() tries three times","anchors":'"$anchors"'}' >/dev/null
expect_eq "the memory saved after reading the file is anchored, fresh" \
    "src/retry.c $(git hash-object src/retry.c) fresh" \
    "$(thatch show "Retry count" --json | py '" ".join([d["anchors"][0][k] for k in ("spec", "blob", "state")])')"
expect_contains "the fact extractor is told to pass them" \
    "$(cat "$here/../../src/text/skills/thatch-fact-extractor.md")" '`files`'
finish
