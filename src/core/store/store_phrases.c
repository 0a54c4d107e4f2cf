/*
 * store_phrases.c — the rows each phrase of recent queries matched, kept
 * by the connection while the full-text index stays as it was (issue 28;
 * docs/store.md, "Hybrid recall").
 *
 * A session's recalls come back to the same words: the project's names,
 * "test", "error", "deploy". The common ones are what a lexical ranking
 * spends its time on (FTS5 walks their doclists, phrase positions
 * checked, for a third of the store), and their rows do not change while
 * nobody writes. store_bm25.c asks here first, and FTS5 only for a
 * phrase missing.
 *
 * Invariants:
 *  1. What is kept belongs to one state of the index, named by its key:
 *     FTS5's structure record (entries_fts_data, id 10), which every
 *     change to the index rewrites when it commits: a new segment (its
 *     write counter only grows), a merge, a rebuild, whoever writes. A key
 *     that differs drops everything. The caller reads the key and the
 *     phrases in one read transaction (store_bm25.c), so they are of one
 *     state; inside a transaction of its own nothing here is used: its
 *     uncommitted rows are in FTS5's pending terms, not in the record.
 *  2. A phrase's postings are what FTS5 gives for the phrase alone: every
 *     row holding it, in rowid order, with its weighted count and where
 *     its last instance ends in each column. They do not depend on the
 *     query around the phrase.
 *  3. Bounded: PHRASES_MAX postings in all, the phrases used least
 *     recently dropped first; a phrase bigger than that is not kept.
 *  4. Every row's length, read in one scan of entries_fts_docsize the
 *     first time a ranking of this key asks (12 bytes a row), so that a
 *     ranking knows each matching row's exact score without a lookup.
 */
#include "core/store/store.h"

#include <stdlib.h>
#include <string.h>

#include "core/store/store_int.h"
#include "util/xmalloc.h"

/* ~20 bytes a posting: 1,000,000 is ~20 MB, every row of a 100,000-
 * memory store for ten common words */
#define PHRASES_MAX	1000000

struct phrase_entry {
	char			*phrase;	/* as quoted in the MATCH */
	struct bm25_postings	 p;
	uint64_t		 used;
};

struct store_phrases {
	void			*key;		/* the structure record */
	int			 nkey;
	bool			 totals;	/* nrow, ntoken known */
	sqlite3_int64		 nrow, ntoken;
	struct phrase_entry	*v;
	size_t			 n, cap;
	size_t			 postings;	/* in all entries */
	uint64_t		 clock;
	struct store_lengths	 len;		/* invariant 4 */
	bool			 have_len;
};

static const char	phrases_key;	/* store_attach's key */

void
store_postings_release(struct bm25_postings *p)
{
	free(p->rowid);
	free(p->freq);
	free(p->end);
	memset(p, 0, sizeof(*p));
}

static void
phrases_clear(struct store_phrases *c)
{
	size_t	i;

	for (i = 0; i < c->n; i++) {
		free(c->v[i].phrase);
		store_postings_release(&c->v[i].p);
	}
	c->n = 0;
	c->postings = 0;
	c->totals = false;
	free(c->len.rowid);
	free(c->len.len);
	memset(&c->len, 0, sizeof(c->len));
	c->have_len = false;
}

static void
phrases_free(void *data)
{
	struct store_phrases	*c = data;

	phrases_clear(c);
	free(c->v);
	free(c->key);
	free(c);
}

/* Whether the record read by stmt is c's key; if not, make it so. */
static void
phrases_rekey(struct store_phrases *c, sqlite3_stmt *stmt)
{
	const void	*blob = sqlite3_column_blob(stmt, 0);
	int		 n = sqlite3_column_bytes(stmt, 0);

	if (c->key != NULL && n == c->nkey && memcmp(blob, c->key, n) == 0)
		return;
	phrases_clear(c);
	free(c->key);
	c->key = xmalloc((size_t)n + 1);
	memcpy(c->key, blob, (size_t)n);
	c->nkey = n;
}

struct store_phrases *
store_phrases_open(struct store *st)
{
	struct store_phrases	*c = store_attached(st, &phrases_key);
	sqlite3_stmt		*stmt = NULL;

	if (sqlite3_prepare_v2(st->db, "SELECT block FROM entries_fts_data "
	    "WHERE id = 10", -1, &stmt, NULL) != SQLITE_OK ||
	    sqlite3_step(stmt) != SQLITE_ROW) {
		sqlite3_finalize(stmt);
		return NULL;		/* no index of FTS5's making */
	}
	if (c == NULL) {
		c = xcalloc(1, sizeof(*c));
		if (store_attach(st, &phrases_key, c, phrases_free) != 0) {
			free(c);
			sqlite3_finalize(stmt);
			return NULL;
		}
	}
	phrases_rekey(c, stmt);
	sqlite3_finalize(stmt);
	return c;
}

