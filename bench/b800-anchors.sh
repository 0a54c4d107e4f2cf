#!/bin/sh
# b800-anchors.sh — what anchors cost (issue 29): `thatch hygiene` on
# 10,000 memories with 20,000 anchors over 2,000 files of a real git
# repository, with the stat cache cold (first run) and warm, against the
# same store without anchors; then warm `memory_recall` round trips
# through `thatch mcp` (b200-mcp serve) with the anchors and without, every
# hit anchored (each memory's content holds the query words, so all ten
# hits come back and are judged). Results: bench/README.md.
set -eu
cd "$(dirname "$0")/.."
make -s -j2 thatch build/libthatch.a
mkdir -p build/bench
make -s build/bench/b200-mcp
. bench/lib.sh
bench_model
tmp=$(mktemp -d /tmp/thatch-b800.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
N=${B800_N:-10000} FILES=${B800_FILES:-2000}
mkdir -p "$tmp/hyg/src"
export CLAUDE_PROJECT_DIR="$tmp/hyg" THATCH_DB_PATH="$tmp/b800.db"
export THATCH_MODEL="$PWD/$BENCH_MODEL" HF_ENDPOINT=http://127.0.0.1:9
unset CURSOR_PROJECT_DIR
git -C "$tmp/hyg" init -q -b main
python3 - "$tmp/hyg/src" "$FILES" <<'PY'
import sys
for i in range(int(sys.argv[2])):
    open(f"{sys.argv[1]}/f{i:04d}.c", "w").write(f"int\nf{i}(void)\n{{\n\treturn {i};\n}}\n" * 20)
PY
git -C "$tmp/hyg" add -A
git -C "$tmp/hyg" -c user.email=b@b -c user.name=b commit -qm files
head=$(git -C "$tmp/hyg" rev-parse HEAD)
build/bench/b200-mcp populate "$THATCH_DB_PATH" hyg "$N" "$N" 0.3
./thatch hygiene >/dev/null	# the schema, as thatch opens it
# every memory matches serve's query words, so each recall has ten hits
sqlite3 "$THATCH_DB_PATH" "UPDATE entries SET content = content || ' database login tests deploy cache retry schema token queue build'"
python3 - "$THATCH_DB_PATH" "$tmp/hyg" "$FILES" "$head" <<'PY'
import hashlib, sqlite3, sys
db, root, files, head = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
def blob(p):
    b = open(p, "rb").read()
    return hashlib.sha1(b"blob %d\0" % len(b) + b).hexdigest()
blobs = [blob(f"{root}/src/f{i:04d}.c") for i in range(files)]
c = sqlite3.connect(db)
c.executescript("""CREATE TABLE IF NOT EXISTS thatch_anchors (
 store TEXT NOT NULL, slug TEXT NOT NULL, seq INTEGER NOT NULL,
 spec TEXT NOT NULL, path TEXT NOT NULL, symbol TEXT,
 blob TEXT, span TEXT, head TEXT, recorded_at TEXT NOT NULL,
 PRIMARY KEY (store, slug, seq));
CREATE TABLE IF NOT EXISTS thatch_anchor_files (
 path TEXT PRIMARY KEY, size INTEGER NOT NULL,
 mtime INTEGER NOT NULL, ino INTEGER NOT NULL, blob TEXT NOT NULL);""")
rows = []
for n, (slug,) in enumerate(c.execute("SELECT slug FROM entries WHERE store = 'hyg'")):
    for seq, f in enumerate((n % files, (n * 7 + 1) % files)):
        p = f"src/f{f:04d}.c"
        rows.append(("hyg", slug, seq, p, p, None, blobs[f], None, head, "2026-12-06T00:00:00.000Z"))
c.executemany("INSERT INTO thatch_anchors VALUES (?,?,?,?,?,?,?,?,?,?)", rows)
c.commit()
print(f"{len(rows)} anchors on {files} files")
PY
echo "hygiene, $N memories, 20,000 anchors, stat cache cold (first run):"
/usr/bin/time -f "  %e s wall" ./thatch hygiene >/dev/null
echo "... warm:"
hyperfine -N -w 2 -r "${B800_RUNS:-10}" --style basic './thatch hygiene' 2>&1 | grep -E "Time|Range"
recall() {	# the warm recall line of b200-mcp serve, in the worktree
	(cd "$tmp/hyg" && B200_PAUSE_MS=2000 \
	    "$OLDPWD/build/bench/b200-mcp" serve "$OLDPWD/thatch" hyg \
	    "${B800_ROUNDS:-100}") 2>&1 | grep -E "recall|remember" || true
}
echo "warm memory_recall, 20,000 anchors (10 anchored hits each):"
recall
sed -i 's/return 7;/return 70;/' "$tmp/hyg/src/f0007.c"
echo "... with one file changed (its anchors' memories drifted):"
./thatch hygiene
sqlite3 "$THATCH_DB_PATH" "DROP TABLE thatch_anchors; DROP TABLE thatch_anchor_files"
echo "the same store without anchors:"
hyperfine -N -w 2 -r "${B800_RUNS:-10}" --style basic './thatch hygiene' 2>&1 | grep -E "Time|Range"
echo "warm memory_recall without anchors:"
recall
