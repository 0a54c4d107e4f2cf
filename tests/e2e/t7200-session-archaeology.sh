#!/usr/bin/env bash
# `thatch session list|get|transcript|search` and the opencode tools
# session_search / session_get, against the database the real opencode
# wrote (tests/hosts/opencode-sessions.sh: a bash call, a task child, an
# attached file, another directory): list order and filters; get of a
# session with tool parts and a child; a transcript in chat-completions
# shape (tool_calls followed by their tool messages); search of decoded
# content, never JSON keys; the newest rows read from the WAL; the
# database's bytes unchanged; clear errors for a missing database and an
# older schema; the tools through the real opencode. Skipped, with a
# "skipped" line, when npm cannot install the client.
HOSTS=$(cd "$(dirname "$0")/../hosts" && pwd)
. "$(dirname "$0")/lib.sh"
export TZ=UTC XDG_DATA_HOME=$HOME/.local/share
W=$TEST_DIR/w
bash "$HOSTS/opencode-sessions.sh" "$W"
rc=$?
if [ $rc -eq 3 ]; then
	echo "skipped: npm could not install opencode-ai"
	finish; exit
fi
expect_eq "the real opencode wrote the fixture sessions" 0 "$rc"
[ $rc -eq 0 ] || { cat "$W/run.err" | tail -20; finish; exit; }
DB=$XDG_DATA_HOME/opencode/opencode.db
dig=$(awk '/^dig/{print $2}' "$W/ids")
notes=$(awk '/^notes/{print $2}' "$W/ids")
other=$(awk '/^other/{print $2}' "$W/ids")
sums() { sha256sum "$DB" "$DB-wal"; }
before=$(sums)
unset OPENCODE_DB

# --- list -------------------------------------------------------------------
cd "$W/proj"
out=$(thatch session list)
expect_eq "list: this directory's top-level sessions, newest first" \
    "$notes $dig" "$(cut -d' ' -f1 <<<"$out" | paste -sd' ')"
expect_contains "list: a line has the updated time, title and directory" \
    "$out" "  Dig the archive  ($W/proj)"
[[ $out =~ $dig\ \ 20[0-9][0-9]-[01][0-9]-[0-3][0-9]\ [0-2][0-9]:[0-5][0-9]\ \ Dig ]] &&
    r=yes || r=no
expect_eq "list: the time is local YYYY-MM-DD HH:MM" yes "$r"
all=$(thatch session list --all)
expect_eq "list --all: every directory, newest first" "$other" \
    "$(head -n 1 <<<"$all" | cut -d' ' -f1)"
expect_not_contains "list --all: no sub-agent session" "$all" "(@general subagent)"
expect_contains "list --children: the task child too" \
    "$(thatch session list --children)" "Probe the child (@general subagent)"
expect_eq "list --limit 1: one line" 1 "$(thatch session list --limit 1 | wc -l)"
expect_fail "list --limit 0 is a usage error" thatch session list --limit 0

# --- get --------------------------------------------------------------------
out=$(thatch session get "$dig")
expect_contains "get: the header names the session" "$out" "session $dig  Dig the archive"
expect_contains "get: the child is named" "$out" "child: ses_"
expect_contains "get: the tool call with its input" "$out" \
    '[tool bash, completed] {"command":"echo archaeology-needle-42","description":"Print the needle"}'
expect_contains "get: the tool output" "$out" "    archaeology-needle-42"
expect_contains "get: the user's text" "$out" "    please dig the archive"
expect_contains "get: other part kinds by type name" "$out" "[step-start]"
expect_contains "get: a file part" "$(thatch session get "$notes")" "[file] notes.txt (text/plain)"
child=$(thatch session list --children | grep '@general subagent' | cut -d' ' -f1)
expect_contains "get of the child names its parent" "$(thatch session get "$child")" "parent: $dig"
json=$(thatch session get "$dig" --json)
expect_eq "get --json: decoded parts, tool input as an object" "bash echo archaeology-needle-42" \
    "$(python3 -c 'import json,sys
g = json.load(sys.stdin)
t = [p for m in g["messages"] for p in m["parts"] if p["type"] == "tool"][0]
print(t["tool"], t["input"]["command"])' <<<"$json")"
expect_fail "get of an unknown session fails" thatch session get ses_nope
expect_contains "and says so" "$(thatch session get ses_nope 2>&1)" "no opencode session 'ses_nope'"

