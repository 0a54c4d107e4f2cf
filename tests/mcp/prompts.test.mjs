// prompts.test.mjs — the MCP surface Claude Code and Cursor read, through
// the official client (engines-and-extras §B8, host-contracts §1.6): the
// /thatch actions as prompts, spelled for the detected host; an unknown
// prompt; annotations and a title on every tool; text-only results; the
// initialize instructions.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { call, check, connect, eq, has } from "./harness.mjs";

const ACTIONS = ["defrag", "extract", "hygiene", "reflect"];
const proj = join(process.env.TMPDIR, "proj");
mkdirSync(proj, { recursive: true });

async function prompts(env) {
	const { client } = await connect(env);
	const list = (await client.listPrompts()).prompts;
	const texts = {};
	for (const a of ACTIONS) {
		const r = await client.getPrompt({ name: `thatch-${a}` });
		texts[a] = { r, text: r.messages?.[0]?.content?.text ?? "" };
	}
	return { client, list, texts };
}

// ---- Cursor: bare tool names -------------------------------------------

const cur = await prompts({ CURSOR_PROJECT_DIR: proj, CLAUDE_PROJECT_DIR: "" });
eq("prompts/list names the four actions", ACTIONS.map((a) => `thatch-${a}`), cur.list.map((p) => p.name));
check("every prompt has a description", cur.list.every((p) => typeof p.description === "string" && p.description.length > 20), JSON.stringify(cur.list));
for (const a of ACTIONS) {
	const { r, text } = cur.texts[a];
	eq(`thatch-${a} is one user message of text`, [1, "user", "text"], [r.messages?.length, r.messages?.[0]?.role, r.messages?.[0]?.content?.type]);
	eq(`thatch-${a} carries the listed description`, cur.list.find((p) => p.name === `thatch-${a}`)?.description, r.description);
	check(`thatch-${a} is a numbered procedure`, /\n1\. [\s\S]*\n2\. [\s\S]*\n3\. /.test(text), text);
	check(`thatch-${a} spells tools bare for Cursor`, !text.includes("mcp__thatch__") && !text.includes("thatch_"), text);
}
has("defrag starts from find_duplicates (Cursor)", cur.texts.defrag.text, "`find_duplicates`");
has("defrag records verdicts with dedup_mark_checked", cur.texts.defrag.text, "`dedup_mark_checked`");
has("extract saves with memory_remember", cur.texts.extract.text, "`memory_remember`");
has("extract checks memory_recall first", cur.texts.extract.text, "`memory_recall`");
has("hygiene names the hygiene report", cur.texts.hygiene.text, "thatch hygiene");
has("reflect records corrections with prediction_update", cur.texts.reflect.text, "`prediction_update`");
has("reflect codifies lapses with behavior_codify", cur.texts.reflect.text, "`behavior_codify`");
try {
	await cur.client.getPrompt({ name: "thatch-nope" });
	check("an unknown prompt is refused", false);
} catch (e) {
	eq("an unknown prompt is JSON-RPC -32602", -32602, e instanceof McpError ? e.code : String(e));
	has("the error names the prompt", e.message, "thatch-nope");
}
await cur.client.close();

// ---- Claude Code: mcp__thatch__ names ----------------------------------

const cc = await prompts({ CLAUDE_PROJECT_DIR: proj, CURSOR_PROJECT_DIR: "" });
eq("Claude Code gets the same four prompts", ACTIONS.map((a) => `thatch-${a}`), cc.list.map((p) => p.name));
for (const a of ACTIONS)
	check(`thatch-${a} spells tools mcp__thatch__ for Claude Code`,
	    cc.texts[a].text.includes("`mcp__thatch__") && !/`(memory|find|dedup|prediction|behavior)_/.test(cc.texts[a].text), cc.texts[a].text);
has("defrag starts from mcp__thatch__find_duplicates", cc.texts.defrag.text, "`mcp__thatch__find_duplicates`");
eq("the texts differ only in the spelling", cur.texts.reflect.text,
    cc.texts.reflect.text.replaceAll("`mcp__thatch__", "`"));

// ---- initialize instructions, annotations, text results -----------------

const instr = cc.client.getInstructions();
has("initialize gives instructions naming recall", instr, "`mcp__thatch__memory_recall`");
has("the instructions say when to remember", instr, "`mcp__thatch__memory_remember`");
const { tools } = await cc.client.listTools();
const READ = ["memory_recall", "memory_list", "memory_show", "store_list", "find_duplicates", "get_extraction_payload", "prediction_query", "prediction_list", "behavior_list", "config_get", "chat_list", "chat_status", "store_hygiene"];
const DESTROY = ["memory_forget", "prediction_delete", "behavior_delete"];
for (const t of tools) {
	const an = t.annotations ?? {};
	// one title, the annotation's; hints that are MCP's defaults are left out
	check(`${t.name} has a title`, typeof an.title === "string" && an.title.length > 3 && t.title === undefined, JSON.stringify(t));
	eq(`${t.name} readOnlyHint`, READ.includes(t.name), an.readOnlyHint ?? false);
	if (!READ.includes(t.name))
		eq(`${t.name} destructiveHint`, DESTROY.includes(t.name), an.destructiveHint);
	check(`${t.name} declares no outputSchema`, t.outputSchema === undefined);
}
const r = await cc.client.callTool({ name: "store_list", arguments: {} });
check("a result is text only, without structuredContent", r.structuredContent === undefined && r.content?.[0]?.type === "text", JSON.stringify(r));
await cc.client.close();

const plain = await connect({ CLAUDE_PROJECT_DIR: "", CURSOR_PROJECT_DIR: "" });
const pi = plain.client.getInstructions();
check("without a host the instructions use the bare names", pi.includes("`memory_recall`") && !pi.includes("mcp__"), pi);
await plain.client.close();
