#!/usr/bin/env bash
# A database the original wrote opens and reads in thatch, and one thatch
# wrote opens in the original (store-and-tools §1.3), checked with the
# original's own DDL replayed through the sqlite3 CLI.
. "$(dirname "$0")/lib.sh"
FIX=$THATCH_FIXTURES/store
db=$THATCH_DB_PATH
mkdir -p "$(dirname "$db")"
q() { sqlite3 -batch -noheader "$@"; }

# --- an old original's file: no recall_count/last_recalled_at/archived ---
q "$db" <"$FIX/original-old.sql" >/dev/null
q "$db" "INSERT INTO stores (name) VALUES ('acme/api');
INSERT INTO entries (slug, store, label, content, embedding, model, branch,
  confidence, created_at, updated_at) VALUES
 ('login-flow', 'acme/api', 'Login flow', '# Login flow

Tokens are issued by the gateway.', X'0000803F0000003F000080BF',
  'Xenova/bge-small-en-v1.5', 'feat/login', 7,
  '2025-03-07T14:05:09.042Z', '2025-03-08T10:00:00.000Z'),
 ('build', 'acme/api', 'Build', '# Build

make -j2', NULL, NULL, NULL, NULL, '2025-01-01T00:00:00Z',
  '2025-01-01T00:00:00Z');
INSERT INTO dedup_pairs VALUES ('acme/api', 'build', 'login-flow',
  'distinct', '2025-03-09T00:00:00.000Z');"
