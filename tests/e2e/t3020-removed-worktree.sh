#!/usr/bin/env bash
# A removed linked worktree keeps its store (issue 30; engines-and-extras
# §B9, store-and-tools §2.5): once thatch has seen the worktree, the
# repo_paths cache names its repository's store after `git worktree
# remove`, for the CLI run from a shell still standing in it, a hook
# whose stdin `cwd` is the removed path, an MCP server started inside it,
# and the opencode plugin (under node, with a mock v1 client) whose
# session directory it is. Never a store named ".".
PLUGIN=$(cd "$(dirname "$0")/../../share/opencode" && pwd)/thatch.js
. "$(dirname "$0")/lib.sh"
export THATCH_WARMUP=0 THATCH_RECALL_THRESHOLD=-1 \
    THATCH_PREDICTION_THRESHOLD=2 THATCH_BEHAVIOR_THRESHOLD=2
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@t
mkdir repo && (cd repo && git init -q && git commit -q --allow-empty -m init &&
    git worktree add -q -b feat ../wt && git worktree add -q -b feat2 ../wt2 &&
    git worktree add -q -b feat3 ../wt3)
WT=$TEST_DIR/wt
expect_contains "in the worktree the store is the repository's" \
    "$(cd wt && thatch remember 'build' 'Run make -j2 to build the project.')" "[saved] repo :: build"
(cd wt2 && thatch list >/dev/null) && (cd wt3 && thatch list >/dev/null)

# 1. the CLI, from a shell that still stands in the removed worktree
out=$(cd wt && git -C ../repo worktree remove --force ../wt &&
    thatch remember 'tests' 'Run make check for the tests.' 2>&1 &&
    thatch list 2>&1)
expect_ok "the worktree is gone" test ! -e wt
expect_contains "remember in a removed worktree saves to the repository's store" "$out" "[saved] repo :: tests"
expect_not_contains "never to a store named '.'" "$out" "[saved] . ::"
expect_contains "list there lists the repository's store" "$out" "tests"
expect_contains "list there lists what the worktree saved before" "$out" "build"
expect_contains "the repository sees what was saved there" "$(cd repo && thatch list)" "tests"
out=$(mkdir -p wt3/sub && cd wt3/sub && git -C "$TEST_DIR/repo" worktree remove --force "$TEST_DIR/wt3" &&
    thatch remember 'style' 'KNF with tabs.' 2>&1)
expect_contains "a subdirectory of a removed worktree resolves through its cached ancestor" "$out" "[saved] repo :: style"

# 2. an MCP server started inside a worktree that is then removed
mkfifo "$TEST_DIR/in"
(cd wt2 && exec "$THATCH_BIN" mcp <"$TEST_DIR/in" >"$TEST_DIR/out" 2>"$TEST_DIR/err") &
exec 7>"$TEST_DIR/in"
rpc() { printf '%s\n' "$1" >&7; }
rpc '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
# the server detects its store after initialize: a call waits for that
rpc '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"store_list","arguments":{}}}'
wait_for "the MCP server answers" 20 grep -q '"id":1' "$TEST_DIR/out"
git -C repo worktree remove --force ../wt2
rpc '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"memory_remember","arguments":{"label":"deploy","content":"Deploy with make install."}}}'
wait_for "the MCP server answers after the removal" 20 grep -q '"id":2' "$TEST_DIR/out"
expect_contains "the MCP server saves to the repository's store" "$(grep '"id":2' "$TEST_DIR/out")" "[saved] repo :: deploy"

# 3. a hook whose host's cwd is the removed worktree (the server's
# sideband is up, so the prompt is related to the repository's memories)
prompt() { printf '{"session_id":"s1","hook_event_name":"UserPromptSubmit","cwd":"%s","prompt":"how do I build this project again?"}\n' "$1"; }
r=$(prompt "$WT" | thatch flush-tools)
expect_contains "a hook with the removed cwd recalls the repository's memories" "$r" "stored memories relate to this prompt"
r=$(prompt "$TEST_DIR/nowhere" | thatch flush-tools)
expect_contains "an unknown removed cwd gives the global store: nothing to relate" "$r" "did you learn"
exec 7>&-
wait

# 4. the opencode plugin whose session directory is the removed worktree
command -v node >/dev/null || { echo "skipped: no node"; finish; exit; }
node --input-type=module - "$PLUGIN" "$THATCH_BIN" "$WT" >"$TEST_DIR/node.out" 2>"$TEST_DIR/node.err" <<'JS'
const [plugin, thatch, dir] = process.argv.slice(2)
const keep = setInterval(() => {}, 1000)
const logs = []
const client = { session: {}, tui: { showToast: async () => ({}) },
  app: { log: async (o) => { logs.push(o.body.message) } } }
const mod = (await import(plugin)).default
const hooks = await mod.server({ client, directory: dir }, { thatch })
console.log(`tools\t${Object.keys(hooks.tool).includes("thatch_memory_recall")}`)
const out = { system: [] }
await hooks["experimental.chat.system.transform"]({ sessionID: "S" }, out)
console.log(`system\t${JSON.stringify(out.system.join("\n"))}`)
const saved = await hooks.tool.thatch_memory_remember.execute(
  { label: "lint", content: "Run make lint." }, { sessionID: "S" })
console.log(`saved\t${saved.split("\n")[0]}`)
console.log(`logs\t${logs.length}`)
await hooks.dispose()
// a core that cannot start says why in opencode's log
const bad = await mod.server({ client, directory: dir }, { thatch: dir + "/no-such-thatch" })
console.log(`bad tools\t${Object.keys(bad.tool).length}`)
console.log(`bad log\t${logs.join(" | ")}`)
bad.dispose()
clearInterval(keep)
JS
r() { awk -F'\t' -v k="$1" '$1 == k { print $2 }' "$TEST_DIR/node.out"; }
expect_eq "the plugin registers its tools for a removed directory" true "$(r tools)"
expect_contains "the system prompt names the repository's store" "$(r system)" '\"repo\"'
expect_contains "its tools save to the repository's store" "$(r saved)" "[saved] repo :: lint"
expect_eq "a core that starts logs nothing" 0 "$(r logs)"
expect_eq "a core that cannot start registers no tools" 0 "$(r 'bad tools')"
expect_contains "and says why in opencode's log" "$(r 'bad log')" "ENOENT"
finish
