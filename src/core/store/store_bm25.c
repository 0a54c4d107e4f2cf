/*
 * store_bm25.c — the lexical ranking's best rows without scoring every
 * row that matches (issue 28; docs/store.md, "Hybrid recall").
 *
 * FTS5's bm25() scores a row when the row is read: it looks up the row's
 * length (a b-tree seek into entries_fts_docsize) for every match, scans
 * each phrase's doclist once more for its IDF, and leaves the sort of all
 * of them to the caller. A recall of common words ("tests", "deploy")
 * matches a third of a store or more, and fusion reads 100 rows of the
 * ranking: at 100,000 memories that was three quarters of a recall. Here
 * each phrase is read alone, once, through an auxiliary function of our
 * own (thatch_bm25, on this connection only), which keeps for each row
 * holding it its weighted count and where its instances end (or the
 * phrase's rows come from store_phrases.c, kept since an earlier query);
 * a phrase's IDF is the count of its rows; the phrases' rows are merged,
 * and a row's exact score, and so its length, is computed only when its
 * bound says it may come next (or at once, when the lengths are kept).
 *
 * Invariants:
 *  1. The order is SQLite's `ORDER BY bm25(entries_fts, 4.0, 1.0), rowid`
 *     (STORE_BM25_WEIGHTS), ties included: a score is computed as
 *     fts5_aux.c computes it, the same expression with the same operands
 *     in the same order (bm25_term), so the doubles are equal bit for bit
 *     (test_fts compares them, and the order, with SQLite's).
 *  2. Only an OR of phrases is ranked here (split_phrases refuses any
 *     other MATCH): there, the rows of the OR are the union of its
 *     phrases' rows, and a phrase's IDF counts the rows holding it, as
 *     FTS5 counts it. An AND (a name's parts) goes through bm25() itself
 *     (store_fts.c).
 *  3. A row comes out only when no row still unscored can beat or tie
 *     it: its exact score is strictly above the best bound left. A bound
 *     is the row's score with the length its instances prove (each
 *     column at least as long as its last instance's end); every step of
 *     bm25_term is monotone in the length, in floating point too, so a
 *     bound is never below the score.
 *  4. One snapshot: a ranking holds a read transaction of its own from
 *     its first phrase to its last length (and the caller's lookups in
 *     between), so the IDFs, the lengths and store_phrases.c's key all
 *     describe one state of the index. Inside the caller's transaction
 *     it reads in that one, and keeps no phrases.
 */
#include "core/store/store.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/store/store_int.h"
#include "util/err.h"
#include "util/log.h"
#include "util/sbuf.h"
#include "util/xmalloc.h"

#define BM25_FUNC	"thatch_bm25"
#define BM25_PTR	"thatch_bm25_rank"	/* sqlite3_bind_pointer type */

/* A phrase's weighted count in a row: sum of its instances' column
 * weights (whole numbers, so exact in a double as in FTS5's aFreq). */
struct bm25_pair {
	uint32_t	phrase;
	uint32_t	freq;
};

struct bm25_row {
	sqlite3_int64	rowid;
	double		bound;		/* score with the proven length */
	double		score;		/* exact, once scored */
	uint32_t	pair;		/* first of its pairs, in phrase order */
	uint32_t	npair;
	uint32_t	len;		/* its length, or the one its instances
					   prove when not known */
	bool		known;		/* len is the row's: bound is score */
};

/* A binary heap of row indexes: by bound, or by (score, rowid) */
struct bm25_heap {
	uint32_t	*v;
	size_t		 n;
	bool		 exact;
};

