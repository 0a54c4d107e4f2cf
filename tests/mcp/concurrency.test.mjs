// concurrency.test.mjs — two `thatch mcp` servers and the CLI writing one
// database at the same time lose nothing (DESIGN "Processes": WAL and a
// busy timeout are the whole concurrency story).
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { BIN, call, check, connect, eq } from "./harness.mjs";

const run = promisify(execFile);
const N = 100, SEEDS = 20;
const a = (await connect()).client, b = (await connect()).client;

for (let i = 0; i < SEEDS; i++)
	await call(a, "memory_remember", { label: `seed ${i}`, content: `seed memory ${i}`, store: "c" });

const writer = async (client, tag) => {
	const errors = [];
	for (let i = 0; i < N; i++) {
		const r = await call(client, "memory_remember", { label: `${tag} ${i}`, content: `${tag} wrote memory number ${i}`, store: "c" });
		if (!r.text.startsWith("[saved] c :: "))
			errors.push(r.text);
		if (i % 10 === 0)
			await call(client, "memory_recall", { query: `memory ${i}`, store: "c" });
	}
	return errors;
};
const cli = async () => {
	const failures = [];
	for (let i = 0; i < SEEDS; i++) {
		try {
			const { stdout } = await run(BIN, ["forget", `seed ${i}`, "c"]);
			if (!stdout.startsWith("[forgotten] c :: "))
				failures.push(stdout);
			await run(BIN, ["search", "memory", "c"]);
		} catch (e) {
			failures.push(String(e));
		}
	}
	return failures;
};
const [ea, eb, ec] = await Promise.all([writer(a, "alpha"), writer(b, "beta"), cli()]);
eq("every save of the first server succeeds", [], ea);
eq("every save of the second server succeeds", [], eb);
eq("every CLI forget and search succeeds meanwhile", [], ec);

const lines = (await call(a, "memory_list", { store: "c", limit: 200 })).text.split("\n");
eq("all of the first server's memories are there", N, lines.filter((l) => l.startsWith("[c] alpha ")).length);
eq("all of the second server's memories are there", N, lines.filter((l) => l.startsWith("[c] beta ")).length);
eq("every memory the CLI forgot is gone", 0, lines.filter((l) => l.startsWith("[c] seed ")).length);
const seen = (await call(b, "memory_recall", { query: "alpha wrote memory number 7", store: "c", limit: 20, mode: "vector" })).text;
check("a server sees what the other wrote", seen.includes("# alpha ") && seen.includes("# beta "), seen.slice(0, 300));
await a.close();
await b.close();
