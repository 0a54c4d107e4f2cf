#!/usr/bin/env bash
# thatch import of what other tools kept (docs/export.md): the MCP memory
# server's knowledge graph, Basic Memory and Serena notes, CLAUDE.md and
# MEMORY.md sections; told apart by name and contents, or by --from.
. "$(dirname "$0")/lib.sh"
F=$THATCH_FIXTURES/import
thatch stores >/dev/null
labels() { sqlite3 "$THATCH_DB_PATH" "SELECT label FROM entries WHERE store='$1' ORDER BY label"; }
body() { thatch show "$1" "$2" | sed '1,/^$/d'; }

out=$(thatch import "$F/mcp-memory.jsonl" --store kg 2>err); rc=$?
expect_eq "the MCP memory graph: one memory per entity, bad lines by number" \
"[thatch import] $F/mcp-memory.jsonl:5: not JSON
[thatch import] $F/mcp-memory.jsonl:6: a relation from an entity the file does not have
imported 3, skipped 0, failed 2|1" "$(cat err)
$out|$rc"
expect_eq "an entity's type, observations and relations are its content" \
"Type: person

## Observations
- Leads the payments team
- Prefers reviews in the morning

## Relations
- maintains Ledger Service" "$(body Dana_Reyes kg)"
expect_eq "an entity without observations keeps its type" "Type: database" \
	"$(body 'Postgres 16' kg)"
expect_eq "imported memories are embedded with the model in effect" \
	"3|$THATCH_MODEL" "$(sqlite3 "$THATCH_DB_PATH" "SELECT count(*), model FROM entries WHERE store='kg' AND length(embedding) > 0")"
expect_contains "and recall finds them" "$(thatch search 'payments team' kg 2>/dev/null)" \
	"[kg] Dana_Reyes"

expect_eq "Basic Memory notes: one memory each, label from title, heading or name" \
	"imported 3, skipped 0, failed 0|Ledger release checklist
no-title
plain" "$(thatch import "$F/basic-memory" --store bm 2>&1)|$(labels bm)"
expect_eq "a note's body is kept, its title heading replaced by the memory's" \
"## Observations
- [step] Tag the commit before running \`make release\` #release
- [gotcha] The staging database must be migrated first

## Relations
- part_of [[Ledger Service]]" "$(body 'Ledger release checklist' bm)"
expect_eq "a second import skips what is there" "imported 0, skipped 3, failed 0" \
	"$(thatch import "$F/basic-memory" --store bm 2>&1)"

expect_eq "Serena memories: the file name is the label" \
	"imported 2, skipped 0, failed 0|code_style
suggested_commands" "$(thatch import "$F/serena/.serena/memories" --store se 2>&1)|$(labels se)"

expect_eq "CLAUDE.md and MEMORY.md: one memory per section, thatch's block left out" \
	"imported 7, skipped 0, failed 0|Build
Conventions
Deploy window
Flaky test
Ledger project
Notes on C#
Testing" "$(thatch import "$F/claude" --store cl 2>&1)|$(labels cl)"
expect_eq "a heading inside a code block does not start a section" \
"Run \`make build\`; the binaries land in bin/.

\`\`\`sh
## not a heading: inside a code fence
make build
\`\`\`" "$(body Build cl)"
expect_not_contains "the instruction block is not imported" \
	"$(sqlite3 "$THATCH_DB_PATH" "SELECT group_concat(content) FROM entries WHERE store='cl'")" \
	"Thatch provides persistent memory"
sqlite3 "$THATCH_DB_PATH" "UPDATE entries SET created_at = '2025-01-01T00:00:00.000Z', content = 'old' WHERE store = 'cl'"
thatch import "$F/claude" --store cl --on-conflict overwrite >/dev/null 2>&1
expect_eq "an overwrite from another tool's file keeps when the memory was created" \
	"7|2025-01-01T00:00:00.000Z|0" "$(sqlite3 "$THATCH_DB_PATH" "SELECT count(*), min(created_at), sum(content = 'old') FROM entries WHERE store = 'cl'")"
expect_eq "--from claude reads any file as sections" \
	"imported 3, skipped 0, failed 0" \
	"$(cp "$F/claude/MEMORY.md" notes.md; thatch import notes.md --from claude --store cl2 2>&1)"
expect_fail "an unknown --from is a usage error" thatch import notes.md --from word

git init -q proj && git -C proj remote add origin git@github.com:acme/ledger.git
expect_eq "without --store, other tools' notes go to the project's store" \
	"imported 2, skipped 0, failed 0|code_style
suggested_commands" "$(cd proj && thatch import "$F/serena/.serena/memories" 2>&1)|$(labels acme/ledger)"
finish
