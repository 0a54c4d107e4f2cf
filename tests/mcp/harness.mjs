// harness.mjs — what every MCP test script shares: checks that print
// "ok   <what>" / "FAIL <what>" (tests/mcp/node.sh counts them), and a
// connected official MCP client on a fresh `thatch mcp`.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

export const BIN = process.env.THATCH_BIN;

export function check(what, cond, detail) {
	if (cond) {
		console.log(`ok   ${what}`);
	} else {
		console.log(`FAIL ${what}`);
		if (detail !== undefined)
			console.log(`     ${String(detail).slice(0, 2000)}`);
	}
}

export function eq(what, want, got) {
	const w = JSON.stringify(want), g = JSON.stringify(got);
	check(what, w === g, `want ${w}\n     got  ${g}`);
}

export function has(what, haystack, needle) {
	check(what, typeof haystack === "string" && haystack.includes(needle),
	    `missing ${JSON.stringify(needle)} in ${JSON.stringify(haystack)}`);
}

// A client connected to `thatch mcp` with the given extra environment.
export async function connect(env = {}) {
	const transport = new StdioClientTransport({
		command: BIN,
		args: ["mcp"],
		env: { ...process.env, ...env },
		stderr: "pipe",
	});
	let stderr = "";
	transport.stderr?.on("data", (d) => { stderr += d; });
	const client = new Client({ name: "thatch-tests", version: "1.0.0" });
	await client.connect(transport);
	return { client, stderr: () => stderr };
}

// The text of a tools/call result, and whether it is an error.
export async function call(client, name, args) {
	const r = await client.callTool({ name, arguments: args });
	return { text: r.content?.[0]?.text, isError: r.isError === true };
}