struct bm25_rank {
	struct bm25_row		*rows;
	size_t			 nrows, caprows;
	struct bm25_pair	*pairs;
	size_t			 npairs, cappairs;
	int			 nphrase;
	sqlite3_int64		*nhit;		/* rows holding each phrase */
	sqlite3_int64		 nrow, ntoken;	/* the index's */
	double			*idf, avgdl;
	struct bm25_heap	 unscored, scored;
	size_t			 nscored;	/* lengths looked up */
	sqlite3_stmt		*docsize;
	sqlite3			*db;		/* with txn: a read transaction of */
	bool			 txn;		/* its own, ended by free */
};

/* What thatch_bm25 fills: one phrase's postings, and the index's
 * counts, read at its first row. */
struct bm25_pass {
	struct bm25_postings	 p;
	bool			 started;
	int			 psize;		/* the phrase's tokens */
	sqlite3_int64		 nrow, ntoken;
	int			 rc;		/* an API call's failure */
};

/*
 * One phrase's term of fts5_aux.c's fts5Bm25Function, written as it is
 * there (k1, b, the parentheses) so that the compiler evaluates it in the
 * same order: invariant 1.
 */
static double
bm25_term(double idf, double freq, double D, double avgdl)
{
	const double	k1 = 1.2;
	const double	b = 0.75;

	return idf * ((freq * (k1 + 1.0)) /
	    (freq + k1 * (1 - b + b * D / avgdl)));
}

/* A row's score for length D, summed in phrase order as FTS5 sums it (a
 * phrase absent from the row adds +0.0, which changes no sum). */
static double
row_score(const struct bm25_rank *r, const struct bm25_row *w, double D)
{
	double	score = 0.0;
	size_t	i;

	for (i = 0; i < w->npair; i++) {
		const struct bm25_pair	*p = &r->pairs[w->pair + i];

		score += bm25_term(r->idf[p->phrase], (double)p->freq, D,
		    r->avgdl);
	}
	return score;
}

/* ---- The pass ----------------------------------------------------------- */

static int
pass_start(struct bm25_pass *ps, const Fts5ExtensionApi *api,
    Fts5Context *fts)
{
	int	rc;

	if (api->xColumnCount(fts) != STORE_BM25_NCOL ||
	    api->xPhraseCount(fts) != 1)
		return SQLITE_MISMATCH;
	if ((rc = api->xRowCount(fts, &ps->nrow)) != SQLITE_OK ||
	    (rc = api->xColumnTotalSize(fts, -1, &ps->ntoken)) != SQLITE_OK)
		return rc;
	ps->psize = api->xPhraseSize(fts, 0);
	ps->started = true;
	return SQLITE_OK;
}

static void
postings_add(struct bm25_postings *p, sqlite3_int64 rowid, uint32_t freq,
    const uint32_t *end)
{
	if (p->n == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 256;
		p->rowid = xreallocarray(p->rowid, p->cap, sizeof(*p->rowid));
		p->freq = xreallocarray(p->freq, p->cap, sizeof(*p->freq));
		p->end = xreallocarray(p->end, p->cap, 2 * sizeof(*p->end));
	}
	p->rowid[p->n] = rowid;
	p->freq[p->n] = freq;
	p->end[2 * p->n] = end[0];
	p->end[2 * p->n + 1] = end[1];
	p->n++;
}

/*
 * xQueryPhrase's callback: one row holding the phrase (in ascending
 * rowid order), its instances found, fts a cursor of its own.
 */
static int
bm25_row(const Fts5ExtensionApi *api, Fts5Context *fts, void *arg)
{
	struct bm25_pass	*ps = arg;
	Fts5PhraseIter		 it;
	uint32_t		 freq = 0, end[STORE_BM25_NCOL] = { 0, 0 };
	int			 ic, io, rc;

	rc = api->xPhraseFirst(fts, 0, &it, &ic, &io);
	for (; rc == SQLITE_OK && ic >= 0; api->xPhraseNext(fts, &it, &ic,
	    &io)) {
		if (ic >= STORE_BM25_NCOL || io < 0)
			return SQLITE_CORRUPT;
		freq += STORE_BM25_WEIGHT(ic);
		if ((uint32_t)(io + ps->psize) > end[ic])
			end[ic] = (uint32_t)(io + ps->psize);
	}
	if (rc == SQLITE_OK)
		postings_add(&ps->p, api->xRowid(fts), freq, end);
	return rc;
}

