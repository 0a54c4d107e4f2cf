#!/usr/bin/env bash
# `thatch sync`: two users (two HOMEs, two databases) share a project
# store through clones of one bare repository (docs/sync.md): what one
# remembers the other recalls, edits on both sides keep both, forgets
# travel, a push race converges, secrets stay home, the user's own git
# state is untouched and an unreachable remote changes nothing.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/sync-fixture.sh"

labels() {	# labels USER: every memory of the project store, with times
	db "$TEST_DIR/$1/thatch.db" "SELECT slug, label, archived, updated_at FROM entries WHERE store = '$store' ORDER BY slug"
}
gitstate() {	# what the user's own git holds, byte for byte
	(cd "$TEST_DIR/$1/proj" && git status --porcelain=v1 --untracked-files=all &&
	    git for-each-ref --format='%(refname) %(objectname)' refs/heads refs/tags refs/remotes &&
	    git rev-parse HEAD && git symbolic-ref HEAD &&
	    sha256sum .git/index README && cat .git/config)
}

# the user's own work in progress: a staged and an unstaged change
(cd A/proj && echo staged >new && git add new && echo dirty >>README)
before=$(gitstate A)

remember A "Build flag" "make needs -j2 on this box."
remember A "Deploy" "Deploy with scripts/ship."
remember A "Old note" "to be forgotten"
store=$(db A/thatch.db "SELECT store FROM entries LIMIT 1")
out=$(as A thatch sync 2>&1); rc=$?
expect_eq "the first sync sends the project's memories" \
    "0|[synced] $store with origin: 3 sent, 0 received" "$rc|$out"
tree=$(git --git-dir=team.git ls-tree -r --name-only "refs/thatch/$store")
expect_eq "the remote's ref holds one document per memory" \
    "memories/build-flag.md
memories/deploy.md
memories/old-note.md" "$tree"
expect_eq "the ref is no branch or tag of the remote" "refs/heads/main" \
    "$(git --git-dir=team.git for-each-ref --format='%(refname)' refs/heads refs/tags)"
doc=$(git --git-dir=team.git show "refs/thatch/$store:memories/build-flag.md")
expect_contains "a document has front matter" "$doc" 'label: "Build flag"'
expect_contains "a document has the content" "$doc" "make needs -j2 on this box."
expect_not_contains "vectors do not travel" "$doc" "embedding:"
expect_contains "recall telemetry does not travel" "$doc" "recall_count: 0"
expect_eq "the commit is the user's" "Tester" \
    "$(git --git-dir=team.git log -1 --format=%an "refs/thatch/$store")"

out=$(as B thatch sync 2>/dev/null); rc=$?
expect_eq "the other user's first sync receives them" \
    "0|[synced] $store with origin: 0 sent, 3 received" "$rc|$out"
expect_contains "and recalls them" "$(as B thatch search "which make flag" 2>/dev/null)" "Build flag"
expect_eq "incoming memories are embedded locally" 3 \
    "$(db B/thatch.db "SELECT COUNT(*) FROM entries WHERE embedding IS NOT NULL AND model IS NOT NULL")"
expect_eq "both databases hold the same memories, times included" \
    "$(labels A)" "$(labels B)"
expect_eq "a second sync has nothing to do" \
    "[synced] $store with origin: up to date" "$(as B thatch sync 2>/dev/null)"

# edits on both sides: the later wins, the other survives archived
remember A "Build flag" "A says: make -j4."
remember B "Build flag" "B says: make -j8."
as A thatch sync >/dev/null 2>&1
out=$(as B thatch sync 2>/dev/null)
expect_contains "an edit on both sides is reported" "$out" "the later edit won"
as A thatch sync >/dev/null 2>&1
expect_contains "the later edit wins on A" "$(content A build-flag)" "B says"
expect_contains "the later edit wins on B" "$(content B build-flag)" "B says"
arch=$(db A/thatch.db "SELECT content FROM entries WHERE label LIKE 'Build flag (conflict %' AND archived = 1")
expect_contains "the earlier edit survives as an archived memory" "$arch" "A says: make -j4."
expect_eq "both sides agree after the conflict" "$(labels A)" "$(labels B)"

# forget on A, edit on B: the edit survives
mcp A memory_forget '{"label":"Deploy"}' >/dev/null
remember B "Deploy" "Deploy with scripts/ship --canary."
as A thatch sync >/dev/null 2>&1
as B thatch sync >/dev/null 2>&1
as A thatch sync >/dev/null 2>&1
expect_contains "an edit beats a forget on the other side" "$(content A deploy)" "--canary"
expect_contains "and stays on the editing side" "$(content B deploy)" "--canary"

