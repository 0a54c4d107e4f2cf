#!/usr/bin/env bash
# The token budget (issue 27) as the real Claude Code client delivers it
# (npm @anthropic-ai/claude-code, no login, a loopback fake model API): in
# a project set up with `thatch setup --claude` over 10,000 memories, the
# first request of a `claude -p` turn carries thatch's SessionStart text
# and its fixed part (its MCP tool definitions and instructions, its
# skills' lines and the CLAUDE.md block), and each stays within budget:
# the SessionStart text within 2,000 tokens, the fixed part within 4,000.
# Counted with Claude's tokenizer when bench/tokens installed it, else in
# characters, as t2100 does: 4 to a token for the SessionStart prose (it
# measures ~3.5), 4.5 for the fixed part, mostly JSON (~4.3). Skipped,
# with a "skipped" line, when npm cannot install the client (offline).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/claude-fixture.sh"
export GIT_AUTHOR_NAME=T GIT_AUTHOR_EMAIL=t@example.com
export GIT_COMMITTER_NAME=T GIT_COMMITTER_EMAIL=t@example.com
mkdir proj && cd proj && git init -q && git commit -q --allow-empty -m init || exit 1
export CLAUDE_PROJECT_DIR=$PWD

db=$THATCH_DB_PATH
thatch list >/dev/null 2>&1		# the schema
sqlite3 "$db" "INSERT OR IGNORE INTO stores(name) VALUES ('proj');
WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 10000)
INSERT INTO entries (slug, store, label, content, embedding, model, updated_at)
SELECT 'm' || i, 'proj', 'auth: how src/auth/mod' || (i % 97) || '.ts handles case ' || i,
    'The session token retry in case ' || i || ' goes through the auth layer. ' ||
    printf('%.' || (i % 2000) || 'c', 'x'), randomblob(128), 'other',
    printf('2026-01-%02dT00:00:%02dZ', 1 + i % 28, i % 60) FROM c"
expect_eq "10,000 memories in the project's store" 10000 \
    "$(sqlite3 "$db" "SELECT count(*) FROM entries WHERE store = 'proj'")"

thatch setup --claude >/dev/null 2>&1
printf '{"projects":{"%s":{"hasTrustDialogAccepted":true}}}\n' "$PWD" >"$HOME/.claude.json"
python3 "$HOSTS/fake-anthropic.py" "$TEST_DIR/port" "$TEST_DIR/requests" &
api=$!
wait_for "the fake model API is up" 10 test -f "$TEST_DIR/port"
res=$(env ANTHROPIC_BASE_URL=http://127.0.0.1:$(cat "$TEST_DIR/port") \
    ANTHROPIC_API_KEY=dummy timeout 120 "$CLAUDE" -p "what does this repo do?" \
    --output-format json 2>&1)
kill "$api" 2>/dev/null; wait "$api" 2>/dev/null
expect_contains "the turn completes" "$res" '"subtype":"success"'

# The parts of the turn's first request that are thatch's: the
# SessionStart text (Claude Code puts it first in a system message, before
# its own list of agent types), and the fixed part: thatch's tool
# definitions, its MCP instructions, its skills' lines, and CLAUDE.md
# (setup wrote only thatch's block there).
python3 - "$TEST_DIR/requests" "$TEST_DIR" CLAUDE.md <<'EOF'
import json, re, sys
reqs = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8") if l.strip()]
req = next(r for r in reqs if r.get("tools"))
def texts(v):
    if isinstance(v, str): yield v
    elif isinstance(v, list):
        for x in v: yield from texts(x)
    elif isinstance(v, dict):
        for x in v.values(): yield from texts(x)
every = list(texts(req.get("system", []))) + list(texts(req.get("messages", [])))
lead = "SessionStart:startup hook success: "
hook = next((t for t in every if t.startswith(lead)), "")
start = hook[len(lead):].split("\n\nAvailable agent types")[0]
m = re.search(r"\n## thatch\n.*?(?=\n\n|$)", hook, re.S)
skills = "\n".join(l for l in hook.splitlines() if l.startswith("- thatch-"))
tools = [t for t in req["tools"] if t.get("name", "").startswith("mcp__thatch__")]
block = open(sys.argv[3], encoding="utf-8").read().strip()
def out(name, s):
    open(sys.argv[2] + "/" + name, "w", encoding="utf-8").write(s)
out("start", start)
out("fixed", "\n".join([json.dumps(tools), m.group(0) if m else "", skills, block]))
out("ntools", str(len(tools)))
out("hasblock", "1" if block and any(block in t for t in every) else "0")
out("hasskills", str(skills.count("- thatch-")))
EOF

tok=$THATCH_FIXTURES/../../bench/.tokens
within() {	# within WHAT TOKENS FILE CHARS-PER-10-TOKENS
	local n c
	if [ -d "$tok/node_modules/@anthropic-ai/tokenizer" ]; then
		n=$(NODE_PATH=$tok/node_modules node -e 'const { countTokens } = require("@anthropic-ai/tokenizer");
		    console.log(countTokens(require("fs").readFileSync(process.argv[1], "utf8")))' "$3")
		if [ "$n" -le "$2" ]; then _pass "$1: $n tokens"; else
			_fail "$1" "$n tokens, over $2"; fi
		return
	fi
	c=$(wc -c <"$3")
	if [ "$c" -le $(($2 * $4 / 10)) ]; then _pass "$1 ($c chars)"; else
		_fail "$1" "$c characters, over $2 tokens x $4/10"; fi
}
expect_contains "the SessionStart text reaches the model" "$(cat "$TEST_DIR/start")" "[thatch]"
expect_eq "thatch's tools reach the model" 1 "$([ "$(cat "$TEST_DIR/ntools")" -ge 10 ] && echo 1)"
expect_eq "and no chat tool among them (chat is off)" 0 \
    "$(grep -o 'mcp__thatch__chat_' "$TEST_DIR/fixed" | wc -l)"
expect_eq "the CLAUDE.md block reaches the model" 1 "$(cat "$TEST_DIR/hasblock")"
expect_eq "thatch's skills are listed to the model" 1 \
    "$([ "$(cat "$TEST_DIR/hasskills")" -ge 20 ] && echo 1)"
within "the SessionStart text at 10,000 memories" 2000 "$TEST_DIR/start" 40
within "thatch's fixed part: tools, instructions, skills and block" 4000 "$TEST_DIR/fixed" 45
finish
