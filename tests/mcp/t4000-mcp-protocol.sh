#!/usr/bin/env bash
# The JSON-RPC layer on raw lines: framing, notifications, error codes,
# version negotiation, oversized lines, end of input, SIGTERM.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../e2e/lib.sh"
. "$here/node.sh"
run_node protocol.test.mjs
finish
