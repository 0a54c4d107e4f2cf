// thatch.js — thatch's opencode plugin: a thin forwarder to the C core.
//
// One long-lived `thatch opencode` child per opencode process (so one warm
// model, and no process per message). Every hook and session event becomes
// one JSON line to the child; the answer lists what to apply, and this file
// applies it: push a system string, a synthetic part or compaction context,
// show a toast, prompt / create / delete a session. Texts, thresholds,
// filtering, the extraction buffer and every tool live in the core
// (docs/opencode.md). This module keeps no state the core cannot rebuild:
// if the child dies, the next hook starts a new one, which reads the buffer
// back from disk.
//
// No build step, no npm dependency: plain ESM on Node's child_process.
import { spawn } from "node:child_process"
import { statSync } from "node:fs"
import { fileURLToPath } from "node:url"
import path from "node:path"

const EVENTS = new Set([
  "session.created", "session.status", "session.idle", "session.error",
  "session.deleted", "session.compacted",
  // alerts (engines-and-extras B3): a request waits for the user
  "permission.asked", "permission.replied", "question.asked",
  "question.replied", "question.rejected",
])

// A failure on the plugin's side: stderr, and the core's debug log when
// the core is up (hook failures are never swallowed, §9.2).
let logTo = null
function warn(what, err) {
  const text = `${what}: ${err && err.message ? err.message : err}`
  console.error(`[thatch] ${text}`)
  if (logTo && logTo.proc) logTo.ask({ op: "log", text }).catch(() => {})
}

// The thatch program: the setup-written option, else the one installed
// beside this module ($PREFIX/share/thatch/thatch.js -> $PREFIX/bin), else PATH.
function program(options) {
  if (options && typeof options.thatch === "string") return options.thatch
  const here = path.dirname(fileURLToPath(import.meta.url))
  return path.join(here, "..", "..", "bin", "thatch")
}

// The nearest directory of dir's that exists: a process cannot start in a
// removed worktree, so the core runs there and is told dir as data.
function existing(dir) {
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    try { if (statSync(d).isDirectory()) return d } catch {}
    if (d === path.dirname(d)) return d
  }
}

// Seconds a request may wait for its answer: the core serves one request
// at a time, so this bounds the slowest tool call, not only a hook.
const TIMEOUT = 60

class Core {
  constructor(cmd, dir, client, timeout) {
    this.cmd = cmd
    this.timeout = timeout
    this.dir = dir
    this.client = client
    this.proc = null
    this.next = 1
    this.waiting = new Map()
    this.buf = ""
  }

  start() {
    const env = { ...process.env }
    delete env.CLAUDE_PROJECT_DIR
    delete env.CURSOR_PROJECT_DIR
    const args = this.dir ? ["opencode", "--directory", this.dir] : ["opencode"]
    const proc = spawn(this.cmd, args, {
      cwd: this.dir ? existing(this.dir) : undefined, env,
      stdio: ["pipe", "pipe", "inherit"],
    })
    proc.stdout.setEncoding("utf8")
    proc.stdout.on("data", (chunk) => this.read(chunk))
    proc.on("error", (err) => this.lost(proc, err))
    proc.on("exit", (code) => this.lost(proc, new Error(`exited (${code})`)))
    proc.stdin.on("error", (err) => this.lost(proc, err))
    proc.unref()
    proc.stdout.unref?.()
    this.proc = proc
  }

  // a core that could not start or died says why in opencode's log; the
  // next hook starts another
  lost(proc, err) {
    if (this.proc !== proc) return
    this.proc = null
    try {
      this.client.app.log({ body: { service: "thatch", level: "error",
        message: `the thatch core (${this.cmd}) stopped: ${err && err.message || err}` } })
        .catch(() => {})
    } catch {}	// a client without a log: stderr has it (warn)
    this.buf = ""
    for (const [, w] of this.waiting) w.reject(err)
    this.waiting.clear()
  }

  read(chunk) {
    this.buf += chunk
    let nl
    while ((nl = this.buf.indexOf("\n")) >= 0) {
      const line = this.buf.slice(0, nl)
      this.buf = this.buf.slice(nl + 1)
      let res
      try { res = JSON.parse(line) } catch { continue }
      // no id: the core's own news (a watcher's event for an idle session)
      if (res.id === undefined) { if (this.onPush) this.onPush(res.actions || []); continue }
      const w = this.waiting.get(res.id)
      if (!w) continue
      this.waiting.delete(res.id)
      w.resolve(res)
    }
  }

  // dispose (a plugin reload, opencode's exit): end the core's input, so it
  // stops its watchers, sends its last alerts, closes the database and exits
  stop() {
    this.stopped = true
    const proc = this.proc
    this.proc = null
    if (proc) proc.stdin.end()
  }

  // The core answers every line it reads, a bad one with an error; a
  // request still unanswered after timeout seconds (a hung core, a lost
  // line) fails with the reason, so no hook holds opencode's turn for ever.
  ask(req) {
    if (this.stopped) return Promise.reject(new Error("disposed"))
    if (!this.proc) this.start()
    const id = this.next++
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id)
        reject(new Error(`no answer from the core in ${this.timeout} s`))
      }, this.timeout * 1000)
      timer.unref?.()
      const done = (f) => (v) => { clearTimeout(timer); f(v) }
      this.waiting.set(id, { resolve: done(resolve), reject: done(reject) })
      this.proc.stdin.write(JSON.stringify({ id, ...req }) + "\n")
    })
  }
}

