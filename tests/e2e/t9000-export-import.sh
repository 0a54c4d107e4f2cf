#!/usr/bin/env bash
# thatch export / import (docs/export.md): the same store gives the same
# bytes; export -> import into an empty database -> export is identical,
# with vectors and without, as JSONL and as markdown; conflict policies;
# bad lines reported by number and skipped; output files private.
. "$(dirname "$0")/lib.sh"
db=$THATCH_DB_PATH
thatch stores >/dev/null
sql() { sqlite3 "$db" "$@"; }
call() { printf '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"%s","arguments":%s}}\n' "$@"; }
{
	echo '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
	call 1 memory_remember '{"label":"Login flow","content":"Tokens come from the gateway.\n\tTabbed \"quoted\" line, café, 猫.","store":"acme/api","branch":"feat/login","confidence":7}'
	call 2 memory_remember '{"label":"build","content":"make -j2","store":"acme/api","branch":"","archived":true}'
	call 3 memory_remember '{"label":"Editor","content":"---\nnot front matter\n---","store":"global","confidence":10}'
	call 4 prediction_update '{"matcher":"when writing tests","prediction":"prefers table-driven tests","signal":"confirm","rationale":"said so","store":"acme/api"}'
	call 5 behavior_codify '{"situation":"when editing C","behavior":"run make lint","rationale":"CI fails otherwise","store":"acme/api"}'
} | thatch mcp >mcp.out 2>&1
# times and telemetry as a store that has been used a while has them
sql "UPDATE entries SET created_at = '2025-01-01T00:00:00.000Z',
  updated_at = '2025-02-07T00:00:00.000Z', recall_count = 3,
  last_recalled_at = '2025-03-01T10:00:00.000Z' WHERE slug = 'login-flow';
UPDATE entries SET created_at = '2025-01-01T00:00:00Z',
  updated_at = '2025-01-02T00:00:00Z' WHERE slug = 'build';
UPDATE entries SET created_at = '2025-01-01T00:00:00.000Z',
  updated_at = '2025-01-01T00:00:00.000Z' WHERE slug = 'editor';
INSERT INTO dedup_pairs (store, slug_a, slug_b, status, checked_at) VALUES
 ('acme/api', 'build', 'login-flow', 'unrelated', '2025-04-01T00:00:00.000Z');"
expect_contains "the store has a prediction and a behavior to export" \
	"$(sql 'SELECT count(*) FROM predictions; SELECT count(*) FROM behaviors')" "1"

thatch export all -o a.jsonl 2>err; rc=$?
expect_eq "export all exits 0 and says what it wrote" \
	"0|[thatch export] all stores: " "$rc|$(cut -c1-28 err)"
expect_eq "the export file is the user's alone" "600" "$(stat -c %a a.jsonl)"
expect_eq "the first line names the format" '{"type":"thatch-export","version":1}' \
	"$(head -n 1 a.jsonl)"
expect_eq "each memory is one record with every column, keys in order" \
	'{"type":"memory","store":"acme/api","slug":"login-flow","label":"Login flow","content":"# Login flow\n\nTokens come from the gateway.\n\tTabbed \"quoted\" line, café, 猫.","branch":"feat/login","confidence":7,"archived":0,"created_at":"2025-01-01T00:00:00.000Z","updated_at":"2025-02-07T00:00:00.000Z","recall_count":3,"last_recalled_at":"2025-03-01T10:00:00.000Z","model":"'"$THATCH_MODEL"'"}' \
	"$(grep '"slug":"login-flow"' a.jsonl)"
for t in prediction_matcher prediction prediction_edge prediction_provenance \
    behavior_matcher behavior behavior_edge behavior_provenance verdict store; do
	expect_contains "the export holds ${t} records" "$(cat a.jsonl)" "{\"type\":\"$t\","
done
thatch export all >b.jsonl 2>/dev/null
expect_ok "the same store exports to the same bytes (stdout too)" cmp a.jsonl b.jsonl
thatch export acme/api >one.jsonl 2>/dev/null
expect_not_contains "a store's export leaves the other stores out" \
	"$(cat one.jsonl)" '"store":"global"'
