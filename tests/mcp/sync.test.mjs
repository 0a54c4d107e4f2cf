// sync.test.mjs — the MCP server's background sync through the official
// client (docs/sync.md "Automatic sync"): with `thatch sync --auto on`,
// a teammate's memory is there shortly after the server starts, and a
// memory the agent saves reaches the remote while the session goes on,
// without the tool call waiting for git.
import { execFileSync } from "node:child_process";
import { call, check, connect, has } from "./harness.mjs";

const bare = process.env.SYNC_BARE;

async function until(what, secs, fn) {
	const deadline = Date.now() + secs * 1000;
	for (;;) {
		if (await fn())
			return check(what, true);
		if (Date.now() > deadline)
			return check(what, false, `not within ${secs} s`);
		await new Promise((r) => setTimeout(r, 100));
	}
}

function remoteFiles() {
	const ref = execFileSync("git", ["--git-dir", bare, "for-each-ref",
	    "--format=%(refname)", "refs/thatch/"]).toString().trim();
	if (ref === "")
		return "";
	return execFileSync("git", ["--git-dir", bare, "ls-tree", "-r",
	    "--name-only", ref]).toString();
}

const { client } = await connect({});
await until("the server pulls the teammate's memory at start", 20,
    async () => (await call(client, "memory_list", {})).text?.includes("Release steps"));
const r = await call(client, "memory_remember",
    { label: "Flaky test", content: "test_net must run alone." });
has("the write answers at once, as without sync", r.text, "[saved]");
await until("the write reaches the remote while the session goes on", 20,
    () => remoteFiles().includes("memories/flaky-test.md"));
check("the teammate's memory is still on the remote",
    remoteFiles().includes("memories/release-steps.md"), remoteFiles());
await client.close();