// opencode's ascending part ids: "prt_" + 12 hex of time, 14 random base62.
let counter = 0
function partID() {
  const n = BigInt(Date.now()) * 0x1000n + BigInt(++counter & 0xfff)
  const abc = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
  let r = ""
  for (let i = 0; i < 14; i++) r += abc[Math.floor(Math.random() * 62)]
  return "prt_" + n.toString(16).padStart(12, "0").slice(-12) + r
}

async function server(input, options) {
  const client = input.client
  const core = new Core(program(options), input.directory, client,
    options && options.timeout > 0 ? options.timeout : TIMEOUT)
  logTo = core
  core.onPush = (actions) => apply(actions, {})

  async function call(op, req, out) {
    let res
    try {
      res = await core.ask({ op, ...req })
    } catch (err) {
      warn(op, err)
      return undefined
    }
    await apply(res.actions || [], out)
    return res
  }

  async function apply(actions, out) {
    for (const a of actions) {
      try {
        await act(a, out)
      } catch (err) {
        warn(a.do, err)
      }
    }
  }

  async function act(a, out) {
    switch (a.do) {
      case "system": out.system.push(a.text); break
      case "context": out.context.push(a.text); break
      case "part":
        out.parts.push({
          id: partID(), sessionID: out.message.sessionID,
          messageID: out.message.id, type: "text", text: a.text,
          synthetic: true,
        })
        break
      case "toast":
        // best effort: headless runs have no TUI to show it
        client.tui.showToast({ body: {
          message: a.message, variant: a.variant,
          ...(a.duration ? { duration: a.duration } : {}),
        } }).catch(() => {})
        break
      case "prompt": {
        // a chat echo is visible: noReply, yet not synthetic
        const body = { parts: [{ type: "text", text: a.text,
          synthetic: !!a.noReply && !a.visible }],
          ...(a.noReply ? { noReply: true } : {}) }
        const send = a.async ? client.session.promptAsync : client.session.prompt
        const p = send.call(client.session, { path: { id: a.session }, body })
        const failed = (err) => {
          if (!a.onError) return warn("prompt", err)
          call(a.onError, { parent: a.parent, child: a.session,
            error: String(err && err.message || err) })
        }
        // never awaited: a prompt runs a whole model turn
        p.then((r) => { if (r && r.error) failed(JSON.stringify(r.error)) }, failed)
        break
      }
      case "spawn": {
        let child
        try {
          const r = await client.session.create({ body: {
            parentID: a.parent, title: a.title } })
          child = r && r.data && r.data.id
          if (!child) throw new Error(JSON.stringify(r && r.error))
        } catch (err) {
          await call("spawn_failed", { parent: a.parent, error: String(err.message || err) })
          break
        }
        await call("spawned", { parent: a.parent, child })
        break
      }
      case "delete":
        await client.session.delete({ path: { id: a.session } })
        break
      // a green-lit wrap-up (engines-and-extras B8); never awaited: a
      // compaction is a whole model turn
      case "compact":
        client.session.summarize({ path: { id: a.session }, body: {
          providerID: a.providerID, modelID: a.modelID } })
          .then((r) => { if (r && r.error) warn("compact", JSON.stringify(r.error)) },
            (err) => warn("compact", err))
        break
      case "exit":
        client.tui.publish({ body: { type: "tui.command.execute",
          properties: { command: "app.exit" } } }).catch((err) => warn("exit", err))
        break
      default:
        warn("unknown action", a.do)
    }
  }

  const init = await call("init", { directory: input.directory })
  // the chat poller (heartbeats, wake prompts); never keeps opencode alive,
  // and dispose clears it: a reloaded plugin leaves no timer behind
  const ticker = init && init.tick_ms > 0 ?
    setInterval(() => call("tick", {}, {}), init.tick_ms) : null
  ticker?.unref?.()
  const tools = {}
  const schemas = new Map()
  for (const t of (init && init.tools) || []) {
    schemas.set(t.name, t.schema)
    tools[t.name] = {
      description: t.description,
      args: {},
      async execute(args, ctx) {
        const res = await core.ask({ op: "tool", name: t.name, args,
          sessionID: ctx.sessionID })
        if (res.error) throw new Error(res.error)
        if (res.failed) throw new Error(res.output)
        return res.output
      },
    }
  }

  return {
    tool: tools,
    // the MCP inputSchema itself, not the one opencode derives from args
    "tool.definition": async (inp, out) => {
      const s = schemas.get(inp.toolID)
      if (s) out.jsonSchema = s
    },
    "experimental.chat.system.transform": (inp, out) =>
      call("system", { sessionID: inp.sessionID }, out),
    "chat.message": (inp, out) =>
      call("message", { sessionID: inp.sessionID, agent: inp.agent,
        parts: out.parts }, out),
    "tool.execute.after": (inp, out) =>
      call("after", { tool: inp.tool, sessionID: inp.sessionID,
        args: inp.args, output: out }, out),
    "experimental.session.compacting": (inp, out) =>
      call("compacting", { sessionID: inp.sessionID }, out),
    "command.execute.before": (inp, out) =>
      call("command", { command: inp.command, sessionID: inp.sessionID }, out),
    "experimental.compaction.autocontinue": (inp, out) =>
      call("autocontinue", { sessionID: inp.sessionID }, out),
    dispose: () => { clearInterval(ticker); core.stop() },
    event: ({ event }) => EVENTS.has(event.type) ?
      call("event", { event: { type: event.type, properties: event.properties } }, {}) :
      undefined,
  }
}

// opencode v1 reads default.server; a v2 host reads default.setup. There is
// no v2 adapter yet (docs/opencode.md says what it needs), and 1.18.33 calls
// setup as well as server, so setup registers nothing: thatch loads once.
export default {
  id: "thatch",
  server,
  setup() {},
}
