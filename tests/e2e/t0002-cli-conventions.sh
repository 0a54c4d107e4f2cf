#!/usr/bin/env bash
# Command-line conventions of every subcommand, driven by the command table
# as `thatch help` lists it: -h/--help print that command's help and exit 0
# (and never start it), `--` ends the options, an unknown option or a
# surplus argument is one line naming it plus the command's usage (exit 2;
# hooks report it but exit 0, as they must never break the agent's turn),
# and failures are one "[thatch <cmd>] failed:" line with exit 1.
. "$(dirname "$0")/lib.sh"

hooks=" reminder buffer-batch buffer-tool flush-tools flush-predictions "
run() { timeout 20 "$THATCH_BIN" "$@" </dev/null >"$TEST_DIR/out" 2>"$TEST_DIR/err"; }

cmds=$(thatch help | sed -n '3,/^$/p' | awk 'NF { sub(",", "", $1); print $1 }')
expect_ok "the usage lists the hook and opencode commands too" \
	grep -qx flush-tools <<<"$cmds"
expect_ok "the usage lists opencode" grep -qx opencode <<<"$cmds"

for cmd in $cmds; do
	for h in -h --help; do
		run $cmd $h; rc=$?
		expect_eq "$cmd $h exits 0" 0 $rc
		expect_eq "$cmd $h prints its synopsis first" "usage: thatch $cmd" \
			"$(head -1 "$TEST_DIR/out" | cut -d' ' -f1-3)"
		expect_contains "$cmd $h shows an example" "$(cat "$TEST_DIR/out")" "example:"
	done
	run $cmd --no-such-option; rc=$?
	case $hooks in *" $cmd "*) want=0 ;; *) want=2 ;; esac
	expect_eq "$cmd with an unknown option exits $want" $want $rc
	expect_eq "$cmd names the unknown option in one line" \
		"thatch $cmd: unknown option '--no-such-option'" "$(head -1 "$TEST_DIR/err")"
	expect_contains "$cmd shows its usage after a mistake" "$(cat "$TEST_DIR/err")" "usage: thatch $cmd"
	expect_eq "$cmd prints nothing on stdout after a mistake" "" "$(cat "$TEST_DIR/out")"
	run $cmd a1 a2 a3 a4 a5 a6 a7; rc=$?
	expect_eq "$cmd with surplus arguments exits $want" $want $rc
	expect_ok "$cmd names the surplus argument" grep -q "^thatch $cmd: .*'a[1-7]'" "$TEST_DIR/err"
	# (help -- -h is help about the command named -h: itself)
	run $cmd -- -h
	[ $cmd = help ] || expect_not_contains "$cmd -- -h does not print help" "$(cat "$TEST_DIR/out")" "example:"
	run $cmd -h --no-such-option; rc=$?
	expect_eq "$cmd: help wins over a mistake" 0 $rc
	run $cmd -- --no-such-option
	expect_not_contains "$cmd -- --no-such-option is an argument, not an option" \
		"$(cat "$TEST_DIR/err")" "unknown option"
done

expect_eq "thatch -h is the usage" "$(thatch --help)" "$(thatch -h)"
expect_contains "thatch -h says USAGE" "$(thatch -h)" "USAGE"
help=$(thatch help search)
expect_contains "help search shows the synopsis" "$help" "usage: thatch search [--mode MODE] [--json] <query> [store|all]"
expect_contains "help search names the variables it reads" "$help" "THATCH_MODEL"
expect_contains "help search shows an example" "$help" 'thatch search "how are tokens issued" all'
for c in search embed model remember edit import reembed mcp opencode sync; do
	expect_contains "help $c lists every variable of the model it loads" \
		"$(thatch help $c | grep '^environment:')" "THATCH_MODEL HF_HOME HF_ENDPOINT HF_TOKEN THATCH_THREADS"
done
for c in list show forget search remember hygiene reminder setup; do
	expect_contains "help $c lists the variables that name the project" \
		"$(thatch help $c | grep '^environment:')" "CLAUDE_PROJECT_DIR CURSOR_PROJECT_DIR"
done
expect_contains "help setup lists every option" "$(thatch help setup)" "--opencode "
expect_eq "help of an unknown command is a usage error" 2 "$(thatch help nosuch 2>/dev/null; echo $?)"

# -- makes any text an argument
expect_eq "list -- -x lists the store named -x" 'No memories in "-x".' "$(thatch list -- -x)"
expect_eq "show -- -x looks the label -x up" 'No memory labeled "-x" in "global".' \
	"$(thatch show -- -x global)"
expect_ok "embed -- -x embeds the text -x" thatch embed -- -x
expect_eq "--opt=value is refused for a flag" 2 "$(thatch embed --query=1 x 2>/dev/null; echo $?)"

# failures: one line, exit 1, in every command that opens the store
: >"$TEST_DIR/file"
for c in "stores" "list" "show x" "forget x" "search x" "hygiene" "remember x y" "edit x" "mv x y"; do
	err=$(THATCH_DB_PATH=$TEST_DIR/file/thatch.db thatch $c 2>&1 >/dev/null); rc=$?
	expect_eq "$c on an unusable database exits 1" 1 $rc
	expect_eq "$c says why in one [thatch ${c%% *}] line" "[thatch ${c%% *}] failed:" \
		"$(head -1 <<<"$err" | cut -d' ' -f1-3)"
done
# failures of the commands that do not fail on the database alone: one
# environment that makes each fail, then its failure as its last line
# (search first says it loads the model), exit 1
while IFS='|' read -r name vars args; do
	# shellcheck disable=SC2086
	err=$(env $vars "$THATCH_BIN" $name $args 2>&1 >/dev/null </dev/null); rc=$?
	expect_eq "$name $args fails with exit 1" 1 $rc
	expect_eq "$name says why in a [thatch $name] failed: line" "[thatch $name] failed:" \
		"$(tail -1 <<<"$err" | cut -d' ' -f1-3)"
	expect_eq "$name prints one failure line" 1 "$(grep -c 'failed' <<<"$err")"
done <<EOF2
search|THATCH_MODEL=$TEST_DIR/no-model|x
embed|THATCH_MODEL=$TEST_DIR/no-model|x
model|THATCH_MODEL=$TEST_DIR/no-model|info
reembed|THATCH_MODEL=$TEST_DIR/no-model|
import||$TEST_DIR/no-such-file
export||nosuch
sync|CLAUDE_PROJECT_DIR=$TEST_DIR|
session|OPENCODE_DB=$TEST_DIR/no-opencode.db|list
chat|THATCH_DB_PATH=$TEST_DIR/file/thatch.db|list
mcp|THATCH_DB_PATH=$TEST_DIR/file/thatch.db|
opencode|THATCH_DB_PATH=$TEST_DIR/file/thatch.db|
setup|CLAUDE_CONFIG_DIR=$TEST_DIR/file|--claude --global
EOF2
err=$(PATH=/nonexistent "$THATCH_BIN" prime 2>&1); rc=$?
expect_eq "prime without an agent fails with exit 1" 1 $rc
expect_contains "prime's failure is one [thatch prime] line" "$err" "[thatch prime] failed: no agent CLI"
finish
