/*
 * store_phrases.c — the rows each phrase of recent queries matched, kept
 * by the connection while the full-text index stays as it was, and
 * patched when only the connection's own writes changed it (issue 28;
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
 *     that differs drops everything, unless invariant 5 patches it to the
 *     new key. The caller reads the key and the
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
 *  5. This connection's own writes do not drop what is kept: they are
 *     patched in. The update hook (store_db.c) notes every row whose
 *     index entry changed (its entries_fts_docsize row, written exactly
 *     when FTS5 indexes or unindexes a row); when the key has moved but
 *     PRAGMA data_version has not (no other connection committed since
 *     the key was last checked), the changes are exactly those rows.
 *     Each is read again in the ranking's snapshot (label and content,
 *     the text its index entry was made from) and cut into tokens by
 *     FTS5's own tokenizer, as the table's definition names it (ours:
 *     trigram; any other definition drops everything); a phrase's
 *     instances in a row are where its query tokens follow one another
 *     in a column, as FTS5 matches a phrase. The row's token count must
 *     be its entries_fts_docsize length, and the kept lengths must add up
 *     to FTS5's totals (its averages record), or everything is dropped;
 *     so is it past TOUCHED_MAX rows, or when a read fails. Reading the
 *     phrases' postings of those rows from the index instead (a MATCH
 *     bound to the rowid) took ~0.3 ms a phrase at 100,000 rows: a
 *     trigram phrase is several big doclists to seek.
 */
#include "core/store/store.h"

#include <stdlib.h>
#include <string.h>

#include "core/store/store_int.h"
#include "util/err.h"
#include "util/sbuf.h"
#include "util/xmalloc.h"

/* ~20 bytes a posting: 1,000,000 is ~20 MB, every row of a 100,000-
 * memory store for ten common words */
#define PHRASES_MAX	1000000

/* Past this many rows changed by our own writes, reading everything
 * again costs no more than patching them in. */
#define TOUCHED_MAX	256

/* The table definition whose tokenizer invariant 5 reproduces: what
 * store_fts.c creates (and the original). */
#define FTS_TOKENIZE	"tokenize='trigram')"

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
	int			 data_version;	/* when the key was checked */
	fts5_tokenizer		 tok;		/* the table's, or none: */
	Fts5Tokenizer		*tokenizer;	/* invariant 5 */
	bool			 tok_tried;
	sqlite3_int64		*touched;	/* invariant 5 */
	size_t			 ntouched;
	bool			 overflow;	/* past TOUCHED_MAX */
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
	if (c->tokenizer != NULL)
		c->tok.xDelete(c->tokenizer);
	free(c->v);
	free(c->key);
	free(c->touched);
	free(c);
}

/* Invariant 5: a row FTS5 indexed or unindexed through this connection. */
static void
phrases_updated(void *arg, const char *table, sqlite3_int64 rowid)
{
	struct store_phrases	*c = arg;

	if (strcmp(table, "entries_fts_docsize") != 0)
		return;
	if (c->ntouched == TOUCHED_MAX) {
		c->overflow = true;
		return;
	}
	if (c->touched == NULL)
		c->touched = xreallocarray(NULL, TOUCHED_MAX,
		    sizeof(*c->touched));
	c->touched[c->ntouched++] = rowid;
}

/* SQLite's varint at p (n bytes): how many bytes it takes, 0 when it
 * runs past n. */
static int
varint_get(const unsigned char *p, int n, uint64_t *x)
{
	int	i;

	*x = 0;
	for (i = 0; i < n && i < 9; i++) {
		*x = i == 8 ? (*x << 8) | p[i] : (*x << 7) | (p[i] & 0x7f);
		if (i == 8 || (p[i] & 0x80) == 0)
			return i + 1;
	}
	return 0;
}

