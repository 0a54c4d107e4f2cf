#!/usr/bin/env bash
# Many writers on one database, and crashes in the middle of their writes
# (issue 12, "Keep them closed"): 8 `thatch mcp` servers x 250 remembers
# with CLI readers and forgets beside them lose nothing and fail nothing;
# 20 rounds of kill -9 mid-burst leave a database that passes
# integrity_check and holds every acknowledged write; hooks killed while
# they append leave only whole JSON lines in the queue. The load is
# tests/e2e/burst.py; tests/mcp/t4002 is the light, SDK-driven version.
. "$(dirname "$0")/lib.sh"
burst() {	# burst MODE N...: burst.py's result; the time each phase took
	local t=$SECONDS
	python3 "$(dirname "$THATCH_FIXTURES")/e2e/burst.py" "$@"
	echo "burst.py $1: $((SECONDS - t)) s" >&2
}
field() {	# field JSON KEY: one value of burst.py's result, as JSON
	python3 -c 'import json,sys; print(json.dumps(json.loads(sys.argv[1])[sys.argv[2]]))' "$1" "$2"
}

# --- writers, readers and forgets at once -----------------------------------
r=$(burst write 8 250 40)
expect_eq "every one of 8 x 250 remembers is acknowledged" 2000 "$(field "$r" acked)"
expect_eq "no acknowledged memory is missing (unless the test forgot it)" '[]' "$(field "$r" lost)"
expect_eq "every seed is forgotten meanwhile" 40 "$(field "$r" forgotten_seeds)"
expect_eq "and every 25th of the first server's, once saved" 50 "$(field "$r" forgotten)"
expect_eq "no forgotten memory is back" '[]' "$(field "$r" forgotten_but_present)"
# reads never fail for a write's sake (issue 12, defect 6)
expect_eq "every CLI list, search, show and forget succeeds meanwhile" '[]' "$(field "$r" cli_failures)"
expect_ok "the readers ran while the writers wrote" test "$(field "$r" cli_runs)" -gt 8
expect_eq "every server exits 0 when its input ends" '[0, 0, 0, 0, 0, 0, 0, 0]' "$(field "$r" exits)"
expect_eq "the database is intact" ok "$(sqlite3 "$THATCH_DB_PATH" 'PRAGMA integrity_check')"

# --- kill -9 mid-burst ------------------------------------------------------
r=$(burst crash 20 4 60)
expect_eq "after 20 rounds of kill -9 mid-burst the database is intact every time" '[]' "$(field "$r" integrity)"
expect_eq "every acknowledged write survives the kills" '[]' "$(field "$r" lost)"
expect_ok "the rounds acknowledged writes before the kills" test "$(field "$r" acked)" -ge 100
expect_eq "every round killed a server with calls pending" 0 "$(field "$r" rounds_nothing_killed)"
expect_ok "the database still takes writes" thatch list c

# --- hooks killed while they append -----------------------------------------
r=$(burst hooks 8 8 128)
expect_eq "every line of every queue file is whole JSON" '[]' "$(field "$r" torn)"
expect_ok "the hooks that lived wrote lines" test "$(field "$r" lines)" -ge 16
finish
