// tools.test.mjs — every tool through the official MCP client: the listed
// schemas, each happy path, and the error paths of store-and-tools §8 and
// hosts-hooks-cli §10.5 that a client can reach.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { call, check, connect, eq, has } from "./harness.mjs";

const TMP = process.env.TMPDIR;
const { client } = await connect();

// ---- initialize and tools/list -----------------------------------------

const info = client.getServerVersion();
eq("initialize names the server thatch", "thatch", info?.name);
check("initialize gives a dotted version", /^\d+\.\d+\.\d+$/.test(info?.version ?? ""), info?.version);
const caps = client.getServerCapabilities();
check("the server offers tools and prompts", caps?.tools && caps?.prompts, JSON.stringify(caps));

const { tools } = await client.listTools();
eq("tools/list is in registry order", [
	"memory_remember", "memory_recall", "memory_list", "memory_show",
	"memory_forget", "store_list", "find_duplicates", "dedup_mark_checked",
], tools.slice(0, 8).map((t) => t.name));

const want = {
	memory_remember: { required: ["label", "content"], props: { label: "string", content: "string", store: "string", branch: "string", confidence: "integer", overwrite: "boolean", archived: "boolean", anchors: "array" } },
	memory_recall: { required: ["query"], props: { query: "string", store: "string", branch: "string", limit: "integer", includeArchived: "boolean", mode: "string" } },
	memory_list: { props: { store: "string", limit: "integer", offset: "integer", prefix: "string", branch: "string" } },
	memory_show: { required: ["label"], props: { label: "string", store: "string" } },
	memory_forget: { required: ["label"], props: { label: "string", store: "string" } },
	store_list: { props: {} },
	find_duplicates: { props: { store: "string", threshold: "number" } },
	dedup_mark_checked: { required: ["label_a", "label_b", "status"], props: { label_a: "string", label_b: "string", status: "string", store: "string" } },
};
for (const t of tools) {
	const s = t.inputSchema, w = want[t.name];
	if (!w)
		continue;
	check(`${t.name} has a description`, typeof t.description === "string" && t.description.length > 10);
	eq(`${t.name} schema is a closed object`, ["object", false], [s.type, s.additionalProperties]);
	eq(`${t.name} schema lists its arguments and types`, w.props,
	    Object.fromEntries(Object.entries(s.properties).map(([k, v]) => [k, v.type])));
	eq(`${t.name} schema requires exactly its required arguments`, w.required, s.required);
	check(`${t.name} describes every argument`, Object.values(s.properties).every((p) => typeof p.description === "string"));
}
const schema = (n) => tools.find((t) => t.name === n).inputSchema.properties;
eq("confidence is bounded 1-10", [1, 10], [schema("memory_remember").confidence.minimum, schema("memory_remember").confidence.maximum]);
eq("limit is bounded 1-20", [1, 20], [schema("memory_recall").limit.minimum, schema("memory_recall").limit.maximum]);
eq("threshold is bounded 0-1", [0, 1], [schema("find_duplicates").threshold.minimum, schema("find_duplicates").threshold.maximum]);

// ---- happy paths ------------------------------------------------------------

