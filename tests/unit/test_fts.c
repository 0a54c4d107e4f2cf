/*
 * test_fts.c — hybrid recall (store_fts.c, store_search.c): the query's
 * tokens, what the trigram index finds, the fused order, the
 * store/branch/archived rules on the lexical side, writes by another
 * connection (the original), the index built for an existing file, a
 * read-only file searched by vector alone, and the lexical order being
 * SQLite's ORDER BY bm25, ties included, on random stores too, with
 * store_bm25.c's scores equal to SQLite's bit for bit and its work
 * bounded by the rows that may rank.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "check.h"
#include "core/store/store.h"
#include "core/store/store_int.h"
#include "tmpdb.h"
#include "util/err.h"
#include "util/sbuf.h"

/* Memories in store p; vectors in 2 dimensions. */
static void
put(struct store *st, const char *store, const char *slug,
    const char *content, const float *v, const char *branch, int archived)
{
	struct store_write	 w = {
		.store = store, .slug = slug, .label = slug,
		.content = content, .vec = v, .dim = v == NULL ? 0 : 2,
		.branch = branch, .archived = archived, .overwrite = true,
		.now = "2025-01-01T00:00:00.000Z",
	};
	enum store_write_result	 res;
	struct err		 err = { "" };

	if (store_remember(st, &w, &res, &err) != 0 || res != STORE_SAVED)
		CHECK_FAIL("store_remember %s: %s", slug, err.msg);
}

/* The slugs store_search returns, each followed by ',' and, for a hit
 * only the lexical side brought, '*'. */
static const char *
search(struct store *st, const char *text, const float *v,
    enum store_mode mode, const char *branch, bool archived, char *buf)
{
	const char		*stores[] = { "p" };
	struct store_query	 q = {
		.stores = stores, .nstores = 1, .vec = v, .dim = 2,
		.branch = branch, .limit = 3, .include_archived = archived,
		.min_score = -2, .text = text, .mode = mode,
	};
	struct store_hits	 hits;
	struct err		 err = { "" };
	size_t			 i;

	*buf = '\0';
	if (store_search(st, &q, &hits, &err) != 0)
		CHECK_FAIL("store_search: %s", err.msg);
	for (i = 0; i < hits.n; i++) {
		strcat(buf, hits.v[i].e.slug);
		strcat(buf, hits.v[i].lexical_only ? "*," : ",");
	}
	store_hits_release(&hits);
	return buf;
}

static void
query_tokens_split_names_from_words(void)
{
	struct fts_terms	t = { SBUF_INIT, SBUF_INIT, SBUF_INIT, SBUF_INIT };

	store_fts_match("Why does `ERR_SSL_PROTOCOL_ERROR` hit src/core/"
	    "store.c, useEffect or ENOENT? the \"db\" x.y THATCH_DB_PATH", &t);
	CHECK_STR(t.idents.buf, "\"ERR_SSL_PROTOCOL_ERROR\" OR "
	    "\"src/core/store.c\" OR \"useEffect\" OR \"ENOENT\" OR \"x.y\""
	    " OR \"THATCH_DB_PATH\"");
	CHECK_STR(t.words.buf, "\"ERR_SSL_PROTOCOL_ERROR\" OR \"hit\" OR "
	    "\"src/core/store.c\" OR \"useEffect\" OR \"ENOENT\" OR "
	    "\"x.y\" OR \"THATCH_DB_PATH\"");
	/* a name's snake_case and camelCase parts, all of them, as one
	 * group (THATCH_DB_PATH has one too short for trigrams: none) */
	CHECK_STR(t.parts.buf, "(\"ERR\" AND \"SSL\" AND \"PROTOCOL\" AND "
	    "\"ERROR\") OR (\"use\" AND \"Effect\")");
	CHECK(t.shorts.buf == NULL);
	store_fts_terms_release(&t);
	store_fts_match("say \"abc\"\"def\" hi", &t);
	CHECK_STR(t.words.buf, "\"say\" OR \"abc\" OR \"def\"");	/* no quote leaks */
	store_fts_terms_release(&t);
	/* typographic quotes are punctuation; '#' before a digit is kept */
	store_fts_match("“useEffect” fixed in #88, HTTPServer", &t);
	CHECK_STR(t.idents.buf, "\"useEffect\" OR \"#88\" OR \"HTTPServer\"");
	store_fts_terms_release(&t);
	/* unspaced scripts: cut where the script changes, particles left
	 * out, two characters for the scan, a Chinese phrase's trigrams */
	store_fts_match("キャッシュを削除する、如何迁移数据库", &t);
	CHECK_STR(t.words.buf, "\"キャッシュ\" OR \"如何迁移数据库\" OR "
	    "\"如何迁\" OR \"何迁移\" OR \"迁移数\" OR \"移数据\" OR "
	    "\"数据库\"");
	CHECK_STR(t.shorts.buf, "削除");
	store_fts_terms_release(&t);
}

