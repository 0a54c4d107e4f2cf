#!/usr/bin/env bash
# remember, edit and mv from the shell (issue 15): each goes through the
# tool handler the MCP server runs, so what a user saves here is what an
# agent would have saved; the tool's refusals fail with exit 1, a blank
# label is refused, an editor that fails or changes nothing saves nothing.
. "$(dirname "$0")/lib.sh"
db=$THATCH_DB_PATH
git init -q proj && git -C proj remote add origin git@github.com:acme/api.git
export CLAUDE_PROJECT_DIR=$TEST_DIR/proj
col() { sqlite3 "$db" "SELECT $1 FROM entries WHERE store='$2' AND slug='$3'"; }

# --- remember -------------------------------------------------------------
out=$(thatch remember "Login flow" "Tokens come from the gateway." \
    --branch feat/login --confidence 7 </dev/null); rc=$?
expect_eq "remember saves to the project store, as memory_remember says" \
    "[saved] acme/api :: Login flow|0" "$out|$rc"
expect_eq "the stored content has the tool's heading" \
    $'# Login flow\n\nTokens come from the gateway.' "$(col content acme/api login-flow)"
expect_eq "branch and confidence are stored" "feat/login|7" \
    "$(col "branch || '|' || confidence" acme/api login-flow)"
expect_eq "the memory has an embedding of the model's size" 128 \
    "$(col "length(embedding)" acme/api login-flow)"
expect_eq "the model tag is the tool's" "$(col model acme/api login-flow)" \
    "$(thatch model info | sed -n 's/^model: *//p')"

out=$(printf 'make -j2\nthen make test\n\n' | thatch remember --store global "Build steps" -)
expect_eq "remember - reads the content from stdin" "[saved] global :: Build steps" "$out"
expect_eq "trailing newlines from stdin are dropped" $'# Build steps\n\nmake -j2\nthen make test' \
    "$(col content global build-steps)"
out=$(echo "piped content" | thatch remember --store global "Piped")
expect_eq "without content, a stdin that is not a terminal is the content" \
    $'# Piped\n\npiped content' "$(col content global piped)"
expect_eq "-- makes a dash-led text the content" "[saved] global :: dash" \
    "$(thatch remember --store global dash -- "-x is a flag" </dev/null | head -n 1)"
expect_eq "the dash-led content is stored" $'# dash\n\n-x is a flag' "$(col content global dash)"

before=$(sqlite3 "$db" "SELECT COUNT(*) FROM entries")
err=$(thatch remember "Login flow" "other" </dev/null 2>&1 >/dev/null); rc=$?
expect_eq "remember of an existing label fails with exit 1" 1 $rc
expect_eq "the refusal is the tool's, in one [thatch remember] line" \
    '[thatch remember] failed: A memory labeled "Login flow" already exists in store "acme/api". Pass overwrite: true to replace it.' "$err"
expect_eq "--overwrite replaces the content, keeps branch and confidence" \
    "[saved] acme/api :: login FLOW|feat/login|7" \
    "$(thatch remember --overwrite "login FLOW" "Tokens come from auth." </dev/null)|$(col "branch || '|' || confidence" acme/api login-flow)"
expect_eq "--archived archives" "1" \
    "$(thatch remember --overwrite --archived "Login flow" "x" </dev/null >/dev/null; col archived acme/api login-flow)"
err=$(thatch remember --overwrite "Login flow" "y" </dev/null 2>&1); rc=$?
expect_eq "overwriting an archived memory needs a decision" 1 $rc
expect_contains "the archived refusal is the tool's" "$err" '"Login flow" is archived.'
expect_eq "--unarchive unarchives" "0" \
    "$(thatch remember --overwrite --unarchive "Login flow" "Tokens come from auth." </dev/null >/dev/null; col archived acme/api login-flow)"

for label in "" "   " $'\t'; do
	err=$(thatch remember "$label" "content" </dev/null 2>&1); rc=$?
	expect_eq "a blank label '$label' is a usage error" 2 $rc
	expect_contains "the refusal says why" "$err" "label: must not be empty or only whitespace"
done
expect_eq "nothing was saved by the refusals" "$before" "$(sqlite3 "$db" "SELECT COUNT(*) FROM entries")"
expect_eq "no nameless memory exists" 0 "$(sqlite3 "$db" "SELECT COUNT(*) FROM entries WHERE slug='x0'")"
expect_eq "an all-symbol label is still a label" "[saved] global :: !!!" \
    "$(thatch remember --store global '!!!' "bang" </dev/null | head -n 1)"
for c in 0 11 abc 5.5; do
	expect_eq "--confidence $c is a usage error" 2 \
	    "$(thatch remember --confidence $c x y </dev/null >/dev/null 2>&1; echo $?)"
done
thatch remember --store global empty </dev/null >/dev/null
expect_eq "an empty stdin saves an empty content, as the tool allows" 1 \
    "$(col "content = '# empty' || char(10) || char(10)" global empty)"

# --- edit -----------------------------------------------------------------
cat >"$TEST_DIR/ed" <<'SH'
#!/bin/sh
# a scripted editor: records the file it got, then replaces its text
printf '%s\n' "$1" >"$TEST_DIR/edited-path"
cp "$1" "$TEST_DIR/seen"
ls -l "$1" | cut -c1-10 >"$TEST_DIR/mode"
[ -n "${NEW+set}" ] && printf '%s\n' "$NEW" >"$1"
exit "${STATUS:-0}"
SH
chmod +x "$TEST_DIR/ed"
export TEST_DIR
stamp() { col "updated_at || embedding" acme/api login-flow | cksum; }

