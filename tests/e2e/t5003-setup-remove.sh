#!/usr/bin/env bash
# `thatch setup --remove` takes out exactly what `thatch setup` wrote, for
# each host and scope: a fresh folder ends with no thatch file or folder,
# and files the user had (their own servers, hooks, text around the
# block, skills, commands; private modes; a symlinked file) are byte for
# byte what they were. Setup run from a subdirectory of a repository
# writes, and removes, at the repository's top level.
. "$(dirname "$0")/lib.sh"

P=$TEST_DIR/proj
export CLAUDE_CONFIG_DIR=$TEST_DIR/claude-home CURSOR_CONFIG_DIR=$TEST_DIR/cursor-home
OC=$XDG_CONFIG_HOME/opencode
mkdir -p "$P/sub/deeper" "$XDG_CONFIG_HOME" && cd "$P" && git init -q

# Every path setup can write under, with its type, mode and bytes.
snap() {
	local d
	for d in "$P" "$CLAUDE_CONFIG_DIR" "$CURSOR_CONFIG_DIR" "$XDG_CONFIG_HOME" "$TEST_DIR/dotfiles"; do
		[ -e "$d" ] || continue
		find "$d" -path "$P/.git" -prune -o -print
	done | sort | while IFS= read -r f; do
		if [ -L "$f" ]; then echo "link $f -> $(readlink "$f")"
		elif [ -f "$f" ]; then echo "file $f $(stat -c %a "$f") $(sha256sum <"$f" | cut -c1-16)"
		else echo "dir  $f"; fi
	done
}
# JSON as the hosts write it (JSON.stringify with two spaces, a newline)
json() { python3 -c 'import json,sys; print(json.dumps(json.loads(sys.argv[1]), indent=2, ensure_ascii=False))' "$1"; }
# setup then --remove with these flags: something was written, then the
# snapshot is what it was before
round_trip() {
	local what=$1; shift
	local before after out rc
	before=$(snap)
	out=$(thatch setup "$@" 2>&1); rc=$?
	expect_eq "$what: setup exits 0" 0 $rc
	[ "$(snap)" != "$before" ] && _pass "$what: setup wrote something" || _fail "$what: setup wrote something" "$out"
	out=$(thatch setup --remove "$@" 2>&1); rc=$?
	expect_eq "$what: setup --remove exits 0" 0 $rc
	after=$(snap)
	expect_eq "$what: setup --remove leaves every file as it was" "$before" "$after"
	REMOVE_OUT=$out
}

# --- fresh folders: nothing of thatch's is left, not even a folder ------------
for flags in "--claude" "--cursor" "--opencode" "--claude --global" "--cursor --global" \
    "--opencode --global" "--claude --cursor --opencode"; do
	# shellcheck disable=SC2086
	round_trip "fresh, $flags" $flags
done
expect_contains "the summary says what became of each file" "$REMOVE_OUT" "thatch removed from Claude Code (project-local)."
expect_contains "a file that held only thatch's is deleted" "$REMOVE_OUT" "  MCP config:    $P/.mcp.json (deleted: nothing else was in it)"
expect_contains "the skills are counted" "$REMOVE_OUT" "  Skills:        $P/.claude/skills (26 files removed)"
expect_contains "opencode's skills go too" "$REMOVE_OUT" "  Skills:        $OC/skills (27 files removed)"
expect_eq "nothing is left in the project but git's" ".git sub" "$(ls -A "$P" | tr '\n' ' ' | sed 's/ $//')"

# --- opencode's skills and commands are shared by its two scopes ------------------
before=$(snap)
thatch setup --opencode --global >/dev/null && thatch setup --opencode >/dev/null
global=$(cat "$OC/opencode.json")
out=$(thatch setup --remove --opencode)
expect_contains "removing the project scope keeps the skills the global setup uses" "$out" \
    "  Skills:        $OC/skills (kept: the global setup uses them)"
expect_ok "they are still there" test -f "$OC/skills/thatch-fact-extractor/SKILL.md" -a -d "$OC/command/thatch"
expect_eq "the global config is untouched" "$global" "$(cat "$OC/opencode.json")"
thatch setup --opencode >/dev/null
out=$(thatch setup --remove --opencode --global)
expect_contains "removing the global scope keeps them for the project's" "$out" "(kept: the project's setup uses them)"
thatch setup --remove --opencode >/dev/null
expect_eq "the last scope removed takes them, leaving everything as it was" "$before" "$(snap)"

