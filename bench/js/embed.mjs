// embed.mjs — transformers.js on onnxruntime, the original's embedding
// stack, beside thatch's b100-embed (bench/b150-load.sh).
//
//   node embed.mjs check ONNX_DIR TEXTS THATCH MODEL_DIR
//	embed each text with transformers.js on ONNX_DIR and with
//	`THATCH embed` on MODEL_DIR (the weights ONNX_DIR was exported from)
//	and print the largest difference of a component; exit 1 above 1e-4
//   node embed.mjs bench ONNX_DIR TEXTS ROUNDS [THREADS]
//	ROUNDS passage embeddings of each text after one warm-up, a record
//	"embed NAME | onnxruntime" each ("onnxruntime 1t" with THREADS 1:
//	onnxruntime's intra-op threads; its default when absent)
//
// TEXTS is bench/embed-texts.tsv (NAME<TAB>text a line, # comments).
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { extractor, record, timed } from "./stats.mjs";

const [mode, dir, file, ...rest] = process.argv.slice(2);
const texts = readFileSync(file, "utf8").split("\n")
	.filter((l) => l.includes("\t") && !l.startsWith("#")).map((l) => l.split("\t"));

async function check(thatch, model) {
	const embed = await extractor(dir);
	let worst = 0;
	for (const [name, text] of texts) {
		const ours = JSON.parse(execFileSync(thatch, ["embed", "--", text],
			{ env: { ...process.env, THATCH_MODEL: model } }));
		const theirs = await embed(text);
		if (ours.length !== theirs.length)
			throw new Error(`${name}: ${ours.length} dimensions against ${theirs.length}`);
		for (let i = 0; i < ours.length; i++)
			worst = Math.max(worst, Math.abs(ours[i] - theirs[i]));
	}
	console.log(`vectors: largest |thatch - transformers.js| over ${texts.length} texts = ${worst.toExponential(2)} (tolerance 1e-4)`);
	process.exitCode = worst <= 1e-4 ? 0 : 1;
}

async function bench(rounds, threads) {
	const embed = await extractor(dir, threads === undefined ? undefined : Number(threads));
	const who = threads === undefined ? "onnxruntime" : `onnxruntime ${threads}t`;
	for (const [name, text] of texts) {
		await embed(text);
		const samples = [];
		for (let i = 0; i < Number(rounds); i++)
			samples.push(await timed(() => embed(text)));
		record(`embed ${name} | ${who}`, samples);
		console.log(`    (${embed.tokens(text)} tokens)`);
	}
}

await (mode === "check" ? check(...rest) : bench(...rest));
