#!/usr/bin/env bash
# opencode hears of an upgrade (issue 30, engines-and-extras §B10): the
# plugin's core, loaded by node as opencode loads it, watches its
# executable like the MCP server does (THATCH_VERSION_CHECK_MS shortens
# the schedule); once the file is replaced, the next user message gets
# one synthetic part with the MCP server's notice and a toast, and no
# message after it does.
PLUGIN=$(cd "$(dirname "$0")/../../share/opencode" && pwd)/thatch.js
. "$(dirname "$0")/lib.sh"
export THATCH_WARMUP=0 THATCH_VERSION_CHECK_MS=300
command -v node >/dev/null || { echo "skipped: no node"; finish; exit; }
mkdir -p bin proj && (cd proj && git init -q)
cp "$THATCH_BIN" bin/thatch
cd proj
node --input-type=module - "$PLUGIN" "$TEST_DIR/bin/thatch" >"$TEST_DIR/out" 2>"$TEST_DIR/err" <<'JS'
import { renameSync, writeFileSync, chmodSync } from "node:fs"
const [plugin, thatch] = process.argv.slice(2)
const keep = setInterval(() => {}, 1000)
const toasts = []
const client = { session: {}, tui: { showToast: async (o) => { toasts.push(o.body) } } }
const mod = (await import(plugin)).default
const hooks = await mod.server({ client, directory: process.cwd() }, { thatch })
let n = 0
const message = async () => {
  const out = { message: { sessionID: "S", id: `msg_${++n}` },
    parts: [{ type: "text", text: "how do we build this project again?" }] }
  await hooks["chat.message"]({ sessionID: "S" }, out)
  return out.parts.filter((p) => p.synthetic).map((p) => p.text)
    .filter((t) => t.includes("upgraded"))
}
await new Promise((r) => setTimeout(r, 400))	// a check is due: none warns
console.log(`before\t${(await message()).length}`)
writeFileSync(thatch + ".new", "#!/bin/sh\necho 9.9.9\n")
chmodSync(thatch + ".new", 0o755)
renameSync(thatch + ".new", thatch)
let warned = []
for (const end = Date.now() + 20000; warned.length === 0 && Date.now() < end; )
  { warned = await message(); if (!warned.length) await new Promise((r) => setTimeout(r, 100)) }
console.log(`notice\t${JSON.stringify(warned)}`)
await new Promise((r) => setTimeout(r, 400))	// due again: silent now
console.log(`after\t${(await message()).length}`)
const up = toasts.filter((t) => t.message.includes("upgraded"))
console.log(`toasts\t${up.length}\t${up[0] && up[0].variant}`)
await hooks.dispose()
clearInterval(keep)
JS
r() { awk -F'\t' -v k="$1" '$1 == k { $1 = ""; print substr($0, 2) }' "$TEST_DIR/out"; }
expect_eq "before the upgrade no message carries the notice" 0 "$(r before)"
expect_contains "after the executable is replaced a message carries it" "$(r notice)" \
    "[thatch] thatch was upgraded on disk (now version 9.9.9) but this opencode plugin still runs version"
expect_contains "it asks the user to restart opencode" "$(r notice)" "Ask the user to restart opencode so that the new thatch is used."
expect_eq "it is one synthetic part" 1 "$(r notice | grep -o '\[thatch\] thatch was upgraded' | wc -l)"
expect_eq "once only" 0 "$(r after)"
expect_eq "with one warning toast" "1 warning" "$(r toasts)"
expect_eq "no errors" "" "$(cat "$TEST_DIR/err")"
finish