static void
lexical_finds_code(void)
{
	struct store	*st = tmpdb_open("code");
	float		 v[2] = { 1, 0 };
	char		 buf[256];

	put(st, "p", "ssl", "ERR_SSL_PROTOCOL_ERROR behind the proxy", v,
	    NULL, -1);
	put(st, "p", "path", "search lives in src/core/store_search.c", v,
	    NULL, -1);
	put(st, "p", "hook", "React useEffect runs after paint", v, NULL, -1);
	put(st, "p", "ns", "call std::filesystem::path for it", v, NULL, -1);
	put(st, "p", "zh", "数据库迁移需要备份", v, NULL, -1);
	CHECK_STR(search(st, "err_ssl_protocol_error", v, STORE_LEXICAL, NULL,
	    false, buf), "ssl*,");
	CHECK_STR(search(st, "store_search.c", v, STORE_LEXICAL, NULL, false,
	    buf), "path*,");
	CHECK_STR(search(st, "core/store_search", v, STORE_LEXICAL, NULL,
	    false, buf), "path*,");
	CHECK_STR(search(st, "effect", v, STORE_LEXICAL, NULL, false, buf),
	    "hook*,");
	CHECK_STR(search(st, "filesystem::path", v, STORE_LEXICAL, NULL,
	    false, buf), "ns*,");
	CHECK_STR(search(st, "迁移需要", v, STORE_LEXICAL, NULL, false, buf),
	    "zh*,");
	CHECK_STR(search(st, "nothing-like-it", v, STORE_LEXICAL, NULL, false,
	    buf), "");
	put(st, "p", "ja", "ビルド前にキャッシュを削除する", v, NULL, -1);
	put(st, "p", "ko", "배포 전에 캐시를 지우세요", v, NULL, -1);
	put(st, "p", "snake", "parse_http_header is slow", v, NULL, -1);
	put(st, "p", "ticket", "tracked in #88 and JIRA-4521", v, NULL, -1);
	/* two-character words of unspaced scripts, by the scan */
	CHECK_STR(search(st, "削除", v, STORE_LEXICAL, NULL, false, buf),
	    "ja*,");
	CHECK_STR(search(st, "배포", v, STORE_LEXICAL, NULL, false, buf),
	    "ko*,");
	put(st, "p", "quoted", "按 \"部署\" 键", v, NULL, -1);
	CHECK_STR(search(st, "部署", v, STORE_LEXICAL, NULL, false, buf),
	    "quoted*,");	/* the trigram 部署" quoted for FTS5 */
	/* a question in Japanese, a Chinese phrase around a stored word */
	CHECK_STR(search(st, "キャッシュの削除方法は？", v, STORE_LEXICAL,
	    NULL, false, buf), "ja*,");
	CHECK_STR(search(st, "如何迁移数据库", v, STORE_LEXICAL, NULL, false,
	    buf), "zh*,");
	/* a name finds the same name in the other case convention */
	CHECK_STR(search(st, "parseHttpHeader", v, STORE_LEXICAL, NULL, false,
	    buf), "snake*,");
	CHECK_STR(search(st, "#88", v, STORE_LEXICAL, NULL, false, buf),
	    "ticket*,");
	CHECK_STR(search(st, "“useEffect”", v, STORE_LEXICAL, NULL, false,
	    buf), "hook*,");
	store_close(st);
}

/* The one memory naming the query's identifier outranks every memory
 * only the embedding found, however close and however many those are
 * (more than the fusion reads of the cosine ranking before it estimates
 * the rest); scores stay the cosine. */
