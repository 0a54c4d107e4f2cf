#!/usr/bin/env bash
# `thatch setup --opencode [--global]` as users run it: the plugin entry in
# opencode.json merged into what is there, re-runs that change nothing,
# JSONC with comments refused untouched, unparsable files backed up, the
# skills (opencode's own included) with stale cleanup, nothing under the
# project's .opencode/, and all three hosts in one call.
. "$(dirname "$0")/lib.sh"

P=$TEST_DIR/proj
SK=$XDG_CONFIG_HOME/opencode/skills
CMD=$XDG_CONFIG_HOME/opencode/command/thatch
mkdir -p "$P" && cd "$P" && git init -q
json() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }
# the module setup records: the real path of share/opencode/thatch.js
# beside the binary (a build folder links share/ there: Makefile)
module=$(readlink -f "$(dirname "$THATCH_BIN")/share/opencode/thatch.js")
bin=$(readlink -f "$THATCH_BIN")

err=$(thatch setup 2>&1)
expect_contains "setup without a host names --opencode" "$err" "usage: thatch setup [--claude] [--cursor] [--opencode] [--global]"

# --- project scope, into an existing file ---------------------------------------
cat >opencode.json <<'J'
{"model": "anthropic/x", "plugin": ["other-plugin", ["file:///old/place/thatch/thatch.js", {"thatch": "/old"}], "@jeffober/thatch@0.1.30"],
 "mcp": {"thatch": {"type": "local", "command": ["thatch", "mcp"]}, "gh": {"type": "local", "command": ["gh-mcp"]}}}
J
mkdir -p "$SK/my-skill" "$SK/thatch-retired"
printf 'mine\n' >"$SK/my-skill/SKILL.md"
printf 'old\n' >"$SK/thatch-retired/SKILL.md"
out=$(thatch setup --opencode); rc=$?
expect_eq "setup --opencode exits 0" 0 $rc
expect_contains "the summary names opencode and the scope" "$out" "opencode (project-local)"
expect_contains "the summary lists the config" "$out" "  Config:        $P/opencode.json"
expect_contains "the summary lists the plugin module" "$out" "  Plugin:        $module"
expect_contains "the summary counts both skill sets" "$out" "  Skills:        $SK (27 files: 27 written, 0 unchanged)"
expect_contains "the summary says the old MCP entry went" "$out" "MCP server entry was removed"
expect_contains "the summary says to restart" "$out" "Restart opencode"
expect_eq "thatch's entry replaces the old ones, other plugins stay in order" \
    "['other-plugin', ['file://$module', {'thatch': '$bin'}]]" "$(json opencode.json 'd["plugin"]')"
expect_eq "other keys stay" "anthropic/x" "$(json opencode.json 'd["model"]')"
expect_eq "the old thatch MCP server goes, others stay" "['gh']" "$(json opencode.json 'list(d["mcp"])')"
expect_eq "nothing is put under .opencode/" "no" "$(test -e .opencode && echo yes || echo no)"
expect_eq "the opencode-only coordinator is installed" "yes" "$(test -f "$SK/thatch-code-review/SKILL.md" && echo yes)"
expect_eq "the fact-extractor is installed" "yes" "$(test -f "$SK/thatch-fact-extractor/SKILL.md" && echo yes)"
expect_eq "a stale thatch skill is removed" "no" "$(test -e "$SK/thatch-retired" && echo yes || echo no)"
expect_eq "another skill is kept" "mine" "$(cat "$SK/my-skill/SKILL.md")"
expect_eq "the plugin module is the installed file" "yes" "$(test -f "$module" && echo yes)"
expect_contains "the summary counts the /thatch commands" "$out" "  Commands:      $CMD (6 files: 6 written, 0 unchanged)"
expect_eq "the four /thatch actions and the two wrap-ups are opencode commands" \
    "compact.md defrag.md exit.md extract.md hygiene.md reflect.md" "$(cd "$CMD" && echo *)"
expect_contains "a command names the tools as opencode spells them" \
    "$(cat "$CMD/defrag.md")" "thatch_find_duplicates"
expect_not_contains "and never as Claude Code spells them" \
    "$(cat "$CMD"/*.md)" "mcp__thatch__"

before=$(cat opencode.json)
printf 'edited\n' >"$SK/thatch-code-review/SKILL.md"
out=$(thatch setup --opencode)
expect_eq "a re-run leaves opencode.json byte for byte" "$before" "$(cat opencode.json)"
expect_contains "a re-run repairs only the drifted skill" "$out" "(27 files: 1 written, 26 unchanged)"
expect_not_contains "a re-run has no old MCP entry to remove" "$out" "was removed"

# --- global scope -----------------------------------------------------------------
out=$(thatch setup --opencode --global); rc=$?
expect_eq "setup --opencode --global exits 0" 0 $rc
expect_contains "global scope writes the user config" "$out" "  Config:        $XDG_CONFIG_HOME/opencode/opencode.json"
G=$XDG_CONFIG_HOME/opencode/opencode.json
expect_eq "the user config gets the schema" "https://opencode.ai/config.json" "$(json "$G" 'd["$schema"]')"
expect_eq "the user config gets the entry" "['file://$module', {'thatch': '$bin'}]" "$(json "$G" 'd["plugin"][0]')"

# --- JSONC --------------------------------------------------------------------------
J=$TEST_DIR/jc && mkdir -p "$J" && cd "$J"
cat >opencode.jsonc <<'J'
{
  // my model
  "model": "a/b", /* trailing comma next */
  "plugin": ["x",],
}
J
before=$(cat opencode.jsonc)
err=$(thatch setup --opencode 2>&1); rc=$?
expect_eq "a JSONC config with comments is refused" 1 $rc
expect_contains "the refusal says why" "$err" "has comments"
expect_contains "the refusal gives the line to add" "$err" "[\"file://$module\""
expect_eq "the JSONC file is untouched" "$before" "$(cat opencode.jsonc)"
expect_eq "no opencode.json appears beside it" "no" "$(test -e opencode.json && echo yes || echo no)"
printf '{"plugin": ["x"]}\n' >opencode.jsonc
expect_ok "a comment-free opencode.jsonc is merged" thatch setup --opencode
expect_eq "the comment-free opencode.jsonc got the entry" "x file://$module" \
    "$(json opencode.jsonc 'd["plugin"][0] + " " + d["plugin"][1][0]')"

# --- unparsable -------------------------------------------------------------------
U=$TEST_DIR/un && mkdir -p "$U" && cd "$U"
printf '{"plugin": [nope\n' >opencode.json
out=$(thatch setup --opencode 2>&1); rc=$?
expect_eq "an unparsable config does not stop setup" 0 $rc
expect_eq "it is kept as .bak" '{"plugin": [nope' "$(cat opencode.json.bak)"
expect_eq "and replaced by one with the entry" "file://$module" "$(json opencode.json 'd["plugin"][0][0]')"

# --- all three in one call -----------------------------------------------------------
A=$TEST_DIR/all && mkdir -p "$A" && cd "$A" && git init -q
out=$(thatch setup --claude --cursor --opencode); rc=$?
expect_eq "setup --claude --cursor --opencode exits 0" 0 $rc
expect_contains "Claude Code was installed" "$out" "Claude Code (project-local)"
expect_contains "Cursor was installed" "$out" "Cursor (project-local)"
expect_contains "opencode was installed" "$out" "opencode (project-local)"
expect_eq "all three wrote their files" "yes yes yes" \
    "$(test -f .mcp.json && echo yes) $(test -f .cursor/mcp.json && echo yes) $(test -f opencode.json && echo yes)"
finish
