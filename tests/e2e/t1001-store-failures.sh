#!/usr/bin/env bash
# Bad files and bad luck at the database path: each is one clear line on
# stderr and a non-zero exit, and nothing already stored changes.
. "$(dirname "$0")/lib.sh"
db=$THATCH_DB_PATH
one_line() { [ "$(printf '%s\n' "$1" | wc -l)" -eq 1 ]; }

# A file that is not a database
mkdir -p "$(dirname "$db")"
printf 'these are my notes, not a database\n%.0s' {1..200} >"$db"
cp "$db" "$TEST_DIR/notes.copy"
err=$(thatch stores 2>&1 >/dev/null); rc=$?
expect_eq "a non-SQLite file at the DB path fails with exit 1" 1 $rc
expect_contains "the failure names the file and says what is wrong" "$err" "is not a thatch database"
expect_ok "the failure is one line" one_line "$err"
expect_ok "the file is left byte for byte" cmp -s "$db" "$TEST_DIR/notes.copy"
err=$(thatch list x 2>&1 >/dev/null); rc=$?
expect_eq "list fails the same way" 1 $rc

# A database whose pages are damaged
rm -f "$db"*
thatch stores >/dev/null
sqlite3 "$db" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null
head -c 100 "$db" >"$TEST_DIR/head" && printf 'garbage%.0s' {1..600} >>"$TEST_DIR/head"
cp "$TEST_DIR/head" "$db"; rm -f "$db-wal" "$db-shm"
cp "$db" "$TEST_DIR/bad.copy"
err=$(thatch stores 2>&1 >/dev/null); rc=$?
expect_eq "a damaged database fails with exit 1" 1 $rc
expect_ok "the damaged-database failure is one line" one_line "$err"
expect_ok "the damaged file is not rewritten" cmp -s "$db" "$TEST_DIR/bad.copy"

# A directory thatch may not write
rm -f "$db"*
if [ "$(id -u)" -ne 0 ]; then
	mkdir -p "$TEST_DIR/ro" && chmod 555 "$TEST_DIR/ro"
	err=$(THATCH_DB_PATH=$TEST_DIR/ro/sub/thatch.db thatch stores 2>&1 >/dev/null); rc=$?
	chmod 755 "$TEST_DIR/ro"
else	# root writes anywhere: make the parent a file instead
	: >"$TEST_DIR/ro"
	err=$(THATCH_DB_PATH=$TEST_DIR/ro/sub/thatch.db thatch stores 2>&1 >/dev/null); rc=$?
fi
expect_eq "an unwritable directory fails with exit 1" 1 $rc
expect_contains "the failure names the directory" "$err" "$TEST_DIR/ro"
expect_ok "the unwritable-directory failure is one line" one_line "$err"

# A database another process holds locked past the 5 s timeout
thatch stores >/dev/null
sqlite3 "$db" "INSERT INTO stores VALUES ('keep'); INSERT INTO entries (slug, store, label, content) VALUES ('k', 'keep', 'K', 'kept')"
before=$(sqlite3 "$db" "SELECT * FROM entries")
exec 3> >(sqlite3 "$db" >/dev/null 2>&1)
# The holder waits for the lock itself: the polling below takes it briefly,
# and a holder without a timeout would lose that race and hold nothing.
printf '%s\n' ".timeout 5000" "BEGIN IMMEDIATE; INSERT INTO stores VALUES ('held');" >&3
locked() { ! sqlite3 "$db" "BEGIN IMMEDIATE; ROLLBACK;" 2>/dev/null; }
wait_for "another process holds the write lock" 10 locked
err=$(thatch forget K keep 2>&1 >/dev/null); rc=$?
expect_eq "a database locked past the timeout fails with exit 1" 1 $rc
expect_contains "the failure says the database is locked" "$err" "locked"
expect_ok "the locked-database failure is one line" one_line "$err"
exec 3>&-
wait_for "the lock is released" 10 sqlite3 "$db" "BEGIN IMMEDIATE; ROLLBACK;"
expect_eq "nothing stored was lost while locked" "$before" "$(sqlite3 "$db" "SELECT * FROM entries")"
expect_eq "the holder's uncommitted row never appeared" "0" \
	"$(sqlite3 "$db" "SELECT COUNT(*) FROM stores WHERE name='held'")"

# Labels with no letter or digit, and stores that do not exist
err=$(thatch show '!!!' keep 2>&1 >/dev/null); rc=$?
expect_eq "show of an all-symbol label that matches nothing fails" 1 $rc
expect_contains "the failure explains the hash slug" "$err" '"xpa9"'
expect_ok "the all-symbol failure is one line" one_line "$err"
err=$(thatch forget '???' keep 2>&1 >/dev/null); rc=$?
expect_eq "forget of an all-symbol label that matches nothing fails" 1 $rc
sqlite3 "$db" "INSERT INTO entries (slug, store, label, content) VALUES ('xpa9', 'keep', '!!!', 'bangs')"
expect_contains "an all-symbol label that exists is shown" "$(thatch show '!!!' keep)" "[keep] !!!"
out=$(thatch show K nosuch); rc=$?
expect_eq "show on an unknown store prints not-found and exits 0" \
	'No memory labeled "K" in "nosuch".|0' "$out|$rc"
out=$(thatch forget K nosuch); rc=$?
expect_eq "forget on an unknown store prints not-found and exits 0" \
	'No memory labeled "K" in "nosuch".|0' "$out|$rc"
expect_eq "the kept memory is still there" "$before" \
	"$(sqlite3 "$db" "SELECT * FROM entries WHERE slug = 'k'")"
finish
