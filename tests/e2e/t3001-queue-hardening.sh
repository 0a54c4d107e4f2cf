#!/usr/bin/env bash
# The extraction queue as an attacker and a failing machine treat it
# (issue 12): lines anyone may have written, tool outputs of 50 MB, stdin
# that never ends, a full disk, an acknowledgement that cannot delete,
# killed hooks' temporary files, and symlinks or FIFOs planted where the
# queue's files go. Every hook still exits 0 and answers.
REGRESS=$(cd "$(dirname "$0")/../fuzz/regress/queue" && pwd)
. "$(dirname "$0")/lib.sh"

# only the queue's tier of flush-tools speaks, whatever the sideband says
export THATCH_RECALL_THRESHOLD=2 THATCH_PREDICTION_THRESHOLD=2 THATCH_BEHAVIOR_THRESHOLD=2
Q=$XDG_CACHE_HOME/thatch/queue
mkdir -p proj "$Q" && cd proj && git init -q

batch() {	# batch SESSION CALLS-JSON: a PostToolBatch as Claude Code sends it
	printf '{"session_id":"%s","hook_event_name":"PostToolBatch","tool_calls":%s}\n' "$1" "$2"
}
prompt() { printf '{"session_id":"%s","hook_event_name":"UserPromptSubmit","prompt":"%s"}\n' "$1" "$2"; }
bash_call='{"tool_name":"Bash","tool_input":{"command":"make"},"tool_response":"ok"}'
records() {	# records FILE: its line count if every line is a record, else "torn"
	python3 -c 'import json,sys
sys.setrecursionlimit(100000); n=0
for l in open(sys.argv[1],"rb").read().split(b"\n")[:-1]:
    r=json.loads(l); assert isinstance(r,dict) and isinstance(r["tool"],str); n+=1
print(n)' "$1" 2>/dev/null || echo torn
}
rss() {	# rss CMD...: the command's peak resident set in KB (stdin passed on)
	/usr/bin/time -f '%M' -o "$TEST_DIR/rss" "$@" >/dev/null 2>&1
	tail -n 1 "$TEST_DIR/rss"
}

# a `thatch mcp` on a FIFO; rpc sends a line, answer ID waits for reply ID
mcp_start() {	# mcp_start NAME [ENV=...]: start a server, fd 7 feeds it
	rm -f "$TEST_DIR/$1.in"; mkfifo "$TEST_DIR/$1.in"
	env "${@:2}" "$THATCH_BIN" mcp <"$TEST_DIR/$1.in" >"$TEST_DIR/$1.out" 2>"$TEST_DIR/$1.err" &
	mcp_pid=$! mcp_out=$TEST_DIR/$1.out
	exec 7>"$TEST_DIR/$1.in"
	rpc '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
}
mcp_stop() { exec 7>&-; wait "$mcp_pid"; }
rpc() { printf '%s\n' "$1" >&7; }
call() {	# call ID TOOL SESSION: a tools/call with {"session_id":SESSION}
	rpc '{"jsonrpc":"2.0","id":'"$1"',"method":"tools/call","params":{"name":"'"$2"'","arguments":{"session_id":"'"$3"'"}}}'
}
answer() {	# answer ID: the server's reply to ID, waiting up to 10 s
	local deadline=$((SECONDS + 10))
	until grep -q "\"id\":$1," "$mcp_out" 2>/dev/null; do
		[ $SECONDS -ge $deadline ] && return 1
		sleep 0.05
	done
	grep "\"id\":$1," "$mcp_out"
}

