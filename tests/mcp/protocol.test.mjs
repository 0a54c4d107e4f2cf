// protocol.test.mjs — the JSON-RPC layer of `thatch mcp` on raw lines
// (hosts-hooks-cli §2.1-§2.4, §10.5; host-contracts §4): framing,
// notifications, error codes, version negotiation, oversized lines, end of
// input and signals. What the official client never sends is sent here.
import { spawn } from "node:child_process";
import { BIN, check, eq } from "./harness.mjs";

// A server with line-level access: send(obj|string), next() -> parsed line.
function server(env = {}) {
	const p = spawn(BIN, ["mcp"], { env: { ...process.env, ...env }, stdio: ["pipe", "pipe", "pipe"] });
	const lines = [], waiters = [];
	let buf = "", raw = "";
	p.stdout.on("data", (d) => {
		raw += d;
		buf += d;
		let i;
		while ((i = buf.indexOf("\n")) >= 0) {
			const line = buf.slice(0, i);
			buf = buf.slice(i + 1);
			if (waiters.length)
				waiters.shift()(line);
			else
				lines.push(line);
		}
	});
	p.stderr.on("data", () => {});
	const exited = new Promise((res) => p.on("exit", (code, sig) => res({ code, sig })));
	return {
		p, exited,
		raw: () => raw,
		send(m) { p.stdin.write((typeof m === "string" ? m : JSON.stringify(m)) + "\n"); },
		next(ms = 10000) {
			if (lines.length)
				return Promise.resolve(JSON.parse(lines.shift()));
			return new Promise((res, rej) => {
				const t = setTimeout(() => rej(new Error("no response")), ms);
				waiters.push((l) => { clearTimeout(t); res(JSON.parse(l)); });
			});
		},
	};
}

const rpc = (id, method, params) => ({ jsonrpc: "2.0", id, method, ...(params ? { params } : {}) });

const s = server();
s.send(rpc(0, "initialize", { protocolVersion: "2024-11-05", capabilities: {}, clientInfo: { name: "t", version: "1" } }));
let r = await s.next();
eq("id 0 is a request and is answered", 0, r.id);
eq("a supported protocol version is echoed", "2024-11-05", r.result?.protocolVersion);
eq("serverInfo names thatch", "thatch", r.result?.serverInfo?.name);
eq("capabilities are tools and prompts", { tools: { listChanged: false }, prompts: { listChanged: false } }, r.result?.capabilities);

s.send(rpc(1, "initialize", { protocolVersion: "2099-01-01" }));
eq("an unknown protocol version gets the newest", "2025-11-25", (await s.next()).result?.protocolVersion);
for (const v of ["2025-11-25", "2025-06-18", "2025-03-26"]) {
	s.send(rpc(`v${v}`, "initialize", { protocolVersion: v }));
	eq(`protocol version ${v} is echoed`, v, (await s.next()).result?.protocolVersion);
}

s.send({ jsonrpc: "2.0", method: "notifications/initialized" });
s.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } });
s.send({ jsonrpc: "2.0", method: "notifications/whatever" });
s.send({ jsonrpc: "2.0", id: null, method: "no/such" });
s.send(rpc("p1", "ping"));
eq("notifications (known, unknown, id null) are never answered", { jsonrpc: "2.0", id: "p1", result: {} }, await s.next());

s.send("this is not json");
eq("a line that is not JSON is a parse error with id null", { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } }, await s.next());
s.send([rpc(2, "ping"), rpc(3, "ping")]);
r = await s.next();
eq("a batch gets one invalid-request error with id null", [null, -32600], [r.id, r.error?.code]);
s.send("42");
eq("a message that is not an object is an invalid request", -32600, (await s.next()).error?.code);
s.send(rpc(4, "no/such/method"));
eq("an unknown method is -32601 naming it", { code: -32601, message: "Method not found: no/such/method" }, (await s.next()).error);
s.send(rpc(5, "tools/call", [1, 2]));
eq("params that are not an object are invalid params", -32602, (await s.next()).error?.code);
s.send(rpc(6, "prompts/list"));
eq("prompts/list lists the four /thatch actions", ["thatch-defrag", "thatch-extract", "thatch-hygiene", "thatch-reflect"], (await s.next()).result?.prompts?.map((p) => p.name));
s.send(rpc(7, "prompts/get", { name: "nope" }));
r = await s.next();
check("an unknown prompt is -32602 naming it", r.error?.code === -32602 && r.error.message.includes("nope"), JSON.stringify(r));
s.send(rpc(8, "tools/call", { name: "memory_list", arguments: { store: 5 } }));
r = await s.next();
check("bad arguments are an isError result naming the argument", r.result?.isError === true && r.result.content[0].text.startsWith("Invalid arguments: store: "), JSON.stringify(r));
eq("the result envelope writes isError first", ["isError", "content"], Object.keys(r.result));

s.send({ jsonrpc: "2.0", method: "tools/call", params: { name: "memory_remember", arguments: { label: "quiet", content: "c", store: "n" } } });
s.send("");
s.send("   \r");
s.send(JSON.stringify(rpc(9, "tools/call", { name: "memory_list", arguments: { store: "n" } })) + "\r");
r = await s.next();
check("a tools/call notification runs without an answer; blank lines and CRLF are fine", r.id === 9 && r.result.content[0].text.startsWith("[n] quiet "), JSON.stringify(r));

s.send('{"jsonrpc":"2.0","id":10,"method":"ping","params":{"pad":"' + "x".repeat(17 << 20) + '"}}');
r = await s.next(60000);
eq("an oversized line is refused as an invalid request", [null, -32600], [r.id, r.error?.code]);
s.send(rpc(11, "ping"));
eq("the server keeps serving after an oversized line", 11, (await s.next()).id);

s.p.stdin.end();
const ex = await s.exited;
eq("end of input ends the server with status 0", 0, ex.code);
check("stdout carries only JSON-RPC lines", s.raw().trim().split("\n").every((l) => JSON.parse(l).jsonrpc === "2.0"));

{
	const t = server();
	t.p.stdin.end('{"jsonrpc":"2.0","id":1,"method":"ping"');
	const e = await t.exited;
	eq("end of input inside a message is a parse error, then a clean exit", [0, -32700], [e.code, t.raw() ? JSON.parse(t.raw()).error?.code : null]);
}
{
	const t = server();
	t.send(rpc(1, "ping"));
	await t.next();
	t.p.kill("SIGTERM");
	eq("SIGTERM ends the server cleanly", 0, (await t.exited).code);
}
