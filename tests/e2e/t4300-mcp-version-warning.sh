#!/usr/bin/env bash
# A long-lived `thatch mcp` whose executable is upgraded (or removed) on
# disk says so once, as a "[thatch]" prefix on the next tool result after
# a check (engines-and-extras §B10); THATCH_VERSION_CHECK_MS shortens the
# 60 s / 10 min schedule.
. "$(dirname "$0")/lib.sh"
export THATCH_WARMUP=0
mkdir -p bin

# serve EXE ACTION: start EXE mcp, call store_list once, run ACTION on the
# binary, then call store_list until a result carries the warning (10 s
# deadline) and once more; prints the first result, the warned one and
# the one after, separated by lines "--".
serve() {
	python3 - "$1" "$2" <<'PY'
import json, os, shutil, subprocess, sys, time
exe, action = sys.argv[1], sys.argv[2]
p = subprocess.Popen([exe, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                     stderr=subprocess.DEVNULL, text=True)
n = 0
def rpc(method, params):
    global n
    n += 1
    p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": n, "method": method, "params": params}) + "\n")
    p.stdin.flush()
    return json.loads(p.stdout.readline())
def call():
    return rpc("tools/call", {"name": "store_list", "arguments": {}})["result"]["content"][0]["text"]
rpc("initialize", {"protocolVersion": "2025-11-25"})
first = call()
if action == "replace":
    new = exe + ".new"
    with open(new, "w") as f:
        f.write("#!/bin/sh\necho 9.9.9\n")
    os.chmod(new, 0o755)
    os.rename(new, exe)
else:
    os.unlink(exe)
deadline, warned = time.monotonic() + 10, None
while warned is None and time.monotonic() < deadline:
    t = call()
    if t.startswith("[thatch]"):
        warned = t
after = call()
print(first, "--", warned, "--", after, sep="\n")
p.stdin.close()
p.wait()
PY
}

cp "$THATCH_BIN" bin/thatch
out=$(THATCH_VERSION_CHECK_MS=300 CLAUDE_PROJECT_DIR=$TEST_DIR serve "$TEST_DIR/bin/thatch" replace)
first=${out%%$'\n--\n'*}
rest=${out#*$'\n--\n'}
warned=${rest%%$'\n--\n'*}
after=${rest#*$'\n--\n'}
expect_not_contains "before the upgrade a result carries no version warning" "$first" "upgraded"
expect_contains "after the binary is replaced a result carries the warning" "$warned" "[thatch] thatch was upgraded on disk (now version 9.9.9) but this MCP server still runs version"
expect_contains "the warning asks to restart the host" "$warned" "Ask the user to restart Claude Code"
expect_contains "the warning comes before the tool's own text" "$warned" $'restart Claude Code so that the new thatch is used.\n\n'
expect_not_contains "the warning is given once" "$after" "[thatch]"

cp "$THATCH_BIN" bin/thatch2
out=$(THATCH_VERSION_CHECK_MS=300 serve "$TEST_DIR/bin/thatch2" remove)
expect_contains "a removed binary is reported too" "$out" "[thatch] the thatch executable this MCP server runs ($TEST_DIR/bin/thatch2, version"

finish
