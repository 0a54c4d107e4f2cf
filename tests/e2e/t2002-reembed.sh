#!/usr/bin/env bash
# thatch reembed (docs/store.md "Embedding spaces"): memories saved under
# one model are invisible to search by meaning under a model of another
# dimension until `thatch reembed`; model info and search say so in one
# line; a running server sees the new vectors; a reembed killed with
# SIGKILL leaves every row wholly old or wholly new, and a rerun finishes.
. "$(dirname "$0")/lib.sh"

mkdir -p proj && cd proj && git init -q
export THATCH_PREDICTION_THRESHOLD=2 THATCH_BEHAVIOR_THRESHOLD=2	# the tiny models are random
A=$THATCH_MODEL B=$TEST_DIR/tiny-64
python3 "$THATCH_FIXTURES/../../bench/random-bert" "$B" --shape tiny-64 >/dev/null
db=$THATCH_DB_PATH
q() { sqlite3 -batch -noheader "$db" "$@"; }
init='{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
call() {	# call ID TOOL ARGS-JSON: one tools/call line
	printf '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"%s","arguments":%s}}\n' "$1" "$2" "$3"
}

# model A (32 dimensions) saves three memories
{ echo "$init"
  call 1 memory_remember '{"label":"deploy steps","content":"Deploys run scripts/release.sh, then the smoke tests."}'
  call 2 memory_remember '{"label":"test command","content":"Run make -j2 check before pushing."}'
  call 3 memory_remember '{"label":"tabs","content":"The user prefers tabs in C files.","store":"global"}'
} | thatch mcp >"$TEST_DIR/a.out" 2>/dev/null
expect_eq "model A saved three memories" 3 "$(grep -c '\[saved\]' "$TEST_DIR/a.out")"
expect_contains "model info under A: nothing in another space" \
    "$(thatch model info)" "other space: none"

# model B (64 dimensions): the memories are in another space
export THATCH_MODEL=$B
expect_contains "model info under B counts them" "$(thatch model info)" \
    "other space: 3 memories"
out=$(thatch search --mode=vector "release deploys" all 2>"$TEST_DIR/err")
expect_contains "search by meaning under B finds nothing" "$out" "No matches"
expect_eq "search says so in one line, with the fix" 1 \
    "$(grep -c 'embedded by another model.*thatch reembed' "$TEST_DIR/err")"
expect_contains "the line counts the searched stores' memories" \
    "$(cat "$TEST_DIR/err")" "3 memories here"

# a server under B, started before the reembed, sees the new vectors after it
mkfifo "$TEST_DIR/in"
thatch mcp <"$TEST_DIR/in" >"$TEST_DIR/out" 2>/dev/null &
exec 7>"$TEST_DIR/in"
printf '%s\n' "$init" >&7
recall() {	# recall ID: the text of a vector-only memory_recall's answer
	call "$1" memory_recall '{"query":"release deploys","mode":"vector"}' >&7
	wait_for "recall $1 answers" 20 grep -q '"id":'$1',' "$TEST_DIR/out"
	grep '"id":'$1',' "$TEST_DIR/out" | jq -r '.result.content[0].text'
}
out=$(recall 10)
expect_contains "memory_recall under B finds nothing by meaning" "$out" "No matching memories found."
expect_contains "memory_recall names the fix" "$out" "run \`thatch reembed\`"
expect_not_contains "it says so once per server" "$(recall 11)" "thatch reembed"

out=$(thatch reembed 2>&1)
expect_contains "reembed re-embeds every memory, matcher and item of A" "$out" "Re-embedded"
expect_eq "every memory now has B's tag and dimension" "3|256" \
    "$(q "SELECT count(*), min(length(embedding)) FROM entries WHERE model = '$B'")"
expect_eq "no row of any table is left in A's space" 0 \
    "$(q "SELECT (SELECT count(*) FROM entries WHERE model IS NOT '$B')
	+ (SELECT count(*) FROM behavior_matchers WHERE model IS NOT '$B')
	+ (SELECT count(*) FROM behaviors WHERE model IS NOT '$B')")"
expect_contains "the running server now finds the memory by meaning" "$(recall 12)" "# deploy steps"
exec 7>&-
wait
expect_contains "thatch search finds it" \
    "$(thatch search --mode=vector "release deploys" 2>&1)" "deploy steps"
expect_contains "model info: nothing left in another space" "$(thatch model info)" "other space: none"
expect_contains "a second reembed does nothing" "$(thatch reembed)" "Nothing to re-embed"
expect_contains "--all re-embeds every row anyway" "$(thatch reembed --all proj)" "Re-embedded 2 row(s)"
out=$(script -qec "$THATCH_BIN reembed --all proj" /dev/null </dev/null)
expect_contains "on a terminal, a progress bar counts the rows" "$out" \
    "[thatch] re-embedding [==============================] 100% 2/2 rows"
expect_not_contains "without one, no bar" "$(thatch reembed --all proj 2>&1)" "re-embedding ["
expect_fail "reembed of a store that does not exist fails" thatch reembed no-such-store

# kill -9 mid-run: 300 long memories of A's space, reembedded under B
q "INSERT OR IGNORE INTO stores(name) VALUES ('bulk');
   WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 300)
   INSERT INTO entries (slug, store, label, content, embedding, model)
   SELECT 'n' || i, 'bulk', 'n' || i, '# n' || i || char(10) || char(10) ||
	replace(printf('%.300c', '_'), '_', 'word' || (i % 50) || ' '),
	randomblob(128), '$A' FROM c"
bulk_new() { q "SELECT count(*) FROM entries WHERE store = 'bulk' AND model = '$B'"; }
started() { [ "$(bulk_new)" -gt 0 ]; }
# the binary itself, not the thatch function: a function sent to the
# background is a subshell, and kill -9 of it would leave reembed running
"$THATCH_BIN" reembed bulk >/dev/null 2>&1 &
pid=$!
wait_for "the reembed writes its first batch" 60 started
kill -9 $pid
wait $pid 2>/dev/null
done1=$(bulk_new)
expect_ok "it was killed mid-run" test "$done1" -lt 300
expect_eq "every row is wholly old or wholly new" 300 \
    "$(q "SELECT count(*) FROM entries WHERE store = 'bulk' AND
	((model = '$A' AND length(embedding) = 128) OR (model = '$B' AND length(embedding) = 256))")"
expect_ok "the database is intact" test "$(q 'PRAGMA integrity_check')" = ok
out=$(thatch reembed bulk)
expect_contains "a rerun re-embeds only the rows left" "$out" "Re-embedded $((300 - done1)) row(s)"
expect_eq "then every row is new" 300 \
    "$(q "SELECT count(*) FROM entries WHERE store = 'bulk' AND model = '$B' AND length(embedding) = 256")"
expect_contains "and a third run does nothing" "$(thatch reembed bulk)" "Nothing to re-embed"
finish