# --- any line: every reader takes what anyone may have written ---------------
mcp_start any
id=10
for f in "$REGRESS"/*; do
	name=${f##*/} sid=r-${f##*/}
	sid=${sid%.jsonl}	# a session id the queue keeps as its file's name
	cp "$f" "$Q/$sid.jsonl"
	call $id get_extraction_payload "$sid"
	a=$(answer $id)
	expect_contains "the MCP server answers the payload of the '$name' queue" "$a" '"result":'
	out=$(prompt "$sid" "please go on with the change" | thatch flush-tools 2>/dev/null); rc=$?
	expect_eq "flush-tools on the '$name' queue exits 0 with a nudge" "0:[thatch]" "$rc:${out:0:8}"
	batch "$sid" "[$bash_call]" | thatch buffer-batch 2>/dev/null
	n=$(records "$Q/$sid.jsonl")
	expect_ok "after an append every line of the '$name' queue is a record" test "$n" != torn
	id=$((id + 1))
done
expect_ok "the MCP server is still running after every regression input" kill -0 "$mcp_pid"
cp "$REGRESS/no-args" "$Q/s1.jsonl"
call 1 get_extraction_payload s1
expect_contains "a record without args gets {} as its payload args" "$(answer 1)" \
    '{\"interactions\":[{\"tool\":\"WebFetch\",\"title\":\"t\",\"args\":\"{}\",\"output\":\"o\"}]'
expect_contains "twenty of two hundred foreign lines are offered, like an append keeps" \
    "$(prompt r-many-lines "please go on with the change" | thatch flush-tools)" "20 queued tool interactions"
cp "$REGRESS/torn" "$Q/torn.jsonl"
out=$(prompt torn "please go on with the change" | thatch flush-tools)
expect_contains "torn lines (an older version on a full disk) hide only themselves" "$out" "1 queued tool interaction is"

# --- size: a 50 MB tool output costs a pass over it, not 50 MB ----------------
python3 -c 'import json
big="x"*50_000_000
json.dump({"session_id":"big","hook_event_name":"PostToolBatch","tool_calls":[{"tool_name":"Bash","tool_input":{"command":"cat log"},"tool_response":big}]},open("batch.json","w"))
json.dump({"conversation_id":"bigc","hook_event_name":"postToolUse","tool_name":"Shell","tool_input":{"command":"cat log"},"tool_output":big},open("cursor.json","w"))
with open("'"$Q"'/huge.jsonl","w") as f:
    for i in range(3):
        f.write(json.dumps({"tool":"Bash","sessionID":"huge","args":{},"title":"","output":big[:30_000_000]})+"\n")
        f.write(json.dumps({"tool":"Read","sessionID":"huge","args":{"file_path":"/r/%d.c"%i},"title":"%d.c"%i,"output":"small"})+"\n")'
if [ -x /usr/bin/time ]; then
	kb=$(rss "$THATCH_BIN" buffer-batch <batch.json)
	expect_ok "buffer-batch with a 50 MB output stays under 32 MB (was 150 MB): ${kb} KB" test "$kb" -lt 32768
	kb=$(rss "$THATCH_BIN" buffer-tool <cursor.json)
	expect_ok "buffer-tool with a 50 MB tool_output stays under 32 MB: ${kb} KB" test "$kb" -lt 32768
	kb=$(prompt huge "please go on with the change" | rss "$THATCH_BIN" flush-tools)
	expect_ok "flush-tools on a queue of 30 MB lines stays under 32 MB (was 440 MB): ${kb} KB" test "$kb" -lt 32768
else
	echo "skip: no /usr/bin/time to measure the resident set"
	thatch buffer-batch <batch.json; thatch buffer-tool <cursor.json
fi
expect_ok "the 50 MB output is queued as a line of a few KB" test "$(stat -c %s "$Q/big.jsonl")" -lt 8192
expect_contains "the stored output is cut like an object one, with an ellipsis" "$(cat "$Q/big.jsonl")" 'xxx..."}'
expect_ok "Cursor's 50 MB tool_output is queued small too" test "$(stat -c %s "$Q/bigc.jsonl")" -lt 8192
expect_contains "an older version's 30 MB lines are offered all the same, cut" \
    "$(prompt huge "please go on with the change" | thatch flush-tools)" "6 queued tool interactions"
python3 -c 'import json
print(json.dumps({"tool":"Bash","sessionID":"old","args":{"command":"make"},"title":"make","output":"y"*3_000_000}))' >"$Q/old.jsonl"
expect_contains "an older version's 3 MB line is still offered" \
    "$(prompt old "please go on with the change" | thatch flush-tools)" "1 queued tool interaction is"
batch old "[$bash_call]" | thatch buffer-batch
expect_eq "... and shrinks to a few KB with the next append" "2:small" \
    "$(records "$Q/old.jsonl"):$( [ "$(stat -c %s "$Q/old.jsonl")" -lt 8192 ] && echo small)"
out=$( { printf '{"session_id":"big","prompt":"'; yes; } | timeout 30 "$THATCH_BIN" flush-tools 2>"$TEST_DIR/err"); rc=$?
expect_eq "stdin that never ends: flush-tools stops reading and exits 0" 0 $rc
expect_contains "... and still nudges" "$out" "did you learn"
expect_contains "... and says why on stderr" "$(cat "$TEST_DIR/err")" "hook input is over 256 MiB"
timeout 30 "$THATCH_BIN" buffer-batch </dev/zero 2>"$TEST_DIR/err"; rc=$?
expect_eq "endless NUL bytes: buffer-batch gives up and exits 0" 0 $rc
expect_contains "... saying the input is too large" "$(cat "$TEST_DIR/err")" "over 16 MiB"

# --- bytes that are not UTF-8: each bad run reads as U+FFFD, the rest stays ---
printf '{"session_id":"bad\xff\xfeid","hook_event_name":"PostToolBatch","tool_calls":[{"tool_name":"Bash","tool_input":{"command":"cat bin"},"tool_response":"head \xe2\x82 tail"}]}\n' |
    thatch buffer-batch 2>"$TEST_DIR/err"
expect_eq "a tool output with a stray byte is still queued (under the id the original used)" 1 "$(records "$Q/bad__id.jsonl")"
expect_eq "... its bad bytes read as one U+FFFD per invalid run" 'head \ufffd tail|bad\ufffd\ufffdid' \
    "$(python3 -c 'import json,sys; r=json.loads(open(sys.argv[1],"rb").readline()); print(json.dumps(r["output"])[1:-1]+"|"+json.dumps(r["sessionID"])[1:-1])' "$Q/bad__id.jsonl")"
expect_eq "... and buffer-batch said nothing was wrong" "" "$(cat "$TEST_DIR/err")"

# --- files that are not what they seem: symlinks, FIFOs ------------------------
printf '{"tool":"Secret","sessionID":"v","args":{},"title":"","output":"the victim file"}\n' >"$TEST_DIR/victim"
cp "$TEST_DIR/victim" "$TEST_DIR/victim.orig"
ln -s "$TEST_DIR/victim" "$Q/sym.jsonl"
out=$(prompt sym "please go on with the change" | thatch flush-tools 2>"$TEST_DIR/err")
expect_not_contains "a symlink planted as the queue is not followed to its records" "$out" "queued tool interaction"
expect_contains "... and flush-tools says so" "$(cat "$TEST_DIR/err")" "is a symbolic link; not followed"
batch sym "[$bash_call]" | thatch buffer-batch 2>"$TEST_DIR/err"; rc=$?
expect_eq "buffer-batch refuses the symlinked queue and exits 0" 0 $rc
expect_contains "... with a clear line" "$(cat "$TEST_DIR/err")" "[thatch buffer-batch] failed: cannot queue tool calls: '$Q/sym.jsonl' is a symbolic link"
call 2 get_extraction_payload sym
a=$(answer 2)
expect_contains "get_extraction_payload refuses the symlinked queue as a tool error" "$a" "Tool error: cannot read the queued interactions of session 'sym'"
expect_not_contains "... and never shows the link's target" "$a" "the victim file"
ln -s "$TEST_DIR/victim" "$Q/s1.count"
prompt s1 "please go on with the change" | thatch flush-tools >/dev/null 2>&1
expect_ok "a symlinked counter is replaced, never written through" cmp -s "$TEST_DIR/victim" "$TEST_DIR/victim.orig"
calls=$(for i in $(seq 1 20); do printf '{"tool_name":"Bash","tool_input":{"command":"echo %d"},"tool_response":"%d"},' $i $i; done)
batch tmp "[${calls%,}]" | thatch buffer-batch
# the old temporary name was <queue>.tmp.<pid>: plant it as the hook's pid
batch tmp "[$bash_call]" | sh -c 'ln -s "$1" "$2.tmp.$$"; exec "$3" buffer-batch' sh "$TEST_DIR/victim" "$Q/tmp.jsonl" "$THATCH_BIN"
expect_ok "a symlink at the old predictable temporary name is not written through" cmp -s "$TEST_DIR/victim" "$TEST_DIR/victim.orig"
expect_eq "... and the queue is rewritten all the same" 20 "$(records "$Q/tmp.jsonl")"
mkfifo "$Q/fifo.jsonl"
out=$(prompt fifo "please go on with the change" | timeout 10 "$THATCH_BIN" flush-tools 2>/dev/null); rc=$?
expect_eq "a FIFO planted as the queue cannot block the prompt hook" "0:[thatch]" "$rc:${out:0:8}"
out=$(batch fifo "[$bash_call]" | timeout 10 "$THATCH_BIN" buffer-batch 2>&1); rc=$?
expect_eq "... nor the tool hook" 0 $rc
expect_contains "... which says it is not a regular file" "$out" "is not a regular file"

# --- private files, whatever the umask ----------------------------------------
(umask 000; batch priv "[$bash_call]" | THATCH_QUEUE_DIR=$TEST_DIR/fresh/queue "$THATCH_BIN" buffer-batch)
expect_eq "a new queue folder is private to the user" 700 "$(stat -c %a "$TEST_DIR/fresh/queue")"
expect_eq "a queue file is private to the user" 600 "$(stat -c %a "$TEST_DIR/fresh/queue/priv.jsonl")"

# --- killed hooks' temporary files (they hold tool outputs) are swept ---------
for f in dead.jsonl.tmp.4242 dead.jsonl.tmp.0123456789abcdef dead.count.tmp.77 dead.nudge.4243 live.jsonl.tmp.89abcdef01234567; do
	printf 'secret tool output\n' >"$Q/$f"
done
touch -d '10 minutes ago' "$Q"/dead.*
thatch reminder </dev/null >/dev/null 2>"$TEST_DIR/err"
expect_eq "session start sweeps a killed hook's temporaries and claimed nudges" "" "$(cd "$Q" && ls dead.* 2>/dev/null)"
expect_ok "... but not one a live hook may be writing" test -f "$Q/live.jsonl.tmp.89abcdef01234567"
expect_eq "... quietly" "" "$(cat "$TEST_DIR/err")"

# --- a full disk, and a queue that cannot be deleted --------------------------
mcp_stop
if [ "$(id -u)" -eq 0 ] && mkdir -p "$TEST_DIR/disk" &&
    mount -t tmpfs -o size=64k,mode=0700 tmpfs "$TEST_DIR/disk" 2>/dev/null; then
	trap 'umount "$TEST_DIR/disk" 2>/dev/null; rm -rf "$TEST_DIR"' EXIT
	export THATCH_QUEUE_DIR=$TEST_DIR/disk/queue
	batch full "[$bash_call,$bash_call,$bash_call]" | thatch buffer-batch
	cp "$THATCH_QUEUE_DIR/full.jsonl" "$TEST_DIR/full.before"
	dd if=/dev/zero of="$TEST_DIR/disk/filler" bs=1k 2>/dev/null
	big_call='{"tool_name":"Bash","tool_input":{"command":"'$(head -c 900 /dev/zero | tr '\0' c)'"},"tool_response":"'$(head -c 900 /dev/zero | tr '\0' o)'"}'
	batch full "[$big_call]" | thatch buffer-batch 2>"$TEST_DIR/err"; rc=$?
	expect_eq "an append on a full disk exits 0" 0 $rc
	expect_contains "... says the disk is full" "$(cat "$TEST_DIR/err")" "No space left on device"
	expect_ok "... and leaves the queue exactly as it was" cmp -s "$THATCH_QUEUE_DIR/full.jsonl" "$TEST_DIR/full.before"
	expect_eq "... with no temporary file behind" "" "$(cd "$THATCH_QUEUE_DIR" && ls | grep tmp)"
	rm "$TEST_DIR/disk/filler"
	batch full "[$bash_call]" | thatch buffer-batch
	expect_eq "once there is room the next record is whole, none swallowed" 4 "$(records "$THATCH_QUEUE_DIR/full.jsonl")"

	mcp_start ro THATCH_QUEUE_DIR="$THATCH_QUEUE_DIR"
	mount -o remount,ro "$TEST_DIR/disk"
	call 3 extraction_done full
	a=$(answer 3)
	expect_not_contains "extraction_done on a read-only queue does not say [acknowledged]" "$a" "[acknowledged]"
	expect_contains "... it reports a tool error naming the session" "$a" "Tool error: the queued interactions of session 'full' were not released"
	expect_contains "... and why" "$a" "Read-only file system"
	expect_eq "... and the records stay for the next nudge" 4 "$(records "$THATCH_QUEUE_DIR/full.jsonl")"
	mount -o remount,rw "$TEST_DIR/disk"
	call 4 extraction_done full
	expect_contains "once it can, extraction_done acknowledges" "$(answer 4)" "[acknowledged]"
	expect_fail "... and the queue is gone" test -e "$THATCH_QUEUE_DIR/full.jsonl"
	mcp_stop
	unset THATCH_QUEUE_DIR
elif [ "$(id -u)" -ne 0 ]; then
	echo "skip: a full disk needs root to mount a small tmpfs"
	batch ro "[$bash_call]" | thatch buffer-batch
	mcp_start ro
	chmod 500 "$Q"
	call 3 extraction_done ro
	a=$(answer 3)
	expect_not_contains "extraction_done on an undeletable queue does not say [acknowledged]" "$a" "[acknowledged]"
	expect_contains "... it reports a tool error" "$a" "Tool error: the queued interactions of session 'ro' were not released"
	chmod 700 "$Q"
	expect_eq "... and the records stay" 1 "$(records "$Q/ro.jsonl")"
	mcp_stop
else
	echo "skip: root, but no tmpfs can be mounted here (no CAP_SYS_ADMIN)"
fi
finish
