#!/usr/bin/env bash
# `thatch doctor` as a user runs it: one ✓/✗/· line per finding with what
# to do, exit 1 exactly when something is ✗, --json for scripts, and never
# a change to anything (no database made, no log line, no socket removed).
. "$(dirname "$0")/lib.sh"

P=$TEST_DIR/proj
mkdir -p "$P" && cd "$P" && git init -q
export CLAUDE_CONFIG_DIR=$TEST_DIR/claude-home CURSOR_CONFIG_DIR=$TEST_DIR/cursor-home
HASH=$(printf '%s' "$THATCH_DB_PATH" | sha256sum | cut -c1-16)
tree() { find "$TEST_DIR" -path "$P/.git" -prune -o -print | sort | while IFS= read -r f; do
	[ -f "$f" ] && echo "$f $(sha256sum <"$f" | cut -c1-16)" || echo "$f"; done; }
doctor() { out=$(thatch doctor "$@" 2>&1); rc=$?; }
line() { grep -- "$1" <<<"$out"; }

# --- nothing there yet -------------------------------------------------------------
before=$(tree)
doctor
expect_eq "a missing database is a problem (exit 1)" 1 $rc
expect_contains "it names the file and how to create it" "$(line '✗ database:')" \
    "$THATCH_DB_PATH does not exist — run \`thatch stores\`"
expect_eq "doctor does not create the database" "$before" "$(tree)"
expect_contains "the model is found" "$(line '✓ model:')" "(32 dimensions"
expect_eq "a model folder is named once" "✓ model: $THATCH_MODEL (32 dimensions)" "$(line '✓ model:')"
expect_contains "a host not set up is no problem, with how to set it up" \
    "$(line '· Claude Code (project):')" "not set up — run \`thatch setup --claude\`"
expect_contains "Cursor's global scope is checked too" "$(line '· Cursor (global):')" "thatch setup --cursor --global"
expect_contains "no server is no problem" "$(line '· server:')" "no MCP server of this database is running"
expect_contains "the empty queue is shown" "$(line '✓ queue:')" "empty ($XDG_CACHE_HOME/thatch/queue)"
expect_contains "the debug log is off, and how to turn it on" "$(line '✓ debug log:')" \
    "off (THATCH_DEBUG=1 writes $XDG_CONFIG_HOME/thatch/debug.log)"
expect_contains "the problems are counted" "$out" "1 problem found."

# --- a healthy setup ------------------------------------------------------------------
thatch stores >/dev/null
printf '{"session_id":"s1","tool_calls":[{"tool_name":"Read","tool_input":{"file":"a"},"tool_response":"x"},{"tool_name":"Grep","tool_input":{},"tool_response":"y"}]}' |
    thatch buffer-batch
thatch setup --claude --cursor --opencode >/dev/null
mkdir -p sub && cd sub	# judged where setup wrote: the repository's top
doctor
expect_eq "a healthy setup exits 0" 0 $rc
expect_contains "the database opens and passes its check" "$(line '✓ database:')" "$THATCH_DB_PATH ("
expect_contains "it passed the integrity check" "$(line '✓ database:')" "integrity check passed"
expect_contains "memories are counted per store" "$(line '✓ memories:')" "0 in 1 store (global 0)"
expect_contains "Claude Code's project setup is whole" "$(line '✓ Claude Code (project):')" "set up (5 of 5 pieces"
expect_contains "Cursor's too" "$(line '✓ Cursor (project):')" "set up (6 of 6 pieces"
expect_contains "opencode's too" "$(line '✓ opencode (project):')" "set up"
expect_contains "the queued session is shown" "$(line '✓ queue:')" "1 session with 2 tool calls waiting"
expect_not_contains "no line is a problem" "$out" "✗"
expect_contains "every row is of the model in effect" "$(line '✓ embedding space:')" "every row is"

# --- a memory of another model: invisible to recall until reembed ----------------------
thatch remember --store global "Build flag" "make needs -j2 here" >/dev/null
sqlite3 "$THATCH_DB_PATH" "UPDATE entries SET model = 'someone/else-384' WHERE label = 'Build flag'"
doctor
expect_eq "a memory of another model is a problem (exit 1)" 1 $rc
expect_contains "doctor counts it and says what to run" "$(line '✗ embedding space:')" \
    "1 row (memories 1, matchers 0, items 0) embedded by another model than"