let r = await call(client, "memory_remember", { label: "Login flow", content: "Tokens are issued by the auth service.", store: "acme/api", branch: "feat/login", confidence: 7 });
eq("memory_remember saves", { text: "[saved] acme/api :: Login flow", isError: false }, r);
r = await call(client, "memory_remember", { label: "Test runner", content: "Use bun test.", store: "global" });
eq("memory_remember saves to global", "[saved] global :: Test runner", r.text);
r = await call(client, "memory_recall", { query: "who issues tokens", store: "acme/api" });
check("memory_recall returns the memory with its meta line", /^\[store:acme\/api branch:feat\/login confidence:7 updated:\d{4}-\d\d-\d\dT[\d:.]+Z\] \[score:-?\d\.\d{3}\]\n# Login flow\n\nTokens are issued/.test(r.text), r.text);
r = await call(client, "memory_recall", { query: "tokens", store: "acme/api", branch: "main" });
eq("a branch filter hides memories of other branches", "No matching memories found.", r.text);
r = await call(client, "memory_list", { store: "acme/api" });
check("memory_list shows label, branch, confidence and time", /^\[acme\/api\] Login flow \(branch:feat\/login\) \(c:7\) \(\d{4}-[\d\-T:.]+Z\)$/.test(r.text), r.text);
r = await call(client, "memory_show", { label: "login flow!", store: "acme/api" });
check("memory_show finds a memory by any spelling of its slug", /^\[acme\/api\] branch:feat\/login confidence:7 created:\S+ updated:\S+\n\n# Login flow\n\nTokens/.test(r.text), r.text);
r = await call(client, "store_list", {});
eq("store_list lists every store", "- acme/api\n- global", r.text);

// duplicates: the same content twice, then a verdict
await call(client, "memory_remember", { label: "pool a", content: "the pool holds ten connections", store: "dups" });
r = await call(client, "memory_remember", { label: "pool b", content: "the pool holds ten connections", store: "dups" });
has("a near-duplicate save warns", r.text, "\u26a0");
has("the warning names the similar memory with its score", r.text, '  - "pool a" (similarity ');
check("the warning never blocks the save", r.text.startsWith("[saved] dups :: pool b"), r.text);
r = await call(client, "find_duplicates", { store: "dups" });
check("find_duplicates reports the pair as a cluster", /^Cluster of 2:\n  \[score:[\d.]+\] "pool a" \u2194 "pool b"$/.test(r.text), r.text);
eq("dedup_mark_checked's status offers exactly the classifier's four verdicts", ["duplicate", "supplement", "contradiction", "unrelated"],
	tools.find((t) => t.name === "dedup_mark_checked")?.inputSchema?.properties?.status?.enum);
for (const [args, why, want] of [
	[{ label_a: "pool b", label_b: "pool a", status: "distinct", store: "dups" }, "a verdict the classifier does not give",
	 "Invalid arguments: status: Invalid enum value. Expected 'duplicate' | 'supplement' | 'contradiction' | 'unrelated', received 'distinct'"],
	[{ label_a: "pool b", label_b: "pool c", status: "unrelated", store: "dups" }, "a label that names no memory",
	 'Tool error: no memory labeled "pool c" in store "dups": give the labels as find_duplicates printed them, before forgetting either memory'],
	[{ label_a: "pool a", label_b: "pool b", status: "duplicate" }, "labels of another store", 'Tool error: no memory labeled "pool a" in store "'],
]) {
	r = await call(client, "dedup_mark_checked", args);
	check(`dedup_mark_checked refuses ${why}, as a tool error`, r.isError && r.text.startsWith(want), r.text);
}
r = await call(client, "find_duplicates", { store: "dups" });
check("a refused verdict records nothing", r.text.startsWith("Cluster of 2:"), r.text);
r = await call(client, "dedup_mark_checked", { label_a: "pool b", label_b: "pool a", status: "supplement", store: "dups" });
eq("dedup_mark_checked confirms the verdict", '[checked] dups :: "pool b" \u2194 "pool a" \u2192 supplement', r.text);
r = await call(client, "find_duplicates", { store: "dups" });
eq("a checked pair is no longer reported", 'No duplicate candidates in "dups" above threshold 0.85.', r.text);
await call(client, "memory_remember", { label: "pool a", content: "the pool holds ten connections", store: "dups", overwrite: true });
r = await call(client, "find_duplicates", { store: "dups" });
check("overwriting a memory clears its verdicts", r.text.startsWith("Cluster of 2:"), r.text);
r = await call(client, "memory_forget", { label: "pool b", store: "dups" });
eq("memory_forget confirms", "[forgotten] dups :: pool b", r.text);

// ---- store-and-tools §8 ------------------------------------------------------

const invalid = async (what, name, args, ...items) => {
	const res = await call(client, name, args);
	check(what, res.isError && res.text.startsWith("Invalid arguments: ") &&
	    items.every((i) => res.text.includes(i)), res.text);
};
await invalid("§8.1 a missing required argument is named", "memory_remember", { content: "x" }, "label");
await invalid("§8.1 every problem is reported, in schema order", "memory_remember", { confidence: 11 }, "label: ", "; content: ", "; confidence: ");
await invalid("§8.1 missing arguments count as {}", "memory_recall", undefined, "query");
await invalid("§8.2 limit \"5\" is not coerced", "memory_recall", { query: "q", limit: "5" }, "limit");
await invalid("§8.2 overwrite \"true\" is not coerced", "memory_remember", { label: "l", content: "c", overwrite: "true" }, "overwrite");
await invalid("§8.2 store: null is a type error", "memory_list", { store: null }, "store");
await invalid("§8.3 confidence 11 is out of range", "memory_remember", { label: "l", content: "c", confidence: 11 }, "confidence");
await invalid("§8.3 a fractional confidence is refused", "memory_remember", { label: "l", content: "c", confidence: 2.5 }, "confidence");
await invalid("§8.3 limit 21 is out of range", "memory_recall", { query: "q", limit: 21 }, "limit");
await invalid("§8.3 threshold 1.5 is out of range", "find_duplicates", { threshold: 1.5 }, "threshold");
r = await call(client, "memory_recall", { query: "q", limit: 5.0, store: "acme/api", bogus: true });
check("§8.4 unknown arguments are ignored and 5.0 is an integer", !r.isError, r.text);
try {
	await client.callTool({ name: "no_such_tool", arguments: {} });
	check("§8.5 an unknown tool is a JSON-RPC error", false);
} catch (e) {
	check("§8.5 an unknown tool is an invalid-params error", e instanceof McpError && e.code === -32602, String(e));
	has("§8.5 the error names the tool", e.message, "Unknown tool: no_such_tool");
}
r = await call(client, "memory_remember", { label: "here", content: "c", store: "" });
check("§8.6 store \"\" means the project store", r.text.startsWith("[saved] ") && !r.text.startsWith("[saved]  ::"), r.text);
r = await call(client, "memory_remember", { label: "lost", content: "c", store: "unknown" });
eq("§8.7 store \"unknown\" writes to global", "[saved] global :: lost", r.text.split("\n")[0]);
eq("§8.8 list of a missing store", 'No memories in "nowhere".', (await call(client, "memory_list", { store: "nowhere" })).text);
eq("§8.8 show in a missing store", 'No memory labeled "x" in store "nowhere".', (await call(client, "memory_show", { label: "x", store: "nowhere" })).text);
eq("§8.8 forget in a missing store", 'No memory labeled "x" in store "nowhere".', (await call(client, "memory_forget", { label: "x", store: "nowhere" })).text);
eq("§8.8 recall in a missing store", "No matching memories found.", (await call(client, "memory_recall", { query: "x", store: "nowhere" })).text);
eq("§8.8 find_duplicates in a missing store", 'No duplicate candidates in "nowhere" above threshold 0.85.', (await call(client, "find_duplicates", { store: "nowhere" })).text);
r = await call(client, "dedup_mark_checked", { label_a: "x", label_b: "x", status: "unrelated", store: "nowhere" });
check("§8.27 a verdict in a missing store is refused", r.isError && r.text.includes('no memory labeled "x" in store "nowhere"'), r.text);
r = await call(client, "store_list", {});
check("§8.27 and does not create the store", !r.isError && !r.text.includes("- nowhere"), r.text);
r = await call(client, "memory_remember", { label: "Foo Bar", content: "one", store: "s11" });
r = await call(client, "memory_remember", { label: "foo bar!", content: "two", store: "s11" });
check("§8.10/11 a label with the same slug is refused as existing", !r.isError && r.text.includes('"foo bar!"') && r.text.includes("overwrite: true") && !r.text.startsWith("[saved]"), r.text);
await call(client, "memory_remember", { label: "foo bar!", content: "two", store: "s11", overwrite: true });
has("§8.11 overwrite renames the label", (await call(client, "memory_list", { store: "s11" })).text, "[s11] foo bar! (");
await call(client, "memory_remember", { label: "arch", content: "old", store: "s12", archived: true, branch: "b1", confidence: 3 });
r = await call(client, "memory_remember", { label: "arch", content: "new", store: "s12", overwrite: true });
check("§8.12 an archived memory is not overwritten without archived", !r.isError && r.text.includes("archived: true") && r.text.includes("archived: false"), r.text);
has("§8.12 nothing was written", (await call(client, "memory_show", { label: "arch", store: "s12" })).text, "\n\n# arch\n\nold");
eq("§8.20 archived memories are not recalled", "No matching memories found.", (await call(client, "memory_recall", { query: "old", store: "s12" })).text);
has("§8.20 includeArchived shows them, marked", (await call(client, "memory_recall", { query: "old", store: "s12", includeArchived: true })).text, " archived:true");
has("§8.20 list marks them", (await call(client, "memory_list", { store: "s12" })).text, "(archived)");
await call(client, "memory_remember", { label: "arch", content: "new", store: "s12", overwrite: true, archived: false });
r = await call(client, "memory_show", { label: "arch", store: "s12" });
check("§8.14 an overwrite keeps branch and confidence it did not pass", r.text.startsWith("[s12] branch:b1 confidence:3 created:") && r.text.endsWith("# arch\n\nnew"), r.text);
eq("§8.13 overwrite of a missing memory inserts it", "[saved] s13 :: fresh", (await call(client, "memory_remember", { label: "fresh", content: "c", store: "s13", overwrite: true })).text);
await call(client, "memory_remember", { label: "empty", content: "", store: "s15" });
check("§8.15 empty content is stored under its heading", (await call(client, "memory_show", { label: "empty", store: "s15" })).text.endsWith("\n\n# empty\n\n"));
// deviation (issue 15): a nameless memory was listed without a name and
// its hash slug "x0" took the label from every later blank one
await invalid("§8.16 an empty label is refused", "memory_remember", { label: "", content: "c", store: "s15" }, "label: must not be empty or only whitespace");
await invalid("§8.16 a whitespace-only label is refused", "memory_remember", { label: " \t ", content: "c", store: "s15" }, "label: must not be empty");
eq("§8.16 and nothing was saved", 'No memory labeled "" in store "s15".', (await call(client, "memory_show", { label: "", store: "s15" })).text);
eq("§8.17 a symbol-only label is accepted", "[saved] s15 :: !!!", (await call(client, "memory_remember", { label: "!!!", content: "c", store: "s15" })).text.split("\n")[0]);
await call(client, "memory_remember", { label: "nb", content: "c", store: "s19", branch: "" });
check("§8.19 an empty branch is not shown", !(await call(client, "memory_list", { store: "s19" })).text.includes("branch:"));
await client.close();

// ---- §8.30: a model that cannot load --------------------------------------

{
	const { client: c2 } = await connect({ THATCH_MODEL: join(TMP, "no-such-model") });
	r = await call(c2, "memory_remember", { label: "l", content: "c" });
	check("§8.30 remember without a model is a tool error", r.isError && r.text.startsWith("Tool error: "), r.text);
	r = await call(c2, "memory_recall", { query: "q" });
	check("§8.30 recall without a model is a tool error", r.isError && r.text.startsWith("Tool error: "), r.text);
	r = await call(c2, "memory_list", { store: "acme/api" });
	check("§8.30 tools that need no model keep working", !r.isError && r.text.startsWith("[acme/api] Login flow"), r.text);
	await c2.close();
}

// ---- hosts-hooks-cli §2.6: setup detection and the one-shot warning ------

const project = (name, claudeMd) => {
	const d = join(TMP, name);
	mkdirSync(d, { recursive: true });
	if (claudeMd !== undefined)
		writeFileSync(join(d, "CLAUDE.md"), claudeMd);
	return d;
};
const START = "# Persistence\n\nThatch provides persistent memory across Claude Code sessions.";
const END = '"Forget X" - `memory_recall` to find it, then `memory_forget`.';
{
	const { client: c, stderr } = await connect({ CLAUDE_PROJECT_DIR: project("p-none") });
	const first = await call(c, "store_list", {});
	check("§10.5 setup never run: the first result carries the notice", first.text.startsWith("[thatch] ") && first.text.includes("thatch setup --claude") && first.text.includes("\n\n- "), first.text);
	const second = await call(c, "store_list", {});
	check("§10.5 the notice appears once", !second.text.includes("[thatch]"), second.text);
	has("§10.5 the warning is also on stderr", stderr(), "[thatch] ");
	await c.close();
}
{
	const { client: c } = await connect({ CLAUDE_PROJECT_DIR: project("p-broken", `intro\n\n${START}\nhalf a block\n`) });
	const first = await call(c, "memory_list", { label: 1 });
	check("§10.5 broken markers: the notice names CLAUDE.md", first.text.startsWith("[thatch] ") && first.text.includes("CLAUDE.md") && first.text.includes("end marker"), first.text);
	await c.close();
}
{
	const { client: c } = await connect({ CLAUDE_PROJECT_DIR: project("p-ok", `${START}\nbody\n${END}\n`) });
	const first = await call(c, "store_list", {});
	check("§10.5 installed setup: no notice", !first.text.includes("[thatch]"), first.text);
	await c.close();
}
{
	const { client: c } = await connect({ CURSOR_PROJECT_DIR: project("p-cursor"), CLAUDE_PROJECT_DIR: project("p-ok") });
	const first = await call(c, "store_list", {});
	check("§10.5 both variables set: the host is Cursor", first.text.includes("--cursor") && first.text.includes("AGENTS.md"), first.text);
	await c.close();
}
