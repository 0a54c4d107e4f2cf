#!/usr/bin/env bash
# A long MCP session (hundreds of calls: remember, recall, list, show,
# find_duplicates, verdicts, refusals, bad arguments, protocol errors),
# then an idle server's warm-up, under valgrind: no invalid access, no
# leak (STYLE §7.4: a request frees all it took before the next one is
# read). Skipped without valgrind.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../e2e/lib.sh"
if ! command -v valgrind >/dev/null; then
	echo "valgrind is not installed: skipped"
	finish
	exit
fi
export OPENBLAS_NUM_THREADS=1

session() {
	local i
	echo '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}'
	echo '{"jsonrpc":"2.0","method":"notifications/initialized"}'
	echo '{"jsonrpc":"2.0","id":"l","method":"tools/list"}'
	for i in $(seq 1 100); do
		echo '{"jsonrpc":"2.0","id":"r'$i'","method":"tools/call","params":{"name":"memory_remember","arguments":{"label":"note '$((i % 70))'","content":"fact number '$i' about the build","store":"vg","confidence":'$((i % 10 + 1))'}}}'
		echo '{"jsonrpc":"2.0","id":"q'$i'","method":"tools/call","params":{"name":"memory_recall","arguments":{"query":"fact '$i'","limit":5,"store":"vg"}}}'
		if [ $((i % 2)) -eq 0 ]; then
			echo '{"jsonrpc":"2.0","id":"s'$i'","method":"tools/call","params":{"name":"memory_list","arguments":{"store":"vg"}}}'
			echo '{"jsonrpc":"2.0","id":"d'$i'","method":"tools/call","params":{"name":"find_duplicates","arguments":{"store":"vg","threshold":0.9}}}'
		fi
		if [ $((i % 10)) -eq 0 ]; then
			echo '{"jsonrpc":"2.0","id":"o'$i'","method":"tools/call","params":{"name":"memory_remember","arguments":{"label":"note 1","content":"updated","store":"vg","overwrite":true}}}'
			echo '{"jsonrpc":"2.0","id":"m'$i'","method":"tools/call","params":{"name":"dedup_mark_checked","arguments":{"label_a":"note 2","label_b":"note 3","status":"unrelated","store":"vg"}}}'
			echo '{"jsonrpc":"2.0","id":"h'$i'","method":"tools/call","params":{"name":"memory_show","arguments":{"label":"note 4","store":"vg"}}}'
			echo '{"jsonrpc":"2.0","id":"f'$i'","method":"tools/call","params":{"name":"memory_forget","arguments":{"label":"note '$i'","store":"vg"}}}'
			echo '{"jsonrpc":"2.0","id":"e'$i'","method":"tools/call","params":{"name":"memory_remember","arguments":{"confidence":11}}}'
			echo '{"jsonrpc":"2.0","id":"u'$i'","method":"tools/call","params":{"name":"nope"}}'
			echo 'not json'
			echo '[1,2]'
			echo '{"jsonrpc":"2.0","id":"p'$i'","method":"prompts/get","params":{"name":"x"}}'
			echo '{"jsonrpc":"2.0","id":"x'$i'","method":"tools/call","params":{"name":"store_list"}}'
		fi
	done
}
session >session.jsonl
# every line but the one notification is answered
requests=$(grep -vc 'notifications/' session.jsonl)
valgrind -q --error-exitcode=99 --leak-check=full \
    --errors-for-leak-kinds=definite,indirect \
    --suppressions="$here/../valgrind.supp" --log-file=valgrind.log \
    "$THATCH_BIN" mcp <session.jsonl >responses.jsonl 2>stderr.log
rc=$?
expect_eq "the server exits 0 under valgrind with no error or leak" 0 $rc
[ $rc -eq 0 ] || sed 's/^/     /' valgrind.log | head -60
expect_eq "every request of the long session is answered" \
    "$requests" "$(grep -c '"jsonrpc"' responses.jsonl)"
expect_eq "no tool failed along the way" 0 "$(grep -c 'Tool error' responses.jsonl)"
expect_contains "the session really recalled memories" \
    "$(cat responses.jsonl)" "[store:vg "

# the idle warm-up (model, seeding into a fresh database, vector caches)
mkdir warm && mkfifo warm/in
THATCH_DB_PATH=$PWD/warm/thatch.db THATCH_DEBUG=mcp:warm valgrind -q \
    --error-exitcode=99 --leak-check=full \
    --errors-for-leak-kinds=definite,indirect \
    --suppressions="$here/../valgrind.supp" --log-file=warm/valgrind.log \
    "$THATCH_BIN" mcp <warm/in >warm/out 2>warm/err &
pid=$!
exec 7>warm/in
echo '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}' >&7
wait_for "an idle server under valgrind warms up to the vector caches" 120 \
    grep -q 'mcp:warm\] step 2: ok' warm/debug.log
echo '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"memory_recall","arguments":{"query":"fact"}}}' >&7
exec 7>&-
wait "$pid"
rc=$?
expect_eq "the warmed-up server exits 0 with no error or leak" 0 $rc
[ $rc -eq 0 ] || sed 's/^/     /' warm/valgrind.log | head -60
expect_contains "and answers the recall after it" "$(cat warm/out)" '"id":1,"result"'
finish
