#!/usr/bin/env bash
# Two MCP servers and the CLI writing one database at once lose nothing.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../e2e/lib.sh"
. "$here/node.sh"
run_node concurrency.test.mjs
finish
