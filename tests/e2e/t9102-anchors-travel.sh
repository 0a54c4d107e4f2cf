#!/usr/bin/env bash
# Anchors travel with their memory (issue 29): `thatch export` (JSONL and
# markdown) and `thatch import` carry each anchor's repository-relative
# spec and the git fingerprints recorded with it; `thatch sync` carries
# them in the memory's document, so a teammate's clone judges the same
# memory against its own worktree; an overwrite on one side re-records
# them on the other. What arrives is gated: a path that leaves the
# repository or a fingerprint that is no git id is refused, whole.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/sync-fixture.sh"
py() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
anchors() {	# anchors USER LABEL: "spec blob state" of each anchor
	as "$1" "$THATCH_BIN" show "$2" --json |
	    py '"\n".join(" ".join([a["spec"], a["blob"] or "-", a["state"] or "-"]) for a in d.get("anchors", []))'
}

(cd A/proj && mkdir src && printf 'int\nfoo(void)\n{\n\treturn 1;\n}\n' >src/a.c &&
    git add src && git commit -qm code && git push -q origin HEAD:main) || exit 1
(cd B/proj && git pull -q origin main) || exit 1
blob=$(git -C A/proj hash-object src/a.c)
mcp A memory_remember '{"label":"Foo","content":"foo returns one","anchors":["src/a.c","src/a.c#foo"]}' >/dev/null
remember A "Plain" "no anchors here"
store=$(db A/thatch.db "SELECT store FROM entries LIMIT 1")
expect_eq "A's memory is anchored" "src/a.c $blob fresh
src/a.c#foo $blob fresh" "$(anchors A Foo)"

# export and import, both formats
as A "$THATCH_BIN" export -o "$TEST_DIR/all.jsonl" 2>/dev/null
expect_contains "the JSONL memory record carries its anchors" \
    "$(grep '"label":"Foo"' all.jsonl)" '"anchors":[{"spec":"src/a.c","blob":"'"$blob"'"'
expect_not_contains "a memory without anchors carries none" \
    "$(grep '"label":"Plain"' all.jsonl)" '"anchors"'
as A "$THATCH_BIN" export --format markdown -o "$TEST_DIR/md" 2>/dev/null
expect_contains "the markdown front matter carries them" \
    "$(cat md/*/foo.md)" 'anchors: [{"spec":"src/a.c","blob":"'"$blob"'"'
mkdir -p C/home
for f in all.jsonl md; do
	rm -f C/thatch.db
	(cd A/proj && HOME=$TEST_DIR/C/home THATCH_DB_PATH=$TEST_DIR/C/thatch.db \
	    "$THATCH_BIN" import "$TEST_DIR/$f" >/dev/null 2>&1)
	expect_eq "an import of $f records them again, fingerprints as exported" \
	    "$(anchors A Foo)" \
	    "$(cd A/proj && HOME=$TEST_DIR/C/home THATCH_DB_PATH=$TEST_DIR/C/thatch.db "$THATCH_BIN" show Foo --json |
	        py '"\n".join(" ".join([a["spec"], a["blob"] or "-", a["state"] or "-"]) for a in d["anchors"])')"
done
sed 's#"spec":"src/a.c"#"spec":"../../etc/passwd"#' all.jsonl >bad.jsonl
out=$(as B "$THATCH_BIN" import "$TEST_DIR/bad.jsonl" 2>&1)
expect_contains "an anchor that leaves the repository fails its record" "$out" \
    "memory: an anchor's path is not inside the repository"
expect_eq "... and leaves nothing" "" "$(db B/thatch.db "SELECT slug FROM entries WHERE slug = 'foo'" 2>/dev/null)"
sed "s#$blob#not-a-git-id#" all.jsonl >bad2.jsonl
expect_contains "a fingerprint that is no git id fails its record" \
    "$(as B "$THATCH_BIN" import "$TEST_DIR/bad2.jsonl" 2>&1)" "an anchor's fingerprint is not a git id"

# sync: the document carries them, the teammate judges them
expect_ok "A syncs" as A "$THATCH_BIN" sync
doc=$(git --git-dir=team.git show "refs/thatch/$store:memories/foo.md")
expect_contains "the synced document carries the anchors" "$doc" \
    'anchors: [{"spec":"src/a.c","blob":"'"$blob"'"'
expect_not_contains "an unanchored document has no anchors line" \
    "$(git --git-dir=team.git show "refs/thatch/$store:memories/plain.md")" "anchors:"
expect_ok "B syncs" as B "$THATCH_BIN" sync
expect_eq "B has A's anchors, fresh in B's clone" "src/a.c $blob fresh
src/a.c#foo $blob fresh" "$(anchors B Foo)"
expect_eq "a second sync sends nothing (the same document)" \
    "[synced] $store with origin: up to date" "$(as B "$THATCH_BIN" sync 2>&1)"
sed -i 's/return 1/return 2/' B/proj/src/a.c
expect_contains "B's edit drifts A's memory in B's clone" \
    "$(as B "$THATCH_BIN" search "foo returns" 2>/dev/null)" "Foo [code changed: src/a.c, src/a.c#foo]"

# an overwrite on B re-records against B's code; A takes the new anchors
mcp B memory_remember '{"label":"Foo","content":"foo returns two","overwrite":true}' >/dev/null
blob2=$(git -C B/proj hash-object src/a.c)
expect_ok "B syncs the overwrite" as B "$THATCH_BIN" sync
expect_ok "A syncs" as A "$THATCH_BIN" sync
expect_eq "A has B's fingerprints, changed against A's older code" "src/a.c $blob2 changed
src/a.c#foo $blob2 changed" "$(anchors A Foo)"

# anchors dropped on one side are dropped on the other
mcp A memory_remember '{"label":"Foo","content":"foo returns two","overwrite":true,"anchors":[]}' >/dev/null
as A "$THATCH_BIN" sync >/dev/null 2>&1
as B "$THATCH_BIN" sync >/dev/null 2>&1
expect_eq "B drops the anchors A dropped" "" "$(anchors B Foo)"
finish