# --- the user's own files, in every place setup writes --------------------------
printf '# My project\n\nOwn notes, kept.\n' >CLAUDE.md
json '{"mcpServers": {"github": {"command": "gh-mcp", "args": []}}, "other": 1}' >.mcp.json
mkdir -p .claude/skills/my-skill .claude/commands .cursor/skills/mine "$OC/skills/my-oc" "$OC/command"
json '{"permissions": {"allow": ["Bash(make:*)"]}, "hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "echo hi"}]}], "PostToolUse": [{"matcher": "Edit", "hooks": [{"type": "command", "command": "fmt"}]}]}}' >.claude/settings.json
chmod 600 .claude/settings.json
json '{"enabledMcpjsonServers": ["github"], "env": {"A": "1"}}' >.claude/settings.local.json
printf 'mine\n' >.claude/skills/my-skill/SKILL.md
printf 'my command\n' >.claude/commands/mine.md
json '{"mcpServers": {"db": {"command": "db-mcp"}}}' >.cursor/mcp.json
json '{"version": 1, "hooks": {"postToolUse": [{"command": "audit"}], "stop": [{"command": "x"}]}}' >.cursor/hooks.json
printf 'cursor skill\n' >.cursor/skills/mine/SKILL.md
# AGENTS.md lives in a dotfiles repository, linked in
mkdir -p "$TEST_DIR/dotfiles"
printf 'Agents: be brief.' >"$TEST_DIR/dotfiles/AGENTS.md"	# no final newline
ln -s "$TEST_DIR/dotfiles/AGENTS.md" AGENTS.md
json '{"$schema": "https://opencode.ai/config.json", "model": "anthropic/x", "plugin": ["other-plugin"]}' >opencode.json
printf 'oc\n' >"$OC/skills/my-oc/SKILL.md"
printf 'oc command\n' >"$OC/command/mine.md"
round_trip "the user's project files" --claude --cursor --opencode
expect_contains "a file with the user's content is edited, not deleted" "$REMOVE_OUT" "  Hooks:         $P/.claude/settings.json (thatch's part removed)"
expect_eq "a private settings file stays private" 600 "$(stat -c %a .claude/settings.json)"
expect_ok "a symlinked AGENTS.md stays a link" test -L AGENTS.md

mkdir -p "$CLAUDE_CONFIG_DIR" "$CURSOR_CONFIG_DIR"
printf '# Global rules\n\nBe kind.\n' >"$CLAUDE_CONFIG_DIR/CLAUDE.md"
json '{"model": "opus", "hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "log-prompt"}]}]}}' >"$CLAUDE_CONFIG_DIR/settings.json"
json '{"mcpServers": {"gh": {"command": "gh-mcp"}}}' >"$CURSOR_CONFIG_DIR/mcp.json"
printf 'Global agents.\n' >"$CURSOR_CONFIG_DIR/AGENTS.md"
json '{"plugin": [["some-plugin", {"x": 1}]]}' >"$OC/opencode.json"
round_trip "the user's global files" --claude --cursor --opencode --global

# --- files formatted the user's way, and edited in between --------------------
printf '{"mcpServers":{"github":{"command":"gh-mcp"}}}' >.mcp.json	# one line, no newline
printf '\n\n' >CLAUDE.md						# only blank lines
: >.cursor/mcp.json							# empty (not JSON)
round_trip "compact JSON, an almost empty file" --claude --cursor
expect_eq "a one-line config comes back byte for byte" '{"mcpServers":{"github":{"command":"gh-mcp"}}}' "$(cat .mcp.json)"
expect_ok "a file of blank lines is kept, not deleted" test -f CLAUDE.md
thatch setup --claude >/dev/null
python3 - <<'PY'
import json
d = json.load(open(".mcp.json")); d["mcpServers"]["later"] = {"command": "new-mcp"}
json.dump(d, open(".mcp.json", "w"))
PY
thatch setup --remove --claude >/dev/null
expect_eq "a server the user added after setup stays, thatch's goes" "['github', 'later']" \
    "$(python3 -c 'import json; print(list(json.load(open(".mcp.json"))["mcpServers"]))')"
expect_fail "no copy of the user's files is left behind" test -e "$XDG_CONFIG_HOME/thatch/setup"

