#!/usr/bin/env bash
# `thatch setup` as users run it: what it writes for each host and scope,
# re-runs that change nothing, other people's hooks, servers, text and
# skills kept, broken markers reported, unreadable configs backed up.
. "$(dirname "$0")/lib.sh"

P=$TEST_DIR/proj
mkdir -p "$P" && cd "$P" && git init -q
json() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }

err=$(thatch setup 2>&1); rc=$?
expect_eq "setup without a host is a usage error (exit 2)" 2 $rc
expect_contains "setup without a host shows its usage" "$err" "usage: thatch setup [--claude] [--cursor] [--opencode] [--global]"
expect_eq "setup --global alone is refused too" 2 "$(thatch setup --global >/dev/null 2>&1; echo $?)"

# --- Claude Code, project-local ------------------------------------------------
printf '# My project\n\nOwn notes.\n' >CLAUDE.md
mkdir -p .claude/skills/my-skill .claude/skills/thatch-retired
printf 'mine\n' >.claude/skills/my-skill/SKILL.md
printf 'old\n' >.claude/skills/thatch-retired/SKILL.md
ln -s "$TEST_DIR" .claude/skills/thatch-linked
cat >.claude/settings.json <<'J'
{
  "permissions": {"allow": ["Bash(make:*)"]},
  "hooks": {
    "SessionStart": {"hooks": [{"type": "command", "command": "echo hi"}]},
    "PostToolUse": [{"matcher": "Edit", "hooks": [{"type": "command", "command": "fmt"}]}],
    "UserPromptSubmit": [
      {"hooks": [{"type": "command", "command": "echo '[thatch] did you learn'"}, {"type": "command", "command": "lint"}]},
      {"hooks": [{"type": "command", "command": "other"}]}
    ]
  }
}
J
cat >.mcp.json <<'J'
{"mcpServers": {"github": {"command": "gh-mcp"}, "thatch": {"command": "old", "env": {"X": "1"}}}}
J
out=$(thatch setup --claude); rc=$?
expect_eq "setup --claude exits 0" 0 $rc
expect_contains "the summary names the host and scope" "$out" "Claude Code (project-local)"
expect_contains "the summary lists the MCP config" "$out" "  MCP config:    $P/.mcp.json"
expect_contains "the summary lists the instructions file" "$out" "  Instructions:  $P/CLAUDE.md"
expect_contains "the summary lists the hooks file" "$out" "  Hooks:         $P/.claude/settings.json"
expect_contains "the summary counts the skills" "$out" "  Skills:        $P/.claude/skills (26 files: 26 written, 0 unchanged)"
expect_contains "the summary says the server needs trust" "$out" "trust this folder"
expect_contains "the summary says to restart" "$out" "Restart Claude Code"
# one confidence scale: the tool schema's 1-10, in every text the agent reads
expect_eq "the block and every skill give confidence on the schema's 1-10 scale" "" \
	"$(grep -rn 'to 5\b\|1-5\|1–5' "$P/CLAUDE.md" "$P/.claude/skills" | grep -i confiden)"
expect_contains "the block names the 1-10 scale" "$(cat "$P/CLAUDE.md")" "from 1
(a guess) to 10"

self=$(json .mcp.json 'd["mcpServers"]["thatch"]["command"]')
expect_eq "the MCP entry is exactly the stdio entry" "{'type': 'stdio', 'command': '$self', 'args': ['mcp']}" "$(json .mcp.json 'd["mcpServers"]["thatch"]')"
expect_eq "the baked binary path is absolute" "/" "${self:0:1}"
expect_eq "other MCP servers are kept" "{'command': 'gh-mcp'}" "$(json .mcp.json 'd["mcpServers"]["github"]')"
expect_eq "the server is pre-approved for Claude Code" "['thatch']" "$(json .claude/settings.local.json 'd["enabledMcpjsonServers"]')"
expect_eq "hooks are arrays of groups with a timeout" \
    "[{'hooks': [{'type': 'command', 'command': '$self buffer-batch', 'timeout': 30}]}]" \
    "$(json .claude/settings.json 'd["hooks"]["PostToolBatch"]')"
expect_eq "an object-form event is wrapped and kept before thatch's" \
    "[{'hooks': [{'type': 'command', 'command': 'echo hi'}]}, {'hooks': [{'type': 'command', 'command': '$self reminder', 'timeout': 30}]}]" \
    "$(json .claude/settings.json 'd["hooks"]["SessionStart"]')"
expect_eq "a legacy thatch hook goes, its group's other hooks stay" \
    "[{'hooks': [{'type': 'command', 'command': 'lint'}]}, {'hooks': [{'type': 'command', 'command': 'other'}]}, {'hooks': [{'type': 'command', 'command': '$self flush-tools', 'timeout': 30}]}]" \
    "$(json .claude/settings.json 'd["hooks"]["UserPromptSubmit"]')"
