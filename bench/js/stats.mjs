// stats.mjs — what bench/js's programs share with bench/bench.h: timing one
// call's wall and CPU time, and the summary line and "@" record that
// bench/b150-load.sh collects (the same format as bench_record in
// bench.h: case, calls, median and p95 wall ms, total wall and CPU ms).
// CPU time is the whole process's (process.cpuUsage: every thread,
// onnxruntime's intra-op pool included), as thatch's is.

const cpuMs = () => {
	const u = process.cpuUsage();
	return (u.user + u.system) / 1e3;
};

// Time fn() (async) once: [wall ms, cpu ms].
export async function timed(fn) {
	const c0 = cpuMs(), t0 = performance.now();
	await fn();
	return [performance.now() - t0, cpuMs() - c0];
}

// Print samples [[wall, cpu], ...] as bench_record does.
export function record(name, samples) {
	const wall = samples.map((s) => s[0]).sort((a, b) => a - b);
	const n = wall.length, sum = (a) => a.reduce((x, y) => x + y, 0);
	const med = wall[Math.floor(n / 2)], p95 = wall[Math.floor(n * 0.95)];
	const tw = sum(wall), tc = sum(samples.map((s) => s[1]));
	console.log(`  ${name.padEnd(34)} median ${med.toFixed(2).padStart(8)} ms   p95 ${p95.toFixed(2).padStart(8)} ms   wall/cpu ${(tw / tc).toFixed(2)}   (${n} calls)`);
	console.log(`@\t${name}\t${n}\t${med.toFixed(3)}\t${p95.toFixed(3)}\t${tw.toFixed(3)}\t${tc.toFixed(3)}`);
}

// The pipeline as the original builds it (seeds: src/embeddings.ts): a
// feature-extraction pipeline on the fp32 export, mean pooling and L2
// normalisation as call options. dir is a local model folder (with
// onnx/model.onnx); nothing is fetched.
export async function extractor(dir, threads) {
	const { env, pipeline } = await import("@huggingface/transformers");
	const path = await import("node:path");
	env.allowRemoteModels = false;
	env.localModelPath = path.dirname(path.resolve(dir)) + "/";
	const opts = { dtype: "fp32" };
	if (threads !== undefined)
		opts.session_options = { intraOpNumThreads: threads };
	const pipe = await pipeline("feature-extraction", path.basename(dir), opts);
	const embed = async (text) => (await pipe(text, { pooling: "mean", normalize: true })).data;
	embed.tokens = (text) => pipe.tokenizer(text).input_ids.size;
	return embed;
}
