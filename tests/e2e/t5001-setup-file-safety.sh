#!/usr/bin/env bash
# `thatch setup` on files that are not plain 0644 files of the user: a
# private config stays private, its owner stays, a dotfile manager's link
# stays a link, a link that leads nowhere is refused, a link planted at the
# backup's name is not followed, and a failed write leaves the old file
# and no temporary file behind (issue 12, defect 4).
. "$(dirname "$0")/lib.sh"

json() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }
mode() { stat -c %a "$1"; }
owner() { stat -c %u:%g "$1"; }
temps() { find "$@" -name '*.tmp*' 2>/dev/null | wc -l; }	# any writer's
new_project() { rm -rf "$TEST_DIR/$1" && mkdir -p "$TEST_DIR/$1" && cd "$TEST_DIR/$1" && git init -q; }
export CLAUDE_CONFIG_DIR=$TEST_DIR/claude-home CURSOR_CONFIG_DIR=$TEST_DIR/cursor-home
umask 022

# Every file each install rewrites, made private (some 0600, some 0640)
# with a secret in it; after setup each has thatch's content and its mode.
secret='{"mcpServers": {"api": {"command": "x", "env": {"KEY": "sk-secret"}}}}'
seed() {	# seed MODE FILE...: existing files setup must rewrite
	local m=$1 f; shift
	for f in "$@"; do
		mkdir -p "$(dirname "$f")"
		case $f in
		*.md) printf '# mine\n' >"$f" ;;
		*) printf '%s\n' "$secret" >"$f" ;;
		esac
		chmod "$m" "$f"
	done
}
check_kept() {	# check_kept WHAT MODE FILE...
	local what=$1 m=$2 f; shift 2
	for f in "$@"; do
		expect_eq "$what: ${f#"$TEST_DIR"/} keeps mode $m" "$m" "$(mode "$f")"
	done
}

new_project claude
seed 600 .mcp.json .claude/settings.json .claude/settings.local.json
seed 640 CLAUDE.md
expect_ok "setup --claude over private files exits 0" thatch setup --claude
check_kept "Claude project" 600 .mcp.json .claude/settings.json .claude/settings.local.json
check_kept "Claude project" 640 CLAUDE.md
expect_eq "the private MCP config was rewritten, its secret kept" "mcp sk-secret" \
    "$(json .mcp.json '"%s %s" % (d["mcpServers"]["thatch"]["args"][0], d["mcpServers"]["api"]["env"]["KEY"])')"
expect_contains "the private instructions file got the block" "$(cat CLAUDE.md)" "Thatch provides persistent memory"
f=.claude/skills/thatch-fact-extractor/SKILL.md
printf 'edited\n' >$f && chmod 600 $f
thatch setup --claude >/dev/null
expect_eq "a private drifted skill file is rewritten and stays 0600" "600 yes" \
    "$(mode $f) $(grep -q '^name: thatch-fact-extractor' $f && echo yes)"
expect_eq "no temporary file is left after a run" 0 "$(temps . "$CLAUDE_CONFIG_DIR")"

seed 600 "$CLAUDE_CONFIG_DIR/settings.json" "$CLAUDE_CONFIG_DIR/CLAUDE.md"
expect_ok "setup --claude --global over private files exits 0" thatch setup --claude --global
check_kept "Claude global" 600 "$CLAUDE_CONFIG_DIR/settings.json" "$CLAUDE_CONFIG_DIR/CLAUDE.md"
expect_eq "the global hooks were written" 1 "$(grep -c 'flush-tools' "$CLAUDE_CONFIG_DIR/settings.json")"