expect_contains "... with the fix" "$(line '✗ embedding space:')" "run \`thatch reembed\`"
thatch reembed >/dev/null 2>&1
doctor
expect_contains "after thatch reembed it is of this model again" "$(line '✓ embedding space:')" "every row is"
thatch forget "Build flag" global >/dev/null
cd "$P"

# --- a broken hook path ------------------------------------------------------------
cp .claude/settings.json "$TEST_DIR/settings"
python3 - <<'PY'
import json
d = json.load(open(".claude/settings.json"))
h = d["hooks"]["UserPromptSubmit"][0]["hooks"][0]
h["command"] = "/gone/bin/thatch flush-tools"
json.dump(d, open(".claude/settings.json", "w"), indent=2)
PY
doctor
expect_eq "a hook whose program is gone exits 1" 1 $rc
expect_contains "it names the hook, the file and the program" "$(line '✗ Claude Code (project):')" \
    "the UserPromptSubmit hook in $P/.claude/settings.json runs /gone/bin/thatch, which is not an executable program"
expect_contains "and says to re-run setup" "$(line '✗ Claude Code (project):')" "— run \`thatch setup --claude\`"
python3 - <<'PY'
import json
d = json.load(open(".claude/settings.json"))
del d["hooks"]["SessionStart"]
json.dump(d, open(".claude/settings.json", "w"), indent=2)
PY
doctor
expect_contains "a missing hook is named" "$(line '✗ Claude Code (project):')" "no thatch SessionStart hook in $P/.claude/settings.json"
cp "$TEST_DIR/settings" .claude/settings.json
sed -i 's/then `memory_forget`\.//' AGENTS.md
doctor
expect_contains "a damaged block is named" "$(line '✗ Cursor (project):')" "the thatch block in $P/AGENTS.md has no end marker"
thatch setup --remove --cursor >/dev/null; thatch setup --cursor >/dev/null 2>&1
rm AGENTS.md && thatch setup --cursor >/dev/null
thatch setup --claude --global >/dev/null
doctor
expect_contains "a global Claude setup without the user-scope server says how to register it" \
    "$(line '✗ Claude Code (global):')" "no thatch MCP server in $CLAUDE_CONFIG_DIR/.claude.json — run \`claude mcp add --scope user thatch -- "
self=$(python3 -c 'import json; print(json.load(open(".mcp.json"))["mcpServers"]["thatch"]["command"])')
printf '{"mcpServers": {"thatch": {"type": "stdio", "command": "%s", "args": ["mcp"]}}}\n' "$self" >"$CLAUDE_CONFIG_DIR/.claude.json"
doctor
expect_contains "registered, it is whole" "$(line '✓ Claude Code (global):')" "set up"
expect_eq "and doctor is happy again" 0 $rc

# --- a missing model --------------------------------------------------------------------
THATCH_MODEL=$TEST_DIR/no-model doctor
expect_eq "a missing model exits 1" 1 $rc
expect_contains "it names the model and says to pull it" "$(line '✗ model:')" "$TEST_DIR/no-model"
expect_contains "with the command" "$(line '✗ model:')" "— run \`thatch model pull\`"
expect_eq "nothing is downloaded or made for it" "" "$(ls -A "$TEST_DIR" | grep no-model)"

# --- Cursor's hooks and opencode's plugin name a program too ----------------------------
cp .cursor/hooks.json "$TEST_DIR/hooks" && cp opencode.json "$TEST_DIR/opencode"
sed -i 's#"command": "[^" ]*#"command": "/gone/bin/thatch#' .cursor/hooks.json
python3 - <<'PY'
import json
d = json.load(open("opencode.json"))
d["plugin"][0][1]["thatch"] = "/gone/bin/thatch"
json.dump(d, open("opencode.json", "w"), indent=2)
PY
doctor
expect_eq "a Cursor hook or opencode plugin whose program is gone exits 1" 1 $rc
expect_contains "Cursor's hook is named with its file and program" "$(line '✗ Cursor (project):')" \
    "the beforeSubmitPrompt hook in $P/.cursor/hooks.json runs /gone/bin/thatch, which is not an executable program"