const struct bm25_postings *
store_phrases_get(struct store_phrases *c, const char *phrase,
    sqlite3_int64 *nrow, sqlite3_int64 *ntoken)
{
	size_t	i;

	for (i = 0; i < c->n; i++)
		if (strcmp(c->v[i].phrase, phrase) == 0) {
			c->v[i].used = ++c->clock;
			if (c->totals) {
				*nrow = c->nrow;
				*ntoken = c->ntoken;
			}
			return &c->v[i].p;
		}
	return NULL;
}

/* Drop the least recently used entry. */
static void
phrases_evict(struct store_phrases *c)
{
	size_t	i, old = 0;

	for (i = 1; i < c->n; i++)
		if (c->v[i].used < c->v[old].used)
			old = i;
	c->postings -= c->v[old].p.n;
	free(c->v[old].phrase);
	store_postings_release(&c->v[old].p);
	c->v[old] = c->v[--c->n];
}

void
store_phrases_put(struct store_phrases *c, const char *phrase,
    struct bm25_postings *p, sqlite3_int64 nrow, sqlite3_int64 ntoken)
{
	struct phrase_entry	*e;

	if (p->n > PHRASES_MAX) {
		store_postings_release(p);
		return;
	}
	while (c->n > 0 && c->postings + p->n > PHRASES_MAX)
		phrases_evict(c);
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 16;
		c->v = xreallocarray(c->v, c->cap, sizeof(*c->v));
	}
	e = &c->v[c->n++];
	e->phrase = xstrdup(phrase);
	e->p = *p;
	e->used = ++c->clock;
	memset(p, 0, sizeof(*p));
	c->postings += e->p.n;
	if (nrow >= 0) {
		c->nrow = nrow;
		c->ntoken = ntoken;
		c->totals = true;
	}
}

int
store_docsize_len(const unsigned char *sz, int n, int ncol, uint32_t *len)
{
	int	c, off = 0, i;

	*len = 0;
	for (c = 0; c < ncol; c++) {
		uint64_t	x = 0;

		/* SQLite's varint: 7 bits a byte, all 8 in a ninth */
		for (i = 0; off + i < n && i < 9; i++) {
			x = i == 8 ? (x << 8) | sz[off + i] :
			    (x << 7) | (sz[off + i] & 0x7f);
			if (i == 8 || (sz[off + i] & 0x80) == 0)
				break;
		}
		if (off + i == n)
			return -1;	/* the blob ends inside a varint */
		off += i + 1;
		*len += (uint32_t)x;
	}
	return 0;
}

const struct store_lengths *
store_phrases_lengths(struct store *st, struct store_phrases *c, bool read)
{
	sqlite3_stmt	*stmt = NULL;
	size_t		 cap = 0;
	uint32_t	 len;
	int		 step;

	if (c->have_len || !read)
		return c->have_len ? &c->len : NULL;
	if (sqlite3_prepare_v2(st->db, "SELECT id, sz FROM "
	    "entries_fts_docsize", -1, &stmt, NULL) != SQLITE_OK)
		return NULL;
	while ((step = sqlite3_step(stmt)) == SQLITE_ROW) {
		if (store_docsize_len(sqlite3_column_blob(stmt, 1),
		    sqlite3_column_bytes(stmt, 1), 2, &len) != 0)
			break;
		if (c->len.n == cap) {
			cap = cap ? 2 * cap : 1024;
			c->len.rowid = xreallocarray(c->len.rowid, cap,
			    sizeof(*c->len.rowid));
			c->len.len = xreallocarray(c->len.len, cap,
			    sizeof(*c->len.len));
		}
		c->len.rowid[c->len.n] = sqlite3_column_int64(stmt, 0);
		c->len.len[c->len.n++] = len;
	}
	sqlite3_finalize(stmt);
	if (step != SQLITE_DONE) {	/* a damaged length: look rows up */
		free(c->len.rowid);
		free(c->len.len);
		memset(&c->len, 0, sizeof(c->len));
		return NULL;
	}
	c->have_len = true;
	return &c->len;
}
