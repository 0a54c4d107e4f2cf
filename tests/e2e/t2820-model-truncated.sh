#!/usr/bin/env bash
# A model file or its packed copy cut in place under a running `thatch
# mcp` (`truncate`, a `cp` over it, a cache cleaner): the server lives on
# (it used to die of SIGBUS), a cut packed copy is packed anew without the
# call noticing, a cut model file fails the call with a reason, and once
# the file is whole again the next call loads it.
. "$(dirname "$0")/lib.sh"

mkdir model && cp "$THATCH_MODEL"/* model/
export THATCH_MODEL=$TEST_DIR/model
PACKED=$XDG_CACHE_HOME/thatch/packed
expect_ok "a first process packs the weights and keeps them" thatch embed "warm up"
expect_eq "one packed copy is kept" 1 "$(ls "$PACKED" | grep -c '\.bin$')"
pack=$(ls "$PACKED"/*.bin)
pack_size=$(stat -c %s "$pack")

mkfifo in
thatch mcp <in >out 2>err &
mcp_pid=$!
exec 7>in
n=0
call() {	# call TOOL ARGS: R = the answer's line (the server maps the copy)
	n=$((n + 1))
	printf '{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"%s","arguments":%s}}\n' \
	    "$n" "$1" "$2" >&7
	local deadline=$((SECONDS + 20))
	# a whole line with this id: a reader can see a long write half done
	until R=$(grep "\"id\":$n[,}]" out) &&
	    python3 -c 'import json,sys; json.loads(sys.argv[1])' "$R" 2>/dev/null; do
		[ $SECONDS -ge $deadline ] && { R="no answer to $1"; return; }
		kill -0 $mcp_pid 2>/dev/null || { R="server gone"; return; }
		sleep 0.05
	done
}
printf '%s\n' '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' >&7
call memory_remember '{"label":"before","content":"saved before any cut"}'
expect_contains "the server saves with the packed copy mapped" "$R" '[saved]'

truncate -s 5000 "$pack"
call memory_remember '{"label":"pack cut","content":"saved after the packed copy was cut"}'; r=$R
expect_contains "a call after the packed copy is cut still saves" "$r" '[saved]'
expect_ok "the server lives on" kill -0 $mcp_pid
expect_eq "the packed copy is written whole again" "$pack_size" "$(stat -c %s "$pack")"
call memory_recall '{"query":"saved after the packed copy was cut","limit":5}'; r=$R
expect_contains "what was saved meanwhile is found" "$r" 'pack cut'

truncate -s 1000 model/model.safetensors
call memory_remember '{"label":"model cut","content":"saved after the model file was cut"}'; r=$R
expect_contains "a call after the model file is cut says what happened" "$r" \
    'Tool error: model file changed on disk while in use and cannot be loaded again ('
expect_contains "and why it cannot load it" "$r" 'truncated download?)); restore it or restart thatch'
expect_ok "the server lives on" kill -0 $mcp_pid
call memory_recall '{"query":"anything"}'; r=$R
expect_contains "the next call says so again, rather than using zeros" "$r" 'Tool error: model file changed on disk'
call memory_list '{}'
expect_contains "calls without the model still work" "$R" 'pack cut'

cat "$THATCH_FIXTURES/embed/tiny-bert/model.safetensors" >model/model.safetensors
call memory_remember '{"label":"model whole","content":"saved once the model file was whole again"}'; r=$R
expect_contains "once the file is whole again the next call loads it" "$r" '[saved]'
call memory_list '{}'; r=$R
expect_not_contains "nothing was saved by the failed call" "$r" 'model cut'

exec 7>&-
wait $mcp_pid
expect_eq "the server exits normally when its input ends" 0 $?
expect_eq "nothing on stderr" "" "$(cat err)"
finish
