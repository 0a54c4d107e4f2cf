#!/usr/bin/env bash
# The plugin's dispose hook (hosts-hooks-cli §9.2; opencode calls it when
# it unloads a plugin, on a reload or at exit): the plugin module loaded
# by node as opencode loads it, a watcher made through its tool, then
# dispose — the `thatch opencode` child exits, so its poller stops (the
# fake gh is called no more), the plugin's chat timer is cleared, and a
# reload leaves no orphan process or timer.
PLUGIN=$(cd "$(dirname "$0")/../../share/opencode" && pwd)/thatch.js
. "$(dirname "$0")/lib.sh"
export THATCH_WARMUP=0 THATCH_WATCH_SECONDS=1 THATCH_CHAT_TICK_MS=50
command -v node >/dev/null || { echo "skipped: no node"; finish; exit; }
mkdir -p bin proj && (cd proj && git init -q)
printf '#!/bin/sh\necho "$*" >>"%s"\necho "{\\"commit\\":{\\"sha\\":\\"abc\\"}}"\n' "$TEST_DIR/calls" >bin/gh
chmod +x bin/gh
export PATH=$TEST_DIR/bin:$PATH
cd proj
node --input-type=module - "$PLUGIN" "$THATCH_BIN" >"$TEST_DIR/out" 2>"$TEST_DIR/err" <<'JS'
import { execSync } from "node:child_process"
const [plugin, thatch] = process.argv.slice(2)
// the plugin unrefs its child, as opencode must not wait for it: hold the loop
const keep = setInterval(() => {}, 1000)
// the plugin's timers: every interval it starts, and whether it was cleared
const timers = new Map()
const [si, ci] = [globalThis.setInterval, globalThis.clearInterval]
globalThis.setInterval = (...a) => { const t = si(...a); timers.set(t, "running"); return t }
globalThis.clearInterval = (t) => { if (timers.has(t)) timers.set(t, "cleared"); ci(t) }
const mod = (await import(plugin)).default
const client = { session: {}, tui: { showToast: async () => ({}) } }
const kids = () => execSync(`ps -o pid=,args= --ppid ${process.pid}`).toString()
  .split("\n").filter((l) => l.includes("thatch") && l.includes("opencode") && !l.includes("<defunct>"))
const until = async (f, ms) => { const end = Date.now() + ms
  while (Date.now() < end) { if (f()) return true; await new Promise((r) => setTimeout(r, 50)) }
  return f() }
for (const round of [1, 2]) {
  const hooks = await mod.server({ client, directory: process.cwd() }, { thatch })
  const out = await hooks.tool.thatch_watch_branch_create.execute(
    { repo: "acme/api", branch: "main" }, { sessionID: "S" + round })
  console.log(`created ${round}\t${out}`)
  console.log(`cores ${round}\t${kids().length}`)
  console.log(`timers ${round}\t${[...timers.values()].filter((v) => v === "running").length}`)
  await hooks.dispose()
  console.log(`gone ${round}\t${await until(() => kids().length === 0, 60000)}`)
  console.log(`left ${round}\t${[...timers.values()].filter((v) => v === "running").length}`)
}
clearInterval(keep)
JS
r() { awk -F'\t' -v k="$1" '$1 == k { print $2 }' "$TEST_DIR/out"; }
expect_eq "the plugin's watcher tool works" "[watching] w1 branch acme/api@main — polled every 1s" "$(r 'created 1')"
expect_eq "one core per plugin instance" 1 "$(r 'cores 1')"
expect_eq "the plugin runs its chat timer" 1 "$(r 'timers 1')"
expect_eq "dispose ends the core" true "$(r 'gone 1')"
expect_eq "and clears the timer" 0 "$(r 'left 1')"
expect_eq "a reloaded plugin starts a fresh core" "[watching] w1 branch acme/api@main — polled every 1s" "$(r 'created 2')"
expect_eq "and only that one" 1 "$(r 'cores 2')"
expect_eq "whose dispose ends it too" true "$(r 'gone 2')"
expect_eq "and clears its timer" 0 "$(r 'left 2')"
n=$(wc -l <"$TEST_DIR/calls")
sleep 2.5	# an observation window: a poller still running would call gh
expect_eq "no poller outlives dispose" "$n" "$(wc -l <"$TEST_DIR/calls")"
expect_eq "no errors" "" "$(cat "$TEST_DIR/err")"
finish
