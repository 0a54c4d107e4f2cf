#!/usr/bin/env bash
# thatch and the original share one database (issue 15, issue 19): the
# original's seeded default behaviors are the defaults to thatch, so
# starting the original, then thatch, then the original leaves their rows,
# counts and learned confidence as they were; and the original still opens,
# reads and writes a database thatch has indexed (entries_fts and its
# triggers), its writes found by `thatch search --mode lexical`.
#
# The original is its runtime, Bun from npm (tests/hosts/original, installed
# on demand), running its statements (tests/hosts/original/v0130.js): its
# npm package @jeffober/thatch 0.1.30 is not on the registry these tests
# reach. Skipped, with a "skipped" line, when npm cannot install Bun.
HOSTS=$(cd "$(dirname "$0")/../hosts" && pwd)
. "$(dirname "$0")/lib.sh"
ORIG=$HOSTS/original
BUN=$ORIG/node_modules/.bin/bun
if { [ -x "$BUN" ] || (cd "$ORIG" && npm install --no-audit --no-fund >/dev/null 2>&1); } &&
   "$BUN" --version >/dev/null 2>&1; then :
else
	echo "skipped: npm could not install Bun, the original's runtime"
	finish; exit
fi
export ORIGINAL_SQL=$THATCH_FIXTURES/store/original.sql
export THATCH_RECALL_THRESHOLD=2 THATCH_PREDICTION_THRESHOLD=2 THATCH_BEHAVIOR_THRESHOLD=2
original() { "$BUN" "$ORIG/v0130.js" "$@" 2>&1; }
q() { sqlite3 -batch -noheader "$THATCH_DB_PATH" "$@"; }
mkdir -p "$(dirname "$THATCH_DB_PATH")" proj && cd proj && git init -q

# thatch's server as a host starts it: initialize, then one call that
# loads the model, which seeds the defaults (tools.c) before it answers
thatch_server() {
	python3 - "$THATCH_BIN" <<'PY'
import json, subprocess, sys
p = subprocess.Popen([sys.argv[1], "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
def send(m): p.stdin.write(json.dumps(m) + "\n"); p.stdin.flush()
send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t8000", "version": "1"}}})
send({"jsonrpc": "2.0", "method": "notifications/initialized"})
send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "memory_recall", "arguments": {"query": "anything"}}})
for line in p.stdout:
    if json.loads(line).get("id") == 2:
        print("answered")
        break
p.stdin.close()
p.wait(timeout=30)
PY
}
rows() { q "SELECT id, statement, rationale, confirm_count, disconfirm_count, confidence FROM behaviors ORDER BY id"; }
tables() { q "SELECT (SELECT COUNT(*) FROM behaviors) || ' ' || (SELECT COUNT(*) FROM behavior_matchers) || ' ' || (SELECT COUNT(*) FROM behavior_edges) || ' ' || (SELECT COUNT(*) FROM behavior_provenance)"; }
SRC=$(cd "$THATCH_FIXTURES/../.." && pwd)
N=$(grep -c '\.key = ' "$SRC/src/text/behaviors.c")

# --- the control: on its own, thatch's start seeds its defaults ---
expect_eq "thatch's server answers once the model is loaded" answered "$(thatch_server)"
expect_eq "and has seeded its own defaults" "$N" \
    "$(q "SELECT COUNT(*) FROM behaviors WHERE rationale GLOB '* seed-version:[0-9a-f]*'")"
rm -f "$THATCH_DB_PATH"*

# --- the original, then thatch, then the original ---
expect_eq "the original starts on a new database" ok "$(original start)"
expect_eq "it seeds its nine defaults" 9 "$(q "SELECT COUNT(*) FROM behaviors WHERE rationale LIKE '% seed-version:0.1.30'")"
# what a default learns: two confirms on one of them
q "UPDATE behaviors SET confirm_count = 2, confidence = (2 + 2.5) / (2 + 5.0) WHERE rationale LIKE '%seed-key:snag-dead-end %'"
before=$(rows) counts=$(tables)
expect_eq "thatch's server starts beside it" answered "$(thatch_server)"
expect_eq "thatch leaves the original's defaults' rows as they were" "$before" "$(rows)"
expect_eq "and their matchers, edges and provenance" "$counts" "$(tables)"
expect_eq "nothing of thatch's is seeded beside them" 0 \
    "$(q "SELECT COUNT(*) FROM behaviors WHERE rationale NOT LIKE '% seed-version:0.1.30'")"
expect_eq "the learned confidence survives" "2.0|0.642857142857143" \
    "$(q "SELECT confirm_count, confidence FROM behaviors WHERE rationale LIKE '%seed-key:snag-dead-end %'")"
expect_eq "the original starts again" ok "$(original start)"
expect_eq "and finds its defaults as it left them" "$before" "$(rows)"
expect_eq "with the same counts" "$counts" "$(tables)"
expect_eq "a second thatch start changes nothing either" answered "$(thatch_server)"
expect_eq "the rows are still the original's" "$before" "$(rows)"

