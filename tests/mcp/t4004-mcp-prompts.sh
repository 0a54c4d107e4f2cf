#!/usr/bin/env bash
# The MCP surface the clients read: the /thatch actions as prompts per
# host spelling, -32602 for an unknown prompt, tool annotations and
# titles, text-only results, the initialize instructions.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../e2e/lib.sh"
. "$here/node.sh"
export THATCH_WARMUP=0
run_node prompts.test.mjs
finish
