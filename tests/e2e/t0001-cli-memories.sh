#!/usr/bin/env bash
# list, show and forget as a user runs them (hosts-hooks-cli §1.3): output
# formats, the default store detected from the project's git remote, and
# usage mistakes.
. "$(dirname "$0")/lib.sh"
db=$THATCH_DB_PATH
thatch stores >/dev/null
add() {	# add STORE LABEL SLUG CONTENT [BRANCH] [CONFIDENCE] [ARCHIVED]
	local branch=NULL day=1
	[ -n "${5:-}" ] && branch="'${5#EMPTY}'"
	[ -n "${6:-}" ] && [ "$6" != 0 ] && day=$6
	sqlite3 "$db" "INSERT OR IGNORE INTO stores(name) VALUES ('$1');
	INSERT INTO entries (slug, store, label, content, branch, confidence,
	  archived, created_at, updated_at) VALUES ('$3', '$1', '$2', '$4',
	  $branch, ${6:-NULL}, ${7:-0}, '2025-01-01T00:00:00.000Z',
	  '2025-02-0${day}T00:00:00.000Z')"
}
git init -q proj && git -C proj remote add origin git@github.com:acme/api.git
add acme/api "Login flow" login-flow $'# Login flow\n\nTokens come from the gateway.\nSecond line.' feat/login 7
add acme/api "build" build $'# build\n\nmake -j2' EMPTY 0 1
add acme/api "Zeta" zeta "no heading here"
add global "Editor" editor $'# Editor\n\nvim'

export CLAUDE_PROJECT_DIR=$TEST_DIR/proj
expect_eq "list defaults to the store of the project's git remote, by label bytes" \
"[acme/api] Login flow (branch:feat/login) (c:7) (2025-02-07T00:00:00.000Z)
[acme/api] Zeta (2025-02-01T00:00:00.000Z)
[acme/api] build (2025-02-01T00:00:00.000Z) (archived)" "$(thatch list)"
expect_eq "list names another store" \
	"[global] Editor (2025-02-01T00:00:00.000Z)" "$(thatch list global)"
expect_eq "CURSOR_PROJECT_DIR wins over CLAUDE_PROJECT_DIR" \
	'No memories in "elsewhere".' \
	"$(mkdir -p elsewhere; CURSOR_PROJECT_DIR=$TEST_DIR/elsewhere thatch list)"
expect_eq "an undetectable project falls back to global" \
	"[global] Editor (2025-02-01T00:00:00.000Z)" "$(CLAUDE_PROJECT_DIR=/ thatch list)"
out=$(thatch list nosuch); rc=$?
expect_eq "list of a missing store says so and exits 0" \
	'No memories in "nosuch".|0' "$out|$rc"
expect_eq "list does not create the store" "acme/api
global" "$(thatch stores)"

expect_eq "show prints meta lines and the body without its heading" \
"[acme/api] Login flow
branch: feat/login
confidence: 7
created: 2025-01-01T00:00:00.000Z  updated: 2025-02-07T00:00:00.000Z

Tokens come from the gateway.
Second line." "$(thatch show 'LOGIN   flow!')"
expect_eq "show omits an empty branch and a zero confidence, marks archived" \
"[acme/api] build (archived)
created: 2025-01-01T00:00:00.000Z  updated: 2025-02-01T00:00:00.000Z

make -j2" "$(thatch show build)"
expect_eq "show keeps content that has no heading" \
"[acme/api] Zeta
created: 2025-01-01T00:00:00.000Z  updated: 2025-02-01T00:00:00.000Z

no heading here" "$(thatch show zeta)"
out=$(thatch show nothing global); rc=$?
expect_eq "show of an unknown label says so and exits 0" \
	'No memory labeled "nothing" in "global".|0' "$out|$rc"

expect_eq "forget deletes and names the label as typed" \
	"[forgotten] acme/api :: LOGIN flow" "$(thatch forget 'LOGIN flow')"
out=$(thatch forget 'LOGIN flow'); rc=$?
expect_eq "forget of a missing memory says so and exits 0" \
	'No memory labeled "LOGIN flow" in "acme/api".|0' "$out|$rc"
expect_eq "forget left the other memories" "2" \
	"$(sqlite3 "$db" "SELECT COUNT(*) FROM entries WHERE store='acme/api'")"

for cmd in show forget; do
	err=$(thatch $cmd 2>&1 >/dev/null); rc=$?
	expect_eq "$cmd without a label is a usage error (exit 2)" 2 $rc
	expect_contains "$cmd without a label says what is missing" "$err" "missing argument (expected <label> [store])"
	expect_contains "$cmd without a label prints its usage" "$err" "usage: thatch $cmd"
	err=$(thatch $cmd "" 2>&1 >/dev/null); rc=$?
	expect_eq "$cmd with an empty label is a usage error (exit 2)" 2 $rc
done
finish
