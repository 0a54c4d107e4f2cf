#!/usr/bin/env bash
# The hook commands on realistic Claude Code and Cursor stdin: buffering,
# the queue cap, drains, the nudge tiers and their escalation, and every
# hook staying silent and exiting 0 on input it cannot use.
. "$(dirname "$0")/lib.sh"

Q=$XDG_CACHE_HOME/thatch/queue
mkdir -p proj && cd proj && git init -q

batch() {	# batch SESSION CALLS-JSON: a PostToolBatch as Claude Code sends it
	printf '{"session_id":"%s","transcript_path":"/t.jsonl","cwd":"%s","prompt_id":"p1","permission_mode":"default","effort":{"level":"high"},"hook_event_name":"PostToolBatch","tool_calls":%s}\n' "$1" "$PWD" "$2"
}
read_call='{"tool_name":"Read","tool_input":{"file_path":"/repo/src/main.c"},"tool_use_id":"toolu_A0","tool_response":"int main(void);"}'
bash_call='{"tool_name":"Bash","tool_input":{"command":"git log --oneline -5"},"tool_use_id":"toolu_B0","tool_response":"abc123 first"}'
mcp_call='{"tool_name":"mcp__trivial__echo","tool_input":{"text":"first"},"tool_use_id":"toolu_C0","tool_response":[{"type":"text","text":"first"}]}'

# --- buffer-batch -----------------------------------------------------------
out=$(batch 0f9580b6-7003 "[$read_call,$bash_call,$mcp_call]" | thatch buffer-batch 2>&1); rc=$?
expect_eq "buffer-batch exits 0" 0 $rc
expect_eq "buffer-batch prints nothing" "" "$out"
expect_eq "each call of the batch is one queue line" 3 "$(wc -l <"$Q/0f9580b6-7003.jsonl")"
expect_eq "a queue record keeps the original's keys and order" \
    '{"tool":"Read","sessionID":"0f9580b6-7003","args":{"file_path":"/repo/src/main.c"},"title":"main.c","output":"int main(void);"}' \
    "$(head -n 1 "$Q/0f9580b6-7003.jsonl")"
expect_contains "a content-array response is stored as compact JSON" \
    "$(tail -n 1 "$Q/0f9580b6-7003.jsonl")" '"output":"[{\"type\":\"text\",\"text\":\"first\"}]"'

batch s-own '[{"tool_name":"mcp__thatch__memory_recall","tool_input":{"query":"x"},"tool_response":[]},{"tool_name":"Task","tool_input":{},"tool_response":"done"},{"tool_name":"skill","tool_input":{},"tool_response":"x"}]' | thatch buffer-batch
expect_fail "thatch's own tools and meta-tools are never queued" test -e "$Q/s-own.jsonl"

calls=$(for i in $(seq 1 25); do printf '{"tool_name":"Bash","tool_input":{"command":"echo %d"},"tool_response":"%d"},' $i $i; done)
batch s-cap "[${calls%,}]" | thatch buffer-batch
expect_eq "the queue keeps at most 20 records" 20 "$(wc -l <"$Q/s-cap.jsonl")"
expect_contains "the oldest records are the ones dropped" "$(head -n 1 "$Q/s-cap.jsonl")" '"output":"6"'

batch ../../escape "[$read_call]" | thatch buffer-batch
expect_ok "a session id cannot name a file outside the queue folder" test -f "$Q/______escape.jsonl"
expect_fail "nothing is written above the queue folder" test -e "$XDG_CACHE_HOME/escape.jsonl"

for bad in '' 'not json' '[1,2]' 'null' '{"session_id":"","tool_calls":[]}' '{"session_id":"x","tool_calls":"no"}'; do
	out=$(printf '%s' "$bad" | thatch buffer-batch 2>/dev/null); rc=$?
	expect_eq "buffer-batch on '$bad' exits 0 silently" "0:" "$rc:$out"
done
err=$(printf 'not json' | thatch buffer-batch 2>&1 >/dev/null)
expect_contains "malformed stdin is reported on stderr" "$err" "[thatch buffer-batch] failed:"
mkdir -p "$XDG_CONFIG_HOME/thatch"
printf 'not json' | THATCH_DEBUG=1 thatch buffer-batch 2>/dev/null
expect_contains "with THATCH_DEBUG the failure is in the debug log" "$(cat "$XDG_CONFIG_HOME/thatch/debug.log" 2>/dev/null)" "[hook:error] buffer-batch:"
batch s-part '[{"tool_input":{}},'"$read_call"',{"tool_name":"Glob","tool_input":{"pattern":"*.c"}}]' | thatch buffer-batch
expect_eq "a call without a name is skipped, the rest kept" 2 "$(wc -l <"$Q/s-part.jsonl")"
expect_contains "a call without a response stores an empty output" "$(tail -n 1 "$Q/s-part.jsonl")" '"output":""'