expect_contains "a store's export keeps its engines' edges" "$(cat one.jsonl)" \
	'"type":"prediction_edge"'
expect_fail "exporting a store that does not exist fails" thatch export nosuch

roundtrip() {	# roundtrip NAME EXPORT-ARGS...: import the export into a new db
	local name=$1; shift
	THATCH_DB_PATH=$TEST_DIR/$name.db thatch import "$name.in" >"$name.sum" 2>&1
	THATCH_DB_PATH=$TEST_DIR/$name.db thatch export all "$@" >"$name.out" 2>/dev/null
}
n=$(grep -vc '"type":"\(store\|thatch-export\)"' a.jsonl)
cp a.jsonl plain.in
roundtrip plain
expect_eq "an import into an empty database reports every record" \
	"imported $n, skipped 0, failed 0" "$(cat plain.sum)"
expect_ok "export -> import -> export is byte-identical" cmp a.jsonl plain.out
thatch export all --with-vectors >vec.in 2>/dev/null
expect_contains "--with-vectors adds each row's embedding" "$(grep login-flow vec.in)" \
	'"model":"'"$THATCH_MODEL"'","embedding":"'
roundtrip vec --with-vectors
expect_ok "the same round trip with vectors is byte-identical" cmp vec.in vec.out
expect_eq "imported vectors of the model in effect are kept bit for bit" \
	"$(sql "SELECT hex(embedding) FROM entries WHERE slug='editor'")" \
	"$(sqlite3 vec.db "SELECT hex(embedding) FROM entries WHERE slug='editor'")"
sed 's/"model":"[^"]*","embedding"/"model":"other\/model","embedding"/' vec.in >other.in
THATCH_DB_PATH=$TEST_DIR/other.db thatch import other.in >/dev/null 2>&1
expect_eq "vectors of another model are embedded again and take the model's tag" \
	"$THATCH_MODEL|$(sql "SELECT hex(embedding) FROM entries WHERE slug='editor'")" \
	"$(sqlite3 other.db "SELECT model, hex(embedding) FROM entries WHERE slug='editor'")"

thatch export all --format markdown -o md 2>/dev/null
expect_eq "markdown: one private file per memory, private directories" \
	"700 md
700 md/acme%2Fapi
600 md/acme%2Fapi/build.md
600 md/acme%2Fapi/login-flow.md
700 md/global
600 md/global/editor.md
600 md/records.jsonl" "$(find md | sort | xargs stat -c '%a %n')"
expect_eq "a memory file is front matter with every column, then the content" \
'---
label: "build"
slug: "build"
store: "acme/api"
branch: ""
confidence: null
archived: true
created_at: "2025-01-01T00:00:00Z"
updated_at: "2025-01-02T00:00:00Z"
recall_count: 0
last_recalled_at: null
model: "'"$THATCH_MODEL"'"
---
# build

make -j2' "$(cat md/acme%2Fapi/build.md)"
expect_not_contains "records.jsonl holds what is not a memory" \
	"$(cat md/records.jsonl)" '"type":"memory"'
cp -r md mdrt.in
roundtrip mdrt
expect_ok "markdown export -> import -> JSONL export is byte-identical" cmp a.jsonl mdrt.out
thatch export all --format markdown -o md2 --with-vectors 2>/dev/null
cp -r md2 mdv.in
roundtrip mdv --with-vectors
expect_ok "the same with vectors in the front matter" cmp vec.in mdv.out
out=$(thatch export all --format markdown -o md 2>&1); rc=$?
expect_eq "a markdown export will not write into a directory that has files" \
	"1|[thatch export] failed: 'md' is not empty: a markdown export needs a new or empty directory" "$rc|$out"
expect_fail "--format markdown needs -o" thatch export all --format markdown

