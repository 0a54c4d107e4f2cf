#!/usr/bin/env bash
# Alerts in opencode (engines-and-extras B3): `thatch opencode` fed session
# events the way the plugin forwards them, with fake notifiers on PATH: a
# finished turn is one "is done" alert, however many idles follow; a
# permission or question request is one "needs your input" per request
# id, a child's attributed to its root; an error is one "hit an error"
# and that turn is not also "done"; a user abort is silent; children
# never finish or fail on their own; the label is the session's chat name,
# else its title from opencode's database, else its id's first 8
# characters; mode none
# silences everything; the alert of a last idle is sent even though the
# plugin goes away right after it.
. "$(dirname "$0")/lib.sh"
# the chat directory is left out (its names would be the labels) until
# the case that checks them
export THATCH_WARMUP=0 THATCH_CHAT_AUTO_REGISTER=0
mkdir -p bin "$XDG_CONFIG_HOME/thatch"
cat >bin/notify-send <<'PY'
#!/usr/bin/env python3
import json, os, sys
with open(os.environ["ARGV_LOG"], "a") as f:
    f.write(json.dumps([os.path.basename(sys.argv[0])] + sys.argv[1:]) + "\n")
PY
cp bin/notify-send bin/spd-say
chmod +x bin/notify-send bin/spd-say
export ARGV_LOG=$TEST_DIR/argv PATH=$TEST_DIR/bin:$PATH
export OPENCODE_DB=$TEST_DIR/opencode.db
python3 -c 'import sqlite3,sys
db = sqlite3.connect(sys.argv[1])
db.execute("create table session (id text, parent_id text, directory text, title text, time_created int, time_updated int, time_archived int)")
db.execute("create table message (id text, session_id text, time_created int, data text)")
db.execute("create table part (id text, message_id text, session_id text, data text)")
db.execute("insert into session values (?, NULL, ?, ?, 1, 2, NULL)", ("ses_titled", "/p", "Fix the flaky build on the release branch today"))
db.execute("insert into session values (?, ?, ?, ?, 1, 2, NULL)", ("ses_oldchild", "ses_titled", "/p", "old child (@general subagent)"))
db.commit()' "$OPENCODE_DB"

ev() { printf '{"id":1,"op":"event","event":{"type":"%s","properties":%s}}\n' "$1" "$2"; }
st() { ev session.status "{\"sessionID\":\"$1\",\"status\":{\"type\":\"$2\"}}"; }
# alerts EVENT-LINES: run one core over them; print the banners sent, sorted
alerts() {
	rm -f "$ARGV_LOG"
	printf '%s' "$1" | thatch opencode >/dev/null 2>"$TEST_DIR/stderr"
	python3 -c 'import json,sys
try: lines = open(sys.argv[1]).read().splitlines()
except FileNotFoundError: lines = []
print("\n".join(sorted(json.loads(l)[-1] for l in lines if json.loads(l)[0] == "notify-send")))' "$ARGV_LOG"
}

out=$(alerts "$(st ses_plain0001 busy; st ses_plain0001 retry; st ses_plain0001 idle
	ev session.idle '{"sessionID":"ses_plain0001"}'; st ses_plain0001 idle)")
expect_eq "a finished turn is one alert, labelled by the id's first 8 characters" "ses_plai is done" "$out"
expect_eq "on both channels by default: speech too" '["spd-say", "-w", "ses_plai is done"]' \
    "$(grep spd-say "$ARGV_LOG")"
expect_eq "the notifiers got nothing else" 2 "$(wc -l <"$ARGV_LOG")"

out=$(alerts "$(st ses_titled busy; st ses_titled idle; st ses_titled busy; st ses_titled idle)")
expect_eq "each busy -> idle is one alert; the label is the title, cut to 40" \
    "Fix the flaky build on the release branc is done
Fix the flaky build on the release branc is done" "$out"

out=$(alerts "$(st ses_plain0001 busy
	ev permission.asked '{"id":"per_1","sessionID":"ses_plain0001","permission":"bash"}'
	ev permission.asked '{"id":"per_1","sessionID":"ses_plain0001","permission":"bash"}'
	ev permission.replied '{"sessionID":"ses_plain0001","requestID":"per_1","reply":"once"}'
	ev question.asked '{"id":"que_2","sessionID":"ses_plain0001","questions":[]}'
	ev session.created '{"sessionID":"ses_child0001","info":{"id":"ses_child0001","parentID":"ses_plain0001","title":"t (@general subagent)"}}'
	ev question.asked '{"id":"que_3","sessionID":"ses_child0001","questions":[]}'
	ev question.asked '{"id":"que_9","sessionID":"ses_oldchild","questions":[]}'
	st ses_child0001 busy; st ses_child0001 idle
	ev session.error '{"sessionID":"ses_child0001","error":{"name":"UnknownError"}}')")
expect_eq "one pause per request id; a child's pause is its root's; children never finish or fail" \
    "Fix the flaky build on the release branc needs your input
ses_plai needs your input
ses_plai needs your input
ses_plai needs your input" "$out"

out=$(alerts "$(st ses_plain0001 busy
	ev session.error '{"sessionID":"ses_plain0001","error":{"name":"APIError","data":{"message":"boom"}}}'
	ev session.error '{"sessionID":"ses_plain0001","error":{"name":"APIError"}}'
	st ses_plain0001 idle; st ses_plain0002 busy
	ev session.error '{"sessionID":"ses_plain0002","error":{"name":"MessageAbortedError"}}'
	st ses_plain0002 idle)")
expect_eq "an error is one alert and its turn is not also done; an abort is silent" \
    "ses_plai hit an error
ses_plai is done" "$out"

out=$(THATCH_CHAT_AUTO_REGISTER=1 alerts "$(ev session.created '{"info":{"id":"ses_titled","title":"Fix the flaky build on the release branch today"}}'
	st ses_titled busy; st ses_titled idle)")
expect_eq "a session in the chat directory is labelled by its chat name" "fix-flaky-build is done" "$out"

out=$(alerts "$(st ses_plain0001 busy; ev session.deleted '{"info":{"id":"ses_plain0001"}}'; st ses_plain0001 idle)")
expect_eq "a deleted session's turn is forgotten" "" "$out"

printf '{"notifications":{"mode":"banner"}}\n' >"$XDG_CONFIG_HOME/thatch/config.json"
alerts "$(st ses_plain0001 busy; st ses_plain0001 idle)" >/dev/null
expect_eq "mode banner: no speech" '["notify-send", "-a", "thatch", "--", "thatch", "ses_plai is done"]' "$(cat "$ARGV_LOG")"
printf '{"notifications":{"mode":"none"}}\n' >"$XDG_CONFIG_HOME/thatch/config.json"
out=$(alerts "$(st ses_plain0001 busy; st ses_plain0001 idle; ev permission.asked '{"id":"p","sessionID":"ses_plain0001"}')")
expect_eq "mode none silences alerts" "" "$out"
expect_eq "no stray errors" "" "$(cat "$TEST_DIR/stderr")"
finish
