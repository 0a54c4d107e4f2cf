# tests/e2e/sync-fixture.sh — sourced after lib.sh: a team of two users, A
# and B (two HOMEs, two databases), each with a clone of one bare
# repository team.git, and the helpers to act as either of them.
export GIT_AUTHOR_NAME=Tester GIT_AUTHOR_EMAIL=t@example.com
export GIT_COMMITTER_NAME=Tester GIT_COMMITTER_EMAIL=t@example.com
export GIT_CONFIG_NOSYSTEM=1
git init -q --bare team.git
git clone -q team.git seed 2>/dev/null
(cd seed && echo hi >README && git add README && git commit -qm init &&
    git push -q origin HEAD:main) || exit 1
git --git-dir=team.git symbolic-ref HEAD refs/heads/main
for u in A B; do
	mkdir -p "$u/home"
	git clone -q team.git "$u/proj" || exit 1
done
as() {		# as USER CMD...: run as that user, in their checkout
	local u=$1; shift
	(cd "$TEST_DIR/$u/proj" && HOME=$TEST_DIR/$u/home \
	    THATCH_DB_PATH=$TEST_DIR/$u/thatch.db \
	    CLAUDE_PROJECT_DIR=$TEST_DIR/$u/proj "$@")
}
mcp() {		# mcp USER TOOL ARGS-JSON...: tools/call requests
	local u=$1 i=0 req=; shift
	while [ $# -gt 0 ]; do
		req+='{"jsonrpc":"2.0","id":'$((i++))',"method":"tools/call","params":{"name":"'$1'","arguments":'$2'}}'$'\n'
		shift 2
	done
	printf '%s' "$req" | as "$u" env THATCH_WARMUP=0 "$THATCH_BIN" mcp 2>/dev/null
}
remember() {	# remember USER LABEL CONTENT: overwrite
	mcp "$1" memory_remember '{"label":"'"$2"'","content":"'"$3"'","overwrite":true}' >/dev/null
}
db() {		# sqlite3 that waits out a lock: a background sync or a
		# server's last close (checkpoint) may hold one a moment
	sqlite3 -cmd ".timeout 10000" "$@"
}
content() {	# content USER SLUG
	db "$TEST_DIR/$1/thatch.db" "SELECT content FROM entries WHERE slug = '$2'"
}