static void
fusion_puts_the_exact_name_first(void)
{
	struct store		*st = tmpdb_open("fuse");
	float			 near[2] = { 1, 0.01f }, far[2] = { -1, 0 };
	float			 q[2] = { 1, 0 };
	char			 buf[256], name[16];
	const char		*stores[] = { "p" };
	struct store_query	 sq = {
		.stores = stores, .nstores = 1, .vec = q, .dim = 2,
		.limit = 3, .min_score = -2, .text = "fix THATCH_DB_PATH",
	};
	struct store_hits	 hits;
	struct err		 err = { "" };
	int			 i;

	for (i = 0; i < 150; i++) {
		snprintf(name, sizeof(name), "n%03d", i);
		put(st, "p", name, "close in meaning", near, NULL, -1);
	}
	put(st, "p", "env", "set THATCH_DB_PATH to move it", far, NULL, -1);
	CHECK_STR(search(st, "fix THATCH_DB_PATH", q, STORE_VECTOR, NULL,
	    false, buf), "n000,n001,n002,");
	CHECK_STR(search(st, "fix THATCH_DB_PATH", q, STORE_HYBRID, NULL,
	    false, buf), "env*,n000,n001,");
	CHECK_INT(store_search(st, &sq, &hits, &err), 0);
	CHECK_INT(hits.n, 3);
	CHECK(fabs(hits.v[0].score + 1) < 1e-9);
	CHECK_INT(hits.v[0].lexical, STORE_LEX_IDENT);
	store_hits_release(&hits);
	/* without text, store_search is the §5.2 search it always was */
	sq.text = NULL;
	CHECK_INT(store_search(st, &sq, &hits, &err), 0);
	CHECK_STR(hits.v[0].e.slug, "n000");
	store_hits_release(&hits);
	store_close(st);
}

static void
lexical_side_keeps_the_rules(void)
{
	struct store	*st = tmpdb_open("rules");
	float		 v[2] = { 1, 0 };
	char		 buf[256];

	put(st, "p", "wide", "uses KEY_ALPHA", v, NULL, -1);
	put(st, "p", "feat", "uses KEY_ALPHA", v, "feat", -1);
	put(st, "p", "other", "uses KEY_ALPHA", v, "other", -1);
	put(st, "p", "empty", "uses KEY_ALPHA", v, "", -1);
	put(st, "p", "old", "uses KEY_ALPHA", v, NULL, 1);
	put(st, "q", "elsewhere", "uses KEY_ALPHA", v, NULL, -1);
	CHECK_STR(search(st, "KEY_ALPHA", v, STORE_LEXICAL, "feat", false,
	    buf), "wide*,feat*,");
	/* bm25: the shorter label ranks first */
	CHECK_STR(search(st, "KEY_ALPHA", v, STORE_LEXICAL, "feat", true,
	    buf), "old*,wide*,feat*,");
	store_close(st);
}

/* Another connection's writes (the original's) are indexed by the
 * triggers in their own transaction; a rolled-back write leaves none. */
static void
other_writers_are_indexed(void)
{
	struct store	*st = tmpdb_open("other");
	sqlite3		*db;
	float		 v[2] = { 1, 0 };
	char		 buf[256], *path = xasprintf("%s", store_path(st));

	put(st, "p", "a", "first", v, NULL, -1);
	CHECK_INT(sqlite3_open(path, &db), SQLITE_OK);
	CHECK_INT(sqlite3_exec(db, "INSERT INTO entries (slug, store, label, "
	    "content) VALUES ('b', 'p', 'b', 'ORIG_WROTE_THIS'); "
	    "BEGIN; INSERT INTO entries (slug, store, label, content) "
	    "VALUES ('c', 'p', 'c', 'ROLLED_BACK_ROW'); ROLLBACK; "
	    "UPDATE entries SET content = 'renamed SECOND_NAME' WHERE "
	    "slug = 'a'", NULL, NULL, NULL), SQLITE_OK);
	CHECK_STR(search(st, "ORIG_WROTE_THIS", v, STORE_LEXICAL, NULL, false,
	    buf), "b*,");
	CHECK_STR(search(st, "ROLLED_BACK_ROW", v, STORE_LEXICAL, NULL, false,
	    buf), "");
	CHECK_STR(search(st, "first", v, STORE_LEXICAL, NULL, false, buf), "");
	CHECK_STR(search(st, "SECOND_NAME", v, STORE_LEXICAL, NULL, false,
	    buf), "a*,");
	CHECK_INT(sqlite3_exec(db, "DELETE FROM entries WHERE slug = 'b'; "
	    "INSERT INTO entries_fts(entries_fts) VALUES ('integrity-check')",
	    NULL, NULL, NULL), SQLITE_OK);
	CHECK_STR(search(st, "ORIG_WROTE_THIS", v, STORE_LEXICAL, NULL, false,
	    buf), "");
	sqlite3_close(db);
	store_close(st);
	free(path);
}