expect_eq "other events are untouched" "[{'matcher': 'Edit', 'hooks': [{'type': 'command', 'command': 'fmt'}]}]" "$(json .claude/settings.json 'd["hooks"]["PostToolUse"]')"
expect_eq "other settings are untouched" "{'allow': ['Bash(make:*)']}" "$(json .claude/settings.json 'd["permissions"]')"
expect_eq "the user's text stays in front of the block" "# My project" "$(head -n 1 CLAUDE.md)"
expect_contains "the block starts with the Claude marker" "$(cat CLAUDE.md)" $'# Persistence\n\nThatch provides persistent memory across Claude Code sessions.'
expect_eq "the block ends with the end marker" '"Forget X" - `memory_recall` to find it, then `memory_forget`.' "$(tail -n 1 CLAUDE.md)"
expect_contains "the block lists the tools with the host prefix" "$(cat CLAUDE.md)" 'prefix (`mcp__thatch__memory_remember`): memory_remember, memory_recall, '
expect_eq "other skills are never touched" "mine" "$(cat .claude/skills/my-skill/SKILL.md)"
expect_fail "a skill thatch no longer ships is removed" test -e .claude/skills/thatch-retired
expect_fail "a stale thatch skill link is unlinked" test -L .claude/skills/thatch-linked
expect_ok "an unlinked skill link's target survives" test -d "$TEST_DIR"
expect_eq "only the shared skills are installed" 26 "$(ls -d .claude/skills/thatch-* | wc -l)"
expect_fail "the opencode-only coordinator is not installed" test -e .claude/skills/thatch-code-review
bad=0
for f in .claude/skills/thatch-*/SKILL.md; do
	python3 - "$f" <<'PY' || bad=$((bad + 1))
import sys, re
t = open(sys.argv[1]).read()
m = re.match(r'---\nname: (\S+)\ndescription: (.+)\n---\n\n', t)
d = m.group(2) if m else ''
ok = m and m.group(1) == sys.argv[1].split('/')[-2] and (
    (d.startswith("'") and d.endswith("'")) or (': ' not in d and d[0] not in '"\''))
sys.exit(0 if ok else 1)
PY
done
expect_eq "every SKILL.md has name and description frontmatter matching its folder" 0 $bad
expect_contains "the shared review framework is resolved into the lenses" "$(cat .claude/skills/thatch-review-economy/SKILL.md)" "## How to report"

# --- re-run: nothing changes ---------------------------------------------------
sum() { find . -path ./.git -prune -o -type f -print0 | sort -z | xargs -0 sha256sum; }
before=$(sum)
printf 'edited\n' >.claude/skills/thatch-fact-extractor/SKILL.md
out=$(thatch setup --claude)
expect_contains "a drifted skill is rewritten" "$out" "(26 files: 1 written, 25 unchanged)"
expect_eq "a re-run leaves every file byte for byte" "$before" "$(sum)"
expect_eq "a re-run stacks no hooks" 1 "$(grep -c 'flush-tools' .claude/settings.json)"

# --- broken markers ------------------------------------------------------------
printf '# Persistence\n\nThatch provides persistent memory across Claude Code sessions.\nhalf a block\n' >"$TEST_DIR/broken.md"
cp "$TEST_DIR/broken.md" CLAUDE.md
err=$(thatch setup --claude 2>&1 >/dev/null); rc=$?
expect_eq "setup with a broken block still exits 0" 0 $rc
expect_contains "a broken block is reported" "$err" "not its end marker"
expect_eq "a broken block is left untouched" "$(cat "$TEST_DIR/broken.md")" "$(cat CLAUDE.md)"

# --- unreadable config ---------------------------------------------------------
printf '{ not json' >.mcp.json
err=$(thatch setup --claude 2>&1 >/dev/null)
expect_contains "an unparseable config is backed up and said so" "$err" ".mcp.json.bak"
expect_eq "the backup holds the old bytes" "{ not json" "$(cat .mcp.json.bak)"
expect_eq "the config is rewritten with the server" "mcp" "$(json .mcp.json 'd["mcpServers"]["thatch"]["args"][0]')"