before=$(stamp)
out=$(EDITOR="$TEST_DIR/ed" NEW="Tokens come from the auth service." thatch edit "login flow"); rc=$?
expect_eq "edit saves changed content through memory_remember" \
    "[saved] acme/api :: Login flow|0" "$out|$rc"
expect_eq "the editor got the content without its heading" "Tokens come from auth." "$(cat "$TEST_DIR/seen")"
expect_eq "the editor's file is private" "-rw-------" "$(cat "$TEST_DIR/mode")"
expect_fail "the temporary file is removed" test -e "$(cat "$TEST_DIR/edited-path")"
expect_eq "the new content is stored under its heading" \
    $'# Login flow\n\nTokens come from the auth service.' "$(col content acme/api login-flow)"
expect_ok "it was saved with a new embedding and date" test "$before" != "$(stamp)"
expect_eq "edit keeps branch, confidence and created_at" "feat/login|7|1" \
    "$(col "branch || '|' || confidence || '|' || (created_at < updated_at)" acme/api login-flow)"

before=$(stamp)
out=$(EDITOR="$TEST_DIR/ed" thatch edit "Login flow"); rc=$?
expect_eq "an unchanged memory saves nothing and says so" \
    "No change to acme/api :: Login flow; nothing saved.|0" "$out|$rc"
expect_eq "nothing was written" "$before" "$(stamp)"

err=$(EDITOR="$TEST_DIR/ed" NEW="half-done" STATUS=3 thatch edit "Login flow" 2>&1); rc=$?
expect_eq "an editor that exits non-zero aborts with exit 1" 1 $rc
expect_contains "the abort says why" "$err" "exited with status 3; nothing saved"
expect_eq "the aborted edit changed nothing" "$before" "$(stamp)"
err=$(EDITOR="$TEST_DIR/ed" NEW="" thatch edit "Login flow" 2>&1); rc=$?
expect_eq "emptying the memory saves nothing and fails" 1 $rc
expect_contains "emptying points at forget" "$err" "thatch forget"
out=$(VISUAL="$TEST_DIR/ed" EDITOR=false NEW="via visual" thatch edit "Login flow")
expect_eq "VISUAL wins over EDITOR" $'# Login flow\n\nvia visual' "$(col content acme/api login-flow)"
thatch remember --store global --archived "Old note" "kept" </dev/null >/dev/null
EDITOR="$TEST_DIR/ed" NEW="kept, edited" thatch edit "old note" global >/dev/null
expect_eq "editing an archived memory keeps it archived" "1" "$(col archived global old-note)"
err=$(EDITOR="$TEST_DIR/ed" thatch edit nothing 2>&1); rc=$?
expect_eq "edit of an unknown label fails" "1|[thatch edit] failed: no memory labeled \"nothing\" in \"acme/api\"" "$rc|$err"
err=$(thatch edit "Login flow" </dev/null 2>&1); rc=$?
expect_eq "without an editor and a terminal, edit fails instead of hanging" 1 $rc
expect_contains "it says how to pick an editor" "$err" "set VISUAL or EDITOR"
expect_eq "an editor command with arguments runs through the shell" "--flag" \
    "$(EDITOR="printf %s --flag >\"\$TEST_DIR/args\"; true" thatch edit "Login flow" >/dev/null; cat "$TEST_DIR/args")"

# --- mv -------------------------------------------------------------------
sqlite3 "$db" "UPDATE entries SET recall_count = 4, last_recalled_at = '2025-05-05T00:00:00.000Z' WHERE slug = 'login-flow'"
fields() { col "label, content, embedding, model, branch, confidence, archived, created_at, updated_at, recall_count, last_recalled_at" "$1" login-flow | cksum; }
before=$(fields acme/api)
out=$(thatch mv "LOGIN flow" global); rc=$?
expect_eq "mv moves to the named store" "[moved] global :: LOGIN flow (from acme/api)|0" "$out|$rc"
expect_eq "every field moved with it" "$before" "$(fields global)"
expect_eq "nothing is left in the old store" "" "$(col label acme/api login-flow)"
expect_contains "the moved memory is found in its new store" \
    "$(thatch search "auth service tokens" global 2>/dev/null)" "Login flow"
err=$(thatch mv "Login flow" global 2>&1); rc=$?
expect_eq "mv of a memory that is not there fails" 1 $rc
expect_eq "it says where it looked" '[thatch mv] failed: No memory labeled "Login flow" in store "acme/api".' "$err"
thatch remember "Login flow" "a second one" </dev/null >/dev/null
err=$(thatch mv "Login flow" global 2>&1); rc=$?
expect_eq "mv onto a taken label fails and moves nothing" "1|1" \
    "$rc|$(sqlite3 "$db" "SELECT COUNT(*) FROM entries WHERE slug='login-flow' AND store='acme/api'")"
expect_contains "the refusal names the target store" "$err" 'already exists in store "global"'
expect_eq "--from picks the source store" "[moved] acme/old :: Build steps (from global)" \
    "$(thatch mv --from global "Build steps" acme/old)"
expect_eq "mv into the store it is in is refused" 1 \
    "$(thatch mv --from acme/old "Build steps" acme/old >/dev/null 2>&1; echo $?)"
expect_eq "mv to a blank store is a usage error" 2 "$(thatch mv "Build steps" " " >/dev/null 2>&1; echo $?)"
finish