/* A file the original made (no index) gets one, of its rows, when
 * opened writable; an open that cannot write searches by vector alone. */
static void
existing_files_get_the_index_when_writable(void)
{
	struct store	*st = tmpdb_open("existing");
	float		 v[2] = { 1, 0 };
	char		 buf[256], *path = xasprintf("%s", store_path(st));
	struct err	 err = { "" };
	sqlite3		*db;

	put(st, "p", "a", "OLD_ROW_NAME", v, NULL, -1);
	store_close(st);
	CHECK_INT(sqlite3_open(path, &db), SQLITE_OK);
	CHECK_INT(sqlite3_exec(db, "DROP TABLE entries_fts; DROP TRIGGER "
	    "entries_fts_ai; DROP TRIGGER entries_fts_ad; DROP TRIGGER "
	    "entries_fts_au", NULL, NULL, NULL), SQLITE_OK);
	/* another process's write transaction: this open cannot write */
	CHECK_INT(sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL),
	    SQLITE_OK);
	CHECK_INT(store_open(path, &st, &err), 0);
	CHECK_STR(search(st, "OLD_ROW_NAME", v, STORE_LEXICAL, NULL, false,
	    buf), "");
	CHECK_STR(search(st, "OLD_ROW_NAME", v, STORE_HYBRID, NULL, false,
	    buf), "a,");
	store_close(st);
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	sqlite3_close(db);
	CHECK_INT(store_open(path, &st, &err), 0);
	CHECK_STR(search(st, "OLD_ROW_NAME", v, STORE_LEXICAL, NULL, false,
	    buf), "a*,");
	store_close(st);
	free(path);
}

/*
 * The lexical ranking is SQLite's ORDER BY bm25(entries_fts, 4.0, 1.0),
 * rowid under the store rule, ties included: 240 rows in two stores,
 * many of equal bm25 (the same counts of the word in texts of the same
 * length), read in lexical mode (whose order is the lexical rank's) as
 * deep as fusion reads.
 */
#define RANK_ROWS	240
#define RANK_DEPTH	100

static void
lexical_order_is_sqlites(void)
{
	struct store		*st = tmpdb_open("rank");
	const char		*stores[] = { "p" };
	struct store_query	 q = { .stores = stores, .nstores = 1,
				    .limit = RANK_DEPTH, .min_score = -2,
				    .text = "retry", .mode = STORE_LEXICAL };
	struct store_hits	 hits;
	struct err		 err = { "" };
	sqlite3_stmt		*stmt;
	char			 slug[16], text[128];
	size_t			 i = 0;
	int			 k;

	for (k = 0; k < RANK_ROWS; k++) {
		snprintf(slug, sizeof(slug), "r%03d", k);
		snprintf(text, sizeof(text), "%s%s%s queue %.*s",
		    k % 3 > 0 ? "retry " : "", k % 3 > 1 ? "retry " : "",
		    "retry", k % 5, "xxxxx");
		put(st, k % 4 == 3 ? "q" : "p", slug, text, NULL, NULL, -1);
	}
	CHECK_INT(store_search(st, &q, &hits, &err), 0);
	CHECK_INT(hits.n, RANK_DEPTH);
	CHECK_INT(sqlite3_prepare_v2(st->db, "SELECT e.slug FROM entries_fts "
	    "JOIN entries e ON e.rowid = entries_fts.rowid WHERE entries_fts "
	    "MATCH 'retry' AND e.store = 'p' ORDER BY bm25(entries_fts, 4.0, "
	    "1.0), entries_fts.rowid", -1, &stmt, NULL), SQLITE_OK);
	while (i < hits.n && sqlite3_step(stmt) == SQLITE_ROW)
		CHECK_STR(hits.v[i++].e.slug,
		    (const char *)sqlite3_column_text(stmt, 0));
	CHECK_INT(i, RANK_DEPTH);
	sqlite3_finalize(stmt);
	store_hits_release(&hits);
	store_close(st);
}

