#!/usr/bin/env bash
# The store against other users and bad luck (issue 12): its files are the
# user's alone whatever the umask; another process's write transaction
# (a sqlite3 holding BEGIN IMMEDIATE) costs reads, server startup and the
# session-start hook nothing, a recall keeps its hits when its stamp
# cannot be written, and a new database is seeded once the lock is gone; a read-only database (file or directory) can be read;
# a NUL in an argument is refused, and control characters in labels are
# printed escaped.
. "$(dirname "$0")/lib.sh"
db=$THATCH_DB_PATH
mkdir proj && cd proj || exit 1		# not a repository: the store is "proj"
umask 022
INIT='{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
call() {	# call ID TOOL ARGS: one tools/call line
	printf '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"%s","arguments":%s}}\n' "$1" "$2" "$3"
}
mcp() {		# mcp TOOL ARGS...: a server for these calls, its output lines
	local i=1 req=
	while [ $# -gt 0 ]; do req+=$(call $((i++)) "$1" "$2")$'\n'; shift 2; done
	printf '%s' "$req" | thatch mcp 2>/dev/null
}
answer() {	# answer FILE ID: the text of that result ("ERROR " when isError)
	grep "\"id\":$2[,}]" "$1" | python3 -c 'import json,sys
r=json.loads(sys.stdin.readline())["result"]
sys.stdout.write(("ERROR " if r["isError"] else "")+r["content"][0]["text"])'
}
mode() { stat -c %a "$1"; }
ms() { date +%s%3N; }
within() {	# within WHAT MS CMD...: CMD exits 0 in under MS milliseconds
	local what=$1 max=$2 t0 rc; shift 2
	t0=$(ms); "$@" >/dev/null 2>&1; rc=$?
	expect_eq "$what" "0 fast" "$rc $( [ $(($(ms) - t0)) -lt "$max" ] && echo fast || echo "slow ($(($(ms) - t0)) ms)")"
}

# --- files only the user can read, whatever the umask ------------------------
mkfifo "$TEST_DIR/in"
thatch mcp <"$TEST_DIR/in" >"$TEST_DIR/out" 2>"$TEST_DIR/err" &
pid=$!
exec 7>"$TEST_DIR/in"
{ echo "$INIT"; call 1 memory_remember '{"label":"Login flow","content":"Tokens come from the auth service."}'; } >&7
wait_for "a server saves a memory under umask 022" 20 grep -q '"id":1,' "$TEST_DIR/out"
expect_eq "the database is 0600" 600 "$(mode "$db")"
expect_eq "its -wal is 0600" 600 "$(mode "$db-wal")"
expect_eq "its -shm is 0600" 600 "$(mode "$db-shm")"
expect_eq "its directory is 0700" 700 "$(mode "$(dirname "$db")")"
exec 7>&-
wait "$pid"
chmod 644 "$db"
thatch stores >/dev/null 2>"$TEST_DIR/err"
expect_eq "a world-readable database left by an older version is narrowed" 600 "$(mode "$db")"
expect_contains "and the user is told once" "$(cat "$TEST_DIR/err")" "made '$db' private"

mcp memory_remember '{"label":"Pool size","content":"The pool holds ten connections.","store":"global"}' \
    memory_recall '{"query":"warm the model and seed before the lock"}' >/dev/null

git init -q "$TEST_DIR/repo" && git -C "$TEST_DIR/repo" remote add origin https://github.com/acme/api.git
recalls() { sqlite3 "$db" "SELECT recall_count FROM entries WHERE slug = 'login-flow'"; }
before=$(recalls)

# --- another process holds the write lock -------------------------------------
exec 3> >(sqlite3 "$db" >/dev/null 2>&1)
# The holder waits for the lock itself: the polling below takes it briefly.
printf '%s\n' ".timeout 5000" "BEGIN IMMEDIATE; INSERT INTO stores VALUES ('held');" >&3
locked() { ! sqlite3 "$db" "BEGIN IMMEDIATE; ROLLBACK;" 2>/dev/null; }
wait_for "another process holds the write lock" 10 locked

: >"$TEST_DIR/out"
mkfifo "$TEST_DIR/in2"
thatch mcp <"$TEST_DIR/in2" >"$TEST_DIR/out" 2>"$TEST_DIR/err" 3>&- &
pid=$!
exec 7>"$TEST_DIR/in2"
echo "$INIT" >&7
wait_for "a server starts while the database is busy" 3 grep -q '"id":0,"result"' "$TEST_DIR/out"
{ call 1 memory_list '{}'; call 2 memory_recall '{"query":"who issues tokens","store":"proj"}'
  call 3 memory_remember '{"label":"new","content":"x"}'; } >&7
wait_for "its memory_list is answered at once" 3 grep -q '"id":1,' "$TEST_DIR/out"
expect_contains "with the memories" "$(answer "$TEST_DIR/out" 1)" "[proj] Login flow"

within "list answers at once beside a writer" 2000 thatch list
expect_contains "list shows the memories" "$(thatch list)" "[proj] Login flow"
within "show answers at once beside a writer" 2000 thatch show "Login flow"
expect_contains "show shows the content" "$(thatch show "Login flow")" "Tokens come from the auth service."
within "stores answers at once beside a writer" 2000 thatch stores
expect_eq "stores does not see the writer's uncommitted store" "global
proj" "$(thatch stores)"
cd "$TEST_DIR/repo" || exit 1
within "list in a new repository is not held up by its identity-cache write" 2000 thatch list
expect_eq "and names the repository's store" 'No memories in "acme/api".' "$(thatch list 2>/dev/null)"
cd "$TEST_DIR/proj" || exit 1
within "the session-start reminder is not held up" 2000 thatch reminder
expect_contains "and still gives its instructions" "$(thatch reminder </dev/null)" "[thatch]"
out=$(thatch search "who issues tokens" 2>"$TEST_DIR/search.err"); rc=$?
expect_eq "search still succeeds" 0 $rc
expect_contains "search prints its hits" "$out" "[proj] Login flow"
expect_contains "and says on stderr that the recall was not recorded" \
    "$(cat "$TEST_DIR/search.err")" "[thatch] recall not recorded in '$db': database is locked"

wait_for "the server's recall is answered after the busy timeout" 15 grep -q '"id":2,' "$TEST_DIR/out"
r=$(answer "$TEST_DIR/out" 2)
expect_contains "the recall returns its hits" "$r" "# Login flow"
expect_eq "and ends with one line saying the stamp was not recorded" \
    "[thatch] recall not recorded in '$db': database is locked" "$(tail -n 1 <<<"$r")"
wait_for "the server's remember is answered after the busy timeout" 15 grep -q '"id":3,' "$TEST_DIR/out"
r=$(answer "$TEST_DIR/out" 3)
expect_contains "a write reports a tool error" "$r" "ERROR Tool error: "
expect_contains "that says the database is locked" "$r" "database is locked"
exec 7>&-
wait "$pid"
expect_eq "the server exits 0" 0 $?
exec 3>&-
wait_for "the lock is released" 10 sqlite3 "$db" "BEGIN IMMEDIATE; ROLLBACK;"
expect_eq "the recalls under the lock were not stamped" "$before" "$(recalls)"
expect_eq "the refused write left nothing" 0 "$(sqlite3 "$db" "SELECT COUNT(*) FROM entries WHERE slug = 'new'")"

# --- a server on a new database seeds its default behaviors once it can --------
fresh=$TEST_DIR/fresh/thatch.db
THATCH_DB_PATH=$fresh thatch stores >/dev/null
exec 4> >(sqlite3 "$fresh" >/dev/null 2>&1)
printf '%s\n' ".timeout 5000" "BEGIN IMMEDIATE; INSERT INTO stores VALUES ('held');" >&4
wait_for "another process holds the new database's write lock" 10 \
    eval '! sqlite3 "$fresh" "BEGIN IMMEDIATE; ROLLBACK;" 2>/dev/null'
: >"$TEST_DIR/out"
mkfifo "$TEST_DIR/in3"
THATCH_DB_PATH=$fresh thatch mcp <"$TEST_DIR/in3" >"$TEST_DIR/out" 2>"$TEST_DIR/err" 4>&- &
pid=$!
exec 7>"$TEST_DIR/in3"
{ echo "$INIT"; call 1 memory_recall '{"query":"anything"}'; } >&7
wait_for "its first recall is answered without waiting to seed" 5 grep -q '"id":1,' "$TEST_DIR/out"
expect_eq "with what the empty store holds" "No matching memories found." "$(answer "$TEST_DIR/out" 1)"
exec 4>&-
wait_for "the new database's lock is released" 10 sqlite3 "$fresh" "BEGIN IMMEDIATE; ROLLBACK;"
call 2 memory_recall '{"query":"anything"}' >&7
wait_for "the next recall is answered" 10 grep -q '"id":2,' "$TEST_DIR/out"
expect_eq "and the default behaviors are seeded then" "$(grep -c '\.key = ' "$THATCH_FIXTURES/../../src/text/behaviors.c")" \
    "$(sqlite3 "$fresh" "SELECT COUNT(*) FROM behaviors WHERE store = 'global'")"
exec 7>&-
wait "$pid"

# --- a read-only database ------------------------------------------------------
# Root writes anywhere, so as root the reader is another user.
as_reader() {
	if [ "$(id -u)" -eq 0 ]; then
		setpriv --reuid=65534 --regid=65534 --clear-groups "$THATCH_BIN" "$@"
	else
		"$THATCH_BIN" "$@"
	fi
}
one_line() { [ "$(printf '%s\n' "$1" | wc -l)" -eq 1 ]; }
ro=$TEST_DIR/ro
mkdir "$ro" && cp "$db" "$ro/thatch.db"
# a table a newer schema adds is missing: the file cannot be upgraded now
sqlite3 "$ro/thatch.db" "DROP TABLE repo_paths"
[ "$(id -u)" -eq 0 ] && chmod 755 "$TEST_DIR" && chown -R 65534 "$ro"
chmod 444 "$ro/thatch.db"
export THATCH_DB_PATH=$ro/thatch.db
expect_eq "list reads a read-only file whose schema upgrade must wait" \
    "[proj] Login flow" "$(as_reader list proj 2>/dev/null | cut -d' ' -f1-3)"
expect_contains "show reads a read-only file" "$(as_reader show "Login flow" proj 2>&1)" "Tokens come from"
out=$(as_reader search "who issues tokens" proj 2>"$TEST_DIR/ro.err"); rc=$?
expect_eq "search on a read-only file succeeds" "0" "$rc"
expect_contains "and finds the memory" "$out" "[proj] Login flow"
expect_contains "and says the recall was not recorded" "$(cat "$TEST_DIR/ro.err")" "recall not recorded"
err=$(as_reader forget "Login flow" proj 2>&1 >/dev/null); rc=$?
expect_eq "forget on a read-only file fails" 1 $rc
expect_ok "with one line" one_line "$err"
expect_contains "that says it is read-only" "$err" "readonly database"
rm -f "$ro/thatch.db-wal" "$ro/thatch.db-shm"
chmod 555 "$ro"
expect_contains "list reads a database in a read-only directory" "$(as_reader list proj 2>&1)" "[proj] Login flow"
err=$(as_reader forget "Login flow" proj 2>&1 >/dev/null); rc=$?
expect_eq "forget there fails with one line" "1 ok" "$rc $(one_line "$err" && echo ok)"
chmod 600 "$ro/thatch.db"
expect_contains "a writable file in a read-only directory is read too" \
    "$(as_reader list proj 2>&1)" "[proj] Login flow"
chmod 755 "$ro"
export THATCH_DB_PATH=$db
expect_eq "the read-only copy is unchanged" "1" \
    "$(sqlite3 "$ro/thatch.db" "SELECT COUNT(*) FROM entries WHERE slug = 'login-flow'")"

# --- NUL characters and terminal escapes ----------------------------------------
out=$(mcp memory_remember '{"label":"evil\u0000hidden","content":"x\u0000y"}')
expect_contains "a NUL in a label is refused, naming the argument" "$out" \
    'Invalid arguments: label: contains a NUL character; content: contains a NUL character'
expect_contains "as an error" "$out" '"isError":true'
expect_eq "nothing is saved" 0 "$(sqlite3 "$db" "SELECT COUNT(*) FROM entries WHERE label LIKE 'evil%'")"

mcp memory_remember '{"label":"\u001b[2Jwiped\n[proj] forged","content":"body \u001b]0;title\u0007 end\n\tsecond line"}' >/dev/null
out=$(thatch list)
expect_contains "list prints ESC and newline escaped" "$out" '[proj] \x1b[2Jwiped\n[proj] forged ('
expect_not_contains "no raw ESC reaches the terminal from list" "$out" $'\e'
expect_eq "a label cannot forge a line of list (two memories, two lines)" 2 "$(wc -l <<<"$out")"
out=$(thatch show "2Jwiped proj forged")
expect_contains "show prints the label escaped" "$out" '[proj] \x1b[2Jwiped\n[proj] forged'
expect_contains "show keeps the content's newlines and tabs, escapes the rest" "$out" \
    'body \x1b]0;title\x07 end'$'\n\t''second line'
expect_not_contains "no raw ESC reaches the terminal from show" "$out" $'\e'
out=$(thatch search "wiped forged" 2>/dev/null)
expect_contains "search prints the label escaped" "$out" '] \x1b[2Jwiped\n[proj] forged'
expect_not_contains "no raw ESC reaches the terminal from search" "$out" $'\e'
finish