new_project cursor
seed 600 .cursor/mcp.json AGENTS.md
seed 640 .cursor/hooks.json
seed 600 "$CURSOR_CONFIG_DIR/mcp.json" "$CURSOR_CONFIG_DIR/hooks.json" "$CURSOR_CONFIG_DIR/AGENTS.md"
expect_ok "setup --cursor over private files exits 0" thatch setup --cursor
expect_ok "setup --cursor --global over private files exits 0" thatch setup --cursor --global
check_kept "Cursor project" 600 .cursor/mcp.json AGENTS.md
check_kept "Cursor project" 640 .cursor/hooks.json
check_kept "Cursor global" 600 "$CURSOR_CONFIG_DIR/mcp.json" "$CURSOR_CONFIG_DIR/hooks.json" "$CURSOR_CONFIG_DIR/AGENTS.md"
expect_eq "the private global Cursor config holds both servers" "['api', 'thatch']" \
    "$(json "$CURSOR_CONFIG_DIR/mcp.json" 'sorted(d["mcpServers"])')"
expect_eq "no temporary file is left after the Cursor runs" 0 "$(temps . "$CURSOR_CONFIG_DIR")"

# --- the owner stays (only root can make a file another user's) --------------
new_project owned
seed 640 .mcp.json .claude/settings.json CLAUDE.md
if [ "$(id -u)" -eq 0 ] && chown 12345:12346 .mcp.json .claude/settings.json CLAUDE.md; then
	thatch setup --claude >/dev/null
	for f in .mcp.json .claude/settings.json CLAUDE.md; do
		expect_eq "root's setup leaves $f with its owner and mode" "12345:12346 640" "$(owner $f) $(mode $f)"
	done
	expect_eq "the other user's file was rewritten" 1 "$(grep -c 'flush-tools' .claude/settings.json)"
else
	echo "skip owner checks: not root (or no chown to other users here)"
fi

# --- a dotfile manager's links -------------------------------------------------
new_project linked
mkdir -p "$TEST_DIR/dotfiles" .claude
printf '{"permissions": {"allow": ["Bash(ls)"]}}\n' >"$TEST_DIR/dotfiles/settings.json"
printf '# my global notes\n' >"$TEST_DIR/dotfiles/CLAUDE.md"
chmod 600 "$TEST_DIR/dotfiles/settings.json"
ln -s ../../dotfiles/settings.json .claude/settings.json
ln -s "$TEST_DIR/dotfiles/CLAUDE.md" CLAUDE.md
expect_ok "setup through symlinked configs exits 0" thatch setup --claude
expect_eq "settings.json is still the link" "../../dotfiles/settings.json" "$(readlink .claude/settings.json)"
expect_eq "CLAUDE.md is still the link" "$TEST_DIR/dotfiles/CLAUDE.md" "$(readlink CLAUDE.md)"
expect_eq "the link's target got the hooks and kept its keys" "['Bash(ls)'] 1" \
    "$(json "$TEST_DIR/dotfiles/settings.json" '"%s %d" % (d["permissions"]["allow"], len(d["hooks"]["UserPromptSubmit"]))')"
expect_eq "the link's target kept its mode" 600 "$(mode "$TEST_DIR/dotfiles/settings.json")"
expect_contains "the instructions went into the link's target" "$(cat "$TEST_DIR/dotfiles/CLAUDE.md")" "Thatch provides persistent memory"
expect_eq "no temporary file is left beside the targets" 0 "$(temps . "$TEST_DIR/dotfiles")"

new_project dangling
mkdir -p .claude
ln -s "$TEST_DIR/nowhere/settings.json" .claude/settings.json
err=$(thatch setup --claude 2>&1 >/dev/null); rc=$?
expect_eq "a dangling settings.json link fails setup" 1 $rc
expect_eq "the refusal is one line naming the link and its target" \
    "[thatch setup] failed: $TEST_DIR/dangling/.claude/settings.json is a symlink to $TEST_DIR/nowhere/settings.json, which does not exist" "$err"
expect_eq "the link still points where it did" "$TEST_DIR/nowhere/settings.json" "$(readlink .claude/settings.json)"
expect_eq "nothing else was written before the refusal" ".claude/settings.json" \
    "$(find . -path ./.git -prune -o \( -type f -o -type l \) -print | sed 's|^\./||')"