/*
 * The exact ranking (store_bm25.c) against SQLite's own: random stores of
 * a small vocabulary (so that rows tie, and common words match most
 * rows), copies of earlier rows (exact ties), several stores, branches
 * and archived rows; random queries of names and words. The oracle is
 * each MATCH group's ORDER BY bm25(entries_fts, 4.0, 1.0), rowid under the
 * same rules, deduplicated across groups in group order. Queries on one
 * connection come back to the same words, and rows are written between
 * them, by it and by another connection.
 */
static unsigned long	rng_state = 20261207;

static unsigned
rng(unsigned n)
{
	rng_state = rng_state * 6364136223846793005UL + 1442695040888963407UL;
	return (unsigned)((rng_state >> 33) % n);
}

static const char *const vocab[] = {
	"retry", "queue", "deploy", "cache", "token", "build", "tests",
	"webhook", "parse_http_header", "parseHttpHeader", "ECONNREFUSED",
	"src/core/store.c", "alpha", "beta", "gamma", "delta", "lorem",
	"ipsum", "the", "and", "payments", "retrying", "api", "sql", "Ärger",
	"ärger",
};
#define NVOCAB	(sizeof(vocab) / sizeof(vocab[0]))

static void
random_words(struct sbuf *b, unsigned n)
{
	unsigned	i;

	for (i = 0; i < n; i++) {
		if (i > 0)
			sbuf_addc(b, ' ');
		/* the first words most often: common and rare words */
		sbuf_adds(b, vocab[rng(1 + rng(NVOCAB))]);
	}
}

static void
random_store(struct store *st, int nrows)
{
	struct sbuf	label = SBUF_INIT, content = SBUF_INIT;
	char		slug[16];
	int		k;

	for (k = 0; k < nrows; k++) {
		struct store_write	w = { 0 };
		enum store_write_result	res;
		struct err		err = { "" };

		if (k == 0 || rng(5) > 0) {
			sbuf_reset(&label);
			sbuf_reset(&content);
			random_words(&label, 1 + rng(3));
			random_words(&content, 2 + rng(40));
		}
		snprintf(slug, sizeof(slug), "r%d", k);
		w.store = rng(4) == 0 ? "q" : "p";
		w.slug = slug;
		w.label = label.buf;
		w.content = content.buf;
		w.branch = rng(3) == 0 ? "dev" : rng(2) == 0 ? "main" : NULL;
		w.archived = rng(8) == 0 ? 1 : -1;
		w.overwrite = true;
		w.now = "2025-01-01T00:00:00.000Z";
		if (store_remember(st, &w, &res, &err) != 0 ||
		    res != STORE_SAVED)
			CHECK_FAIL("store_remember %s: %s", slug, err.msg);
	}
	sbuf_release(&label);
	sbuf_release(&content);
}

/* The oracle: one group's rows, appended to lx as store_fts_rank does. */
static void
oracle_group(struct store *st, const struct store_query *q,
    const char *match, int kind, struct store_lex *lx, size_t max,
    size_t *n)
{
	sqlite3_stmt	*stmt;
	size_t		 j;

	if (*match == '\0')
		return;
	CHECK_INT(sqlite3_prepare_v2(st->db, "SELECT f.rowid FROM "
	    "entries_fts f JOIN entries e ON e.rowid = f.rowid WHERE "
	    "entries_fts MATCH ?1 AND e.store = 'p' AND (?2 OR e.archived = 0) "
	    "AND (?3 IS NULL OR e.branch IS NULL OR e.branch = ?3) "
	    "ORDER BY bm25(entries_fts, 4.0, 1.0), f.rowid", -1, &stmt, NULL),
	    SQLITE_OK);
	sqlite3_bind_text(stmt, 1, match, -1, SQLITE_STATIC);
	sqlite3_bind_int(stmt, 2, q->include_archived);
	if (q->branch != NULL)
		sqlite3_bind_text(stmt, 3, q->branch, -1, SQLITE_STATIC);
	while (*n < max && sqlite3_step(stmt) == SQLITE_ROW) {
		sqlite3_int64	rowid = sqlite3_column_int64(stmt, 0);

		for (j = 0; j < *n && lx[j].rowid != rowid; j++)
			;
		if (j < *n)
			continue;
		lx[*n].rowid = rowid;
		lx[(*n)++].kind = kind;
	}
	sqlite3_finalize(stmt);
}

