// hygiene.test.mjs — what issue 15 gives an MCP client: store_hygiene
// names the memories behind each signal (the very list `thatch hygiene
// --list` prints, passed in as HYGIENE_LIST), memory_move moves a memory
// with its fields, and both are listed with honest annotations.
import { call, check, connect, eq, has } from "./harness.mjs";

const { client } = await connect();
const { tools } = await client.listTools();
const tool = (n) => tools.find((t) => t.name === n);
check("store_hygiene is listed", tool("store_hygiene") !== undefined);
eq("store_hygiene takes a list flag", { list: "boolean" },
    Object.fromEntries(Object.entries(tool("store_hygiene").inputSchema.properties).map(([k, v]) => [k, v.type])));
eq("store_hygiene is read-only", true, tool("store_hygiene").annotations?.readOnlyHint);
eq("memory_move requires label and to", ["label", "to"], tool("memory_move").inputSchema.required);
eq("memory_move writes without destroying", [false, false],
    [tool("memory_move").annotations?.readOnlyHint ?? false, tool("memory_move").annotations?.destructiveHint]);
eq("a label argument that must not be blank says so in its schema", 1,
    tool("memory_remember").inputSchema.properties.label.minLength);

await call(client, "store_list", {});	// takes the one-time setup notice
const report = process.env.HYGIENE_REPORT, list = process.env.HYGIENE_LIST;
let r = await call(client, "store_hygiene", {});
eq("store_hygiene gives the report line and points at list: true",
    report + "\nCall store_hygiene with list: true to see which memories these are.", r.text);
r = await call(client, "store_hygiene", { list: true });
eq("store_hygiene with list: true is thatch hygiene --list, word for word", list, r.text);
has("the list names a stale memory with its dates", r.text,
    '"Recalled once" (updated 2024-01-01T00:00:00.000Z, last recalled 2024-02-01T00:00:00.000Z)');
has("the list names an orphaned memory with its branch", r.text, '"Gone work" (branch feat/gone)');
has("the list names a duplicate pair with its similarity", r.text, '"pool a" \u2194 "pool b" (similarity 1)');

r = await call(client, "memory_move", { label: "gone work", to: "global" });
eq("memory_move moves from the project store", { text: "[moved] global :: gone work (from acme/api)", isError: false }, r);
r = await call(client, "memory_show", { label: "Gone work", store: "global" });
check("the moved memory keeps its branch and dates",
    r.text.startsWith("[global] branch:feat/gone created:2024-01-01T00:00:00.000Z updated:2025-05-03T00:00:00.000Z"), r.text);
r = await call(client, "store_hygiene", { list: true });
check("a moved memory leaves the project's hygiene list", !r.text.includes("Gone work"), r.text);
r = await call(client, "memory_move", { label: "gone work", to: "global" });
eq("moving what is not there is a refusal, not an error",
    { text: 'No memory labeled "gone work" in store "acme/api".', isError: false }, r);
r = await call(client, "memory_move", { label: "pool a", to: " " });
check("a blank target store is invalid", r.isError && r.text.includes("to: must not be empty"), r.text);
await client.close();
