#!/usr/bin/env bash
# The plugin's side of "every request is answered" (docs/opencode.md,
# Protocol): loaded by node as opencode loads it, against a core that reads
# and never answers, each hook and tool call gives up after the plugin's
# timeout with the reason on stderr and the turn goes on; against the real
# core, a message holding a lone UTF-16 surrogate (which the core cannot
# parse) is answered with an error at once, not after the timeout.
PLUGIN=$(cd "$(dirname "$0")/../../share/opencode" && pwd)/thatch.js
. "$(dirname "$0")/lib.sh"
export THATCH_WARMUP=0
command -v node >/dev/null || { echo "skipped: no node"; finish; exit; }
mkdir -p bin proj && (cd proj && git init -q)
# a core that reads every line and answers none
printf '#!/bin/sh\nexec cat >/dev/null\n' >bin/mute
chmod +x bin/mute
cd proj
run() {	# run CORE TIMEOUT: the plugin's hooks, one result line each
	node --input-type=module - "$PLUGIN" "$1" "$2" <<'JS'
const [plugin, thatch, timeout] = process.argv.slice(2)
const keep = setInterval(() => {}, 1000)	// the plugin unrefs its child and timers
const mod = (await import(plugin)).default
const client = { session: {}, tui: { showToast: async () => ({}) } }
const t0 = Date.now()
const hooks = await mod.server({ client, directory: process.cwd() }, { thatch, timeout: Number(timeout) })
console.log(`init\t${Object.keys(hooks.tool).length} tools`)
const out = { parts: [], message: { sessionID: "s", id: "m" } }
const t1 = Date.now()
await hooks["chat.message"]({ sessionID: "s", agent: "build" },
  { ...out, parts: [{ type: "text", text: "x\ud800y" }] })
console.log(`message\tdone\t${Date.now() - t1}`)
const sys = { system: [] }
await hooks["experimental.chat.system.transform"]({ sessionID: "s" }, sys)
console.log(`system\t${sys.system.length}`)
await hooks.dispose()
console.log(`total\t${Date.now() - t0}`)
clearInterval(keep)
JS
}
r() { awk -F'\t' -v k="$1" '$1 == k { print $2 }' "$TEST_DIR/out"; }

run "$TEST_DIR/bin/mute" 1 >"$TEST_DIR/out" 2>"$TEST_DIR/err"
expect_eq "init gives up on a mute core: no tools, the plugin still loads" "0 tools" "$(r init)"
expect_eq "the message hook gives up and returns" done "$(r message)"
expect_eq "the system hook too, adding nothing" 0 "$(r system)"
expect_contains "each says why on stderr" "$(cat "$TEST_DIR/err")" "[thatch] init: no answer from the core in 1 s"
expect_contains "the message hook's" "$(cat "$TEST_DIR/err")" "[thatch] message: no answer from the core in 1 s"

run "$THATCH_BIN" 60 >"$TEST_DIR/out" 2>"$TEST_DIR/err"
expect_eq "the real core offers its tools" "$(thatch tools | grep -c ' — ') tools" "$(r init)"
expect_eq "a lone surrogate's message returns" done "$(r message)"
expect_eq "answered, not timed out (well under 60 s)" yes \
    "$(awk -F'\t' '$1 == "message" { print ($3 < 30000 ? "yes" : $3) }' "$TEST_DIR/out")"
expect_contains "the core says why on stderr" "$(cat "$TEST_DIR/err")" \
    "[thatch] request: not JSON: invalid Unicode '\uD800'"
expect_not_contains "the plugin did not wait it out" "$(cat "$TEST_DIR/err")" "no answer from the core"
expect_eq "the next hook is served" 1 "$(r system)"
finish