/* Every row of an OR of phrases, in store_bm25.c's order, with the very
 * bm25 SQLite computes for it. */
static void
bm25_equals_sqlites(struct store *st, const char *match)
{
	struct bm25_rank	*r;
	sqlite3_stmt		*stmt;
	struct err		 err = { "" };
	sqlite3_int64		 rowid;
	double			 bm25;

	CHECK_INT(store_bm25_rank(st, match, &r, &err), 0);
	CHECK_INT(sqlite3_prepare_v2(st->db, "SELECT rowid, bm25(entries_fts, "
	    "4.0, 1.0) FROM entries_fts WHERE entries_fts MATCH ?1 ORDER BY 2, "
	    "1", -1, &stmt, NULL), SQLITE_OK);
	sqlite3_bind_text(stmt, 1, match, -1, SQLITE_STATIC);
	while (sqlite3_step(stmt) == SQLITE_ROW) {
		CHECK_INT(store_bm25_next(st, r, &rowid, &bm25, &err), 1);
		CHECK_INT(rowid, sqlite3_column_int64(stmt, 0));
		CHECK(bm25 == sqlite3_column_double(stmt, 1));
	}
	CHECK_INT(store_bm25_next(st, r, &rowid, &bm25, &err), 0);
	sqlite3_finalize(stmt);
	store_bm25_free(r);
}

/*
 * A write between two queries, so that the phrases a connection keeps
 * (store_phrases.c) must follow the index: a new row through this
 * connection's remember, or a new row, changed content or label, or
 * deleted row through SQL, this connection's (patched in) or another's
 * (the original's writes; everything is read again).
 */
static void
random_write(struct store *st, sqlite3 *other, int *serial)
{
	struct sbuf	sql = SBUF_INIT, words = SBUF_INIT;
	char		slug[16];

	random_words(&words, 2 + rng(20));
	if (rng(2) == 0)
		other = st->db;
	switch (rng(5)) {
	case 0:
		snprintf(slug, sizeof(slug), "w%d", (*serial)++);
		put(st, "p", slug, words.buf, NULL, NULL, -1);
		break;
	case 1:
		sbuf_addf(&sql, "INSERT INTO entries (slug, store, label, "
		    "content) VALUES ('o%d', 'p', 'retry', '%s')", (*serial)++,
		    words.buf);
		break;
	case 2:
		sbuf_addf(&sql, "UPDATE entries SET content = '%s' WHERE rowid "
		    "= (SELECT min(rowid) + %u FROM entries)", words.buf,
		    rng(20));
		break;
	case 3:
		sbuf_addf(&sql, "UPDATE entries SET label = '%.*s' WHERE rowid "
		    "= (SELECT max(rowid) - %u FROM entries)", (int)words.len / 2,
		    words.buf, rng(20));
		break;
	default:
		sbuf_addf(&sql, "DELETE FROM entries WHERE rowid = (SELECT "
		    "min(rowid) + %u FROM entries)", rng(20));
	}
	if (sql.len > 0)
		CHECK_INT(sqlite3_exec(other, sql.buf, NULL, NULL, NULL),
		    SQLITE_OK);
	sbuf_release(&sql);
	sbuf_release(&words);
}

#define RANDOM_STORES	24
#define RANDOM_QUERIES	8