# conflicts: the second database has an older and a newer copy
c=$TEST_DIR/conflict.db
THATCH_DB_PATH=$c thatch import a.jsonl >/dev/null 2>&1
sqlite3 "$c" "UPDATE entries SET content='# Editor

older', updated_at='2024-01-01T00:00:00.000Z' WHERE slug='editor';
UPDATE entries SET content='# build

newer', updated_at='2026-01-01T00:00:00.000Z' WHERE slug='build'"
content() { sqlite3 "$c" "SELECT group_concat(substr(content, length(label) + 5), '|') FROM (SELECT label, content FROM entries WHERE slug IN ('build', 'editor') ORDER BY slug)"; }
expect_eq "--on-conflict skip (the default) keeps what the database has" \
	"imported 0, skipped $n, failed 0|newer|older" \
	"$(THATCH_DB_PATH=$c thatch import a.jsonl 2>&1)|$(content)"
expect_eq "--on-conflict newer takes a record only when it was updated later" \
	"newer|---
not front matter
---" "$(THATCH_DB_PATH=$c thatch import --on-conflict newer a.jsonl >/dev/null 2>&1; content)"
expect_eq "--on-conflict overwrite takes every record" "make -j2|---
not front matter
---" "$(THATCH_DB_PATH=$c thatch import --on-conflict=overwrite a.jsonl >/dev/null 2>&1; content)"
THATCH_DB_PATH=$c thatch export all >conflict.out 2>/dev/null
expect_ok "after overwrite the database exports as the file it read" cmp a.jsonl conflict.out
expect_fail "an unknown policy is a usage error" thatch import a.jsonl --on-conflict maybe

# bad lines
{
	head -n 3 a.jsonl
	echo 'not json at all'
	echo '{"type":"memory","store":"x","content":"# y\n\nz"}'
	echo '{"type":"spaceship"}'
	echo
	echo '{"type":"memory","store":"x","label":"ok","content":"# ok\n\nfine","archived":"no"}'
	echo '{"type":"prediction_edge","matcher_id":"none","prediction_id":"none"}'
	echo '{"type":"memory","store":"x","label":"good","content":"# good\n\nkept"}'
} >bad.jsonl
out=$(THATCH_DB_PATH=$TEST_DIR/bad.db thatch import bad.jsonl 2>err); rc=$?
expect_eq "a bad line is reported with its number, and the others are imported" \
"[thatch import] bad.jsonl:4: not JSON: invalid token near 'not' at line 1 column 3
[thatch import] bad.jsonl:5: memory: no label
[thatch import] bad.jsonl:6: unknown record type \"spaceship\"
[thatch import] bad.jsonl:8: memory: archived is not an integer
[thatch import] bad.jsonl:9: prediction_edge: FOREIGN KEY constraint failed
imported 1, skipped 0, failed 5|1" "$(cat err)
$out|$rc"
expect_eq "nothing of a failed record is left" "good
x" \
	"$(sqlite3 bad.db "SELECT group_concat(label) FROM entries WHERE store='x'; SELECT group_concat(name) FROM stores WHERE name='x'")"
expect_eq "a record without a slug gets its label's, and ms timestamps" \
	"good|24" "$(sqlite3 bad.db "SELECT slug, length(created_at) FROM entries WHERE store='x'")"
out=$(thatch import nosuch.jsonl 2>&1); rc=$?
expect_eq "a missing file fails in one line" \
	"[thatch import] failed: cannot read 'nosuch.jsonl': No such file or directory|1" \
	"$(echo "$out" | sed 1d)|$rc"
expect_eq "--store puts every record in that store" "moved
moved" \
	"$(THATCH_DB_PATH=$TEST_DIR/moved.db thatch import --store moved a.jsonl >/dev/null 2>&1
	   sqlite3 moved.db "SELECT DISTINCT store FROM entries; SELECT DISTINCT store FROM behaviors")"
thatch remember --store single "Only one" "x" </dev/null >/dev/null
expect_contains "one memory is counted in the singular" \
	"$(thatch export single -o single.jsonl 2>&1)" ", 1 memory -> "
finish
