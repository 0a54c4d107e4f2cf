#!/usr/bin/env bash
# `thatch hygiene --list` names the memories behind each signal, in plain
# text and --json, with counts that match the report line; `thatch queue`
# shows what waits for extraction without draining or rewriting anything
# (issue 15).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/hygiene-fixture.sh"
py() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }

line='Store "acme/api": 1 duplicate-candidate pair pending review; 2 memories neither updated nor recalled in 90+ days; 1 memory scoped to deleted branches (feat/gone).'
expect_eq "plain hygiene is the one report line" "$line" "$(thatch hygiene)"
expect_eq "hygiene --list names the memories behind each signal" "$line

Duplicate-candidate pairs pending review (1):
  \"pool a\" ↔ \"pool b\" (similarity 1)
Memories neither updated nor recalled in 90+ days (2):
  \"Old fact\" (updated 2024-01-01T00:00:00.000Z, last recalled never)
  \"Recalled once\" (updated 2024-01-01T00:00:00.000Z, last recalled 2024-02-01T00:00:00.000Z)
Memories scoped to deleted branches (1):
  \"Gone work\" (branch feat/gone)" "$(thatch hygiene --list)"
expect_eq "hygiene --list exits 0" 0 "$(thatch hygiene --list >/dev/null; echo $?)"

json=$(thatch hygiene --list --json)
expect_eq "--list --json names the duplicate pairs with their similarity" \
    "[{'label_a': 'pool a', 'label_b': 'pool b', 'similarity': 1}]" "$(py 'd["duplicates"]' <<<"$json")"
expect_eq "--list --json names the stale memories with updated and last recalled" \
    "[('Old fact', '2024-01-01T00:00:00.000Z', None), ('Recalled once', '2024-01-01T00:00:00.000Z', '2024-02-01T00:00:00.000Z')]" \
    "$(py '[(m["label"], m["updated_at"], m["last_recalled_at"]) for m in d["stale_memories"]]' <<<"$json")"
expect_eq "--list --json names the orphaned memories with their branch" \
    "[{'label': 'Gone work', 'branch': 'feat/gone'}]" "$(py 'd["orphaned_memories"]' <<<"$json")"
expect_eq "the lists are as long as the counts" "True" \
    "$(py 'len(d["duplicates"]) == d["duplicate_pairs"] and len(d["stale_memories"]) == d["stale"] and len(d["orphaned_memories"]) == sum(b["memories"] for b in d["deleted_branches"])' <<<"$json")"
expect_eq "--json without --list keeps its shape" "False" \
    "$(thatch hygiene --json | py '"duplicates" in d')"

sqlite3 "$THATCH_DB_PATH" "INSERT INTO dedup_pairs (store, slug_a, slug_b, status, checked_at) VALUES ('acme/api', 'pool-a', 'pool-b', 'unrelated', 't')"
expect_not_contains "a pair with a verdict is no longer listed" "$(thatch hygiene --list)" "pool a"
expect_eq "outside a repository the orphans cannot be told" "" \
    "$(mkdir -p norepo && CLAUDE_PROJECT_DIR=$TEST_DIR/norepo thatch hygiene --list | grep 'deleted branches')"
expect_eq "a healthy store is still exactly 'Store is healthy.'" "Store is healthy." \
    "$(CLAUDE_PROJECT_DIR=$TEST_DIR/norepo thatch hygiene --list)"

# the advice the agent reads points at the list
expect_contains "the reminder's advice points at thatch hygiene --list" \
    "$(thatch reminder </dev/null)" "thatch hygiene --list"

# --- queue ----------------------------------------------------------------
Q=$XDG_CACHE_HOME/thatch/queue
expect_eq "an empty queue says so" "Nothing queued for extraction." "$(thatch queue)"
batch() {
	printf '{"session_id":"%s","cwd":"%s","hook_event_name":"PostToolBatch","tool_calls":%s}\n' "$1" "$TEST_DIR/proj" "$2"
}
batch sess-b '[{"tool_name":"Read","tool_input":{"file_path":"/repo/src/main.c"},"tool_response":"x"},{"tool_name":"Bash","tool_input":{"command":"make -j2 test"},"tool_response":"ok"}]' | thatch buffer-batch
batch "sess a/1" '[{"tool_name":"Grep","tool_input":{"pattern":"TODO"},"tool_response":"none"}]' | thatch buffer-batch
echo 2 >"$Q/sess-b.count"
before=$(cd "$Q" && ls -li --full-time | cksum; cat ./* | cksum)
expect_eq "queue shows every session: id, count, missed nudges, the calls' titles" \
"sess-b: 2 queued, 2 missed nudges
  Read  main.c
  Bash  make -j2 test

sess a/1: 1 queued, 0 missed nudges
  Grep  TODO" "$(thatch queue)"
expect_eq "queue <session> shows that session only" \
"sess-b: 2 queued, 2 missed nudges
  Read  main.c
  Bash  make -j2 test" "$(thatch queue sess-b)"
expect_eq "a session with nothing queued says so" "Nothing queued for session nope." "$(thatch queue nope)"
expect_eq "looking drained nothing and rewrote nothing" "$before" \
    "$(cd "$Q" && ls -li --full-time | cksum; cat ./* | cksum)"
expect_contains "the next prompt still gets the extraction nudge" \
    "$(printf '{"session_id":"sess-b","cwd":"%s","hook_event_name":"UserPromptSubmit","prompt":"go on"}' "$TEST_DIR/proj" | thatch flush-tools)" \
    "queued tool interactions"
ln -s /etc/passwd "$Q/planted.jsonl"
expect_not_contains "a symlink planted as a queue is not followed" "$(thatch queue)" "planted"
finish
