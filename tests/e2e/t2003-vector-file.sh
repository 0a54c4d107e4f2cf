#!/usr/bin/env bash
# The vector file beside the database (docs/store.md, "The vector file"):
# a search leaves <database>-vectors, private, and the next search maps
# it; a write by the original's SQL, a cut or garbled file, a read-only
# folder and the other commands all leave search exact, judged against
# the same search with the file deleted (which reads the table).
. "$(dirname "$0")/lib.sh"

mkdir proj && cd proj || exit 1		# not a repository: the store is "proj"
vf=$THATCH_DB_PATH-vectors
for i in $(seq 1 40); do
	printf '{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"memory_remember","arguments":{"label":"note %d","content":"fact number %d about the build and the tests"%s}}}\n' \
	    "$i" "$i" "$i" "$([ $((i % 5)) = 0 ] && echo ',"store":"global"')"
done | thatch mcp >/dev/null 2>&1
# the reference: the same search reading the table (no file to map)
table() { rm -f "$vf"; thatch search "$@" 2>/dev/null; }
mapped() { thatch search "$@" 2>/dev/null; }

rm -f "$vf"; thatch list >/dev/null
expect_ok "opening alone writes no vector file" test ! -e "$vf"
expect_contains "doctor says there is none yet" "$(thatch doctor)" "vector file: none yet"
want=$(table "fact about tests" all)
expect_ok "a search leaves the vector file" test -f "$vf"
expect_eq "it is private (0600)" 600 "$(stat -c %a "$vf")"
ino=$(stat -c %i "$vf")
expect_eq "the next search, mapping it, finds the same" "$want" "$(mapped "fact about tests" all)"
expect_eq "and keeps it" "$ino" "$(stat -c %i "$vf")"
expect_contains "doctor calls it current" "$(thatch doctor)" "current: a search maps it"
expect_eq "vector mode too" "$(table --mode vector "fact 7" all)" "$(mapped --mode vector "fact 7" all)"

sqlite3 "$THATCH_DB_PATH" "INSERT INTO entries (slug, store, label, content,
  embedding, model, created_at, updated_at)
  SELECT 'twin', store, 'Twin of note 3', content, embedding, model,
  created_at, updated_at FROM entries WHERE slug = 'note-3'"
out=$(mapped --mode vector "fact number 3 about the build and the tests")
expect_contains "a row the original inserts is found at once" "$out" "Twin of note 3"
expect_eq "exactly as the table says" "$(table --mode vector "fact number 3 about the build and the tests")" "$out"
sqlite3 "$THATCH_DB_PATH" "DELETE FROM entries WHERE slug = 'twin'"
expect_not_contains "a row the original deletes is gone at once" \
    "$(mapped --mode vector "fact number 3 about the build and the tests")" "Twin"
sqlite3 "$THATCH_DB_PATH" "UPDATE entries SET archived = 1 WHERE slug = 'note-3'"
expect_contains "doctor calls the file out of date" "$(thatch doctor)" "out of date"
expect_eq "a row the original archives is hidden at once" "" \
    "$(mapped --mode vector "fact number 3 about the build and the tests" | grep '\] note 3$')"

want=$(table "fact about the build" all)
head -c 100 "$vf" >"$vf.cut" && mv "$vf.cut" "$vf"
expect_eq "a cut file is ignored" "$want" "$(mapped "fact about the build" all)"
expect_ok "and rebuilt" test "$(stat -c %s "$vf")" -gt 100
printf 'garbage' | dd of="$vf" bs=1 seek=300 conv=notrunc status=none
expect_eq "a garbled file is ignored" "$want" "$(mapped "fact about the build" all)"
ln -sf "$TEST_DIR/elsewhere" "$vf"
expect_eq "a symbolic link is not followed" "$want" "$(mapped "fact about the build" all)"
expect_ok "nothing was written through it" test ! -e "$TEST_DIR/elsewhere"
expect_ok "a file replaces it" test -f "$vf" -a ! -L "$vf"

expect_eq "forget, then search: gone" "" \
    "$(thatch forget 'note 4' >/dev/null; mapped "fact number 4" | grep -x '.*\] note 4')"
expect_ok "export still works" thatch export -o "$TEST_DIR/out.json" all

if [ "$(id -u)" != 0 ]; then	# root writes anywhere
	rm -f "$vf"
	chmod 500 "$(dirname "$THATCH_DB_PATH")"
	out=$(thatch search "fact about tests" all 2>&1); rc=$?
	chmod 700 "$(dirname "$THATCH_DB_PATH")"
	expect_eq "a read-only folder: search still works" 0 $rc
	expect_ok "and writes no file" test ! -e "$vf"
fi
finish