/*
 * thatch_bm25(entries_fts, ?): called by FTS5 at the first row matching
 * one phrase, the second argument the bm25_pass to fill. It walks every
 * row of the phrase itself (xQueryPhrase, as FTS5's bm25 counts a
 * phrase's rows): a callback a row, not a step of the statement, which
 * costs several times less on a phrase in thousands of rows.
 */
static void
bm25_collect(const Fts5ExtensionApi *api, Fts5Context *fts,
    sqlite3_context *ctx, int nval, sqlite3_value **val)
{
	struct bm25_pass	*ps = nval == 1 ? sqlite3_value_pointer(val[0],
				    BM25_PTR) : NULL;
	int			 rc;

	if (ps == NULL) {
		sqlite3_result_error(ctx, BM25_FUNC ": no ranking", -1);
		return;
	}
	if (ps->started) {	/* LIMIT 1: only if SQLite reads on */
		sqlite3_result_null(ctx);
		return;
	}
	if ((rc = pass_start(ps, api, fts)) == SQLITE_OK)
		rc = api->xQueryPhrase(fts, 0, ps, bm25_row);
	if (rc != SQLITE_OK) {
		ps->rc = rc;
		sqlite3_result_error_code(ctx, rc);
		return;
	}
	sqlite3_result_null(ctx);
}

/* The function, registered on this connection once. */
static int
bm25_register(struct store *st)
{
	fts5_api	*api = store_fts5_api(st);

	if (api == NULL)
		return -1;
	return api->xCreateFunction(api, BM25_FUNC, NULL, bm25_collect,
	    NULL) == SQLITE_OK ? 0 : -1;
}

static int
pass_prepare(struct store *st, sqlite3_stmt **stmt)
{
	const char	*sql = "SELECT " BM25_FUNC "(entries_fts, ?2) FROM "
			    "entries_fts WHERE entries_fts MATCH ?1 LIMIT 1";

	if (sqlite3_prepare_v2(st->db, sql, -1, stmt, NULL) == SQLITE_OK)
		return 0;
	/* registered once a connection: any other failure (no index) is
	 * not ours to mend, and registering again would add a copy */
	if (strncmp(sqlite3_errmsg(st->db), "no such function", 16) != 0 ||
	    bm25_register(st) != 0)
		return -1;
	return sqlite3_prepare_v2(st->db, sql, -1, stmt, NULL) == SQLITE_OK ?
	    0 : -1;
}

/* FTS5's IDF (fts5Bm25GetData), with its floor for a phrase in more than
 * half the rows, and its mean row length. */
static void
pass_weights(struct bm25_rank *r)
{
	int	i;

	r->idf = xcalloc((size_t)r->nphrase + 1, sizeof(*r->idf));
	r->avgdl = (double)r->ntoken / (double)r->nrow;
	for (i = 0; i < r->nphrase; i++) {
		double	idf = log((r->nrow - r->nhit[i] + 0.5) /
			    (r->nhit[i] + 0.5));

		r->idf[i] = idf <= 0.0 ? 1e-6 : idf;
	}
}

/* ---- The heaps ---------------------------------------------------------- */

/* Whether row a comes before row b in heap h. */
static bool
heap_before(const struct bm25_rank *r, const struct bm25_heap *h,
    uint32_t a, uint32_t b)
{
	const struct bm25_row	*x = &r->rows[a], *y = &r->rows[b];

	if (!h->exact)
		return x->bound > y->bound;
	if (x->score != y->score)
		return x->score > y->score;
	return x->rowid < y->rowid;
}

