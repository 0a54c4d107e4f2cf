#!/bin/sh
# b600-sync.sh — `thatch sync` of a 10,000-memory project store through a
# bare repository (file://): the first sync out (A sends everything), the
# first sync in (B receives everything), then rounds of 10 changed
# memories synced out by A and in by B. Re-embedding is excluded: the
# model is unavailable (THATCH_MODEL names nothing, HF_ENDPOINT refuses),
# so incoming memories are stored without vectors and the sync says so;
# embedding 10,000 memories is b100's per-memory cost times 10,000.
# Prints wall times; results: bench/README.md.
set -eu
cd "$(dirname "$0")/.."
make -s -j2 thatch
N=${B600_N:-10000} ROUNDS=${B600_ROUNDS:-5}
bin=$PWD/thatch
tmp=$(mktemp -d /tmp/thatch-b600.XXXXXX)
[ -n "${B600_KEEP:-}" ] || trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=b@example.com
export GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=b@example.com
export THATCH_MODEL=$tmp/no-model HF_ENDPOINT=http://127.0.0.1:9
unset CURSOR_PROJECT_DIR
git init -q --bare team.git
for u in A B; do git clone -q team.git $u/proj 2>/dev/null; mkdir -p $u.home; done
as() {	# as USER CMD...
	u=$1; shift
	(cd "$tmp/$u/proj" && HOME=$tmp/$u.home THATCH_DB_PATH=$tmp/$u.db \
	    CLAUDE_PROJECT_DIR=$tmp/$u/proj "$@")
}
ms() {	# ms CMD...: run, print the wall time in ms
	t0=$(date +%s%N); "$@" >/dev/null 2>&1; t1=$(date +%s%N)
	echo $(((t1 - t0) / 1000000))
}
store=$(as A "$bin" list | sed -n 's/^No memories in "\(.*\)"\.$/\1/p')
as A "$bin" stores >/dev/null
sqlite3 A.db "INSERT OR IGNORE INTO stores(name) VALUES ('$store');
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $N)
INSERT INTO entries (slug, store, label, content, embedding, model,
  created_at, updated_at)
SELECT 'memory-' || i, '$store', 'Memory ' || i,
  '# Memory ' || i || char(10) || char(10) || 'Fact number ' || i ||
  ' about the build: ' || hex(randomblob(60)), randomblob(16), 'bench',
  '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z' FROM n"
echo "$N memories, store $store"
echo "first sync out (A): $(ms as A "$bin" sync) ms"
echo "first sync in  (B): $(ms as B "$bin" sync) ms"
echo "  B holds $(sqlite3 B.db "SELECT COUNT(*) FROM entries WHERE store = '$store'") memories"
r=1
while [ $r -le "$ROUNDS" ]; do
	sqlite3 A.db "UPDATE entries SET content = content || ' (edit $r)',
	  updated_at = '2026-02-0${r}T00:00:00.000Z'
	  WHERE store = '$store' AND slug IN (SELECT slug FROM entries
	  WHERE store = '$store' ORDER BY random() LIMIT 10)"
	out=$(ms as A "$bin" sync) in=$(ms as B "$bin" sync)
	echo "round $r, 10 changes: out (A) $out ms, in (B) $in ms"
	r=$((r + 1))
done
echo "up to date (B, nothing to do): $(ms as B "$bin" sync) ms"