static void
lexical_rank_is_sqlites_on_random_stores(void)
{
	const char		*stores[] = { "p" };
	struct store_lex	 got[RANK_DEPTH], want[RANK_DEPTH];
	struct sbuf		 text = SBUF_INIT;
	struct err		 err = { "" };
	char			 name[32];
	size_t			 ng, nw, max, i;
	int			 s, k;

	for (s = 0; s < RANDOM_STORES; s++) {
		struct store	*st;
		sqlite3		*other;
		int		 serial = 0;

		snprintf(name, sizeof(name), "random%d", s);
		st = tmpdb_open(name);
		CHECK_INT(sqlite3_open(store_path(st), &other), SQLITE_OK);
		random_store(st, 20 + (int)rng(300));
		for (k = 0; k < RANDOM_QUERIES; k++) {
			int	writes = k > 0 && rng(2) == 0 ? 1 + rng(3) : 0;

			while (writes-- > 0)
				random_write(st, other, &serial);
			struct fts_terms	t = { SBUF_INIT, SBUF_INIT,
						    SBUF_INIT, SBUF_INIT };
			struct store_query	q = { .stores = stores,
						    .nstores = 1, .limit = 10,
						    .min_score = -2,
						    .mode = STORE_LEXICAL };

			sbuf_reset(&text);
			random_words(&text, 1 + rng(4));
			q.text = text.buf;
			q.include_archived = rng(2) == 0;
			q.branch = rng(2) == 0 ? "main" : NULL;
			max = rng(2) == 0 ? RANK_DEPTH : 1 + rng(12);
			CHECK_INT(store_fts_rank(st, &q, got, max, &ng, &err),
			    0);
			store_fts_match(text.buf, &t);
			nw = 0;
			oracle_group(st, &q, t.idents.buf ? t.idents.buf : "",
			    STORE_LEX_IDENT, want, max, &nw);
			oracle_group(st, &q, t.parts.buf ? t.parts.buf : "",
			    STORE_LEX_WORD, want, max, &nw);
			oracle_group(st, &q, t.words.buf ? t.words.buf : "",
			    STORE_LEX_WORD, want, max, &nw);
			if (ng != nw)
				CHECK_FAIL("'%s': %zu rows, SQLite %zu", text.buf,
				    ng, nw);
			for (i = 0; i < ng && i < nw; i++)
				if (got[i].rowid != want[i].rowid ||
				    got[i].kind != want[i].kind)
					CHECK_FAIL("'%s' row %zu: %lld, SQLite "
					    "%lld", text.buf, i,
					    (long long)got[i].rowid,
					    (long long)want[i].rowid);
			if (t.words.len > 0)
				bm25_equals_sqlites(st, t.words.buf);
			store_fts_terms_release(&t);
		}
		sqlite3_close(other);
		store_close(st);
	}
	sbuf_release(&text);
}

/* Rows m0..mn of store p, each holding "deploy", every one in every
 * holding "webhook" too. */
static void
deploy_rows(struct store *st, int n, int every)
{
	char	sql[512];

	put(st, "p", "m0", "deploy notes", NULL, NULL, -1);
	snprintf(sql, sizeof(sql), "INSERT INTO entries (slug, store, label, "
	    "content) WITH RECURSIVE n(k) AS (SELECT 1 UNION ALL SELECT k + 1 "
	    "FROM n WHERE k < %d) SELECT 'm' || k, 'p', 'm' || k, 'deploy "
	    "notes ' || iif(k %% %d = 7, 'webhook', 'other') || ' and more "
	    "text ' || k FROM n", n, every);
	CHECK_INT(sqlite3_exec(st->db, sql, NULL, NULL, NULL), SQLITE_OK);
}

/*
 * The work is bounded by the rows that may rank, not by the rows that
 * match: a common word in all 2,000 rows and a rare one in 20. The rare
 * word's rows outscore every row holding only the common word, so the
 * first 20 come after looking up the lengths of few rows beyond them.
 * Inside a transaction of the caller's, so that no lengths are kept
 * (store_phrases.c): every length is looked up, as in a first search.
 */
