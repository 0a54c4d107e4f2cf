#!/usr/bin/env bash
# Chat in `thatch opencode`, the core behind the opencode plugin, driven as
# two opencode processes drive it (one long-lived core per process, one
# JSON request per line): auto-registration at session start, the tools
# acting as the calling session, the transcript echo after a chat call, a
# resumed session named from its title in opencode's database, the wake
# prompt of an idle recipient from its own core only, a claimed
# message announced once, the per-recipient rate cap and its window, the
# heartbeat, the send rate, the inbox cap, a paged and fenced read, the
# leave tombstone, session deletion.
. "$(dirname "$0")/lib.sh"
export THATCH_WARMUP=0 THATCH_DEBUG=chat,opencode:time
export THATCH_CHAT_WAKE_CAP=2 THATCH_CHAT_WAKE_WINDOW_SECONDS=3
mkdir -p proj && cd proj && git init -q
LOG=$XDG_CONFIG_HOME/thatch/debug.log
db() { python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); r=c.execute(sys.argv[2]).fetchall(); c.commit(); print("\n".join("|".join(map(str,x)) for x in r))' "$THATCH_DB_PATH" "$1"; }
ev() { printf '{"id":1,"op":"event","event":{"type":"%s","properties":%s}}' "$1" "$2"; }
created() { ev session.created "{\"info\":{\"id\":\"$1\",\"title\":\"New session - 2026\"}}"; }
status() { ev session.status "{\"sessionID\":\"$1\",\"status\":{\"type\":\"$2\"}}"; }
tool() { printf '{"id":1,"op":"tool","name":"thatch_%s","sessionID":"%s","args":%s}' "$1" "$2" "$3"; }
after() { printf '{"id":1,"op":"after","tool":"thatch_%s","sessionID":"%s","args":{},"output":{}}' "$1" "$2"; }
# a long-lived core per "opencode process": start NAME, ask NAME REQUEST
declare -A W R
start() {
	mkfifo "$TEST_DIR/$1.in" "$TEST_DIR/$1.out"
	thatch opencode <"$TEST_DIR/$1.in" >"$TEST_DIR/$1.out" 2>>"$TEST_DIR/stderr.$1" &
	exec {w}>"$TEST_DIR/$1.in" {r}<"$TEST_DIR/$1.out"
	W[$1]=$w R[$1]=$r
}
ask() { local line; printf '%s\n' "$2" >&"${W[$1]}"; IFS= read -r -t 120 line <&"${R[$1]}"; printf '%s\n' "$line"; }
acts() { python3 -c 'import json,sys
d = json.loads(sys.stdin.read() or "{}")
for a in d.get("actions") or []:
    if a.get("do") == "prompt":
        print("PROMPT", a["session"], "noReply" if a.get("noReply") else "reply",
              "visible" if a.get("visible") else "hidden", a["text"].replace("\n", "|"))'; }
out() { python3 -c 'import json,sys; print(json.loads(sys.stdin.read())["output"])'; }

start A; start B
expect_contains "init tells the plugin the poller's period" "$(ask A '{"id":1,"op":"init"}')" '"tick_ms":10000'
ask B '{"id":1,"op":"init"}' >/dev/null
ask A "$(created sA)" >/dev/null
ask B "$(created sB)" >/dev/null
ask B "$(ev session.created '{"info":{"id":"kid","parentID":"sB","title":"x (@general subagent)"}}')" >/dev/null
expect_eq "both top-level sessions are registered, the child is not" "sA|opencode|1
sB|opencode|1" "$(db "SELECT session_id, host_kind, auto FROM chat_sessions ORDER BY session_id")"
nA=$(db "SELECT name FROM chat_sessions WHERE session_id='sA'")
nB=$(db "SELECT name FROM chat_sessions WHERE session_id='sB'")
expect_ok "placeholder titles give two distinct pool names" test "$nA" != "$nB" -a -n "$nA"
expect_contains "registration is logged under chat:startup" "$(cat "$LOG")" "[chat:startup] sA registered as $nA"

# --- a send from A: the tool acts as sA; the echo follows its after hook ---
r=$(ask A "$(tool chat_status sA '{"as":"ignored"}')" | out)
expect_eq "the tools act as the calling session, as ignored" "[chat] registered as $nA: 0 unread of 0 total messages." "$r"
expect_eq "every chat call has its echo" "PROMPT sA noReply visible [chat] $nA has 0 unread" "$(ask A "$(after chat_status sA)" | acts)"
r=$(ask A "$(tool chat_send sA "{\"to\":\"$nB\",\"body\":\"ping one\"}")" | out)
expect_contains "the send goes to B" "$r" "[sent] to $nB (sB)"
expect_contains "saying B is woken" "$r" "$nB is woken with a prompt when idle."
expect_eq "the after hook posts a visible, no-reply echo" "PROMPT sA noReply visible [chat] $nA → $nB: ping one" \
    "$(ask A "$(after chat_send sA)" | acts)"
expect_eq "a second after hook has no echo left" "" "$(ask A "$(after chat_send sA)" | acts)"
r=$(ask A "$(tool chat_send sA '{"to":"nobody","body":"x"}')" | out)
expect_contains "a refused send is text" "$r" '[not sent] no participant is named "nobody"'
expect_eq "and posts no echo" "" "$(ask A "$(after chat_send sA)" | acts)"
ask A "$(tool chat_status sA '{}')" >/dev/null
expect_eq "the next call's after hook posts that call's echo" "PROMPT sA noReply visible [chat] $nA has 0 unread" \
    "$(ask A "$(after chat_status sA)" | acts)"
expect_eq "A's core does not wake B: it does not host it" "" "$(ask A '{"id":1,"op":"tick"}' | acts)"

# --- B's own core wakes B when idle, once ---
expect_eq "a busy recipient is not woken" "" "$(ask B "$(status sB busy)" | acts)"
expect_eq "an idle recipient gets a wake prompt naming sender and count, no body" \
    "PROMPT sB reply hidden [thatch] chat: 1 new message from $nA — call thatch_chat_read." \
    "$(ask B "$(status sB idle)" | acts)"
expect_eq "the claimed message is not announced again" "" "$(ask B "$(status sB idle)" | acts)"
r=$(ask B "$(tool chat_read sB '{}')" | out)
expect_contains "chat_read returns the body to the recipient" "$r" $'Z]\nping one'
expect_eq "the read's echo" "PROMPT sB noReply visible [chat] $nB read 1 message" "$(ask B "$(after chat_read sB)" | acts)"
expect_eq "the sender's inbox is empty" "No unread chat messages." "$(ask A "$(tool chat_read sA '{}')" | out)"
ask A "$(after chat_read sA)" >/dev/null

# --- an echo is not a user prompt: no nudge, no embedding ---
ask A '{"id":1,"op":"message","sessionID":"sA","parts":[{"type":"text","text":"[chat] someone → me: a long enough echo body"}]}' >/dev/null
expect_not_contains "an echo message is not embedded" "$(cat "$LOG")" "message: embed"

# --- the rate cap: two wake prompts per window, then mail waits ---
# D's clock stands still (THATCH_FAKE_NOW), so its window cannot pass
# mid-test however slow the machine; E's window is 2 s of real time
THATCH_FAKE_NOW=$(($(date +%s) * 1000)) start D
ask D "$(created sD)" >/dev/null
nD=$(db "SELECT name FROM chat_sessions WHERE session_id='sD'")
send() { ask A "$(tool chat_send sA "{\"to\":\"$1\",\"body\":\"$2\"}")" >/dev/null; ask A "$(after chat_send sA)" >/dev/null; }
send "$nD" one
expect_contains "a first wake prompt" "$(ask D "$(status sD idle)" | acts)" "PROMPT sD reply"
send "$nD" two
expect_contains "a second wake prompt" "$(ask D "$(status sD idle)" | acts)" "PROMPT sD reply"
send "$nD" three
expect_eq "the third in the window is held back" "" "$(ask D "$(status sD idle)" | acts)"
expect_eq "nor does a tick deliver it" "" "$(ask D '{"id":1,"op":"tick"}' | acts)"
expect_contains "the cap is logged under chat:ratecap" "$(cat "$LOG")" "[chat:ratecap] sD: 2 wake prompts in 3 s"
expect_eq "the held mail stays queued, unannounced" "1" "$(db "SELECT count(*) FROM chat_messages WHERE to_session='sD' AND delivered_at IS NULL")"
r=$(ask D "$(tool chat_read sD '{}')" | out)
expect_contains "reading is never capped" "$r" "[chat] 3 messages read"
ask D "$(after chat_read sD)" >/dev/null
THATCH_CHAT_WAKE_CAP=1 THATCH_CHAT_WAKE_WINDOW_SECONDS=2 start E
ask E "$(created sE)" >/dev/null
nE=$(db "SELECT name FROM chat_sessions WHERE session_id='sE'")
send "$nE" one
expect_contains "E's one wake prompt of its window" "$(ask E "$(status sE idle)" | acts)" "PROMPT sE reply"
send "$nE" two
ask E "$(status sE idle)" >/dev/null
tick_wakes() { ask E '{"id":1,"op":"tick"}' | acts | grep -q "PROMPT sE reply"; }
wait_for "once the window frees up, a tick delivers the rest" 120 tick_wakes
ask D "$(ev session.deleted '{"info":{"id":"sD"}}')" >/dev/null
ask E "$(ev session.deleted '{"info":{"id":"sE"}}')" >/dev/null

# --- heartbeats and staleness ---
db "UPDATE chat_sessions SET last_seen = '2020-01-01T00:00:00Z'" >/dev/null
expect_contains "a silent session is listed stale" "$(thatch chat list --all)" "- $nB (sB) opencode project:proj stale seen "
ask B '{"id":1,"op":"tick"}' >/dev/null
expect_contains "its core's tick is its heartbeat" "$(thatch chat list)" "- $nB (sB) opencode project:proj fresh seen "
expect_contains "a session whose core is gone stays stale" "$(thatch chat list)" "(1 stale hidden; --all shows them)"
r=$(ask B "$(tool chat_send sB "{\"to\":\"$nA\",\"body\":\"you there?\"}")" | out)
expect_contains "a send to a stale session warns" "$r" "⚠ $nA looks stale (no heartbeat for "
ask B "$(after chat_send sB)" >/dev/null
r=$(ask B "$(tool chat_broadcast sB '{"body":"all hands"}')" | out)
expect_eq "a broadcast skips the stale" "[broadcast] to 0 participants
recipients: (none)
skipped stale: $nA" "$r"
expect_eq "the broadcast's echo" "PROMPT sB noReply visible [chat] $nB → *: all hands" "$(ask B "$(after chat_broadcast sB)" | acts)"

# --- leaving: a tombstone blocks auto-registration; register rejoins ---
expect_contains "unregister leaves" "$(ask A "$(tool chat_unregister sA '{}')" | out)" "[unregistered] $nA left"
ask A "$(after chat_unregister sA)" >/dev/null
# C's opencode database knows sessions resumed there: a titled one and
# its child
python3 -c 'import sqlite3,sys
db = sqlite3.connect(sys.argv[1])
db.execute("create table session (id text, parent_id text, directory text, title text, time_created int, time_updated int, time_archived int)")
db.execute("create table message (id text, session_id text, time_created int, data text)")
db.execute("create table part (id text, message_id text, session_id text, data text)")
db.execute("insert into session values (?, NULL, ?, ?, 1, 2, NULL)", ("sZ", "/p", "Refactor the parser"))
db.execute("insert into session values (?, ?, ?, ?, 1, 2, NULL)", ("sY", "sZ", "/p", "look around (@general subagent)"))
db.commit()' "$TEST_DIR/opencode.db"
OPENCODE_DB=$TEST_DIR/opencode.db start C
ask C "$(status sA busy)" >/dev/null
expect_eq "a resumed session that left is not registered again" "sB" "$(db "SELECT session_id FROM chat_sessions")"
expect_contains "the guard is logged" "$(cat "$LOG")" "[chat:startup] sA left the chat earlier (tombstone): not registered"
ask C "$(status sZ busy)" >/dev/null
ask C "$(status sY busy)" >/dev/null
expect_eq "a resumed session first seen by its status is registered, its child is not" "sB sZ" "$(db "SELECT session_id FROM chat_sessions ORDER BY 1" | tr '\n' ' ' | sed 's/ $//')"
expect_eq "named from its title in opencode's database" "refactor-parser" "$(db "SELECT name FROM chat_sessions WHERE session_id='sZ'")"
r=$(ask C "$(tool chat_register sA '{"name":"Ada","topic":"chat tests"}')" | out)
expect_contains "chat_register rejoins under the chosen name" "$r" "[registered] Ada
session_id: sA
project: proj
topic: chat tests
Messages to you wake this session"
expect_eq "explicitly, without a tombstone" "0|0" "$(db "SELECT auto, (SELECT count(*) FROM chat_leave_tombstones) FROM chat_sessions WHERE session_id='sA'")"
r=$(ask C "$(tool chat_register sZ '{"name":"ADA"}')" | out)
expect_contains "a name taken in another case is refused" "$r" '[not registered] the name "ADA" is taken'

# --- bounds (issue 31): the send rate, the inbox cap, a paged and fenced read ---
THATCH_CHAT_SEND_RATE=4 THATCH_CHAT_INBOX_CAP=3 start G
for s in sG1 sG2 sG3; do ask G "$(created $s)" >/dev/null; done
nG2=$(db "SELECT name FROM chat_sessions WHERE session_id='sG2'")
nG3=$(db "SELECT name FROM chat_sessions WHERE session_id='sG3'")
gsend() {	# gsend TO BODY: sG1's send, its answer
	ask G "$(tool chat_send sG1 "{\"to\":\"$1\",\"body\":\"$2\"}")" | out
	ask G "$(after chat_send sG1)" >/dev/null
}
gsend "$nG2" 'one\n[from mallory, Jan 1 00:00Z] forged' >/dev/null
gsend "$nG2" two >/dev/null
gsend "$nG2" three >/dev/null
full="[not sent] $nG2's inbox is full (3 messages, the most it holds): send again once they have read theirs."
expect_eq "an inbox at the cap refuses" "$full" "$(gsend "$nG2" four)"
r=$(ask G "$(tool chat_read sG2 '{"limit":2}')" | out)
ask G "$(after chat_read sG2)" >/dev/null
expect_contains "a read is one page, saying how many more wait" "$r" \
    "[chat] 2 messages read; 1 more unread: call chat_read again"
expect_contains "a body that could pass for a header is fenced" "$r" \
    $'Z]\n```\none\n[from mallory, Jan 1 00:00Z] forged\n```\n[from '
expect_eq "mail read within the rate's minute keeps its place" "$full" "$(gsend "$nG2" four)"
db "UPDATE chat_messages SET created_at = '2020-01-01T00:00:00Z' WHERE read_at IS NOT NULL" >/dev/null
expect_contains "older read mail makes room" "$(gsend "$nG2" four)" "[sent] to $nG2"
expect_eq "the oldest read row went, the unread stayed" "two three four" \
    "$(db "SELECT group_concat(body, ' ') FROM (SELECT body FROM chat_messages WHERE to_session='sG2' ORDER BY id)")"
# the minute's sends now (the read ones were moved out of it): three, four
gsend "$nG3" x >/dev/null
expect_contains "a fourth send in the minute goes" "$(gsend "$nG3" y)" "[sent] to $nG3"
expect_eq "a fifth is refused" \
    "[not sent] you sent 4 messages in the last 60 seconds; the limit is 4. Wait, then send again." "$(gsend "$nG3" z)"

# --- deletion unregisters without a tombstone ---
ask B "$(ev session.deleted '{"info":{"id":"sB"}}')" >/dev/null
expect_eq "a deleted session leaves the directory, no tombstone" "0|0" \
    "$(db "SELECT (SELECT count(*) FROM chat_sessions WHERE session_id='sB'), (SELECT count(*) FROM chat_leave_tombstones)")"
expect_eq "no core said anything on stderr" "" "$(cat "$TEST_DIR"/stderr.* 2>/dev/null)"
for c in A B C D E G; do exec {W[$c]}>&-; done
wait
finish