before=$(q "$db" "SELECT slug, store, label, content, hex(embedding), model,
  branch, confidence, created_at, updated_at FROM entries ORDER BY slug")

out=$(thatch list acme/api)
expect_eq "list reads an old original's file" \
"[acme/api] Build (2025-01-01T00:00:00Z)
[acme/api] Login flow (branch:feat/login) (c:7) (2025-03-08T10:00:00.000Z)" "$out"
expect_eq "opening migrates the three columns onto the end, in order" \
"slug,store,label,content,embedding,model,branch,confidence,created_at,updated_at,recall_count,last_recalled_at,archived" \
	"$(q "$db" "SELECT group_concat(name) FROM pragma_table_info('entries')")"
expect_eq "migration keeps every value of every row" "$before" \
	"$(q "$db" "SELECT slug, store, label, content, hex(embedding), model,
  branch, confidence, created_at, updated_at FROM entries ORDER BY slug")"
expect_eq "migrated rows read as never recalled and not archived" \
	"0||0
0||0" "$(q "$db" "SELECT recall_count, last_recalled_at, archived FROM entries")"
out=$(thatch show 'login flow!' acme/api)
expect_eq "show finds an old row by any spelling of its slug" \
"[acme/api] Login flow
branch: feat/login
confidence: 7
created: 2025-03-07T14:05:09.042Z  updated: 2025-03-08T10:00:00.000Z

Tokens are issued by the gateway." "$out"
expect_eq "forget deletes the row and its verdicts" \
	"[forgotten] acme/api :: Build" "$(thatch forget Build acme/api)"
expect_eq "the verdict went with it" "0" \
	"$(q "$db" "SELECT COUNT(*) FROM dedup_pairs")"
expect_eq "the store row stays" "acme/api
global" "$(thatch stores)"
expect_eq "user_version is never set" "0" "$(q "$db" "PRAGMA user_version")"

# --- a file thatch created, opened by the original ---
rm -rf "$XDG_CONFIG_HOME/thatch"
thatch stores >/dev/null
# thatch's own full-text index (entries_fts, its shadow tables and its
# triggers), its generation (entries_vecgen and its triggers, which keep
# the vector file exact), the entries_list index `list` reads, the
# provenance table thatch_origin and its two triggers (issue 31), and the
# newer original's chat tables (v0.1.30 has none) come
# (with the sqlite_sequence AUTOINCREMENT needs) on top of the original's
# schema, which stays exact
own_schema() {
	q "$1" "SELECT sql || ';' FROM sqlite_master WHERE sql IS NOT NULL
	    AND name NOT LIKE 'entries_fts%' AND name NOT LIKE 'chat%'
	    AND name NOT LIKE 'entries_vecgen%' AND name <> 'entries_list'
	    AND name NOT LIKE 'thatch_origin%'
	    AND name <> 'sqlite_sequence' ORDER BY rowid"
}
schema_thatch=$(q "$db" .schema)
q "$TEST_DIR/orig.db" <"$FIX/original.sql" >/dev/null
expect_eq "thatch creates the original's schema text exactly" \
	"$(own_schema "$TEST_DIR/orig.db")" "$(own_schema "$db")"
expect_eq "thatch adds only its two indexes, its generation, its provenance and eight triggers" \
	"entries_fts entries_fts_ad entries_fts_ai entries_fts_au entries_list entries_vecgen entries_vecgen_ad entries_vecgen_ai entries_vecgen_au thatch_origin thatch_origin_ad thatch_origin_au" \
	"$(q "$db" "SELECT name FROM sqlite_master WHERE name IN
	    ('entries_fts', 'entries_list', 'entries_vecgen', 'thatch_origin')
	    OR type = 'trigger' ORDER BY name" | tr '\n' ' ' | sed 's/ $//')"
expect_eq "thatch's file is in WAL mode" "wal" "$(q "$db" "PRAGMA journal_mode")"
expect_ok "the original's init replays on thatch's file" \
	q "$db" <"$FIX/original.sql"
expect_eq "the replay changes nothing" "$schema_thatch" "$(q "$db" .schema)"
q "$db" "INSERT OR IGNORE INTO stores(name) VALUES ('o/r');
INSERT INTO entries (slug, store, label, content, embedding, model, branch,
  confidence, archived, created_at, updated_at)
VALUES ('a-b', 'o/r', 'A b', '# A b

body', X'0000803F', 'Xenova/bge-small-en-v1.5', NULL, NULL, 0,
  '2025-05-05T05:05:05.005Z', '2025-05-05T05:05:05.005Z')"
expect_eq "a row the original inserts lists in thatch" \
	"[o/r] A b (2025-05-05T05:05:05.005Z)" "$(thatch list o/r)"
lex() { thatch search --mode=lexical "$1" o/r 2>/dev/null | sed 's/^\[score:[^]]*\] //'; }
expect_eq "the original's insert is in the full-text index" "[lexical] [o/r] A b" "$(lex body)"
q "$db" "UPDATE entries SET content = '# A b

fresh text' WHERE slug = 'a-b'"
expect_eq "the original's update leaves its old words unfound" \
	'No matches for "body" in [o/r].' "$(lex body)"
expect_eq "the original's update is indexed" "[lexical] [o/r] A b" "$(lex fresh)"
q "$db" "DELETE FROM entries WHERE slug = 'a-b'"
expect_eq "the original's delete leaves the index" \
	'No matches for "fresh" in [o/r].' "$(lex fresh)"
expect_ok "the full-text index matches the table exactly" \
	q "$db" "INSERT INTO entries_fts(entries_fts) VALUES ('integrity-check')"

expect_eq "thatch creates the four chat tables and the inbox index" \
	"chat_leave_tombstones chat_messages chat_messages_inbox chat_name_counters chat_sessions" \
	"$(q "$db" "SELECT name FROM sqlite_master WHERE name LIKE 'chat%' ORDER BY name" | tr '\n' ' ' | sed 's/ $//')"
expect_eq "chat_sessions has the newer original's columns in its order" \
	"session_id name topic project host_kind registered_at last_seen auto worktree" \
	"$(q "$db" "SELECT name FROM pragma_table_info('chat_sessions')" | tr '\n' ' ' | sed 's/ $//')"
expect_contains "the chat name is case-insensitively unique" \
	"$(q "$db" "INSERT INTO chat_sessions (session_id, name) VALUES ('x1', 'Zed'), ('x2', 'zED')" 2>&1)" "UNIQUE constraint failed"
q "$db" "DELETE FROM chat_sessions"

# --- a chat table from a newer original without COLLATE NOCASE ---
q "$db" "DROP TABLE chat_sessions;
CREATE TABLE chat_sessions (session_id TEXT PRIMARY KEY,
  name TEXT NOT NULL UNIQUE, project TEXT,
  registered_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now')),
  last_seen TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now')));
INSERT INTO chat_sessions (session_id, name) VALUES ('s1', 'Alpha'), ('s2', 'alpha'), ('s3', 'beta')"
thatch stores >/dev/null
expect_contains "the chat name column is rebuilt with COLLATE NOCASE" \
	"$(q "$db" "SELECT sql FROM sqlite_master WHERE name='chat_sessions'")" "COLLATE NOCASE"
expect_eq "names equal but for case collapse to the first" "s1|Alpha
s3|beta" "$(q "$db" "SELECT session_id, name FROM chat_sessions ORDER BY session_id")"
expect_eq "the later columns are added after the rebuild" "4" \
	"$(q "$db" "SELECT COUNT(*) FROM pragma_table_info('chat_sessions') WHERE name IN ('topic', 'host_kind', 'auto', 'worktree')")"
expect_eq "the old rows were the opencode plugin's" "opencode|1" \
	"$(q "$db" "SELECT DISTINCT host_kind, auto FROM chat_sessions")"
expect_eq "thatch chat list reads the rebuilt table" "2" \
	"$(thatch chat list --all | grep -c '^- ')"
expect_eq "the repair is not repeated" "$(q "$db" .schema)" \
	"$(thatch stores >/dev/null; q "$db" .schema)"
finish