expect_contains "opencode's plugin entry is named with its file and program" "$(line '✗ opencode (project):')" \
    "the plugin entry in $P/opencode.json runs /gone/bin/thatch, which is not an executable program — run \`thatch setup --opencode\`"
cp "$TEST_DIR/hooks" .cursor/hooks.json && cp "$TEST_DIR/opencode" opencode.json
doctor
expect_eq "restored, doctor is happy again" 0 $rc

# --- a running server --------------------------------------------------------------------
mkfifo "$TEST_DIR/in"
"$THATCH_BIN" mcp <"$TEST_DIR/in" >"$TEST_DIR/out" 2>"$TEST_DIR/err" &
mcp_pid=$!
exec 7>"$TEST_DIR/in"
printf '%s\n' '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' >&7
printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"memory_remember","arguments":{"label":"build","content":"make -j2","store":"acme/app"}}}' >&7
wait_for "the server is up" 20 grep -q '"id":1' "$TEST_DIR/out"
doctor
expect_contains "a running server answers over the sideband" "$(line '✓ server:')" "1 MCP server of this database answers"
expect_contains "memories are counted in each store" "$(line '✓ memories:')" "1 in 2 stores (acme/app 1, global 0)"
exec 7>&-
wait $mcp_pid
# a socket whose server was killed: counted, not removed
python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' \
    "$XDG_RUNTIME_DIR/thatch-$HASH.99999999.0123abcd.sock"
doctor
expect_contains "a stale socket is mentioned" "$(line '· server:')" "1 socket left by killed servers"
expect_ok "and left where it is" test -S "$XDG_RUNTIME_DIR/thatch-$HASH.99999999.0123abcd.sock"

# --- doctor changes nothing, debug log on or not -----------------------------------------
before=$(tree)
THATCH_DEBUG=1 doctor
expect_contains "the debug log's state is shown" "$(line '✓ debug log:')" "on (THATCH_DEBUG=1): $XDG_CONFIG_HOME/thatch/debug.log"
doctor --json
expect_eq "doctor leaves every file as it was" "$before" "$(tree)"

# --- --json ------------------------------------------------------------------------------
expect_eq "--json exits as the text does" 0 $rc
expect_eq "--json is one document with ok and the checks" "True database ok" \
    "$(python3 -c 'import json,sys; d=json.loads(sys.argv[1]); c=d["checks"][0]; print(d["ok"], c["check"], c["status"])' "$out")"
expect_eq "every check has status, detail and fix" "" \
    "$(python3 -c 'import json,sys; print([c for c in json.loads(sys.argv[1])["checks"] if sorted(c) != ["check","detail","fix","status"]] or "")' "$out")"

# --- a corrupt database ------------------------------------------------------------------
db=$TEST_DIR/corrupt.db
cp "$THATCH_DB_PATH" "$db"
size=$(stat -c %s "$db")
# scribble over every page after the first (the schema stays readable)
python3 - "$db" <<'PY'
import sys
f = open(sys.argv[1], "r+b"); data = bytearray(f.read())
for i in range(4096 + 100, len(data), 97):
    data[i] = (data[i] * 7 + 13) % 256
f.seek(0); f.write(data)
PY
sum=$(sha256sum <"$db")
THATCH_DB_PATH=$db doctor
expect_eq "a corrupt database exits 1" 1 $rc
expect_contains "it says the database is damaged" "$(line '✗ database:')" "$db"
expect_ok "and what to do about it" grep -q '✗ database:.*\(restore it from a backup\|move it aside\)' <<<"$out"
expect_eq "the corrupt file is not touched" "$sum" "$(sha256sum <"$db")"
printf 'not a database at all, not even close to one.........................................................................' >"$db"
THATCH_DB_PATH=$db doctor
expect_contains "a file that is not a database says so" "$(line '✗ database:')" "file is not a database"
finish