# --- what --remove leaves alone ---------------------------------------------------
thatch setup --claude >/dev/null
printf '# My project\n\n# Persistence\n\nThatch provides persistent memory across Claude Code sessions.\nhalf a block\n' >CLAUDE.md
cp CLAUDE.md "$TEST_DIR/broken"
err=$(thatch setup --remove --claude 2>&1 >/dev/null); rc=$?
expect_eq "a damaged block does not fail the removal" 0 $rc
expect_contains "a damaged block is reported" "$err" "not its end marker"
expect_eq "a damaged block is left untouched" "$(cat "$TEST_DIR/broken")" "$(cat CLAUDE.md)"
expect_fail "the rest is removed" grep -q thatch .claude/settings.json
printf '# My project\n\nOwn notes, kept.\n' >CLAUDE.md
printf '{ not json' >.mcp.json
thatch setup --remove --claude >/dev/null
expect_eq "a config that does not parse is not touched" "{ not json" "$(cat .mcp.json)"
json '{"$schema": "https://opencode.ai/config.json"}' >opencode.json
thatch setup --opencode >/dev/null
sed -i '1a // my comment' opencode.json
cp opencode.json "$TEST_DIR/jsonc"
err=$(thatch setup --remove --opencode 2>&1); rc=$?
expect_eq "opencode.json with comments and thatch's entry fails the removal" 1 $rc
expect_contains "it says to remove the entry by hand" "$err" "remove thatch's entry from its \"plugin\" array by hand"
expect_eq "the commented file is left byte for byte" "$(cat "$TEST_DIR/jsonc")" "$(cat opencode.json)"
expect_fail "opencode's skills are removed all the same" test -e "$OC/skills/thatch-code-review"

# --- from a subdirectory: the repository's top level ------------------------------
expect_ok "a refused removal keeps the copy of the user's file for the next" \
    test -d "$XDG_CONFIG_HOME/thatch/setup"
rm -rf "$P"/* "$P"/.[!.]* "$XDG_CONFIG_HOME/thatch" 2>/dev/null
mkdir -p "$P/sub/deeper" && git init -q "$P"
cd "$P/sub/deeper"
before=$(snap)
out=$(thatch setup --claude --cursor --opencode)
expect_contains "setup from a subdirectory says where it writes" "$out" "Installing thatch at its top level"
expect_contains "and why Claude Code must start there" "$out" "Claude Code reads .claude/settings.json only in the"
expect_ok "the Claude files are at the top" test -f "$P/.mcp.json" -a -f "$P/CLAUDE.md" -a -f "$P/.claude/settings.json"
expect_ok "the Cursor files are at the top" test -f "$P/.cursor/hooks.json" -a -f "$P/AGENTS.md"
expect_ok "opencode.json is at the top" test -f "$P/opencode.json"
expect_eq "nothing is written in the subdirectory" "" "$(ls -A "$P/sub/deeper")"
out=$(thatch setup --remove --claude --cursor --opencode)
expect_contains "remove from a subdirectory works at the top too" "$out" "Removing thatch at its top level"
expect_eq "and leaves the repository as it was" "$before" "$(snap)"
out=$(CLAUDE_PROJECT_DIR=$P/sub thatch setup --claude)
expect_not_contains "a project folder named by CLAUDE_PROJECT_DIR is kept" "$out" "top level"
expect_ok "and written to" test -f "$P/sub/.claude/settings.json"
CLAUDE_PROJECT_DIR=$P/sub thatch setup --remove --claude >/dev/null
expect_eq "and cleaned" "" "$(ls -A "$P/sub" | grep -v deeper)"
cd "$TEST_DIR" && mkdir -p plain/dir && cd plain/dir
out=$(thatch setup --cursor)
expect_not_contains "outside a repository the folder itself is used" "$out" "top level"
expect_ok "the files are where setup ran" test -f .cursor/hooks.json
thatch setup --remove --cursor >/dev/null
expect_eq "and removed from there" "" "$(ls -A)"

# --- in the home folder, project scope would be the user's settings ------------------
mkdir -p "$TEST_DIR/h" && cd "$TEST_DIR/h"
before=$(find . | sort)
for host in claude cursor; do
	dir=$(cd "$TEST_DIR/h" && pwd)
	[ $host = claude ] && export CLAUDE_CONFIG_DIR=$dir/.claude || export CURSOR_CONFIG_DIR=$dir/.cursor
	err=$(thatch setup --$host 2>&1 >/dev/null); rc=$?
	expect_eq "project setup where .$host is the user folder fails" 1 $rc
	expect_contains "it says why and what to run" "$err" "user folder, so a project setup here would run its hooks in every project: run \`thatch setup --$host --global\`"
	expect_eq "and writes nothing" "$before" "$(find . | sort)"
	expect_ok "--global works there" thatch setup --$host --global
	expect_ok "and --remove (of either scope) too" thatch setup --$host --remove
	thatch setup --$host --global --remove >/dev/null
done
finish
