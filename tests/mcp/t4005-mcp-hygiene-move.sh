#!/usr/bin/env bash
# store_hygiene and memory_move through the official MCP client (issue 15):
# the agent gets the same hygiene list as `thatch hygiene --list`.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../e2e/lib.sh"
. "$here/../e2e/hygiene-fixture.sh"
. "$here/node.sh"
export THATCH_WARMUP=0
HYGIENE_REPORT=$(thatch hygiene) HYGIENE_LIST=$(thatch hygiene --list) \
    run_node hygiene.test.mjs
finish