# forget on A alone: gone on B
mcp A memory_forget '{"label":"Old note"}' >/dev/null
as A thatch sync >/dev/null 2>&1
expect_eq "a forget travels as a tombstone" "tombstones/old-note" \
    "$(git --git-dir=team.git ls-tree -r --name-only "refs/thatch/$store" | grep tombstones)"
as B thatch sync >/dev/null 2>&1
expect_eq "a forget on one side alone removes it on the other" "" "$(content B old-note)"

# a push race: both sync at once, a second round converges
remember A "From A" "written on A"
remember B "From B" "written on B"
as A thatch sync >race.A 2>&1 & pa=$!
as B thatch sync >race.B 2>&1 & pb=$!
wait $pa; ra=$?; wait $pb; rb=$?
expect_eq "neither side of a race fails" "0 0" "$ra $rb"
as A thatch sync >/dev/null 2>&1; as B thatch sync >/dev/null 2>&1
expect_eq "after a race both sides end in the same state" "$(labels A)" "$(labels B)"
expect_contains "with both memories" "$(labels A)" "from-a|From A"
expect_contains "with both memories (B)" "$(labels B)" "from-b|From B"

# two syncs of one database at once (a server's last queued run beside
# its running one, or the user's own): both succeed, nothing doubles
remember A "Twice" "synced by two runs at once"
as A thatch sync >race.A1 2>&1 & pa=$!
as A thatch sync >race.A2 2>&1 & pb=$!
wait $pa; ra=$?; wait $pb; rb=$?
expect_eq "two syncs of one database at once both succeed" "0 0" "$ra $rb"
as B thatch sync >/dev/null 2>&1
expect_eq "and the memory arrives once" "twice|Twice" \
    "$(db B/thatch.db "SELECT slug, label FROM entries WHERE label LIKE 'Twice%'")"
# which is so because a sync holds DB_DIR/sync.lock while it talks to the
# remote: git's upload-pack, run for it, finds the lock taken
cat >"$TEST_DIR/upload-pack" <<EOF
#!/bin/sh
if flock -n "$TEST_DIR/A/sync.lock" true; then echo free; else echo held; fi >>"$TEST_DIR/lockstate"
exec git-upload-pack "\$@"
EOF
chmod +x "$TEST_DIR/upload-pack"
(cd A/proj && git config remote.origin.uploadpack "$TEST_DIR/upload-pack")
as A thatch sync >/dev/null 2>&1
(cd A/proj && git config --unset remote.origin.uploadpack)
expect_eq "a sync holds its database's sync lock while it talks to the remote" \
    held "$(sort -u "$TEST_DIR/lockstate")"

# what must not travel does not
remember A "AWS creds" "key AKIAABCDEFGHIJKLMNOP for the bucket"
remember A "My scratch" "personal notes"
expect_eq "a memory can be marked private" "[private] $store :: My scratch" \
    "$(as A thatch sync --private "My scratch")"
out=$(as A thatch sync 2>/dev/null)
expect_contains "a secret-looking memory is held back with a notice" "$out" \
    '[thatch sync] held back "AWS creds": an AWS access key (thatch sync --force sends it)'
expect_contains "a private memory is held back with a notice" "$out" \
    'held back "My scratch": it is marked private'
as B thatch sync >/dev/null 2>&1
expect_eq "neither reaches the other user" "|" "$(content B aws-creds)|$(content B my-scratch)"
expect_eq "nor the remote" "" "$(git --git-dir=team.git ls-tree -r --name-only "refs/thatch/$store" | grep -E 'aws|scratch')"
as A thatch sync --force >/dev/null 2>&1
out=$(as B thatch sync 2>&1)
expect_contains "--force sends a secret-looking memory, which arrives held for review" \
    "$out" "held for review memories/aws-creds.md: it holds what looks like a secret"
as B thatch sync --accept all >/dev/null 2>&1
expect_contains "and is let in once accepted" "$(content B aws-creds)" "AKIAABCDEFGHIJKLMNOP"
expect_eq "but never a private one" "" "$(content B my-scratch)"
expect_eq "--share lets a private memory go again" "[shared] $store :: My scratch" \
    "$(as A thatch sync --share "My scratch")"
as A thatch sync >/dev/null 2>&1; as B thatch sync >/dev/null 2>&1
expect_contains "and the next sync sends it" "$(content B my-scratch)" "personal notes"
out=$(as A thatch sync global 2>&1); rc=$?
expect_eq "the global store never syncs" "1|[thatch sync] failed: the global store never syncs" "$rc|$out"