# --- flush-tools: tiers and escalation ---------------------------------------
prompt() { printf '{"session_id":"%s","transcript_path":"/t","cwd":"%s","prompt_id":"p","permission_mode":"default","hook_event_name":"UserPromptSubmit","prompt":"%s"}\n' "$1" "$PWD" "$2"; }
n1=$(prompt 0f9580b6-7003 "please keep going with the refactor" | thatch flush-tools)
expect_contains "queued calls bring the extraction nudge" "$n1" "3 queued tool interactions"
expect_contains "the nudge names the fact-extractor skill" "$n1" "thatch-fact-extractor"
expect_contains "the nudge names the payload tool with the session" "$n1" 'mcp__thatch__get_extraction_payload with session_id "0f9580b6-7003"'
expect_contains "the first nudge is polite and says it is no user input" "$n1" "not a message from the user"
expect_not_contains "the nudge never carries the payload itself" "$n1" "int main(void);"
n2=$(prompt 0f9580b6-7003 "please keep going with the refactor" | thatch flush-tools)
n3=$(prompt 0f9580b6-7003 "please keep going with the refactor" | thatch flush-tools)
n4=$(prompt 0f9580b6-7003 "please keep going with the refactor" | thatch flush-tools)
expect_eq "the second nudge is still polite" "$n1" "$n2"
expect_contains "the third nudge insists" "$n3" "WERE NOT HANDLED"
expect_contains "it counts what still waits" "$n3" "3 queued tool interactions still wait."
expect_not_contains "it claims no new calls when none came" "$n3" "more"
expect_contains "the fourth nudge shouts" "$n4" "YOU HAVE IGNORED"
expect_contains "shouting keeps the session id's case" "$n4" 'session_id "0f9580b6-7003"'
expect_contains "shouting keeps the tool names' case" "$n4" "mcp__thatch__extraction_done"
expect_eq "the queue is only peeked by nudges" 3 "$(wc -l <"$Q/0f9580b6-7003.jsonl")"

batch 0f9580b6-7003 '[{"tool_name":"mcp__thatch__extraction_done","tool_input":{},"tool_response":"Tool error: boom"}]' | thatch buffer-batch
expect_ok "a failed extraction_done drains nothing" test -f "$Q/0f9580b6-7003.jsonl"
batch 0f9580b6-7003 '[{"tool_name":"mcp__thatch__memory_remember","tool_input":{},"tool_response":[{"type":"text","text":"[saved]"}]},'"$bash_call"']' | thatch buffer-batch
expect_eq "memory_remember drains the queue, later calls of the batch stay" 1 "$(wc -l <"$Q/0f9580b6-7003.jsonl")"
expect_fail "a drain resets the escalation" test -e "$Q/0f9580b6-7003.count"
expect_contains "after a drain the nudge is polite again" \
    "$(prompt 0f9580b6-7003 "please keep going with the refactor" | thatch flush-tools)" "not a message from the user"

w=$(prompt fresh "short" | thatch flush-tools)
expect_contains "nothing queued and a short prompt give the write nudge" "$w" "did you learn"
expect_eq "the write nudge is plain text for Claude Code" "[thatch]" "${w:0:8}"
w=$(prompt fresh "a long enough prompt for the sideband" | thatch flush-tools)
expect_contains "no MCP server running falls back to the write nudge" "$w" "did you learn"
for bad in '' 'not json' 'null'; do
	out=$(printf '%s' "$bad" | thatch flush-tools 2>/dev/null); rc=$?
	expect_eq "flush-tools on '$bad' exits 0" 0 $rc
	expect_contains "flush-tools on '$bad' still gives the write nudge" "$out" "did you learn"
done