/* Where rowid is, or would go, in the ascending v[0..n). */
static size_t
rowid_at(const sqlite3_int64 *v, size_t n, sqlite3_int64 rowid)
{
	size_t	lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (v[mid] < rowid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Open a slot at i in v (n items of size bytes each, room for one
 * more), or close the one at i. */
static void
slot_open(void *v, size_t size, size_t n, size_t i)
{
	memmove((char *)v + (i + 1) * size, (char *)v + i * size,
	    (n - i) * size);
}

static void
slot_close(void *v, size_t size, size_t n, size_t i)
{
	memmove((char *)v + i * size, (char *)v + (i + 1) * size,
	    (n - i - 1) * size);
}

/* Make rowid's posting in p what the index holds now: has, freq, end. */
static void
postings_set(struct bm25_postings *p, sqlite3_int64 rowid, bool has,
    uint32_t freq, const uint32_t *end)
{
	size_t	i = rowid_at(p->rowid, p->n, rowid);
	bool	here = i < p->n && p->rowid[i] == rowid;

	if (!has && here) {
		slot_close(p->rowid, sizeof(*p->rowid), p->n, i);
		slot_close(p->freq, sizeof(*p->freq), p->n, i);
		slot_close(p->end, 2 * sizeof(*p->end), p->n, i);
		p->n--;
	} else if (has && !here) {
		if (p->n == p->cap) {
			p->cap = p->cap ? 2 * p->cap : 16;
			p->rowid = xreallocarray(p->rowid, p->cap,
			    sizeof(*p->rowid));
			p->freq = xreallocarray(p->freq, p->cap,
			    sizeof(*p->freq));
			p->end = xreallocarray(p->end, p->cap,
			    2 * sizeof(*p->end));
		}
		slot_open(p->rowid, sizeof(*p->rowid), p->n, i);
		slot_open(p->freq, sizeof(*p->freq), p->n, i);
		slot_open(p->end, 2 * sizeof(*p->end), p->n, i);
		p->n++;
	}
	if (has) {
		p->rowid[i] = rowid;
		p->freq[i] = freq;
		p->end[2 * i] = end[0];
		p->end[2 * i + 1] = end[1];
	}
}

/* Make rowid's length in l what the index holds now (has: it is
 * indexed, with length len). */
static void
lengths_set(struct store_lengths *l, sqlite3_int64 rowid, bool has,
    uint32_t len)
{
	size_t	i = rowid_at(l->rowid, l->n, rowid);
	bool	here = i < l->n && l->rowid[i] == rowid;

	if (here)
		l->sum -= l->len[i];
	if (has)
		l->sum += len;
	if (!has && here) {
		slot_close(l->rowid, sizeof(*l->rowid), l->n, i);
		slot_close(l->len, sizeof(*l->len), l->n, i);
		l->n--;
	} else if (has && !here) {
		if (l->n == l->cap) {
			l->cap = l->cap ? 2 * l->cap : 1024;
			l->rowid = xreallocarray(l->rowid, l->cap,
			    sizeof(*l->rowid));
			l->len = xreallocarray(l->len, l->cap,
			    sizeof(*l->len));
		}
		slot_open(l->rowid, sizeof(*l->rowid), l->n, i);
		slot_open(l->len, sizeof(*l->len), l->n, i);
		l->n++;
	}
	if (has) {
		l->rowid[i] = rowid;
		l->len[i] = len;
	}
}

/* The index's row and token counts, from FTS5's averages record (id 1:
 * a varint row count, then a varint token count a column). */
static int
read_totals(struct store *st, sqlite3_int64 *nrow, sqlite3_int64 *ntoken)
{
	sqlite3_stmt		*stmt = NULL;
	const unsigned char	*p;
	uint64_t		 x;
	int			 n, off, k, col, rc = -1;

	if (sqlite3_prepare_v2(st->db, "SELECT block FROM entries_fts_data "
	    "WHERE id = 1", -1, &stmt, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(stmt) == SQLITE_ROW) {
		p = sqlite3_column_blob(stmt, 0);
		n = sqlite3_column_bytes(stmt, 0);
		if ((off = varint_get(p, n, &x)) > 0) {
			*nrow = (sqlite3_int64)x;
			*ntoken = 0;
			for (col = 0; col < STORE_BM25_NCOL; col++,
			    off += k) {
				if ((k = varint_get(p + off, n - off, &x)) == 0)
					break;
				*ntoken += (sqlite3_int64)x;
			}
			rc = col == STORE_BM25_NCOL ? 0 : -1;
		}
	}
	sqlite3_finalize(stmt);
	return rc;
}

/* ---- Our own writes, tokenized as FTS5 tokenizes them (invariant 5) ---- */

/* One text's tokens, back to back in buf, token i from at[i] to at[i+1]. */
struct toks {
	struct sbuf	 buf;
	uint32_t	*at;
	size_t		 n, cap;
};

static int
tok_add(void *arg, int tflags, const char *tok, int ntok, int start,
    int end)
{
	struct toks	*t = arg;

	(void)start;
	(void)end;
	if ((tflags & FTS5_TOKEN_COLOCATED) != 0)
		return SQLITE_MISMATCH;	/* not trigram's: positions differ */
	if (t->n + 2 > t->cap) {
		t->cap = t->cap ? 2 * t->cap : 256;
		t->at = xreallocarray(t->at, t->cap, sizeof(*t->at));
	}
	if (t->n == 0)
		t->at[0] = 0;
	sbuf_add(&t->buf, tok, (size_t)ntok);
	t->at[++t->n] = (uint32_t)t->buf.len;
	return SQLITE_OK;
}

static int
tokenize(struct store_phrases *c, const char *text, size_t len, int flags,
    struct toks *t)
{
	sbuf_reset(&t->buf);
	t->n = 0;
	if (len > INT32_MAX)
		return -1;
	return c->tok.xTokenize(c->tokenizer, t, flags, text, (int)len,
	    tok_add) == SQLITE_OK ? 0 : -1;
}

static bool
tok_eq(const struct toks *a, size_t i, const struct toks *b, size_t j)
{
	uint32_t	n = a->at[i + 1] - a->at[i];

	return n == b->at[j + 1] - b->at[j] && memcmp(a->buf.buf + a->at[i],
	    b->buf.buf + b->at[j], n) == 0;
}

/*
 * The table's tokenizer, made once, when the table is ours (FTS_TOKENIZE
 * in its definition); false when it is not, or FTS5 cannot make it.
 */
static bool
tokenizer_ready(struct store *st, struct store_phrases *c)
{
	sqlite3_stmt	*stmt = NULL;
	fts5_api	*api;
	void		*ctx = NULL;
	const char	*sql;
	bool		 ours = false;

	if (c->tok_tried)
		return c->tokenizer != NULL;
	c->tok_tried = true;
	if (sqlite3_prepare_v2(st->db, "SELECT sql FROM sqlite_master WHERE "
	    "name = 'entries_fts'", -1, &stmt, NULL) == SQLITE_OK &&
	    sqlite3_step(stmt) == SQLITE_ROW &&
	    (sql = (const char *)sqlite3_column_text(stmt, 0)) != NULL)
		ours = strstr(sql, FTS_TOKENIZE) != NULL;
	sqlite3_finalize(stmt);
	if (!ours || (api = store_fts5_api(st)) == NULL ||
	    api->xFindTokenizer(api, "trigram", &ctx, &c->tok) != SQLITE_OK ||
	    c->tok.xCreate(ctx, NULL, 0, &c->tokenizer) != SQLITE_OK)
		c->tokenizer = NULL;
	return c->tokenizer != NULL;
}

/* A kept phrase as FTS5 reads it from the MATCH: its text between the
 * quotes ("" a quote), cut by the tokenizer as a query. */
static int
phrase_tokens(struct store_phrases *c, const char *quoted, struct toks *t)
{
	struct sbuf	text = SBUF_INIT;
	const char	*s;
	int		 rc;

	for (s = quoted + 1; *s != '\0' && s[1] != '\0'; s++) {
		sbuf_addc(&text, *s);
		if (*s == '"')
			s++;		/* the second of a doubled quote */
	}
	rc = tokenize(c, text.buf ? text.buf : "", text.len,
	    FTS5_TOKENIZE_QUERY, t);
	sbuf_release(&text);
	return rc;
}

/*
 * Phrase q's posting in the row whose columns' tokens are col: every place
 * its tokens follow one another in a column is an instance (overlapping
 * ones too, as FTS5 finds them). False when it has none.
 */
static bool
phrase_in_row(const struct toks *q, const struct toks *col, uint32_t *freq,
    uint32_t *end)
{
	size_t	ic, p, k;

	*freq = 0;
	end[0] = end[1] = 0;
	if (q->n == 0)
		return false;		/* FTS5 matches no row for it */
	for (ic = 0; ic < STORE_BM25_NCOL; ic++)
		for (p = 0; p + q->n <= col[ic].n; p++) {
			for (k = 0; k < q->n && tok_eq(&col[ic], p + k, q, k);
			    k++)
				;
			if (k < q->n)
				continue;
			*freq += STORE_BM25_WEIGHT(ic);
			end[ic] = (uint32_t)(p + q->n);
		}
	return *freq > 0;
}

/*
 * Row rowid as the index holds it now: its columns' tokens into col, and
 * 1; 0 when it is not indexed (deleted); -1 when it cannot be read or its
 * token count is not the length FTS5 stored for it.
 */
static int
row_tokens(struct store_phrases *c, sqlite3_stmt *text, sqlite3_stmt *size,
    sqlite3_int64 rowid, struct toks *col)
{
	uint32_t	len;
	int		step, ic;

	sqlite3_reset(size);
	sqlite3_bind_int64(size, 1, rowid);
	if ((step = sqlite3_step(size)) == SQLITE_DONE)
		return 0;
	if (step != SQLITE_ROW || store_docsize_len(sqlite3_column_blob(size,
	    0), sqlite3_column_bytes(size, 0), STORE_BM25_NCOL, &len) != 0)
		return -1;
	sqlite3_reset(text);
	sqlite3_bind_int64(text, 1, rowid);
	if (sqlite3_step(text) != SQLITE_ROW)
		return -1;
	for (ic = 0; ic < STORE_BM25_NCOL; ic++) {
		const unsigned char	*t = sqlite3_column_text(text, ic);

		if (tokenize(c, t ? (const char *)t : "",
		    (size_t)sqlite3_column_bytes(text, ic),
		    FTS5_TOKENIZE_DOCUMENT, &col[ic]) != 0)
			return -1;
		len -= (uint32_t)col[ic].n;	/* wraps unless it was all */
	}
	return len == 0 ? 1 : -1;
}

/* Every kept phrase's posting of row rowid, and its length, made what the
 * index holds now; q[i] is kept phrase i's tokens. */
static int
patch_row(struct store_phrases *c, sqlite3_stmt *text, sqlite3_stmt *size,
    sqlite3_int64 rowid, struct toks *col, const struct toks *q)
{
	uint32_t	freq = 0, end[STORE_BM25_NCOL] = { 0, 0 }, len = 0;
	size_t		i, ic;
	int		in;

	if ((in = row_tokens(c, text, size, rowid, col)) < 0)
		return -1;
	for (i = 0; i < c->n; i++) {
		bool	has = in == 1 && phrase_in_row(&q[i], col, &freq, end);

		c->postings -= c->v[i].p.n;
		postings_set(&c->v[i].p, rowid, has, freq, end);
		c->postings += c->v[i].p.n;
	}
	for (ic = 0; ic < STORE_BM25_NCOL; ic++)
		len += (uint32_t)col[ic].n;
	if (c->have_len)
		lengths_set(&c->len, rowid, in == 1, len);
	return 0;
}

static void
toks_release(struct toks *t)
{
	sbuf_release(&t->buf);
	free(t->at);
}

static int
rowid_cmp(const void *pa, const void *pb)
{
	sqlite3_int64	a = *(const sqlite3_int64 *)pa;
	sqlite3_int64	b = *(const sqlite3_int64 *)pb;

	return a < b ? -1 : a > b;
}

/* Invariant 5: patch the rows our own writes touched into what is kept,
 * in the caller's snapshot. 0, or -1: drop everything. */
static int
phrases_patch(struct store *st, struct store_phrases *c)
{
	sqlite3_stmt	*text = NULL, *size = NULL;
	struct toks	 col[STORE_BM25_NCOL], *q;
	sqlite3_int64	 nrow, ntoken;
	size_t		 k, n = 0;
	int		 rc = -1;

	if (!tokenizer_ready(st, c))
		return -1;
	if (c->ntouched > 0)	/* none: an optimize or merge of ours */
		qsort(c->touched, c->ntouched, sizeof(*c->touched),
		    rowid_cmp);
	for (k = 0; k < c->ntouched; k++)
		if (n == 0 || c->touched[n - 1] != c->touched[k])
			c->touched[n++] = c->touched[k];
	c->ntouched = n;
	memset(col, 0, sizeof(col));
	q = xcalloc(c->n + 1, sizeof(*q));
	for (k = 0; k < c->n; k++)	/* each phrase's tokens, once */
		if (phrase_tokens(c, c->v[k].phrase, &q[k]) != 0)
			goto out;
	if (sqlite3_prepare_v2(st->db, "SELECT label, content FROM entries "
	    "WHERE rowid = ?1", -1, &text, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(st->db, "SELECT sz FROM entries_fts_docsize "
	    "WHERE id = ?1", -1, &size, NULL) != SQLITE_OK)
		goto out;
	for (k = 0; k < c->ntouched; k++)
		if (patch_row(c, text, size, c->touched[k], col, q) != 0)
			goto out;
	if (read_totals(st, &nrow, &ntoken) != 0 || (c->have_len &&
	    ((sqlite3_int64)c->len.n != nrow || c->len.sum != ntoken)))
		goto out;
	c->nrow = nrow;
	c->ntoken = ntoken;
	c->totals = true;
	rc = 0;
out:
	sqlite3_finalize(text);
	sqlite3_finalize(size);
	for (k = 0; k < STORE_BM25_NCOL; k++)
		toks_release(&col[k]);
	for (k = 0; k < c->n; k++)
		toks_release(&q[k]);
	free(q);
	return rc;
}

/*
 * Make the record read by stmt c's key: keep what is kept when it is
 * already, patch our own writes in when only they moved it (invariant
 * 5), drop everything otherwise.
 */
static void
phrases_rekey(struct store *st, struct store_phrases *c, sqlite3_stmt *stmt)
{
	const void	*blob = sqlite3_column_blob(stmt, 0);
	int		 n = sqlite3_column_bytes(stmt, 0), dv;
	struct err	 err;

	if (store_data_version(st, &dv, &err) != 0)
		dv = -1;
	if (c->key == NULL || n != c->nkey || memcmp(blob, c->key, n) != 0) {
		if (c->key == NULL || dv < 0 || dv != c->data_version ||
		    c->overflow || phrases_patch(st, c) != 0)
			phrases_clear(c);
		free(c->key);
		c->key = xmalloc((size_t)n + 1);
		memcpy(c->key, blob, (size_t)n);
		c->nkey = n;
	}
	c->data_version = dv;
	c->ntouched = 0;
	c->overflow = false;
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
		store_watch(st, &phrases_key, phrases_updated, NULL);
	}
	phrases_rekey(st, c, stmt);
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
	uint64_t	x;
	int		c, off = 0, k;

	*len = 0;
	for (c = 0; c < ncol; c++, off += k) {
		if ((k = varint_get(sz + off, n - off, &x)) == 0)
			return -1;	/* the blob ends inside a varint */
		*len += (uint32_t)x;
	}
	return 0;
}

const struct store_lengths *
store_phrases_lengths(struct store *st, struct store_phrases *c, bool read)
{
	sqlite3_stmt	*stmt = NULL;
	uint32_t	 len;
	int		 step;

	if (c->have_len || !read)
		return c->have_len ? &c->len : NULL;
	if (sqlite3_prepare_v2(st->db, "SELECT id, sz FROM "
	    "entries_fts_docsize", -1, &stmt, NULL) != SQLITE_OK)
		return NULL;
	while ((step = sqlite3_step(stmt)) == SQLITE_ROW) {
		if (store_docsize_len(sqlite3_column_blob(stmt, 1),
		    sqlite3_column_bytes(stmt, 1), STORE_BM25_NCOL, &len) != 0)
			break;
		if (c->len.n == c->len.cap) {
			c->len.cap = c->len.cap ? 2 * c->len.cap : 1024;
			c->len.rowid = xreallocarray(c->len.rowid, c->len.cap,
			    sizeof(*c->len.rowid));
			c->len.len = xreallocarray(c->len.len, c->len.cap,
			    sizeof(*c->len.len));
		}
		c->len.rowid[c->len.n] = sqlite3_column_int64(stmt, 0);
		c->len.len[c->len.n++] = len;
		c->len.sum += len;
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
