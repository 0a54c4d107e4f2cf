#!/usr/bin/env bash
# `thatch opencode`, the core behind the opencode plugin, driven the way the
# plugin drives it (one JSON request per line): the tools as over MCP, the
# system prompt, what is buffered and what is not, the extraction child's
# lifecycle and its toasts, nudges with their toasts, compaction, task
# children, a lost child, a restarted core, bad requests.
. "$(dirname "$0")/lib.sh"
export THATCH_WARMUP=0
mkdir -p proj && cd proj && git init -q
Q=$XDG_CACHE_HOME/thatch/queue/opencode
# core REQUEST...: one line per answer; `field N EXPR` picks from answer N
core() { printf '%s\n' "$@" | thatch opencode 2>"$TEST_DIR/stderr"; }
pick() { python3 -c 'import json,sys
a = [json.loads(l) for l in sys.stdin]
d = a[int(sys.argv[1])]
a = d.get("actions") or []
x = a[0] if a else {}
r = eval(sys.argv[2])
print(" ".join(map(str, r)) if isinstance(r, tuple) else r)' "$@"; }
ev() { printf '{"id":1,"op":"event","event":{"type":"%s","properties":%s}}' "$1" "$2"; }
idle() { ev session.status "{\"sessionID\":\"$1\",\"status\":{\"type\":\"idle\"}}"; }
busy() { ev session.status "{\"sessionID\":\"$1\",\"status\":{\"type\":\"busy\"}}"; }
after() {	# after TOOL SESSION COMMAND [OUTPUT]
	local o=${4:-}
	[ -n "$o" ] || o="{\"title\":\"t\",\"output\":\"ran $3\",\"metadata\":{}}"
	printf '{"id":1,"op":"after","tool":"%s","sessionID":"%s","args":{"command":"%s"},"output":%s}' "$1" "$2" "$3" "$o"
}
tool() { printf '{"id":1,"op":"tool","name":"%s","sessionID":"%s","args":%s}' "$1" "$2" "$3"; }

# --- tools and texts ----------------------------------------------------------------
out=$(core '{"id":7,"op":"init"}' '{"id":8,"op":"system","sessionID":"s"}')
expect_eq "init answers with the request's id" 7 "$(pick 0 'd["id"]' <<<"$out")"
expect_eq "every tool of the tool table is offered" "$(thatch tools | grep -c ' — ')" \
    "$(pick 0 'len(d["tools"])' <<<"$out")"
names=$(pick 0 '" ".join(t["name"] for t in d["tools"])' <<<"$out")
expect_contains "memory_remember is thatch_memory_remember" "$names" "thatch_memory_remember thatch_memory_recall"
expect_contains "the extraction tools are there" "$names" "thatch_extraction_done thatch_get_extraction_payload"
expect_eq "the schema is the MCP inputSchema" "['content', 'label']" \
    "$(pick 0 'sorted([t for t in d["tools"] if t["name"]=="thatch_memory_remember"][0]["schema"]["required"])' <<<"$out")"
expect_eq "init repairs the skills, opencode's own included" "yes" \
    "$(test -f "$XDG_CONFIG_HOME/opencode/skills/thatch-code-review/SKILL.md" && echo yes)"
sys=$(pick 1 'd["actions"][0]["text"]' <<<"$out")
expect_eq "the system prompt is one system action" "system" "$(pick 1 'd["actions"][0]["do"]' <<<"$out")"
expect_contains "the system prompt names the store" "$sys" 'The project store is "proj"'
expect_contains "the system prompt lists the thatch_ tools" "$sys" 'the `thatch_` prefix (`thatch_memory_remember`): memory_remember, memory_recall, '
expect_contains "chat tools included: opencode offers them" "$sys" "chat_status, "
expect_contains "the system prompt has the save rule" "$sys" "## Before Responding"
expect_contains "the system prompt has the completion rule" "$sys" "## Background Task Completions"

out=$(core "$(tool thatch_memory_remember s '{"label":"x"}')" "$(tool thatch_nope s '{}')")
expect_eq "invalid arguments fail as over MCP" "True Invalid arguments: content: Required" \
    "$(pick 0 'd["failed"], d["output"]' <<<"$out")"
expect_contains "an unknown tool is an error" "$(pick 1 'd["error"]' <<<"$out")" "Unknown tool: thatch_nope"
expect_contains "and is reported on stderr" "$(cat "$TEST_DIR/stderr")" "[thatch] tool: Unknown tool: thatch_nope"

# --- buffering ------------------------------------------------------------------------
core "$(after bash p 'ls src')" "$(after thatch_memory_list p x)" "$(after skill p x)" "$(after task p x)" \
    "$(after read p x '{"content":[{"type":"text","text":"mcp text"}],"isError":false}')" >/dev/null
pay=$(core "$(tool thatch_get_extraction_payload c0 '{"session_id":"p"}')" | pick 0 'd["output"]')
expect_contains "a bash call is buffered" "$pay" '"args":"ls src","output":"ran ls src"'
expect_contains "an MCP result's text is buffered" "$pay" '"output":"mcp text"'
expect_not_contains "thatch's own calls are not" "$pay" "thatch_memory_list"
expect_not_contains "skill is not" "$pay" '"tool":"skill"'
expect_not_contains "task is not" "$pay" '"tool":"task"'
expect_contains "the payload names the stores" "$pay" '"projectStore":"proj","globalStore":"global"'

# --- the extraction child ---------------------------------------------------------------
out=$(core "$(idle p)" '{"id":2,"op":"spawned","parent":"p","child":"c1"}' "$(idle c1)" "$(busy c1)" \
    "$(tool thatch_get_extraction_payload c1 '{"session_id":"p"}')" \
    "$(after bash p 'late')" \
    "$(tool thatch_memory_remember c1 '{"label":"src layout","content":"Sources live in src."}')" \
    "$(tool thatch_memory_remember c1 '{"label":"src layout","content":"Sources live in src/.","overwrite":true}')" \
    "$(tool thatch_extraction_done c1 '{"session_id":"p"}')" "$(idle c1)")
expect_eq "an idle parent with buffered calls asks for a child" "spawn p thatch-extraction" \
    "$(pick 0 'x["do"], x["parent"], x["title"]' <<<"$out")"
child=$(pick 1 'd["actions"][0]["text"]' <<<"$out")
expect_eq "the child is prompted" "prompt c1" "$(pick 1 'x["do"], x["session"]' <<<"$out")"
expect_contains "the prompt names the parent and the count" "$child" "Direct extraction for session p: 2 tool interactions wait."
expect_contains "the prompt says to call extraction_done with the id" "$child" 'thatch_extraction_done with session_id "p"'
expect_eq "an idle before the child ran does not finish it" "[]" "$(pick 2 'd["actions"]' <<<"$out")"
expect_eq "the child idle toasts the metrics and deletes the child" \
    "toast [thatch] new: 1, updated: 1 success 4000 delete c1" \
    "$(pick 9 'a[0]["do"], a[0]["message"], a[0]["variant"], a[0]["duration"], a[1]["do"], a[1]["session"]' <<<"$out")"
expect_contains "the child's memory is in the store" "$(thatch show 'src layout' proj)" "Sources live in src/."
pay=$(core "$(tool thatch_get_extraction_payload x '{"session_id":"p"}')" | pick 0 'd["output"]')
expect_contains "what the parent buffered during the run survives" "$pay" '"args":"late"'
expect_not_contains "what the child received is gone" "$pay" '"args":"ls src"'

expect_eq "the child is prompted fire-and-forget by default" "False" "$(pick 1 'x["async"]' <<<"$out")"
core "$(after bash bg 'x')" "$(idle bg)" >/dev/null
out=$(OPENCODE_EXPERIMENTAL_BACKGROUND_SUBAGENTS=true core '{"id":2,"op":"spawned","parent":"bg","child":"cbg"}')
expect_eq "background sub-agents prompt it asynchronously" "True" "$(pick 0 'x["async"]' <<<"$out")"

# a no-save run, a lost child, a restarted core
out=$(core "$(idle p)" '{"id":2,"op":"spawned","parent":"p","child":"c2"}' "$(busy c2)" "$(idle c2)")
expect_eq "a no-save run toasts that nothing was saved" "[thatch] extraction complete — nothing to save info" \
    "$(pick 3 'x["message"], x["variant"]' <<<"$out")"
expect_eq "and drains the snapshot" "no" "$(test -e "$Q/p.json" && echo yes || echo no)"
core "$(after bash p 'again')" "$(idle p)" '{"id":2,"op":"spawned","parent":"p","child":"c3"}' \
    "$(ev session.deleted '{"info":{"id":"c3","parentID":"p"}}')" >/dev/null
out=$(core "$(idle p)")
expect_eq "a deleted child's entries are requeued for the next idle" "spawn" "$(pick 0 'd["actions"][0]["do"]' <<<"$out")"
core '{"id":2,"op":"spawned","parent":"p","child":"c4"}' >/dev/null
out=$(core "$(idle c4)")
expect_eq "a restarted core finishes a child it never dispatched" "delete" "$(pick 0 'd["actions"][1]["do"]' <<<"$out")"
out=$(core "$(after bash p 'fails')" "$(idle p)" '{"id":2,"op":"spawn_failed","parent":"p","child":"c5","error":"boom"}' "$(idle p)")
expect_eq "a failed spawn deletes the child" "delete c5" "$(pick 2 'x["do"], x["session"]' <<<"$out")"
expect_eq "and requeues for the next idle" "spawn" "$(pick 3 'd["actions"][0]["do"]' <<<"$out")"
expect_contains "the failure is reported" "$(cat "$TEST_DIR/stderr")" "[thatch] extraction child of p failed: boom"

# --- chat.message ---------------------------------------------------------------------------
msg() { printf '{"id":1,"op":"message","sessionID":"%s","parts":[{"type":"text","text":"%s"}%s]}' "$1" "$2" "${3:-}"; }
out=$(THATCH_BEHAVIOR_THRESHOLD=2 THATCH_PREDICTION_THRESHOLD=2 core "$(msg m 'where do the sources live?')" "$(msg m 'short')")
expect_eq "a related prompt gets the recall part and its toast" \
    "part toast [thatch] recalled 1 memory info 3000" \
    "$(pick 0 'a[0]["do"], a[1]["do"], a[1]["message"], a[1]["variant"], a[1]["duration"]' <<<"$out")"
expect_contains "the recall part names the memory and thatch_ tools" "$(pick 0 'd["actions"][0]["text"]' <<<"$out")" \
    '("src layout"). Use thatch_memory_recall to read it'
expect_eq "a prompt under 10 units gets nothing" "[]" "$(pick 1 'd["actions"]' <<<"$out")"
core "$(tool thatch_memory_remember c1 '{"label":"proxy certs","content":"ERR_SSL_PROTOCOL_ERROR: set NODE_EXTRA_CA_CERTS.","store":"global"}')" >/dev/null
out=$(THATCH_RECALL_THRESHOLD=2 THATCH_BEHAVIOR_THRESHOLD=2 THATCH_PREDICTION_THRESHOLD=2 \
    core "$(msg m 'npm install fails with ERR_SSL_PROTOCOL_ERROR again')" "$(msg m 'where do the sources live?')")
expect_contains "a prompt naming a stored identifier is nudged under the threshold (hybrid)" \
    "$(pick 0 'd["actions"][0]["text"]' <<<"$out")" '("proxy certs")'
expect_eq "plain words under the threshold are not" "[]" "$(pick 1 'd["actions"]' <<<"$out")"
out=$(THATCH_RECALL_THRESHOLD=2 THATCH_PREDICTION_THRESHOLD=2 THATCH_BEHAVIOR_THRESHOLD=-1 core "$(msg m 'where do the sources live?')")
expect_contains "the behavior block fires on its own with its toast" "$(pick 0 'd["actions"][1]["message"]' <<<"$out")" "behaviors surfaced"
out=$(core "$(ev session.created '{"info":{"id":"t1","parentID":"m","title":"explore (@general subagent)"}}')" \
    "$(msg t1 'where do the sources live?')" \
    '{"id":1,"op":"compacting","sessionID":"m"}' \
    "$(msg m 'summary of the session' ',{"type":"compaction"}')" \
    "$(msg m 'where do the sources live?')")
expect_eq "a task child gets no reminder" "[]" "$(pick 0 'd["actions"]' <<<"$out")"
expect_eq "a task child gets no nudges" "[]" "$(pick 1 'd["actions"]' <<<"$out")"
expect_contains "compaction gets the context" "$(pick 2 'd["actions"][0]["do"] + " " + d["actions"][0]["text"]' <<<"$out")" \
    'context [thatch] Persistent memory is active in this session (stores "proj" and "global"'
expect_eq "the compaction summary gets no nudges" "[]" "$(pick 3 'd["actions"]' <<<"$out")"
expect_eq "a message after a failed compaction is nudged again" "part" "$(pick 4 'd["actions"][0]["do"]' <<<"$out")"

# --- the session-start reminder ------------------------------------------------------------------
out=$(core "$(ev session.created '{"info":{"id":"top","title":"New session"}}')")
expect_eq "a top-level session gets the reminder as a no-reply prompt" "prompt top True" \
    "$(pick 0 'x["do"], x["session"], x["noReply"]' <<<"$out")"
expect_contains "the reminder uses opencode's tool names" "$(pick 0 'd["actions"][0]["text"]' <<<"$out")" \
    "the digest below (what thatch_store_list would tell you), then thatch_memory_recall by what the task touches"
expect_not_contains "a healthy store has no hygiene line" "$(pick 0 'd["actions"][0]["text"]' <<<"$out")" "[thatch hygiene]"
thatch_twin='{"label":"twin %s","content":"Builds run with make -j2."}'
core "$(tool thatch_memory_remember s "$(printf "$thatch_twin" a)")" "$(tool thatch_memory_remember s "$(printf "$thatch_twin" b)")" >/dev/null
out=$(core "$(ev session.created '{"info":{"id":"top2"}}')")
text=$(pick 0 'd["actions"][0]["text"]' <<<"$out")
expect_contains "a store with duplicates gets the hygiene line" "$text" '[thatch hygiene] Store "proj": '
expect_contains "naming the duplicate candidates" "$text" "duplicate-candidate pair"
expect_contains "with the tending advice in opencode's names" "$text" 'Run `thatch_find_duplicates`'

# --- bad input ------------------------------------------------------------------------------------
out=$(core 'not json' '{"id":3,"op":"bogus"}' '{"id":4,"op":"system"}')
expect_eq "a line that is not JSON is answered with no id, the others as usual" "None 3 4" \
    "$(pick 0 'd["id"]' <<<"$out") $(pick 1 'd["id"]' <<<"$out") $(pick 2 'd["id"]' <<<"$out")"
expect_contains "with an error saying why" "$(pick 0 'd["error"]' <<<"$out")" "not JSON: invalid token"
expect_contains "an unknown op is an error" "$(pick 1 'd["error"]' <<<"$out")" "unknown op: bogus"
expect_contains "bad requests are reported on stderr" "$(cat "$TEST_DIR/stderr")" "[thatch] bogus: unknown op: bogus"
# every line is answered, so the plugin never waits on one (opencode_line.c)
out=$(core '{"id":6,"op":"message","sessionID":"s","parts":[{"type":"text","text":"\ud800"}]}' \
    '[1]' '{"id":"s7","op":5}' '{"id":8,"op":"message","sessionID":[],"parts":"x","agent":{}}' \
    '{"id":9,"op":"event","event":{"type":"session.created","properties":{"info":7}}}' \
    '{"id": 10, x' '{"id":11 ' '{"x":1,"id":12,')
expect_eq "a lone surrogate, a non-object, wrong types: each answered" "6 None s7 8 9 10 None None" \
    "$(for i in 0 1 2 3 4 5 6 7; do pick $i 'd["id"]' <<<"$out"; done | tr '\n' ' ' | sed 's/ $//')"
expect_contains "the surrogate's answer says why" "$(pick 0 'd["error"]' <<<"$out")" "invalid Unicode"
expect_eq "a line that is no object answers with no actions" "[] the request is not a JSON object" \
    "$(pick 1 'd["actions"], d["error"]' <<<"$out")"
expect_contains "and says so on stderr" "$(cat "$TEST_DIR/stderr")" "[thatch] request: not JSON: invalid Unicode"
big() { python3 -c 'import sys; sys.stdout.write("{\"id\":%s,\"op\":\"log\",\"text\":\"%s\"}\n" % (sys.argv[1], "a" * (17 << 20)))' "$1"; }
out=$({ big 20; echo '{"id":21,"op":"log","text":"next"}'; big 22 | tr -d '\n'; } | thatch opencode 2>"$TEST_DIR/stderr")
expect_eq "a line over the cap is answered under its id, the next as usual" "20 21 22" \
    "$(for i in 0 1 2; do pick $i 'd["id"]' <<<"$out"; done | tr '\n' ' ' | sed 's/ $//')"
expect_contains "saying its size and the cap" "$(pick 0 'd["error"]' <<<"$out")" \
    "the request is 17825822 bytes, over the 16777216-byte cap"
expect_eq "the line after it is served" "[]" "$(pick 1 'd.get("error", d["actions"])' <<<"$out")"
THATCH_DEBUG=opencode core '{"id":5,"op":"log","text":"toast: no TUI"}' >/dev/null
expect_contains "a plugin-side failure lands in the debug log" "$(cat "$XDG_CONFIG_HOME/thatch/debug.log")" "plugin: toast: no TUI"
finish