# --- transcript ---------------------------------------------------------------
tr=$(thatch session transcript "$dig")
check=$(python3 -c '
import json, sys
msgs = json.load(sys.stdin)["messages"]
i, calls = 0, 0
while i < len(msgs):
    m = msgs[i]
    assert m["role"] in ("user", "assistant", "tool"), m
    assert m["role"] != "tool", "a tool message without its call"
    assert isinstance(m["content"], str) or (m["role"] == "assistant" and m["content"] is None)
    for k, c in enumerate(m.get("tool_calls", [])):
        assert c["type"] == "function"
        json.loads(c["function"]["arguments"])
        t = msgs[i + 1 + k]
        assert t["role"] == "tool" and t["tool_call_id"] == c["id"], t
        calls += 1
    i += 1 + len(m.get("tool_calls", []))
print(calls, msgs[0]["role"], msgs[0]["content"])' <<<"$tr" 2>&1)
expect_eq "transcript: chat-completions shape, each call followed by its tool message" \
    "2 user please dig the archive" "$check"
expect_contains "transcript: the tool result is the output" "$tr" '"tool_call_id":"call_1","content":"archaeology-needle-42\n"'
expect_not_contains "transcript: synthetic parts left out" "$(thatch session transcript "$notes")" "papyrus-needle-9"
expect_contains "transcript --include-synthetic keeps them" \
    "$(thatch session transcript "$notes" --include-synthetic)" "papyrus-needle-9"

# --- search ---------------------------------------------------------------------
out=$(thatch session search archaeology-needle-42)
expect_contains "search: a hit inside a tool output, with its session and role" "$out" \
    "$dig Dig the archive msg_"
expect_contains "search: the snippet" "$out" "…archaeology-needle-42"
expect_contains "search is case-insensitive and reaches the child" \
    "$(thatch session search CHILD-NEEDLE-7)" "Probe the child (@general subagent)"
for key in callID metadata step-finish providerID '"status"'; do
	expect_contains "search: the JSON key $key is not content" \
	    "$(thatch session search "$key")" "No session content matches"
done
expect_contains "search: an attached file's text (a synthetic part)" \
    "$(thatch session search papyrus)" "$notes Read the notes"
expect_eq "search --session: only that session" "" \
    "$(thatch session search needle --session "$notes" --limit 50 | grep -v "^$notes ")"
expect_eq "search --limit 1: one hit" 1 "$(thatch session search needle --limit 1 | wc -l)"
expect_contains "search: tool input rendered as JSON is searched" \
    "$(thatch session search '"subagent_type":"general"')" "$dig Dig the archive"

expect_eq "the database and its WAL are byte for byte unchanged" "$before" "$(sums)"

# --- archived sessions: hidden unless asked for (on a copy: the original
# stays opencode's) -----------------------------------------------------------
cp "$DB" "$TEST_DIR/arch.db"; cp "$DB-wal" "$TEST_DIR/arch.db-wal"
python3 -c 'import sqlite3,sys; c = sqlite3.connect(sys.argv[1]); c.execute("UPDATE session SET time_archived = 1 WHERE id = ?", (sys.argv[2],)); c.commit()' "$TEST_DIR/arch.db" "$notes"
expect_not_contains "list: an archived session is left out" "$(OPENCODE_DB=$TEST_DIR/arch.db thatch session list)" "$notes"
expect_contains "list --archived: shown too" "$(OPENCODE_DB=$TEST_DIR/arch.db thatch session list --archived)" "$notes"

# --- the WAL: rows a writer has not checkpointed --------------------------------
python3 - "$DB" "$W/writer" <<'P' &
import sqlite3, sys, os
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("PRAGMA wal_autocheckpoint=0")
db.execute("INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated) "
           "SELECT 'ses_walonly', project_id, 'w', directory, 'Only in the WAL', version, 4102444800000, 4102444800000 "
           "FROM session LIMIT 1")
open(sys.argv[2] + ".tmp", "w").close(); os.rename(sys.argv[2] + ".tmp", sys.argv[2])
import time; time.sleep(3600)  # hold the connection (killed below): closing would checkpoint
P
writer=$!
wait_for "a writer added a session to the WAL" 120 test -f "$W/writer"
cp "$DB" "$TEST_DIR/main-only.db"
main_only=$(python3 -c 'import sqlite3,sys
print(sqlite3.connect("file:"+sys.argv[1]+"?immutable=1", uri=True).execute("select count(*) from session where id=?", ("ses_walonly",)).fetchone()[0])' "$TEST_DIR/main-only.db")
expect_eq "the new session is not in the main file yet" 0 "$main_only"
expect_contains "list reads it from the WAL" "$(thatch session list --all)" "ses_walonly"
kill "$writer" 2>/dev/null; wait "$writer" 2>/dev/null

# --- errors -----------------------------------------------------------------------
out=$(OPENCODE_DB=$TEST_DIR/none.db thatch session list 2>&1); rc=$?
expect_eq "a missing database: exit 1" 1 "$rc"
expect_eq "and one clear line" "[thatch session] failed: opencode database not found at $TEST_DIR/none.db (set OPENCODE_DB)" "$out"
python3 -c 'import sqlite3,sys
db = sqlite3.connect(sys.argv[1])
db.execute("create table session (id text, parent_id text, directory text, title text, time_created int, time_updated int)")
db.execute("create table message (id text, session_id text, time_created int, data text)")
db.execute("create table part (id text, message_id text, session_id text, data text)")
db.commit()' "$TEST_DIR/old.db"
out=$(OPENCODE_DB=$TEST_DIR/old.db thatch session search x 2>&1); rc=$?
expect_eq "an older schema: exit 1" 1 "$rc"
expect_contains "and the message names the missing column" "$out" "has no session.time_archived"
expect_fail "an unknown verb is a usage error" thatch session frob

# --- the tools' output cap (B6: 20,000 characters, and a note) ------------------
python3 -c 'import json,sqlite3,sys
db = sqlite3.connect(sys.argv[1])
db.execute("create table session (id text, parent_id text, directory text, title text, time_created int, time_updated int, time_archived int)")
db.execute("create table message (id text, session_id text, time_created int, data text)")
db.execute("create table part (id text, message_id text, session_id text, data text)")
db.execute("insert into session values (?, NULL, ?, ?, 1, 2, NULL)", ("ses_long", "/p", "Long"))
db.execute("insert into message values (?, ?, 1, ?)", ("msg_1", "ses_long", json.dumps({"role": "user"})))
db.execute("insert into part values (?, ?, ?, ?)", ("prt_1", "msg_1", "ses_long", json.dumps({"type": "text", "text": "long-needle " * 3000})))
for i in range(2, 202):	# 200 hits of ~200 characters each
    db.execute("insert into part values (?, ?, ?, ?)", ("prt_%03d" % i, "msg_1", "ses_long", json.dumps({"type": "text", "text": "x" * 100 + " hay-needle " + "y" * 100})))
db.commit()' "$TEST_DIR/long.db"
tool() { printf '{"id":1,"op":"tool","name":"thatch_%s","sessionID":"ses_me","args":%s}\n' "$1" "$2" |
	OPENCODE_DB=$TEST_DIR/long.db THATCH_WARMUP=0 thatch opencode | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["output"], end="")'; }
out=$(tool session_get '{"session_id":"ses_long"}')
expect_contains "session_get past 20,000 characters says how much it left out" "$out" "[truncated: "
expect_ok "and stops there" python3 -c 'import sys; t = sys.argv[1]; sys.exit(not (t.index("\n[truncated: ") <= 20000 < len(t) < 20200))' "$out"
out=$(tool session_search '{"query":"hay-needle","limit":200}')
expect_contains "session_search past 20,000 characters says so too" "$out" "[truncated: "
expect_ok "and stops there too" python3 -c 'import sys; t = sys.argv[1]; sys.exit(not (t.index("\n[truncated: ") <= 20000 < len(t) < 20200))' "$out"

# --- the tools, inside the real opencode ------------------------------------------
OC=$HOSTS/opencode/node_modules/.bin/opencode
export OPENCODE_DISABLE_MODELS_FETCH=1 OPENCODE_DISABLE_AUTOUPDATE=1 \
    OPENCODE_DISABLE_LSP_DOWNLOAD=1 OPENCODE_DISABLE_SHARE=1 THATCH_WARMUP=0
python3 "$HOSTS/fake-openai.py" "$TEST_DIR/port2" "$TEST_DIR/req2" & fake=$!
wait_for "a second fake model is up" 120 test -f "$TEST_DIR/port2"
sed -i "s#127.0.0.1:[0-9]*/v1#127.0.0.1:$(cat "$TEST_DIR/port2")/v1#" "$XDG_CONFIG_HOME/opencode/opencode.json"
expect_ok "thatch setup --opencode --global" thatch setup --opencode --global
timeout 120 "$OC" run --title "Search" please search the sessions </dev/null >"$TEST_DIR/run.out" 2>"$TEST_DIR/run.err"
kill "$fake" 2>/dev/null; wait "$fake" 2>/dev/null
res=$(python3 -c 'import json,sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    for m in r.get("messages", []):
        if m.get("role") == "tool": print(json.dumps(m.get("content")))' "$TEST_DIR/req2" 2>/dev/null)
expect_contains "thatch_session_search's hits reach the model" "$res" "$dig Dig the archive msg_"
expect_not_contains "the searching session's own call is not a hit" "$res" "Search msg_"
expect_contains "thatch_session_get's rendering reaches the model" "$res" "session $dig  Dig the archive"
expect_contains "capped to the last messages asked for" "$res" "(the first 3 not shown)"
finish