expect_fail "the link's target was not created" test -e "$TEST_DIR/nowhere"
ln -sfn AGENTS.md AGENTS.md
err=$(thatch setup --cursor 2>&1 >/dev/null); rc=$?
expect_eq "a link loop is refused too" "1 yes" "$rc $([[ $err == *"AGENTS.md is a symlink to AGENTS.md, which cannot be resolved"* ]] && echo yes)"
expect_fail "the refused Cursor install wrote nothing" test -e .cursor

# --- a link planted where the backup goes --------------------------------------
new_project planted
printf 'precious\n' >"$TEST_DIR/victim"
printf '{ not json' >.mcp.json
ln -s "$TEST_DIR/victim" .mcp.json.bak
err=$(thatch setup --claude 2>&1 >/dev/null)
expect_contains "the unparseable config is still backed up" "$err" ".mcp.json.bak"
expect_eq "the planted link's target is untouched" "precious" "$(cat "$TEST_DIR/victim")"
expect_eq "the backup is a private file of its own" "regular file 600" "$(stat -c '%F %a' .mcp.json.bak)"
expect_eq "the backup holds the old bytes" "{ not json" "$(cat .mcp.json.bak)"

# --- failed writes: the old file stays, no temporary file ---------------------
new_project readonly
seed 600 .mcp.json
printf '# mine\n' >CLAUDE.md
before=$(sha256sum .mcp.json CLAUDE.md)
if [ "$(id -u)" -ne 0 ]; then
	run=("$THATCH_BIN")
elif command -v setpriv >/dev/null; then	# root writes anywhere unless it drops that
	run=(setpriv --bounding-set=-dac_override,-dac_read_search --inh-caps=-all -- "$THATCH_BIN")
else
	run=()
fi
if [ ${#run[@]} -gt 0 ]; then
	chmod 555 .
	err=$("${run[@]}" setup --claude 2>&1 >/dev/null); rc=$?
	chmod 755 .
	expect_eq "setup in a read-only folder exits 1" 1 $rc
	expect_contains "it says which file it could not write" "$err" "[thatch setup] failed: cannot create a temporary file for '$TEST_DIR/readonly/.mcp.json': Permission denied"
	expect_eq "the old files are intact" "$before" "$(sha256sum .mcp.json CLAUDE.md)"
else
	echo "skip read-only folder: root without setpriv"
fi
expect_eq "no temporary file is left after the failure" 0 "$(temps .)"

# a full disk, as a 1 KiB file size limit: .mcp.json fits, the block does not
new_project full
printf '# mine\n' >CLAUDE.md
err=$(trap '' XFSZ; ulimit -f 1; thatch setup --claude 2>&1 >/dev/null); rc=$?
expect_eq "setup on a full disk exits 1" 1 $rc
expect_contains "it names the file and the reason" "$err" "cannot write '$TEST_DIR/full/CLAUDE.md': File too large"
expect_eq "the instructions file is intact" "# mine" "$(cat CLAUDE.md)"
expect_eq "no temporary file is left after the short write" 0 "$(temps .)"

# --- umask: it decides new files only -------------------------------------------
new_project umask077
seed 644 .mcp.json
(umask 077 && thatch setup --claude >/dev/null)
expect_eq "under umask 077 a new config is 0600" 600 "$(mode .claude/settings.json)"
expect_eq "under umask 077 a new skills file is 0600" 600 "$(mode .claude/skills/thatch-fact-extractor/SKILL.md)"
expect_eq "under umask 077 an existing 0644 config stays 0644" 644 "$(mode .mcp.json)"
new_project umask022
seed 600 .mcp.json
(umask 022 && thatch setup --claude >/dev/null)
expect_eq "under umask 022 a new config is 0644" 644 "$(mode .claude/settings.json)"
expect_eq "under umask 022 a new instructions file is 0644" 644 "$(mode CLAUDE.md)"
expect_eq "under umask 022 a new skills folder is 0755" 755 "$(mode .claude/skills/thatch-fact-extractor)"
expect_eq "under umask 022 an existing 0600 config stays 0600" 600 "$(mode .mcp.json)"
finish