static void
heap_down(const struct bm25_rank *r, struct bm25_heap *h, size_t i)
{
	for (;;) {
		size_t		best = i, c = 2 * i + 1;
		uint32_t	t;

		if (c < h->n && heap_before(r, h, h->v[c], h->v[best]))
			best = c;
		if (c + 1 < h->n && heap_before(r, h, h->v[c + 1], h->v[best]))
			best = c + 1;
		if (best == i)
			return;
		t = h->v[i];
		h->v[i] = h->v[best];
		h->v[best] = t;
		i = best;
	}
}

static void
heap_push(const struct bm25_rank *r, struct bm25_heap *h, uint32_t row)
{
	size_t	i = h->n++;

	h->v[i] = row;
	while (i > 0 && heap_before(r, h, h->v[i], h->v[(i - 1) / 2])) {
		uint32_t	t = h->v[i];

		h->v[i] = h->v[(i - 1) / 2];
		h->v[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
}

static uint32_t
heap_pop(const struct bm25_rank *r, struct bm25_heap *h)
{
	uint32_t	top = h->v[0];

	h->v[0] = h->v[--h->n];
	heap_down(r, h, 0);
	return top;
}

/* Every row's bound, and the rows in a heap by it (heapify: O(n)). */
static void
pass_bound(struct bm25_rank *r)
{
	size_t	i;

	r->unscored.v = xcalloc(r->nrows + 1, sizeof(uint32_t));
	r->scored.v = xcalloc(r->nrows + 1, sizeof(uint32_t));
	r->scored.exact = true;
	for (i = 0; i < r->nrows; i++) {
		r->rows[i].bound = row_score(r, &r->rows[i],
		    (double)r->rows[i].len);
		r->rows[i].score = r->rows[i].bound;	/* when known */
		r->unscored.v[i] = (uint32_t)i;
	}
	r->unscored.n = r->nrows;
	for (i = r->nrows / 2; i-- > 0;)
		heap_down(r, &r->unscored, i);
}

/* ---- Exact scores ------------------------------------------------------- */

/*
 * The scores of rows idx[0..k), k <= BM25_BATCH, with their lengths in
 * tokens, all columns, as FTS5's xColumnSize(-1) reads them from
 * entries_fts_docsize: one statement a batch (a seek a row spent more
 * on reset and step than on the seek). Unused parameters stay NULL,
 * which no id equals.
 */
#define BM25_BATCH	32
static int
batch_score(struct store *st, struct bm25_rank *r, const uint32_t *idx,
    size_t k, struct err *err)
{
	struct bm25_row		*w;
	bool			 seen[BM25_BATCH] = { false };
	size_t			 j, found = 0;
	uint32_t		 len;
	int			 i, step;

	if (r->docsize == NULL) {
		struct sbuf	sql = SBUF_INIT;

		sbuf_adds(&sql, "SELECT id, sz FROM entries_fts_docsize WHERE "
		    "id IN (?");
		for (i = 1; i < BM25_BATCH; i++)
			sbuf_adds(&sql, ", ?");
		sbuf_addc(&sql, ')');
		i = store_prepare(st, &r->docsize, sql.buf, err);
		sbuf_release(&sql);
		if (i != 0)
			return -1;
	}
	sqlite3_reset(r->docsize);
	sqlite3_clear_bindings(r->docsize);
	for (j = 0; j < k; j++)
		sqlite3_bind_int64(r->docsize, (int)j + 1, r->rows[idx[j]].rowid);
	while ((step = sqlite3_step(r->docsize)) == SQLITE_ROW) {
		sqlite3_int64	id = sqlite3_column_int64(r->docsize, 0);

		for (j = 0; j < k && (seen[j] || r->rows[idx[j]].rowid != id);
		    j++)
			;
		if (j == k)
			continue;
		if (store_docsize_len(sqlite3_column_blob(r->docsize, 1),
		    sqlite3_column_bytes(r->docsize, 1), STORE_BM25_NCOL,
		    &len) != 0)
			return err_set(err, "full-text index of '%s': bad "
			    "length for row %lld", st->path, (long long)id);
		w = &r->rows[idx[j]];
		w->score = row_score(r, w, (double)len);
		seen[j] = true;
		found++;
	}
	if (step != SQLITE_DONE)
		return store_fail(st, err, "full-text search failed");
	if (found < k)
		return err_set(err, "full-text index of '%s': a row without "
		    "its length", st->path);
	return 0;
}

/* ---- The ranking -------------------------------------------------------- */

/*
 * The phrases of match, each as quoted there ("a""b" holds a quote), as
 * new strings into *v (*n of them); -1 when match is not an OR of
 * phrases (it is then bm25()'s to rank).
 */
static int
split_phrases(const char *match, char ***v, int *n)
{
	const char	*s = match, *from;
	size_t		 cap = 0;

	*v = NULL;
	*n = 0;
	while (*s == '"') {
		bool	closed = false;

		for (from = s++; *s != '\0' && !closed; s++)
			if (*s == '"' && s[1] == '"')
				s++;		/* a quote inside */
			else if (*s == '"')
				closed = true;
		if (!closed)
			break;
		if ((size_t)*n == cap) {
			cap = cap ? 2 * cap : 8;
			*v = xreallocarray(*v, cap, sizeof(**v));
		}
		(*v)[(*n)++] = xstrndup(from, (size_t)(s - from));
		if (*s == '\0')
			return 0;
		if (strncmp(s, " OR ", 4) != 0)
			break;
		s += 4;
	}
	while (*n > 0)
		free((*v)[--*n]);
	free(*v);
	*v = NULL;
	return -1;
}

/* One phrase's postings from the index: 0, or -1 with err. */
static int
pass_phrase(struct store *st, sqlite3_stmt *stmt, const char *phrase,
    struct bm25_pass *ps, struct err *err)
{
	int	step;

	sqlite3_reset(stmt);
	sqlite3_bind_text(stmt, 1, phrase, -1, SQLITE_STATIC);
	sqlite3_bind_pointer(stmt, 2, ps, BM25_PTR, NULL);
	while ((step = sqlite3_step(stmt)) == SQLITE_ROW)
		;
	if (step == SQLITE_DONE && ps->rc == SQLITE_OK)
		return 0;
	return err_set(err, "full-text search in '%s' failed: %s", st->path,
	    ps->rc != SQLITE_OK ? sqlite3_errstr(ps->rc) :
	    sqlite3_errmsg(st->db));
}

static void
rows_reserve(struct bm25_rank *r, size_t npair)
{
	if (r->nrows == r->caprows) {
		r->caprows = r->caprows ? 2 * r->caprows : 256;
		r->rows = xreallocarray(r->rows, r->caprows, sizeof(*r->rows));
	}
	while (r->npairs + npair > r->cappairs) {
		r->cappairs = r->cappairs ? 2 * r->cappairs : 512;
		r->pairs = xreallocarray(r->pairs, r->cappairs,
		    sizeof(*r->pairs));
	}
}

/*
 * The rows of the OR: the phrases' postings merged by rowid, each row's
 * pairs in phrase order (as FTS5 numbers the phrases of the MATCH), its
 * length from known (every row's, by rowid) or else the one it proves:
 * each column's furthest instance end, summed.
 */
static void
pass_merge(struct bm25_rank *r, const struct bm25_postings *const *l,
    const struct store_lengths *known)
{
	size_t		*at = xcalloc((size_t)r->nphrase + 1, sizeof(*at));
	size_t		 k = 0;
	sqlite3_int64	 rowid = 0;
	uint32_t	 end[STORE_BM25_NCOL];
	struct bm25_row	*w;
	int		 i;

	for (i = 0; i < r->nphrase; i++)
		r->nhit[i] = (sqlite3_int64)l[i]->n;
	for (;;) {
		bool	any = false;

		for (i = 0; i < r->nphrase; i++)
			if (at[i] < l[i]->n && (!any ||
			    l[i]->rowid[at[i]] < rowid)) {
				rowid = l[i]->rowid[at[i]];
				any = true;
			}
		if (!any)
			break;
		rows_reserve(r, (size_t)r->nphrase);
		w = &r->rows[r->nrows++];
		memset(w, 0, sizeof(*w));
		w->rowid = rowid;
		w->pair = (uint32_t)r->npairs;
		end[0] = end[1] = 0;
		for (i = 0; i < r->nphrase; i++) {
			const uint32_t	*e;

			if (at[i] == l[i]->n || l[i]->rowid[at[i]] != rowid)
				continue;
			e = &l[i]->end[2 * at[i]];
			end[0] = e[0] > end[0] ? e[0] : end[0];
			end[1] = e[1] > end[1] ? e[1] : end[1];
			r->pairs[r->npairs].phrase = (uint32_t)i;
			r->pairs[r->npairs++].freq = l[i]->freq[at[i]++];
			w->npair++;
		}
		w->len = end[0] + end[1];
		while (known != NULL && k < known->n && known->rowid[k] < rowid)
			k++;
		if (known != NULL && k < known->n && known->rowid[k] == rowid) {
			w->len = known->len[k];
			w->known = true;
		}
	}
	free(at);
}

/*
 * Each phrase's postings: kept ones (store_phrases.c), the same phrase
 * met earlier in this query, or the index's, read now and kept after the
 * merge (a put may drop what a borrowed pointer holds). Into l; the
 * ones read into own. 0, or -1 with err.
 */
static int
pass_gather(struct store *st, sqlite3_stmt *stmt, struct bm25_rank *r,
    struct store_phrases *c, char **phrase, const struct bm25_postings **l,
    struct bm25_postings *own, struct err *err)
{
	int	i, j, rc = 0;

	r->nrow = -1;
	for (i = 0; rc == 0 && i < r->nphrase; i++) {
		struct bm25_pass	ps;

		if (c != NULL && (l[i] = store_phrases_get(c, phrase[i],
		    &r->nrow, &r->ntoken)) != NULL)
			continue;
		for (j = 0; j < i && strcmp(phrase[j], phrase[i]) != 0; j++)
			;
		if (j < i) {
			l[i] = l[j];
			continue;
		}
		memset(&ps, 0, sizeof(ps));
		if ((rc = pass_phrase(st, stmt, phrase[i], &ps, err)) == 0 &&
		    ps.started) {
			r->nrow = ps.nrow;
			r->ntoken = ps.ntoken;
		}
		own[i] = ps.p;
		l[i] = &own[i];
	}
	return rc;
}

/*
 * Every row's length (store_phrases.c) when the connection has them for
 * this index, or when the phrases hold an eighth of its rows: reading
 * them all then costs about what looking up the ones scored would. NULL:
 * look them up.
 */
static const struct store_lengths *
lengths_worth(struct store *st, const struct bm25_rank *r,
    struct store_phrases *c, const struct bm25_postings *const *l)
{
	size_t	n = 0;
	int	i;

	if (c == NULL)
		return NULL;
	for (i = 0; i < r->nphrase; i++)
		n += l[i]->n;
	return n == 0 ? NULL : store_phrases_lengths(st, c,
	    8 * (sqlite3_int64)n >= r->nrow);
}

int
store_bm25_rank(struct store *st, const char *match, struct bm25_rank **out,
    struct err *err)
{
	struct bm25_rank		*r;
	struct store_phrases		*c = NULL;
	const struct bm25_postings	**l;
	struct bm25_postings		*own;
	sqlite3_stmt			*stmt = NULL;
	char				**phrase;
	int				 i, rc;

	*out = NULL;
	/* not ours to rank, or no index, or no FTS5 API: bm25() decides */
	if (split_phrases(match, &phrase, &i) != 0)
		return 1;
	if (pass_prepare(st, &stmt) != 0) {
		while (i > 0)
			free(phrase[--i]);
		free(phrase);
		return 1;
	}
	r = xcalloc(1, sizeof(*r));
	r->nphrase = i;
	r->nhit = xcalloc((size_t)i + 1, sizeof(*r->nhit));
	l = xcalloc((size_t)i + 1, sizeof(*l));
	own = xcalloc((size_t)i + 1, sizeof(*own));
	/* invariant 4: one snapshot from the first phrase to the last length */
	if (sqlite3_get_autocommit(st->db) && sqlite3_exec(st->db, "BEGIN",
	    NULL, NULL, NULL) == SQLITE_OK) {
		r->db = st->db;
		r->txn = true;
		c = store_phrases_open(st);
	}
	rc = pass_gather(st, stmt, r, c, phrase, l, own, err);
	sqlite3_finalize(stmt);
	if (rc == 0)
		pass_merge(r, l, lengths_worth(st, r, c, l));
	for (i = 0; i < r->nphrase; i++) {
		if (c != NULL && rc == 0 && l[i] == &own[i])
			store_phrases_put(c, phrase[i], &own[i], r->nrow,
			    r->ntoken);
		store_postings_release(&own[i]);
		free(phrase[i]);
	}
	free(phrase);
	free(own);
	free(l);
	if (rc != 0) {
		store_bm25_free(r);
		return -1;
	}
	if (r->nrows > 0) {
		pass_weights(r);
		pass_bound(r);
	}
	*out = r;
	return 0;
}

int
store_bm25_next(struct store *st, struct bm25_rank *r, sqlite3_int64 *rowid,
    double *bm25, struct err *err)
{
	uint32_t	idx[BM25_BATCH];
	size_t		k, i;

	for (;;) {
		bool	none = r->unscored.n == 0;

		if (r->scored.n > 0 && (none ||
		    r->rows[r->scored.v[0]].score >
		    r->rows[r->unscored.v[0]].bound)) {
			i = heap_pop(r, &r->scored);
			*rowid = r->rows[i].rowid;
			*bm25 = -1.0 * r->rows[i].score;
			return 1;
		}
		if (none)
			return 0;
		if (r->rows[r->unscored.v[0]].known) {
			heap_push(r, &r->scored, heap_pop(r, &r->unscored));
			continue;
		}
		/* the best bounds first: invariant 3 holds for any batch */
		for (k = 0; k < BM25_BATCH && r->unscored.n > 0;) {
			i = heap_pop(r, &r->unscored);
			if (r->rows[i].known)
				heap_push(r, &r->scored, (uint32_t)i);
			else
				idx[k++] = (uint32_t)i;
		}
		if (batch_score(st, r, idx, k, err) != 0)
			return -1;
		for (i = 0; i < k; i++)
			heap_push(r, &r->scored, idx[i]);
		r->nscored += k;
	}
}

size_t
store_bm25_scored(const struct bm25_rank *r)
{
	return r->nscored;
}

void
store_bm25_free(struct bm25_rank *r)
{
	if (r == NULL)
		return;
	log_debug("store:fts", "bm25: %zu rows matched %d phrases, %zu "
	    "scored", r->nrows, r->nphrase, r->nscored);
	sqlite3_finalize(r->docsize);
	/* a read: nothing to lose, but never left open */
	if (r->txn && sqlite3_exec(r->db, "COMMIT", NULL, NULL, NULL) !=
	    SQLITE_OK)
		sqlite3_exec(r->db, "ROLLBACK", NULL, NULL, NULL);
	free(r->rows);
	free(r->pairs);
	free(r->nhit);
	free(r->idf);
	free(r->unscored.v);
	free(r->scored.v);
	free(r);
}