# --- Cursor: buffer-tool and the pending nudge (host-contracts C2, C4, C6) ----
cur() { printf '{"conversation_id":"c-1","generation_id":"g","model":"m","cursor_version":"1.7","workspace_roots":["%s"],"hook_event_name":"%s",%s}\n' "$PWD" "$1" "$2"; }
out=$(cur postToolUse '"tool_name":"Shell","tool_input":{"command":"ls"},"tool_output":"{\"output\":\"a.c\"}","tool_use_id":"t1","cwd":"/p","duration":5' | thatch buffer-tool); rc=$?
expect_eq "buffer-tool exits 0 and prints nothing" "0:" "$rc:$out"
expect_contains "Cursor's tool_output is what gets queued" "$(cat "$Q/c-1.jsonl")" '"output":"{\"output\":\"a.c\"}"'
out=$(cur beforeSubmitPrompt '"prompt":"continue please","attachments":[]' | thatch flush-tools --json)
expect_eq "Cursor's prompt hook only answers continue" '{"continue":true}' "$out"
out=$(cur beforeSubmitPrompt '"prompt":"continue please"' | thatch flush-tools)
expect_eq "the Claude-form flush-tools stays silent inside Cursor" "" "$out"
out=$(cur postToolUse '"tool_name":"Read","tool_input":{"file_path":"/p/b.c"},"tool_output":"x"' | thatch buffer-tool)
expect_contains "the next tool call delivers the nudge as additional_context" "$out" '{"additional_context":"[thatch] 1 queued tool interaction is ready'
expect_contains "Cursor's nudge uses the bare tool names" "$out" 'Call get_extraction_payload with session_id \"c-1\"'
expect_eq "delivering counts as a missed nudge" 1 "$(cat "$Q/c-1.count")"
out=$(cur postToolUse '"tool_name":"Read","tool_input":{},"tool_output":"y"' | thatch buffer-tool)
expect_eq "a nudge is delivered once" "" "$out"
cur postToolUseFailure '"tool_name":"MCP:extraction_done","tool_input":{},"error_message":"boom","failure_type":"error"' | thatch buffer-tool
expect_ok "a failed thatch call drains nothing" test -f "$Q/c-1.jsonl"
cur postToolUse '"tool_name":"MCP:extraction_done","tool_input":{},"tool_output":"[acknowledged]"' | thatch buffer-tool
expect_fail "Cursor's extraction_done drains the conversation's queue" test -e "$Q/c-1.jsonl"
for bad in '' 'not json' '{"conversation_id":"c-2"}'; do
	out=$(printf '%s' "$bad" | thatch buffer-tool 2>/dev/null); rc=$?
	expect_eq "buffer-tool on '$bad' exits 0 silently" "0:" "$rc:$out"
done

# --- reminder ----------------------------------------------------------------
r=$(thatch reminder </dev/null); rc=$?
expect_eq "reminder exits 0" 0 $rc
expect_contains "the reminder names the project store" "$r" '(store "proj")'
expect_contains "the reminder asks for the three recalls" "$r" "(3) context scoped to the current branch"
j=$(thatch reminder --json </dev/null)
expect_eq "reminder --json is one additional_context object" "{\"additional_context\":\"${r//$'\n'/\\n}\"}" "${j//\\\"/\"}"
expect_eq "the Claude-form reminder stays silent inside Cursor" "" "$(CURSOR_VERSION=1.7 thatch reminder)"
printf 'this is not a database, not even close to one.........' >"$TEST_DIR/bad.db"
r=$(THATCH_DB_PATH=$TEST_DIR/bad.db thatch reminder 2>"$TEST_DIR/err" </dev/null); rc=$?
expect_eq "reminder with a broken database still exits 0" 0 $rc
expect_contains "reminder with a broken database still reminds" "$r" "Before you respond"
expect_contains "the lost hygiene part is explained on stderr" "$(cat "$TEST_DIR/err")" "hygiene report failed"

# --- prime -------------------------------------------------------------------
mkdir -p "$TEST_DIR/bin"
err=$(PATH=$TEST_DIR/bin:/usr/bin:/bin thatch prime 2>&1); rc=$?
expect_eq "prime without an agent CLI exits 1" 1 $rc
expect_contains "prime names the agent CLIs it looks for" "$err" "opencode, agent (Cursor) or claude"
printf '#!/bin/sh\nprintf "%%s|" "$@" >"%s/args"\ncat >"%s/stdin"\nexit 3\n' "$TEST_DIR" "$TEST_DIR" >"$TEST_DIR/bin/claude"
chmod +x "$TEST_DIR/bin/claude"
err=$(echo typed | PATH=$TEST_DIR/bin:/usr/bin:/bin thatch prime 2>&1); rc=$?
expect_eq "prime exits with the agent's status" 3 $rc
expect_contains "prime says which agent it uses" "$err" "priming via claude"
expect_contains "prime asks for the primer skill" "$(cat "$TEST_DIR/args")" "thatch-project-primer"
expect_eq "the agent's stdin is not ours" "" "$(cat "$TEST_DIR/stdin")"

# Session start sweeps what sessions a week gone left in the queue folder
mkdir -p "$Q"
for f in old.jsonl old.count old.nudge old.nudge.4242 fresh.jsonl notes.txt; do
	printf 'x\n' >"$Q/$f"
done
touch -d '8 days ago' "$Q/old.jsonl" "$Q/old.count" "$Q/old.nudge" \
    "$Q/old.nudge.4242" "$Q/notes.txt"
touch -d '6 days ago' "$Q/fresh.jsonl"
thatch reminder </dev/null >/dev/null 2>"$TEST_DIR/err"; rc=$?
expect_eq "the sweeping reminder exits 0 and says nothing on stderr" "0|" "$rc|$(cat "$TEST_DIR/err")"
expect_eq "a week-old queue, counter, nudge and claimed nudge are removed" "" \
    "$(cd "$Q" && ls old.* 2>/dev/null)"
expect_ok "a queue touched six days ago stays" test -f "$Q/fresh.jsonl"
expect_ok "a file that is not thatch's stays whatever its age" test -f "$Q/notes.txt"
finish
