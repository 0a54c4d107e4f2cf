#!/usr/bin/env bash
# Every tool through the official MCP client: schemas, happy paths, the
# edge cases of store-and-tools §8, setup detection (hosts-hooks-cli §2.6).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../e2e/lib.sh"
. "$here/node.sh"
run_node tools.test.mjs
finish
