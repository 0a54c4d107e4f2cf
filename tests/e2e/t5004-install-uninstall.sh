#!/usr/bin/env bash
# `make install` and `make uninstall` under DESTDIR, PREFIX and BINDIR:
# uninstall takes out exactly the binary and the opencode plugin module
# install put in, and leaves what else is in those folders.
SRC=$(cd "$(dirname "$0")/../.." && pwd)
. "$(dirname "$0")/lib.sh"

D=$TEST_DIR/dest
# -o: use the binary under test as it is, never rebuild it here
mk() { make -s -C "$SRC" -o "$THATCH_BIN" BIN="$THATCH_BIN" DESTDIR="$D" "$@"; }

expect_ok "make install succeeds" mk PREFIX=/opt/t install
expect_ok "the binary is installed executable" test -x "$D/opt/t/bin/thatch"
expect_eq "the binary is the one built" "$(sha256sum <"$THATCH_BIN")" "$(sha256sum <"$D/opt/t/bin/thatch")"
expect_eq "the plugin module is beside it" 644 "$(stat -c %a "$D/opt/t/share/thatch/thatch.js")"
mkdir -p "$D/opt/t/share/doc" && printf 'x\n' >"$D/opt/t/bin/other"
expect_ok "make uninstall succeeds" mk PREFIX=/opt/t uninstall
expect_fail "the binary is gone" test -e "$D/opt/t/bin/thatch"
expect_fail "the plugin module and its folder are gone" test -e "$D/opt/t/share/thatch"
expect_eq "other files in bin stay" "x" "$(cat "$D/opt/t/bin/other")"
expect_ok "other folders in share stay" test -d "$D/opt/t/share/doc"
expect_ok "uninstalling twice is no error" mk PREFIX=/opt/t uninstall

expect_ok "BINDIR puts the binary elsewhere" mk PREFIX=/opt/u BINDIR=/opt/bin install
expect_ok "there" test -x "$D/opt/bin/thatch"
mkdir -p "$D/opt/u/share/thatch" && printf 'mine\n' >"$D/opt/u/share/thatch/notes"
expect_ok "uninstall with the same BINDIR" mk PREFIX=/opt/u BINDIR=/opt/bin uninstall
expect_fail "removes it from there" test -e "$D/opt/bin/thatch"
expect_eq "a user's file keeps share/thatch" "mine" "$(cat "$D/opt/u/share/thatch/notes")"
expect_fail "while the module goes" test -e "$D/opt/u/share/thatch/thatch.js"
finish
