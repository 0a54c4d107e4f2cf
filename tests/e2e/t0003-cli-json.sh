#!/usr/bin/env bash
# --json on stores, list, show, search and hygiene: one JSON document a
# script can rely on (README "Scripting"), and `(archived)` in the plain
# output where the tools show it.
. "$(dirname "$0")/lib.sh"

mkdir proj && cd proj || exit 1		# not a repository: the store is "proj"
mcp() {		# mcp TOOL ARGS-JSON...: run tools/call requests
	local i=0 req=
	while [ $# -gt 0 ]; do
		req+='{"jsonrpc":"2.0","id":'$((i++))',"method":"tools/call","params":{"name":"'$1'","arguments":'$2'}}'$'\n'
		shift 2
	done
	printf '%s' "$req" | thatch mcp >/dev/null 2>&1
}
# py EXPR: evaluate EXPR with the JSON document on stdin as d
py() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }

mcp memory_remember '{"label":"Login flow","content":"Tokens come from the auth service.","branch":"feat/x","confidence":7}' \
    memory_remember '{"label":"Old\nway","content":"We used cookies.","archived":true}'

expect_eq "stores --json is an array of names" "['global', 'proj']" \
	"$(thatch stores --json | py 'd')"
out=$(thatch list --json)
expect_eq "list --json has every memory, archived ones flagged" \
	"[('Login flow', 'feat/x', 7, False), ('Old\\nway', None, None, True)]" \
	"$(py '[(e["label"], e["branch"], e["confidence"], e["archived"]) for e in d]' <<<"$out")"
expect_eq "list --json carries no content" "False" "$(py '"content" in d[0]' <<<"$out")"
expect_eq "list --json of an empty store is []" "[]" "$(thatch list --json nosuch)"
expect_eq "plain list marks the archived memory and escapes its label" \
	'[proj] Old\nway (archived)' "$(thatch list | grep archived | sed 's/ ([0-9T:.Z-]*)//')"

out=$(thatch show --json "Login flow")
expect_eq "show --json has the content and the metadata" \
	"proj login-flow # Login flow\n\nTokens come from the auth service. 0" \
	"$(py 'd["store"], d["slug"], d["content"].replace("\n", "\\n"), d["recall_count"]' <<<"$out" | tr -d "(),'")"
expect_eq "show --json of no memory is null" "null" "$(thatch show --json nothing)"
expect_eq "plain show marks an archived memory" '[proj] Old\nway (archived)' \
	"$(thatch show old-way | head -1)"

out=$(thatch search --json "auth tokens" 2>/dev/null)
expect_eq "search --json names the stores searched and the hits" "['proj'] ['Login flow']" \
	"$(py 'd["stores"], [h["label"] for h in d["hits"]]' <<<"$out" | tr -d '(),' | sed "s/\] \[/] [/")"
expect_ok "each hit has its score" py 'd["hits"][0]["score"] > 0' <<<"$out"
expect_eq "search --json without hits has an empty list" "[]" \
	"$(thatch search --json "anything" global 2>/dev/null | py 'd["hits"]')"

expect_eq "hygiene --json of a tidy store" "proj None 0 0" \
	"$(thatch hygiene --json | py 'd["store"], d["report"], d["duplicate_pairs"], d["stale"]' | tr -d "(),'")"
out=$(THATCH_FAKE_NOW=$(( $(date +%s) * 1000 + 91 * 86400000 )) thatch hygiene --json)
expect_eq "hygiene --json counts stale (live) memories and gives the report line" "1 True" \
	"$(py 'd["stale"], d["report"].startswith("Store \"proj\"")' <<<"$out" | tr -d '(),')"
expect_eq "hygiene --json outside a repository cannot tell deleted branches" "None" \
	"$(thatch hygiene --json | py 'd["deleted_branches"]')"
git init -q -b main . && git -c user.email=t@t -c user.name=t commit -q --allow-empty -m init
expect_eq "hygiene --json names the deleted branches" "[{'branch': 'feat/x', 'memories': 1}]" \
	"$(thatch hygiene --json | py 'd["deleted_branches"]')"
finish
