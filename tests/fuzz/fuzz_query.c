/*
 * fuzz_query.c — recall's query tokenizer (store_fts_match in
 * src/core/store/store_fts.c), which reads whatever an agent asks or a user
 * types in a prompt, and the lexical and hybrid search it drives (the
 * vocabulary lookup of two-character words included), on a private
 * database of a few memories in several scripts. An input is the query,
 * cut at its first NUL byte.
 *
 * Properties: every MATCH expression the tokenizer makes is one FTS5
 * accepts; each short word is two characters with no line break; no
 * query makes a search fail; every hit is a row of the searched store.
 * Then the input is remembered as a memory's content through the same
 * connection, which patches it into the phrases the connection keeps
 * (store_phrases.c, invariant 5: FTS5's tokenizer on the row's text), and
 * the words' ranking must be SQLite's own bm25 order, score for score.
 */
#include <stdbool.h>

#include "fuzz.h"

#include "core/store/store.h"
#include "core/store/store_int.h"
#include "util/err.h"
#include "util/sbuf.h"
#include "util/xmalloc.h"

static struct store	*st;
static sqlite3_stmt	*probe;

static const char *const contents[] = {
	"ERR_SSL_PROTOCOL_ERROR behind the proxy; see src/core/store.c",
	"React useEffect loops without deps; parse_http_header is slow",
	"ビルド前にキャッシュを削除する。数据库迁移需要备份",
	"배포 전에 캐시를 지우세요. Сборка требует очистки кэша \"部署\"",
};

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct store_write	 w = { .store = "f", .dim = 2, .archived = -1,
				    .overwrite = true,
				    .now = "2025-01-01T00:00:00.000Z" };
	enum store_write_result	 res;
	struct err		 err;
	float			 v[2] = { 1, 0 };
	char			 slug[16];
	size_t			 i;

	(void)argc;
	(void)argv;
	fuzz_env();
	if (store_open(getenv("THATCH_DB_PATH"), &st, &err) != 0) {
		fprintf(stderr, "%s\n", err.msg);
		abort();
	}
	w.vec = v;
	for (i = 0; i < sizeof(contents) / sizeof(contents[0]); i++) {
		snprintf(slug, sizeof(slug), "m%zu", i);
		w.slug = w.label = slug;
		w.content = contents[i];
		v[1] = (float)i;
		if (store_remember(st, &w, &res, &err) != 0) {
			fprintf(stderr, "%s\n", err.msg);
			abort();
		}
	}
	if (sqlite3_prepare_v2(store_db(st), "SELECT count(*) FROM entries_fts"
	    " WHERE entries_fts MATCH ?", -1, &probe, NULL) != SQLITE_OK)
		abort();
	return 0;
}

/* FTS5 takes expression m: a row, not a syntax error. */
static void
check_expr(const struct sbuf *m)
{
	if (m->len == 0)
		return;
	sqlite3_reset(probe);
	sqlite3_bind_text(probe, 1, m->buf, (int)m->len, SQLITE_STATIC);
	if (sqlite3_step(probe) != SQLITE_ROW) {
		fprintf(stderr, "FTS5 refused %s: %s\n", m->buf,
		    sqlite3_errmsg(store_db(st)));
		FUZZ_ASSERT(!"an expression FTS5 accepts");
	}
}

static void
check_shorts(const struct sbuf *s)
{
	const char	*w, *nl;
	size_t		 i, chars;

	for (w = s->buf; w != NULL && s->len > 0; w = nl == NULL ? NULL :
	    nl + 1) {
		nl = strchr(w, '\n');
		for (i = 0, chars = 0; w[i] != '\0' && w + i != nl; i++)
			chars += ((unsigned char)w[i] & 0xc0) != 0x80;
		FUZZ_ASSERT(chars == 2);
	}
}

/* The ranking of words (an OR of phrases), row for row and score for
 * score, is SQLite's ORDER BY bm25(entries_fts, 4.0, 1.0), rowid. */
static void
check_ranking(const struct sbuf *words)
{
	struct bm25_rank	*r;
	sqlite3_stmt		*stmt;
	struct err		 err;
	sqlite3_int64		 rowid;
	double			 bm25;
	int			 rc;

	if (words->len == 0 || store_bm25_rank(st, words->buf, &r, &err) != 0)
		return;		/* not an OR of phrases: bm25() ranks it */
	if (sqlite3_prepare_v2(store_db(st), "SELECT rowid, bm25(entries_fts,"
	    " 4.0, 1.0) FROM entries_fts WHERE entries_fts MATCH ?1 ORDER BY "
	    "2, 1", -1, &stmt, NULL) != SQLITE_OK)
		abort();
	sqlite3_bind_text(stmt, 1, words->buf, (int)words->len, SQLITE_STATIC);
	while (sqlite3_step(stmt) == SQLITE_ROW) {
		rc = store_bm25_next(st, r, &rowid, &bm25, &err);
		FUZZ_ASSERT(rc == 1);
		FUZZ_ASSERT(rowid == sqlite3_column_int64(stmt, 0));
		FUZZ_ASSERT(bm25 == sqlite3_column_double(stmt, 1));
	}
	FUZZ_ASSERT(store_bm25_next(st, r, &rowid, &bm25, &err) == 0);
	sqlite3_finalize(stmt);
	store_bm25_free(r);
}

/* The input as memory "x"'s content, through this connection. */
static void
remember_input(const char *text)
{
	float			 v[2] = { 0, 1 };
	struct store_write	 w = { .store = "f", .slug = "x", .label = "x",
				    .content = text, .vec = v, .dim = 2,
				    .archived = -1, .overwrite = true,
				    .now = "2025-01-01T00:00:00.000Z" };
	enum store_write_result	 res;
	struct err		 err;

	if (*text != '\0')
		(void)store_remember(st, &w, &res, &err);	/* bad input: */
}						/* refused, and that is all */

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum store_mode	 modes[] = { STORE_HYBRID,
					    STORE_LEXICAL };
	const char			*stores[] = { "f" };
	char				*text = xstrndup((const char *)data,
					    size);
	struct fts_terms		 t = { SBUF_INIT, SBUF_INIT, SBUF_INIT,
					    SBUF_INIT };
	float				 q[2] = { 1, 1 };
	struct store_query		 sq = { .stores = stores, .nstores = 1,
					    .vec = q, .dim = 2, .limit = 5,
					    .min_score = -2, .text = text };
	struct store_hits		 hits;
	struct err			 err;
	size_t				 i, k;

	store_fts_match(text, &t);
	check_expr(&t.idents);
	check_expr(&t.parts);
	check_expr(&t.words);
	check_shorts(&t.shorts);
	check_ranking(&t.words);	/* its phrases kept */
	remember_input(text);
	check_ranking(&t.words);	/* patched in */
	store_fts_terms_release(&t);
	for (k = 0; k < sizeof(modes) / sizeof(modes[0]); k++) {
		sq.mode = modes[k];
		if (store_search(st, &sq, &hits, &err) != 0) {
			fprintf(stderr, "search failed: %s\n", err.msg);
			FUZZ_ASSERT(!"no query makes a search fail");
		}
		for (i = 0; i < hits.n; i++)
			FUZZ_ASSERT(strcmp(hits.v[i].e.store, "f") == 0);
		store_hits_release(&hits);
	}
	free(text);
	return 0;
}
