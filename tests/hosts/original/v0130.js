// v0130.js — the original thatch v0.1.30's database statements, run by its
// own runtime (Bun, bun:sqlite: the SQLite build the original opens the file
// with), for the tests that share one database with it. The original's
// package is not on the registry the tests reach, so this replays what it
// does at start and on each tool, from the spec (store-and-tools §1.2, §1.5,
// §4.3-§4.7; engines-and-extras §A9), never from thatch's code.
//
//   bun v0130.js start                      init + seed its nine defaults
//   bun v0130.js remember LABEL CONTENT STORE [overwrite]
//   bun v0130.js forget LABEL STORE
//   bun v0130.js list STORE                 one "label\tcontent" line each
//   bun v0130.js read STORE                 the rows recall scans: a count
//
// The database is THATCH_DB_PATH; the original's DDL is ORIGINAL_SQL.
// Every command ends with "ok" on success, so a test can tell a failed
// statement (an exception: exit 1) from an empty answer.
import { Database } from "bun:sqlite";
import { readFileSync } from "node:fs";

const VERSION = "0.1.30";
const DIM = 384;	// bge-small, the original's default model
const KEYS = ["session-wrap-up", "work-finalization", "research-new-project",
	"day-turnover-coding", "day-turnover-pr", "day-turnover-review",
	"snag-dead-end", "debugging-git-archaeology", "planning-git-archaeology"];

// A stand-in passage embedding: deterministic, the original's dimension.
function embed(text) {
	const v = new Float32Array(DIM);
	for (let i = 0; i < text.length; i++)
		v[(i * 31 + text.charCodeAt(i)) % DIM] += 1;
	return new Uint8Array(v.buffer);
}

const now = () => new Date().toISOString();
const slugify = (s) => s.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "");

// §1.2 and §1.5: pragmas, CREATE TABLE IF NOT EXISTS, the global store.
function open() {
	const db = new Database(process.env.THATCH_DB_PATH, { create: true });
	db.exec(readFileSync(process.env.ORIGINAL_SQL, "utf8"));
	db.exec("INSERT OR IGNORE INTO stores (name) VALUES ('global')");
	return db;
}

// §A9 as the original's code does it: by key, its program version.
function seed(db) {
	for (const key of KEYS) {
		const rationale = `the original's ${key} rule seed-key:${key} seed-version:${VERSION}`;
		const found = db.query("SELECT id, rationale FROM behaviors WHERE store = 'global' AND rationale LIKE ? ORDER BY confidence DESC, rowid")
			.all(`%seed-key:${key}%`)
			.find((r) => r.rationale.match(/seed-key:(\S+)/)?.[1] === key);
		let matcher = null;
		if (found) {
			if (found.rationale.match(/seed-version:(\S+)/)?.[1] === VERSION)
				continue;
			matcher = db.query("SELECT matcher_id FROM behavior_edges WHERE behavior_id = ? ORDER BY rowid LIMIT 1").get(found.id)?.matcher_id ?? null;
			db.query("DELETE FROM behaviors WHERE id = ?").run(found.id);
		}
		if (matcher === null) {
			matcher = crypto.randomUUID();
			db.query("INSERT INTO behavior_matchers (id, store, description, embedding, model, created_at, updated_at) VALUES (?, 'global', ?, ?, 'Xenova/bge-small-en-v1.5', ?, ?)")
				.run(matcher, `the situation of ${key}`, embed(key), now(), now());
		}
		const id = crypto.randomUUID();
		db.query("INSERT INTO behaviors (id, store, statement, rationale, embedding, model, created_at, updated_at) VALUES (?, 'global', ?, ?, ?, 'Xenova/bge-small-en-v1.5', ?, ?)")
			.run(id, `the original's behavior for ${key}`, rationale, embed(key + "!"), now(), now());
		db.query("INSERT INTO behavior_edges (matcher_id, behavior_id, weight, created_at) VALUES (?, ?, 1.0, ?)").run(matcher, id, now());
		db.query("INSERT INTO behavior_provenance (id, behavior_id, signal, detail, created_at) VALUES (?, ?, 'codify', ?, ?)")
			.run(crypto.randomUUID(), id, rationale, now());
	}
}

// §4.3 steps 6-7: insert-and-catch, or the overwrite upsert and verdicts.
function remember(db, label, content, store, overwrite) {
	const slug = slugify(label), text = `# ${label}\n\n${content}`, t = now();
	db.query("INSERT OR IGNORE INTO stores (name) VALUES (?)").run(store);
	if (!overwrite) {
		db.query("INSERT INTO entries (slug, store, label, content, embedding, model, branch, confidence, archived, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 'Xenova/bge-small-en-v1.5', NULL, NULL, 0, ?, ?)")
			.run(slug, store, label, text, embed(text), t, t);
		return;
	}
	db.query(`INSERT INTO entries (slug, store, label, content, embedding, model, branch, confidence, archived, created_at, updated_at)
		VALUES (?1, ?2, ?3, ?4, ?5, 'Xenova/bge-small-en-v1.5', NULL, NULL, COALESCE(NULL, 0), ?6, ?6)
		ON CONFLICT(slug, store) DO UPDATE SET label = excluded.label, content = excluded.content,
		embedding = excluded.embedding, model = excluded.model, branch = COALESCE(excluded.branch, entries.branch),
		confidence = COALESCE(excluded.confidence, entries.confidence), archived = COALESCE(NULL, entries.archived),
		updated_at = excluded.updated_at`).run(slug, store, label, text, embed(text), t);
	db.query("DELETE FROM dedup_pairs WHERE store = ? AND (slug_a = ? OR slug_b = ?)").run(store, slug, slug);
}

const [cmd, ...args] = process.argv.slice(2);
const db = open();
switch (cmd) {
case "start":
	seed(db);
	break;
case "remember":
	remember(db, args[0], args[1], args[2], args[3] === "overwrite");
	break;
case "forget":
	db.query("DELETE FROM entries WHERE slug = ? AND store = ?").run(slugify(args[0]), args[1]);
	db.query("DELETE FROM dedup_pairs WHERE store = ? AND (slug_a = ? OR slug_b = ?)").run(args[1], slugify(args[0]), slugify(args[0]));
	break;
case "list":
	for (const r of db.query("SELECT label, content FROM entries WHERE store = ? ORDER BY label").all(args[0]))
		console.log(`${r.label}\t${r.content.replace(/\n/g, "\\n")}`);
	break;
case "read":
	console.log(db.query("SELECT slug, label, content, embedding, model, branch, confidence, created_at, updated_at, recall_count, last_recalled_at, archived FROM entries WHERE store IN (?, 'global') AND embedding IS NOT NULL").all(args[0]).length);
	break;
default:
	throw new Error(`unknown command ${cmd}`);
}
db.close();
console.log("ok");