# --- Claude Code, global ---------------------------------------------------------
export CLAUDE_CONFIG_DIR=$TEST_DIR/claude-home
out=$(thatch setup --claude --global)
expect_contains "global setup says so" "$out" "Claude Code (global)"
expect_contains "global setup prints the user-scope registration" "$out" "  claude mcp add --scope user thatch -- $self mcp"
expect_not_contains "global setup writes no MCP file" "$out" "MCP config:"
expect_ok "CLAUDE_CONFIG_DIR is honoured for the instructions" test -f "$CLAUDE_CONFIG_DIR/CLAUDE.md"
expect_ok "CLAUDE_CONFIG_DIR is honoured for the hooks" test -f "$CLAUDE_CONFIG_DIR/settings.json"
expect_eq "global skills go to CLAUDE_CONFIG_DIR" 26 "$(ls "$CLAUDE_CONFIG_DIR/skills" | wc -l)"

# --- Cursor ----------------------------------------------------------------------
printf '{"version": 1, "hooks": {"postToolUse": [{"command": "audit"}, {"command": "/old/thatch buffer-tool"}], "stop": [{"command": "x"}]}, "extra": true}' >"$TEST_DIR/hooks.json"
mkdir -p .cursor && cp "$TEST_DIR/hooks.json" .cursor/hooks.json
out=$(thatch setup --cursor); rc=$?
expect_eq "setup --cursor exits 0" 0 $rc
expect_contains "the Cursor summary lists its MCP config" "$out" "  MCP config:    $P/.cursor/mcp.json"
expect_eq "Cursor hooks are flat with a timeout, foreign ones first" \
    "[{'command': 'audit'}, {'command': '$self buffer-tool', 'timeout': 30}]" "$(json .cursor/hooks.json 'd["hooks"]["postToolUse"]')"
expect_eq "Cursor's prompt hook is flush-tools --json" "[{'command': '$self flush-tools --json', 'timeout': 30}]" "$(json .cursor/hooks.json 'd["hooks"]["beforeSubmitPrompt"]')"
expect_eq "Cursor's session hook is reminder --json" "[{'command': '$self reminder --json', 'timeout': 30}]" "$(json .cursor/hooks.json 'd["hooks"]["sessionStart"]')"
expect_eq "failed Cursor tool calls are buffered too" "[{'command': '$self buffer-tool', 'timeout': 30}]" "$(json .cursor/hooks.json 'd["hooks"]["postToolUseFailure"]')"
expect_eq "other Cursor events and keys stay" "[{'command': 'x'}] True 1" "$(json .cursor/hooks.json 'd["hooks"]["stop"], d["extra"], d["version"]' | tr -d '(),')"
expect_fail "a hooks.json that merges cleanly is not backed up" test -e .cursor/hooks.json.bak
expect_contains "AGENTS.md gets the Cursor block" "$(cat AGENTS.md)" "Thatch provides persistent memory across Cursor sessions."
expect_contains "Cursor's block uses bare tool names" "$(cat AGENTS.md)" 'server prefix): memory_remember, memory_recall, '
expect_eq "Cursor skills go to .cursor/skills" 26 "$(ls .cursor/skills | wc -l)"
export CURSOR_CONFIG_DIR=$TEST_DIR/cursor-home
out=$(thatch setup --claude --cursor --global)
expect_contains "both hosts install in one run, Claude first" "$(grep -n 'setup complete' <<<"$out" | tr '\n' ' ')" "Claude Code (global)"
expect_ok "CURSOR_CONFIG_DIR is honoured" test -f "$CURSOR_CONFIG_DIR/mcp.json"
expect_ok "Cursor's global AGENTS.md is in CURSOR_CONFIG_DIR" test -f "$CURSOR_CONFIG_DIR/AGENTS.md"

# --- a path with spaces is quoted ----------------------------------------------
mkdir -p "$TEST_DIR/my bin" && cp "$THATCH_BIN" "$TEST_DIR/my bin/thatch"
(cd "$P" && PATH="$TEST_DIR/my bin:$PATH" thatch setup --claude >/dev/null 2>&1)
expect_eq "a binary path with spaces is single-quoted in hooks" "'$TEST_DIR/my bin/thatch' reminder" "$(json .claude/settings.json 'd["hooks"]["SessionStart"][-1]["hooks"][0]["command"]')"

# --- the MCP server refreshes an installed setup ------------------------------
rm CLAUDE.md && thatch setup --claude >/dev/null 2>&1
printf 'edited\n' >.claude/skills/thatch-coding-workflow/SKILL.md
mkfifo "$TEST_DIR/in"
CLAUDE_PROJECT_DIR=$P thatch mcp <"$TEST_DIR/in" >"$TEST_DIR/out" 2>/dev/null &
mcp=$!
exec 7>"$TEST_DIR/in"
printf '%s\n' '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"claude-code","version":"2"}}}' >&7
wait_for "after initialize the server rewrites a drifted skill" 20 grep -q "Coding workflow" .claude/skills/thatch-coding-workflow/SKILL.md
exec 7>&-
wait "$mcp"
finish