# --- thatch first: the original replaces its rows once, then both keep them ---
rm -f "$THATCH_DB_PATH"*
thatch_server >/dev/null
expect_eq "the original replaces thatch's defaults on its first start" ok "$(original start)"
after=$(rows)
expect_eq "leaving only its own" 9 "$(q "SELECT COUNT(*) FROM behaviors")"
thatch_server >/dev/null
expect_eq "which thatch then leaves alone" "$after" "$(rows)"

# --- issue 19: the original on a database thatch has indexed ---
rm -f "$THATCH_DB_PATH"*
thatch_server >/dev/null
expect_eq "thatch's database carries the full-text index and its triggers" 4 \
    "$(q "SELECT COUNT(*) FROM sqlite_master WHERE name IN ('entries_fts', 'entries_fts_ai', 'entries_fts_ad', 'entries_fts_au')")"
thatch_remember() {	# LABEL CONTENT: through thatch's own tool, over MCP
	python3 - "$THATCH_BIN" "$1" "$2" <<'PY'
import json, subprocess, sys
p = subprocess.Popen([sys.argv[1], "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
for m in ({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t8000", "version": "1"}}},
          {"jsonrpc": "2.0", "method": "notifications/initialized"},
          {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "memory_remember", "arguments": {"label": sys.argv[2], "content": sys.argv[3], "store": "proj"}}}):
    p.stdin.write(json.dumps(m) + "\n"); p.stdin.flush()
for line in p.stdout:
    r = json.loads(line)
    if r.get("id") == 2:
        print(r["result"]["content"][0]["text"].split("\n")[0])
        break
p.stdin.close()
p.wait(timeout=30)
PY
}
expect_eq "thatch saves a memory" "[saved] proj :: thatch wrote this" \
    "$(thatch_remember "thatch wrote this" "THATCH_SIDE_7731 is set by the installer")"
expect_eq "the original opens the indexed database" ok "$(original start)"
expect_eq "and reads the rows its recall scans" "1
ok" "$(original read proj)"
expect_eq "and lists thatch's memory" "thatch wrote this	# thatch wrote this\n\nTHATCH_SIDE_7731 is set by the installer
ok" "$(original list proj)"
expect_eq "the original writes a memory into it" ok \
    "$(original remember "bun wrote this" "ERR_BUN_ORIGINAL_4242 means the socket closed early" proj)"
out=$(thatch search --mode lexical ERR_BUN_ORIGINAL_4242 proj)
expect_contains "thatch's lexical search finds the original's memory" "$out" "[proj] bun wrote this"
expect_contains "by its exact error code, as a lexical hit" "$out" "[lexical]"
expect_eq "the original overwrites it" ok \
    "$(original remember "bun wrote this" "ERR_BUN_RETRY_5151 replaced the old code" proj overwrite)"
expect_contains "the new words are found" "$(thatch search --mode lexical ERR_BUN_RETRY_5151 proj)" "[proj] bun wrote this"
expect_not_contains "the old ones no longer" "$(thatch search --mode lexical ERR_BUN_ORIGINAL_4242 proj)" "bun wrote this"
expect_eq "the original forgets it" ok "$(original forget "bun wrote this" proj)"
expect_not_contains "and it is gone from the index" "$(thatch search --mode lexical ERR_BUN_RETRY_5151 proj)" "bun wrote this"
expect_contains "thatch's own memory is still found" "$(thatch search --mode lexical THATCH_SIDE_7731 proj)" "[proj] thatch wrote this"
expect_eq "the database is intact" ok "$(q "PRAGMA integrity_check")"
expect_eq "and so is the index" "" "$(q "INSERT INTO entries_fts(entries_fts) VALUES ('integrity-check')" 2>&1)"

# --- issue 29: anchors in thatch's own tables, beside the original ---
printf 'retry 3 times\n' >retry.txt
expect_ok "thatch saves an anchored memory" thatch remember "anchored" "retry backs off" --store proj --anchor retry.txt
expect_eq "its anchor is recorded" 1 "$(q "SELECT COUNT(*) FROM thatch_anchors WHERE slug = 'anchored'")"
expect_eq "the original opens the database with anchors" ok "$(original start)"
expect_eq "and reads the rows its recall scans" "2
ok" "$(original read proj)"
expect_eq "the original writes beside them" ok "$(original remember "bun again" "ERR_BUN_9 again" proj)"
expect_eq "the original forgets the anchored memory" ok "$(original forget "anchored" proj)"
expect_eq "and its anchors go with it (the trigger)" 0 "$(q "SELECT COUNT(*) FROM thatch_anchors WHERE slug = 'anchored'")"
expect_eq "the database is still intact" ok "$(q "PRAGMA integrity_check")"
finish