static void
ranking_scores_few_of_many_matches(void)
{
	struct store		*st = tmpdb_open("many");
	struct bm25_rank	*r;
	struct err		 err = { "" };
	sqlite3_int64		 rowid;
	double			 bm25;
	int			 k;

	deploy_rows(st, 2000, 100);
	CHECK_INT(sqlite3_exec(st->db, "BEGIN", NULL, NULL, NULL), SQLITE_OK);
	CHECK_INT(store_bm25_rank(st, "\"deploy\" OR \"webhook\"", &r, &err),
	    0);
	for (k = 0; k < 20; k++)
		CHECK_INT(store_bm25_next(st, r, &rowid, &bm25, &err), 1);
	CHECK(store_bm25_scored(r) > 0);
	CHECK(store_bm25_scored(r) < 100);
	store_bm25_free(r);
	CHECK_INT(sqlite3_exec(st->db, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
	store_close(st);
}

/* How many lengths ranking match looked up: 0 when every length was
 * kept (store_phrases.c). */
static size_t
lengths_looked_up(struct store *st, const char *match)
{
	struct bm25_rank	*r;
	struct err		 err = { "" };
	sqlite3_int64		 rowid;
	double			 bm25;
	size_t			 n;

	CHECK_INT(store_bm25_rank(st, match, &r, &err), 0);
	while (store_bm25_next(st, r, &rowid, &bm25, &err) == 1)
		;
	n = store_bm25_scored(r);
	store_bm25_free(r);
	bm25_equals_sqlites(st, match);
	return n;
}

/*
 * This connection's own writes are patched into what it keeps; another
 * connection's write drops it all. A common word makes the connection
 * keep every length, so a rare word's ranking then looks none up; after
 * a drop, the rare word alone does not read them all again, and looks
 * its rows' lengths up.
 */
static void
own_writes_keep_the_kept_lengths(void)
{
	struct store	*st = tmpdb_open("patch");
	sqlite3		*other;

	deploy_rows(st, 400, 50);
	CHECK(lengths_looked_up(st, "\"deploy\"") == 0);
	CHECK(lengths_looked_up(st, "\"webhook\"") == 0);
	CHECK(lengths_looked_up(st, "\"api\"") == 0);	/* one trigram */
	/* our own optimize rewrites the index, not a row of it */
	CHECK_INT(sqlite3_exec(st->db, "INSERT INTO entries_fts(entries_fts) "
	    "VALUES ('optimize')", NULL, NULL, NULL), SQLITE_OK);
	CHECK(lengths_looked_up(st, "\"webhook\"") == 0);
	put(st, "p", "new", "webhook deploy retry API", NULL, NULL, -1);
	CHECK_INT(sqlite3_exec(st->db, "UPDATE entries SET content = 'webhook "
	    "webhook' WHERE slug = 'm8'; DELETE FROM entries WHERE slug = "
	    "'m57'; UPDATE entries SET label = 'webhook' WHERE slug = 'm9'",
	    NULL, NULL, NULL), SQLITE_OK);
	CHECK(lengths_looked_up(st, "\"webhook\"") == 0);
	CHECK(lengths_looked_up(st, "\"deploy\" OR \"webhook\"") == 0);
	CHECK(lengths_looked_up(st, "\"api\"") == 0);
	/* a write rolled back changes nothing kept */
	CHECK_INT(sqlite3_exec(st->db, "BEGIN; DELETE FROM entries WHERE slug "
	    "= 'm107'; ROLLBACK", NULL, NULL, NULL), SQLITE_OK);
	CHECK(lengths_looked_up(st, "\"webhook\"") == 0);
	CHECK_INT(sqlite3_open(store_path(st), &other), SQLITE_OK);
	CHECK_INT(sqlite3_exec(other, "DELETE FROM entries WHERE slug = "
	    "'m207'", NULL, NULL, NULL), SQLITE_OK);
	CHECK(lengths_looked_up(st, "\"webhook\"") > 0);
	sqlite3_close(other);
	store_close(st);
}

static void
modes_parse(void)
{
	enum store_mode	m;

	CHECK_INT(store_mode_parse("lexical", &m), 0);
	CHECK_INT(m, STORE_LEXICAL);
	CHECK_INT(store_mode_parse("vector", &m), 0);
	CHECK_INT(m, STORE_VECTOR);
	CHECK_INT(store_mode_parse("hybrid", &m), 0);
	CHECK_INT(m, STORE_HYBRID);
	CHECK_INT(store_mode_parse("Hybrid", &m), -1);
}

static void
teardown(void)
{
	tmpdb_cleanup();
}

CHECK_MAIN(
	TEST(query_tokens_split_names_from_words),
	TEST(lexical_finds_code),
	TEST(fusion_puts_the_exact_name_first),
	TEST(lexical_side_keeps_the_rules),
	TEST(other_writers_are_indexed),
	TEST(existing_files_get_the_index_when_writable),
	TEST(lexical_order_is_sqlites),
	TEST(lexical_rank_is_sqlites_on_random_stores),
	TEST(ranking_scores_few_of_many_matches),
	TEST(own_writes_keep_the_kept_lengths),
	TEST(modes_parse),
	TEST(teardown)
)
