#!/usr/bin/env bash
# `thatch search` and `thatch hygiene` from the command line
# (hosts-hooks-cli §1.3, §7.2): scopes, one line per hit, the typing
# mistakes, telemetry, a missing model, and each hygiene signal.
. "$(dirname "$0")/lib.sh"

mkdir proj && cd proj || exit 1		# not a repository: the store is "proj"
mcp() {		# mcp TOOL ARGS-JSON...: run tools/call requests, print texts
	local i=0 req=
	while [ $# -gt 0 ]; do
		req+='{"jsonrpc":"2.0","id":'$((i++))',"method":"tools/call","params":{"name":"'$1'","arguments":'$2'}}'$'\n'
		shift 2
	done
	printf '%s' "$req" | thatch mcp 2>/dev/null
}
mcp memory_remember '{"label":"Login flow","content":"Tokens come from the auth service.","branch":"feat/x","confidence":7}' \
    memory_remember '{"label":"Test runner","content":"Use bun test.","store":"global"}' \
    memory_remember '{"label":"gone","content":"x","store":"empty"}' \
    memory_forget '{"label":"gone","store":"empty"}' >/dev/null

out=$(thatch search "who issues tokens" 2>err); rc=$?
expect_eq "search exits 0" 0 $rc
expect_ok "search prints one line per hit: score, store, branch, confidence, label" \
    grep -Eqx '\[score:-?[0-9]\.[0-9]{3}\] \[proj branch:feat/x c:7\] Login flow' <<<"$out"
expect_eq "without a store, search covers the project store only" 1 "$(wc -l <<<"$out")"
expect_contains "search says on stderr that it loads the model" "$(cat err)" "loading"
out=$(thatch search "tests" all 2>/dev/null)
expect_contains "all adds the global store" "$out" "[global] Test runner"
expect_contains "all keeps the project store" "$out" "[proj branch:feat/x c:7] Login flow"
expect_eq "a named store is searched alone" "[global] Test runner" "$(thatch search tests global 2>/dev/null | sed 's/^\[score:[^]]*\] //')"
expect_eq "no hits names the stores searched" 'No matches for "anything" in [empty].' "$(thatch search anything empty 2>/dev/null)"
expect_eq "a search counts as a recall" 2 \
    "$(sqlite3 "$THATCH_DB_PATH" "SELECT recall_count FROM entries WHERE slug = 'login-flow'")"

out=$(thatch search how do tokens work 2>err); rc=$?
expect_eq "an unquoted query is a usage error (exit 2)" 2 $rc
expect_contains "the refusal says to quote the query" "$(cat err)" "quote"
expect_contains "the refusal shows the quoted command" "$(cat err)" 'thatch search "how do tokens work"'
out=$(thatch search tokens nosuch 2>err); rc=$?
expect_eq "an unknown store is refused with status 1" 1 $rc
expect_eq "nothing is printed on stdout for an unknown store" "" "$out"
expect_contains "the error names the store" "$(cat err)" '"nosuch"'
expect_contains "the error lists the stores" "$(cat err)" "stores: empty, global, proj"
expect_contains "the error is one [thatch search] failed line" "$(cat err)" "[thatch search] failed: no store named"
expect_fail "search without a query is a usage error" thatch search
err=$(THATCH_MODEL=$TEST_DIR/no-model thatch search tokens 2>&1 >/dev/null); rc=$?
expect_eq "a model that cannot load fails with status 1" 1 $rc
expect_contains "the failure is one [thatch search] line" "$err" "[thatch search] failed: "

expect_eq "a tidy store is healthy" "Store is healthy." "$(thatch hygiene)"
mcp memory_remember '{"label":"pool a","content":"the pool holds ten"}' \
    memory_remember '{"label":"pool b","content":"the pool holds ten"}' >/dev/null
expect_ok "near-duplicates are reported" grep -Eq '^Store "proj": [0-9]+ duplicate-candidate pairs? pending review' <<<"$(thatch hygiene)"
expect_contains "memories untouched for 90 days are stale" \
    "$(THATCH_FAKE_NOW=$(( $(date +%s) * 1000 + 91 * 86400000 )) thatch hygiene)" \
    "3 memories neither updated nor recalled in 90+ days"
git init -q -b main . && git -c user.email=t@t -c user.name=t commit -q --allow-empty -m init
expect_contains "memories of deleted branches are reported" "$(thatch hygiene)" \
    "1 memory scoped to deleted branches (feat/x)."
expect_eq "hygiene exits 0" 0 "$(thatch hygiene >/dev/null; echo $?)"
finish
