#!/usr/bin/env bash
# The CLI's front door: version, help, usage mistakes, first run.
. "$(dirname "$0")/lib.sh"

out=$(thatch --version); rc=$?
expect_eq "--version exits 0" 0 $rc
expect_ok "--version prints a dotted version" grep -Eqx '[0-9]+\.[0-9]+\.[0-9]+' <<<"$out"
expect_eq "-v is an alias of --version" "$out" "$(thatch -v)"
expect_eq "--version does not create the database" "" "$(ls "$XDG_CONFIG_HOME" 2>/dev/null)"

out=$(thatch --help)
expect_contains "--help lists the commands" "$out" "stores"
expect_contains "--help says USAGE" "$out" "USAGE"
expect_contains "help CMD shows that command" "$(thatch help stores)" "usage: thatch stores"

err=$(thatch frobnicate 2>&1 >/dev/null); rc=$?
expect_eq "an unknown command exits 2" 2 $rc
expect_contains "an unknown command is named in one line" "$err" "unknown command 'frobnicate'"
expect_contains "an unknown command prints the usage" "$err" "USAGE"
err=$(thatch 2>&1); rc=$?
expect_eq "no command exits 2" 2 $rc

expect_eq "stores in a new HOME prints the global store" "global" "$(thatch stores)"
expect_ok "the database is created under XDG_CONFIG_HOME" test -f "$XDG_CONFIG_HOME/thatch/thatch.db"
finish
