// original-remember.mjs — the original's memory_remember, reconstructed,
// for memory_remember beside thatch's at 1,000 memories (bench/b150-load.sh).
//
//   bun original-remember.mjs ONNX_DIR DB ORIGINAL_SQL N TEXTS
//
// The original (npm @jeffober/thatch 0.1.30) is not on the registry this
// project reaches, so this is a reconstruction, not the original: what
// its memory_remember does per call, on its runtime (Bun, bun:sqlite) and
// its embedding stack (transformers.js, the feature-extraction pipeline
// with mean pooling and L2 normalisation, passages without a prefix;
// stats.mjs), in its order (seeds: the write path; store-and-tools §4.3,
// §5.4, §1.6): embed "# label\n\ncontent", the write-time similarity scan
// of the store (every row's BLOB decoded, cosine in double, >= 0.85, top
// 3), INSERT OR IGNORE the store, the plain INSERT, the answer text. The
// statements are the ones tests/hosts/original/v0130.js replays. Not
// included: the MCP transport and zod's validation (thatch's side pays
// its transport), so the reconstruction errs in the original's favour.
//
// DB is created with ORIGINAL_SQL (the original's schema) and filled with
// N memories with random unit vectors in store "bench"; TEXTS holds one
// JSON {"label", "content"} a line (`b200-mcp texts ROUNDS`: the very
// memories thatch's side saves). Prints the record
// "memory_remember N | original".
import { Database } from "bun:sqlite";
import { readFileSync } from "node:fs";
import { extractor, record, timed } from "./stats.mjs";

const [dir, path, sql, count, textsFile] = process.argv.slice(2);
const MODEL = "Xenova/bge-small-en-v1.5", STORE = "bench", DIM = 384;

const db = new Database(path, { create: true });
db.exec(readFileSync(sql, "utf8"));
db.exec("INSERT OR IGNORE INTO stores (name) VALUES ('global')");

// xorshift64 as bench.h's: random unit vectors, the same on every run
let rng = 88172645463325252n;
const M64 = (1n << 64n) - 1n;
function uniform() {
	rng ^= (rng << 13n) & M64; rng ^= rng >> 7n; rng ^= (rng << 17n) & M64;
	return Number(rng >> 11n) / 9007199254740992;
}
function randomUnit() {
	const v = new Float32Array(DIM);
	let n = 0;
	for (let i = 0; i < DIM; i++) {
		v[i] = Math.sqrt(-2 * Math.log(uniform() + 1e-300)) * Math.cos(2 * Math.PI * uniform());
		n += v[i] * v[i];
	}
	return v.map((x) => x / Math.sqrt(n));
}

const blob = (v) => new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
const now = () => new Date().toISOString();
const slugify = (s) => s.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "");

function populate(n) {
	const insert = db.query("INSERT INTO entries (slug, store, label, content, embedding, model, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
	db.query("INSERT OR IGNORE INTO stores (name) VALUES (?)").run(STORE);
	db.transaction(() => {
		for (let i = 0; i < n; i++)
			insert.run(`memory-${i}`, STORE, `memory ${i}`, `# memory ${i}\n\nfact ${i}`,
				blob(randomUnit()), MODEL, "2025-01-01T00:00:00.000Z", "2025-01-01T00:00:00.000Z");
	})();
}

// §5.1: in double, never assuming unit vectors
function cosine(a, b) {
	let dot = 0, na = 0, nb = 0;
	for (let i = 0; i < a.length; i++) {
		dot += a[i] * b[i]; na += a[i] * a[i]; nb += b[i] * b[i];
	}
	const d = Math.sqrt(na) * Math.sqrt(nb);
	return d === 0 ? 0 : dot / d;
}

// §5.4: the write-time similarity check
function findSimilar(store, vec, excludeSlug) {
	const hits = [];
	for (const r of db.query("SELECT slug, label, embedding FROM entries WHERE store = ? AND archived = 0 AND embedding IS NOT NULL").all(store)) {
		if (r.slug === excludeSlug)
			continue;
		const e = r.embedding;	// honour the view's offset and length (§1.6)
		const v = new Float32Array(e.buffer.slice(e.byteOffset, e.byteOffset + e.byteLength));
		if (v.length !== vec.length)
			continue;
		const score = cosine(vec, v);
		if (score >= 0.85)
			hits.push({ label: r.label, score: Math.round(score * 1000) / 1000 });
	}
	return hits.sort((a, b) => b.score - a.score).slice(0, 3);
}

// §4.3 for a new memory (overwrite false), steps 2-8
async function memoryRemember(embed, label, content, store) {
	const text = `# ${label}\n\n${content}`;
	const vec = await embed(text);
	const slug = slugify(label);
	const similar = findSimilar(store, vec, slug);
	db.query("INSERT OR IGNORE INTO stores (name) VALUES (?)").run(store);
	const t = now();
	try {
		db.query("INSERT INTO entries (slug, store, label, content, embedding, model, branch, confidence, archived, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
			.run(slug, store, label, text, blob(vec), MODEL, null, null, 0, t, t);
	} catch (e) {
		if (String(e.code ?? e).includes("CONSTRAINT"))
			return `a memory with label "${label}" already exists in store "${store}"; pass overwrite: true to replace it`;
		throw e;
	}
	let out = `[saved] ${store} :: ${label}`;
	if (similar.length > 0)
		out += "\n\n⚠ similar:\n" + similar.map((h) => `  - "${h.label}" (similarity ${h.score})`).join("\n");
	return out;
}

populate(Number(count));
const embed = await extractor(dir);
const texts = readFileSync(textsFile, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
await memoryRemember(embed, "warm up the model", "the first call loads it", STORE);
const samples = [];
for (const { label, content } of texts)
	samples.push(await timed(() => memoryRemember(embed, label, content, STORE)));
record(`memory_remember ${count} | original`, samples);
db.close();
