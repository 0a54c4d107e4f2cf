#!/usr/bin/env bash
# The /thatch:<action> command files `thatch setup --claude` writes
# (engines-and-extras §B8): four files with front-matter, spelled for
# Claude Code; a re-run changes nothing; a retired file inside thatch/ is
# removed, the user's own commands are kept; --global honours
# CLAUDE_CONFIG_DIR; Cursor gets no command files (it has the prompts).
. "$(dirname "$0")/lib.sh"

P=$TEST_DIR/proj
mkdir -p "$P" && cd "$P" && git init -q
C=.claude/commands
mkdir -p $C/thatch $C/mine
printf 'my own\n' >$C/deploy.md
printf 'mine too\n' >$C/mine/x.md
printf 'retired action\n' >$C/thatch/compact.md
printf 'not a command\n' >$C/thatch/notes.txt

out=$(thatch setup --claude)
expect_contains "the summary counts the command files" "$out" "  Commands:      $P/$C/thatch (4 files: 4 written, 0 unchanged)"
expect_eq "the four action files are written" "defrag.md extract.md hygiene.md notes.txt reflect.md" "$(cd $C/thatch && echo *)"
expect_eq "a retired action file in thatch/ is removed" no "$(test -e $C/thatch/compact.md && echo yes || echo no)"
expect_eq "the user's own command is kept" "my own" "$(cat $C/deploy.md)"
expect_eq "the user's command folder is kept" "mine too" "$(cat $C/mine/x.md)"
expect_eq "a file that is no command is left in thatch/" "not a command" "$(cat $C/thatch/notes.txt)"
f=$C/thatch/defrag.md
expect_eq "a command file opens with front-matter" "---" "$(head -n 1 $f)"
expect_contains "the front-matter has a quoted description" "$(sed -n 2p $f)" 'description: "Merge the thatch store'
expect_eq "the front-matter closes on line 3" "---" "$(sed -n 3p $f)"
expect_contains "tools are spelled as Claude Code shows them" "$(cat $f)" '`mcp__thatch__find_duplicates`'
expect_contains "the body is a numbered procedure" "$(cat $f)" "1. Call \`mcp__thatch__find_duplicates\`"
expect_contains "extract saves with memory_remember" "$(cat $C/thatch/extract.md)" '`mcp__thatch__memory_remember`'

before=$(stat -c '%Y %i' $C/thatch/*.md)
out=$(thatch setup --claude)
expect_contains "a re-run writes nothing" "$out" "(4 files: 0 written, 4 unchanged)"
expect_eq "a re-run leaves the files as they were" "$before" "$(stat -c '%Y %i' $C/thatch/*.md)"

printf 'edited\n' >$C/thatch/hygiene.md
out=$(thatch setup --claude)
expect_contains "an edited action file is rewritten" "$out" "(4 files: 1 written, 3 unchanged)"
expect_eq "it holds the action again" "---" "$(head -n 1 $C/thatch/hygiene.md)"

export CLAUDE_CONFIG_DIR=$TEST_DIR/ccfg
out=$(thatch setup --claude --global)
expect_contains "--global writes under CLAUDE_CONFIG_DIR" "$out" "  Commands:      $CLAUDE_CONFIG_DIR/commands/thatch (4 files: 4 written, 0 unchanged)"
expect_eq "the global files are the project's" "$(cat $C/thatch/reflect.md)" "$(cat "$CLAUDE_CONFIG_DIR/commands/thatch/reflect.md")"

out=$(thatch setup --cursor)
expect_not_contains "Cursor gets no command files" "$out" "Commands:"
expect_eq "nothing is written under .cursor/commands" no "$(test -e .cursor/commands && echo yes || echo no)"
finish
