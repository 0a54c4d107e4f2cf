#!/usr/bin/env bash
# Two MCP servers chat through one database; the CLI lists and tails it.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../e2e/lib.sh"
. "$here/node.sh"
run_node chat.test.mjs
finish
