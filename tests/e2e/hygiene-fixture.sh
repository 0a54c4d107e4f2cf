# tests/e2e/hygiene-fixture.sh — sourced after lib.sh: a project "proj"
# (store acme/api, local branches main and feat/live) whose store has one
# memory behind each hygiene signal, with hand-made 4-float embeddings so
# that exactly one pair is a duplicate. The clock is fixed at
# 2025-06-01T00:00:00Z (THATCH_FAKE_NOW).
export THATCH_FAKE_NOW=1748736000000
git init -q -b main proj && git -C proj remote add origin git@github.com:acme/api.git
git -C proj -c user.email=t@t -c user.name=t commit -q --allow-empty -m init
git -C proj branch feat/live
export CLAUDE_PROJECT_DIR=$TEST_DIR/proj
thatch stores >/dev/null
hyg_add() {	# hyg_add LABEL SLUG VEC-HEX UPDATED [BRANCH] [ARCHIVED] [RECALLED]
	local branch=NULL recalled=NULL
	[ -n "${5:-}" ] && branch="'$5'"
	[ -n "${7:-}" ] && recalled="'$7'"
	sqlite3 "$THATCH_DB_PATH" "INSERT OR IGNORE INTO stores(name) VALUES ('acme/api');
	INSERT INTO entries (slug, store, label, content, embedding, branch,
	  archived, created_at, updated_at, last_recalled_at) VALUES ('$2',
	  'acme/api', '$1', '# $1', X'$3', $branch, ${6:-0},
	  '2024-01-01T00:00:00.000Z', '$4', $recalled)"
}
two=000000000000803f0000000000000000
one=0000803f000000000000000000000000
hyg_add "pool a" pool-a "$one" 2025-05-01T00:00:00.000Z
hyg_add "pool b" pool-b "$one" 2025-05-02T00:00:00.000Z
hyg_add "Old fact" old-fact 00000000000000000000803f00000000 2024-01-01T00:00:00.000Z
hyg_add "Recalled once" recalled-once 0000000000000000000000000000803f \
    2024-01-01T00:00:00.000Z "" 0 2024-02-01T00:00:00.000Z
hyg_add "Gone work" gone-work "$two" 2025-05-03T00:00:00.000Z feat/gone
hyg_add "Live work" live-work 000000000000803f0000803f00000000 2025-05-04T00:00:00.000Z feat/live
hyg_add "Archived gone" archived-gone 0000803f0000803f0000803f00000000 2025-05-05T00:00:00.000Z feat/gone 1
