#!/usr/bin/env bash
# The session-start reminder's cached hygiene report (docs/hosts-and-hooks.md,
# "reminder and the hygiene cache"): the same line as `thatch hygiene` when
# the cache is current, the last known count right after a write and the new
# one soon after, a bad cache ignored, one background refresher at a time,
# and the reminder still printed when the cache cannot be written.
. "$(dirname "$0")/lib.sh"

mkdir proj && cd proj || exit 1		# not a repository: the store is "proj"
mcp() {		# mcp TOOL ARGS-JSON...: run tools/call requests
	local i=0 req=
	while [ $# -gt 0 ]; do
		req+='{"jsonrpc":"2.0","id":'$((i++))',"method":"tools/call","params":{"name":"'$1'","arguments":'$2'}}'$'\n'
		shift 2
	done
	printf '%s' "$req" | thatch mcp >/dev/null 2>&1
}
remember() { mcp memory_remember '{"label":"'"$1"'","content":"the pool holds ten connections"}'; }
line() { thatch reminder </dev/null 2>/dev/null | grep '^\[thatch hygiene\]'; }
reminds() { line | grep -qF "$1"; }
C=$XDG_CACHE_HOME/thatch/hygiene
idle() { for l in "$C"/*.lock; do flock -n "$l" true || return 1; done; }
log() { cat "$XDG_CONFIG_HOME/thatch/debug.log" 2>/dev/null; }

remember "pool a"; remember "pool b"
exact=$(thatch hygiene)
expect_contains "the store has one duplicate pair to report" "$exact" "1 duplicate-candidate pair pending review"

# every store refreshed in the background, as one of thousands of memories is
export THATCH_HYGIENE_SYNC_MAX=0 THATCH_DEBUG=hygiene
r=$(thatch reminder </dev/null); rc=$?
expect_eq "the first reminder exits 0" 0 $rc
expect_not_contains "before any count the reminder says nothing of duplicates" "$r" "duplicate-candidate"
wait_for "a background refresher writes the cache" 30 reminds "1 duplicate-candidate pair"
wait_for "the refresher exits" 30 idle
cached=$(thatch reminder </dev/null)
expect_eq "a current cache gives the exact hygiene line" "[thatch hygiene] $exact" "$(grep '^\[thatch hygiene\]' <<<"$cached")"
rm -f "$C"/*.json
expect_eq "a current cache gives the whole reminder an uncached run prints" \
    "$(THATCH_HYGIENE_SYNC_MAX=1000000 thatch reminder </dev/null)" "$cached"

remember "pool c"
expect_eq "right after a write the reminder shows the last known count" \
    "[thatch hygiene] $exact" "$(line)"
wait_for "the next reminders converge to the new count" 30 reminds "3 duplicate-candidate pairs pending review"
expect_eq "the converged line is the exact one" "[thatch hygiene] $(thatch hygiene)" "$(line)"
wait_for "the refresher exits" 30 idle

: >"$XDG_CONFIG_HOME/thatch/debug.log"
remember "pool d"
for i in 1 2 3 4; do thatch reminder </dev/null >/dev/null 2>&1 & done; wait
wait_for "reminders run at once converge" 30 reminds "6 duplicate-candidate pairs pending review"
wait_for "their refreshers exit" 30 idle
expect_ok "refreshers never overlap: each start is followed by its own done" \
    awk '/refresher [0-9]+: start/ { if (run) exit 1; run = $4 } /refresher [0-9]+: done/ { if (run != $4) exit 1; run = "" } END { exit run != "" }' \
    "$XDG_CONFIG_HOME/thatch/debug.log"
remember "pool e"
: >"$XDG_CONFIG_HOME/thatch/debug.log"
lock=$(ls "$C"/*.lock)
out=$(flock -n "$lock" "$THATCH_BIN" reminder </dev/null)
expect_contains "while a refresher holds the lock the reminder prints the last count" "$out" "6 duplicate-candidate pairs"
expect_not_contains "while a refresher holds the lock no other starts" "$(log)" ": start"
wait_for "the count converges once the lock is free" 30 reminds "10 duplicate-candidate pairs"
wait_for "the refresher exits" 30 idle

for f in "$C"/*.json; do printf 'not json{' >"$f"; done
r=$(thatch reminder </dev/null); rc=$?
expect_eq "a corrupt cache file does not fail the reminder" "0" "$rc"
expect_contains "with a corrupt cache the reminder still reminds" "$r" "Before you respond"
expect_not_contains "a corrupt cache file is not believed" "$r" "duplicate-candidate"
wait_for "a corrupt cache file is replaced" 30 reminds "10 duplicate-candidate pairs"
wait_for "the refresher exits" 30 idle
for f in "$C"/*.json; do rm -f "$f"; mkdir "$f"; done
r=$(thatch reminder </dev/null 2>&1); rc=$?
expect_eq "an unreadable cache file does not fail the reminder" "0" "$rc"
expect_contains "with an unreadable cache the reminder still reminds" "$r" "Before you respond"
expect_not_contains "an unreadable cache file is not believed" "$r" "duplicate-candidate"
wait_for "the refresher gives up on an unwritable cache file" 30 idle

printf 'a file, not a directory' >"$TEST_DIR/cache-file"
for sync in 0 1000000; do
	r=$(XDG_CACHE_HOME=$TEST_DIR/cache-file THATCH_HYGIENE_SYNC_MAX=$sync thatch reminder </dev/null 2>"$TEST_DIR/err"); rc=$?
	expect_eq "with an unwritable cache dir the reminder exits 0 (sync max $sync)" 0 $rc
	expect_contains "with an unwritable cache dir the reminder still reminds (sync max $sync)" "$r" "Before you respond"
	expect_eq "an unwritable cache dir is not an error (sync max $sync)" "" "$(cat "$TEST_DIR/err")"
done
expect_contains "a small store is still counted without a cache dir" "$r" "10 duplicate-candidate pairs"
finish
