#!/usr/bin/env bash
# Anchors (issue 29): a memory records the files it describes; recall,
# search and hygiene say when that code changed or went away, in a real
# git repository. Renames are followed, a symbol anchor ignores edits
# elsewhere in its file, an overwrite re-records, forget drops them.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
py() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }

git init -q -b main proj
export CLAUDE_PROJECT_DIR=$TEST_DIR/proj
g() { git -C proj -c user.email=t@t -c user.name=t "$@"; }
mkdir -p proj/src
printf 'int\nfoo(void)\n{\n\treturn 1;\n}\n\nint\nbar(void)\n{\n\treturn 2;\n}\n' >proj/src/a.c
printf 'retry three times\n' >proj/src/retry.txt
printf 'old\n' >proj/src/gone.txt
g add -A && g commit -qm init

expect_ok "remember with anchors" thatch remember "foo fact" "foo returns one" --anchor src/a.c
expect_ok "remember with a symbol anchor" thatch remember "bar fact" "bar returns two" --anchor 'src/a.c#bar'
expect_ok "remember with two anchors" thatch remember "retry fact" "retry three times" --anchor src/retry.txt,src/gone.txt
expect_fail "an anchor outside the repository is refused" thatch remember "bad" "x" --anchor ../x
expect_eq "a refused anchor saves nothing" "" "$(thatch list | grep bad)"

expect_eq "the blob id is git's" "$(git -C proj hash-object src/a.c)" \
    "$(thatch show "foo fact" --json | py 'd["anchors"][0]["blob"]')"
expect_contains "show lists the anchors, fresh" "$(thatch show "foo fact")" "src/a.c (blob"
expect_contains "show says fresh" "$(thatch show "foo fact")" ", fresh)"
expect_not_contains "fresh code: search shows no mark" "$(thatch search "returns" 2>/dev/null)" "[code"
expect_not_contains "fresh code: hygiene counts nothing drifted" "$(thatch hygiene)" "code that changed"

# a modification left in the worktree
sed -i 's/return 1/return 7/' proj/src/a.c
expect_contains "a worktree edit marks the hit" "$(thatch search "foo returns" 2>/dev/null)" \
    "foo fact [code changed: src/a.c]"
expect_not_contains "the symbol anchor stays fresh: bar was not touched" \
    "$(thatch search "bar returns" 2>/dev/null | grep 'bar fact')" "[code"
expect_eq "search --json carries each hit's anchors and drift state" "src/a.c changed" \
    "$(thatch search "foo returns" --json 2>/dev/null | py '" ".join([[h for h in d["hits"] if h["label"] == "foo fact"][0]["anchors"][0][k] for k in ("spec", "state")])')"
expect_eq "show --json carries the state too" "changed" \
    "$(thatch show "foo fact" --json | py 'd["anchors"][0]["state"]')"
expect_contains "hygiene counts it" "$(thatch hygiene)" \
    "1 memory describes code that changed since it was written"
# committed: hygiene names the commit
g commit -qam "foo returns seven"
expect_contains "after the commit the mark stays" "$(thatch search "foo returns" 2>/dev/null)" \
    "[code changed: src/a.c]"
list=$(thatch hygiene --list)
expect_contains "hygiene --list names the memory and file" "$list" '"foo fact" (src/a.c; commits since:'
expect_contains "hygiene --list names the commit" "$list" "foo returns seven"
expect_eq "--list --json carries the drifted memories" "foo fact src/a.c" \
    "$(thatch hygiene --list --json | py '" ".join([d["drifted_memories"][0]["label"], d["drifted_memories"][0]["files"]])')"

# an edit to the symbol itself
sed -i 's/return 2/return 9/' proj/src/a.c
expect_contains "an edit to the symbol marks it" "$(thatch search "bar returns" 2>/dev/null)" \
    "bar fact [code changed: src/a.c#bar]"

# overwrite re-records against the code as it is
expect_ok "overwrite" thatch remember "foo fact" "foo returns seven" --overwrite
expect_not_contains "after an overwrite the mark goes" \
    "$(thatch search "foo returns" 2>/dev/null | grep 'foo fact')" "[code"

# a rename is followed; a deletion is gone
g mv src/retry.txt src/retry2.txt
g rm -q src/gone.txt
expect_contains "a deleted file is gone" "$(thatch search "retry" 2>/dev/null)" \
    "retry fact [code gone: src/gone.txt]"
expect_not_contains "a renamed file is followed, still fresh" \
    "$(thatch search "retry" 2>/dev/null)" "src/retry.txt"
g commit -qm "move"
expect_not_contains "a committed rename is still followed" \
    "$(thatch search "retry" 2>/dev/null)" "src/retry.txt"

# another branch's memory is not judged here
expect_ok "remember on another branch" thatch remember "other fact" "foo on a branch" --branch feat/x --anchor src/gone.txt
expect_not_contains "a memory of another branch is not judged" \
    "$(thatch search "foo on a branch" 2>/dev/null | grep 'other fact')" "[code"

# the cache: a second judgement reads the stat cache
expect_eq "fingerprints are cached by stat" "True" \
    "$(sqlite3 "$THATCH_DB_PATH" "SELECT count(*) > 0 FROM thatch_anchor_files" | sed 's/1/True/')"

# forget drops them, through the trigger (as the original's delete would)
expect_ok "forget" thatch forget "retry fact"
expect_eq "forget drops the anchors" 0 \
    "$(sqlite3 "$THATCH_DB_PATH" "SELECT count(*) FROM thatch_anchors WHERE slug = 'retry-fact'")"
sqlite3 "$THATCH_DB_PATH" "DELETE FROM entries WHERE slug = 'bar-fact'"
expect_eq "a plain SQL delete drops them too" 0 \
    "$(sqlite3 "$THATCH_DB_PATH" "SELECT count(*) FROM thatch_anchors WHERE slug = 'bar-fact'")"
finish