# --status changes nothing
remember A "Pending" "not yet sent"
head=$(git --git-dir=team.git rev-parse "refs/thatch/$store")
out=$(as A thatch sync --status 2>/dev/null)
expect_contains "--status says what would be sent" "$out" "[status] $store with origin: 1 to send, 0 to receive"
expect_contains "--status names it" "$out" "  send Pending"
expect_eq "--status pushes nothing" "$head" "$(git --git-dir=team.git rev-parse "refs/thatch/$store")"
as A thatch sync >/dev/null 2>&1
mcp A memory_forget '{"label":"Twice"}' >/dev/null
as A thatch sync >/dev/null 2>&1
out=$(as B thatch sync --status 2>/dev/null)
expect_contains "--status says what would be received" "$out" "[status] $store with origin: 0 to send, 2 to receive"
expect_contains "--status names a memory to take" "$out" "  take Pending"
expect_contains "and a forget to take" "$out" "  take-forget Twice"
expect_eq "and takes nothing" "" "$(content B pending)"

# an unreachable remote: one line, nothing changed
dump=$(db A/thatch.db .dump | sha256sum)
out=$(as A thatch sync --remote "$TEST_DIR/nowhere.git" 2>&1); rc=$?
expect_eq "an unreachable remote fails with status 1" 1 $rc
expect_eq "in one line" 1 "$(printf '%s\n' "$out" | wc -l)"
expect_contains "that says why" "$out" "[thatch sync] failed: git ls-remote:"
expect_eq "and changes nothing" "$dump" "$(db A/thatch.db .dump | sha256sum)"

expect_eq "the user's branches, index and working tree are untouched" \
    "$before" "$(gitstate A)"
expect_eq "the ref is outside refs/heads for the user too" "" \
    "$(cd A/proj && git branch -a --format='%(refname)' | grep thatch)"

# --auto: the MCP server pulls at start and pushes after writes
expect_eq "--auto on is per project" "[auto on] $store with origin" "$(as B thatch sync --auto on)"
remember A "Fresh" "from A while B's server starts"
as A thatch sync >/dev/null 2>&1
# before B's first server with --auto on: a sync would pull Fresh
prompt='{"session_id":"s1","hook_event_name":"UserPromptSubmit","prompt":"how do I deploy?"}'
for h in flush-tools flush-predictions; do printf '%s\n' "$prompt" | as B thatch "$h" >/dev/null 2>&1; done
expect_eq "hooks never sync, in the foreground or the background" "|" \
    "$(content B fresh)|$(cat "$TEST_DIR/B/sync.log" 2>/dev/null)"
mcp B memory_remember '{"label":"Via server","content":"B wrote this through MCP"}' >/dev/null
has() { test -n "$(content "$1" "$2")"; }
wait_for "the server's background sync pulls what A sent" 20 has B fresh
wait_for "and pushes what was written through it" 20 \
    sh -c "git --git-dir=team.git ls-tree -r --name-only refs/thatch/$store | grep -q via-server"

# a background run that fails is logged, and runs again later
(cd B/proj && git remote set-url origin "$TEST_DIR/gone.git")
mcp B memory_remember '{"label":"Offline","content":"written while the remote was away"}' >/dev/null
wait_for "a failed background sync is logged in sync.log" 20 \
    grep -q "\[thatch sync\] failed: git ls-remote: .*gone.git" "$TEST_DIR/B/sync.log"
expect_contains "the database keeps the write" "$(content B offline)" "written while the remote was away"
(cd B/proj && git remote set-url origin "$TEST_DIR/team.git")
mcp B memory_list '{}' >/dev/null
wait_for "the next server start retries, and the write reaches the remote" 20 \
    sh -c "git --git-dir=team.git ls-tree -r --name-only refs/thatch/$store | grep -q offline"
# sync.log past 1 MiB is rotated before the next run: one old generation, both private
L=$TEST_DIR/B/sync.log
fill() { { echo "$1"; head -c 1100000 /dev/zero | tr '\0' x; echo; } >"$L"; chmod 644 "$L"; }
rotated() { grep -q "^$1$" "$L.1" 2>/dev/null && [ "$(wc -c <"$L")" -lt 1000000 ]; }
fill first-generation
mcp B memory_list '{}' >/dev/null
wait_for "a sync.log over the cap is moved to sync.log.1 at the next run" 20 rotated first-generation
expect_eq "both are private" "600 600" "$(stat -c %a "$L" "$L.1" | tr '\n' ' ' | sed 's/ $//')"
fill second-generation
mcp B memory_list '{}' >/dev/null
wait_for "the next rotation replaces the old generation" 20 rotated second-generation
expect_eq "and keeps only one" "sync.log sync.log.1" "$(cd "$TEST_DIR/B" && ls sync.log* | tr '\n' ' ' | sed 's/ $//')"
expect_eq "--auto off" "[auto off] $store with origin" "$(as B thatch sync --auto off)"
finish
