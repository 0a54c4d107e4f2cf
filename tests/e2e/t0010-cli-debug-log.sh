#!/usr/bin/env bash
# THATCH_DEBUG (hosts-hooks-cli §1.6, engines-and-extras §B4): tagged
# lines in debug.log beside the database, never on stdout; filters by tag
# or feature; off values; one entry per line; the size cap rotates the
# file to debug.log.1.
. "$(dirname "$0")/lib.sh"
LOG=$XDG_CONFIG_HOME/thatch/debug.log
P=$TEST_DIR/$'two\nlines'
mkdir -p "$P" && cd "$P" && git init -q

plain=$(thatch setup --claude)
rm -rf .claude
out=$(THATCH_DEBUG=1 thatch setup --claude)
expect_eq "debug logging changes nothing on stdout" "$plain" "$out"
line=$(grep -F '[setup:commands]' "$LOG")
expect_eq "a line is <iso> [feature:aspect] msg" 1 \
    "$(grep -cE '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z \[setup:commands\] ' "$LOG")"
expect_contains "a newline in a message is written as \\n" "$line" 'two\nlines/.claude/commands/thatch: 4 written'
expect_eq "the log is private" 600 "$(stat -c %a "$LOG")"

rm -f "$LOG"
THATCH_DEBUG=hook,setup:commands thatch setup --claude >/dev/null
expect_contains "a whole tag is a filter" "$(cat "$LOG")" "[setup:commands]"
rm -f "$LOG"
THATCH_DEBUG=setup thatch setup --claude >/dev/null
expect_contains "a feature is a filter" "$(cat "$LOG")" "[setup:commands]"
rm -f "$LOG"
THATCH_DEBUG=hook thatch setup --claude >/dev/null
expect_eq "other features are filtered out" no "$(test -s "$LOG" && echo yes || echo no)"
for v in 0 false off ""; do
	THATCH_DEBUG=$v thatch setup --claude >/dev/null
	expect_eq "THATCH_DEBUG='$v' writes nothing" no "$(test -e "$LOG" && echo yes || echo no)"
done

truncate -s 11M "$LOG"
THATCH_DEBUG=all thatch setup --claude >/dev/null
expect_eq "a log over the cap is rotated to debug.log.1" 11534336 "$(stat -c %s "$LOG.1")"
expect_eq "the new log starts small" 1 "$(test "$(stat -c %s "$LOG")" -lt 4096 && echo 1)"
expect_contains "the new log has the new lines" "$(cat "$LOG")" "[setup:commands]"
finish
