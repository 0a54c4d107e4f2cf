#!/usr/bin/env bash
# The wrap-up state in `thatch opencode` (engines-and-extras B8,
# hosts-hooks-cli §9.4), fed the plugin's requests over an opencode
# database whose last assistant message carries the greenlight token or
# not: a command marks its session, the idle that ends its turn resolves
# it (compact on the reply's provider and model, or exit after leaving
# the chat directory), an idle already on its way when the command came
# does not, an error or a deletion clears the mark, and a mark resolved
# without the token is gone (the next turn compacts nothing).
. "$(dirname "$0")/lib.sh"
export THATCH_WARMUP=0 OPENCODE_DB=$TEST_DIR/opencode.db
python3 -c 'import json,sqlite3,sys
db = sqlite3.connect(sys.argv[1])
db.execute("create table session (id text, parent_id text, directory text, title text, time_created int, time_updated int, time_archived int)")
db.execute("create table message (id text, session_id text, time_created int, data text)")
db.execute("create table part (id text, message_id text, session_id text, data text)")
for sid, reply in (("ses_green", "All saved. [thatch:greenlight]"), ("ses_plain", "One question needs you first.")):
    db.execute("insert into session values (?, NULL, ?, ?, 1, 2, NULL)", (sid, "/p", "t"))
    db.execute("insert into message values (?, ?, 1, ?)", (sid + "_u", sid, json.dumps({"role": "user"})))
    db.execute("insert into message values (?, ?, 2, ?)", (sid + "_a", sid, json.dumps({"role": "assistant", "providerID": "fake", "modelID": "mock"})))
    db.execute("insert into part values (?, ?, ?, ?)", (sid + "_p", sid + "_a", sid, json.dumps({"type": "text", "text": reply})))
db.commit()' "$OPENCODE_DB"

cmd() { printf '{"id":1,"op":"command","command":"%s","sessionID":"%s"}\n' "$2" "$1"; }
ev() { printf '{"id":1,"op":"event","event":{"type":"%s","properties":%s}}\n' "$1" "$2"; }
st() { ev session.status "{\"sessionID\":\"$1\",\"status\":{\"type\":\"$2\"}}"; }
# core REQUEST-LINES: the compact and exit actions it answered, one per line
core() {
	printf '%s\n' "$1" | thatch opencode 2>>"$TEST_DIR/stderr" | python3 -c 'import json,sys
for l in sys.stdin:
    for a in json.loads(l).get("actions", []):
        if a["do"] in ("compact", "exit"):
            print(" ".join(str(a.get(k)) for k in ("do", "session", "providerID", "modelID") if k in a))'
}

expect_eq "a green-lit /thatch/compact compacts at the idle ending its turn, on the reply's model" \
    "compact ses_green fake mock" "$(core "$(cmd ses_green thatch/compact; st ses_green busy; st ses_green idle)")"
expect_eq "only once: the mark goes with that idle" \
    "compact ses_green fake mock" "$(core "$(cmd ses_green thatch/compact; st ses_green busy; st ses_green idle; st ses_green busy; st ses_green idle)")"
expect_eq "an idle already on its way when the command came does not resolve it" \
    "compact ses_green fake mock" "$(core "$(cmd ses_green /thatch/compact; st ses_green idle; st ses_green busy; st ses_green idle)")"
expect_eq "no token: nothing, and the mark is gone" "" \
    "$(core "$(cmd ses_plain thatch/compact; st ses_plain busy; st ses_plain idle; st ses_plain busy; st ses_plain idle)")"
expect_eq "an error clears the mark" "" \
    "$(core "$(cmd ses_green thatch/compact; st ses_green busy; ev session.error '{"sessionID":"ses_green","error":{"name":"APIError"}}'; st ses_green idle)")"
expect_eq "a deletion clears it" "" \
    "$(core "$(cmd ses_green thatch/exit; st ses_green busy; ev session.deleted '{"info":{"id":"ses_green"}}'; st ses_green idle)")"
expect_eq "other commands mark nothing" "" \
    "$(core "$(cmd ses_green thatch/defrag; st ses_green busy; st ses_green idle; cmd ses_green compact; st ses_green busy; st ses_green idle)")"
core "$(st ses_green busy; st ses_green idle)" >/dev/null
expect_contains "a session's first status puts it in the chat directory" "$(thatch chat list --all)" "(ses_green)"
out=$(core "$(cmd ses_green thatch/exit; st ses_green busy; st ses_green idle)")
expect_eq "a green-lit /thatch/exit asks the app to exit" "exit ses_green" "$out"
expect_not_contains "after leaving the chat directory" "$(thatch chat list --all)" "(ses_green)"
expect_eq "no core said anything on stderr" "" "$(cat "$TEST_DIR/stderr" 2>/dev/null)"
finish
