/*
 * store_search.c — store_search, which every recall goes through: the
 * cosine ranking alone (store_nearest.c), or its fusion with the
 * full-text ranking (store_fts.c) when the query carries its text
 * (docs/store.md, "Hybrid recall"); the recall stamp after it, and the
 * hits' own vectors.
 *
 * Invariants:
 *  1. Both sides apply the same store, branch and archived rules (§5.2).
 *     Scores stay the §5.1 cosine, so thresholds keep their meaning; only
 *     the order is fused.
 *  2. Fusion is reciprocal-rank fusion, 1 / (K + rank) summed over the
 *     sides, over each side's whole ranking: the cosine side returns its
 *     first FUSE_DEPTH rows and ranks each lexical row past them from its
 *     int8 pass (store_vector_probe); the lexical side reads its first
 *     FUSE_DEPTH matches. A row the lexical side did not match gets
 *     nothing from it, so its first row (the one memory naming the
 *     query's identifier) ranks above every row only the embedding found,
 *     however many rows are closer in meaning.
 *  3. A recall stamp moves no vector: it is announced to the search cache
 *     (store_cache_expect), which stays valid.
 *  4. The vectors of a search's few hits (issue 27: recall folds a hit
 *     that repeats a better one, which takes the hits' own vectors, not
 *     the query's scores) are read from their rows only, one BLOB each
 *     by (store, slug): nothing written, the search cache untouched. A
 *     row without a vector, or a BLOB that is not whole floats, leaves
 *     vec NULL and dim 0; that is not an error.
 */
#include "core/store/store.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/store/store_int.h"
#include "core/vector.h"
#include "util/err.h"
#include "util/log.h"
#include "util/sbuf.h"
#include "util/xmalloc.h"

/*
 * K = 60 is Cormack, Clarke and Büttcher's (SIGIR 2009) constant: large
 * enough that a side's first few ranks weigh about the same, so neither
 * side's noise at the top decides alone. FUSE_DEPTH is how far each side
 * is read: deeper than any limit (20), shallow enough to cost little.
 */
#define FUSE_K		60.0
#define FUSE_DEPTH	100

struct fused {
	struct store_hit	h;
	double			rrf;
	size_t			vrank;		/* 0: the vector side missed it */
	bool			in_space;	/* its vector is the query's dim */
};

/*
 * The exact cosine of q with a BLOB of its dimension; 0 for none, and 0
 * too when their dot is not a number (a foreign BLOB holding NaN): a
 * lexical hit is shown whatever its vector holds.
 */
static double
blob_cosine(const float *q, int dim, const void *blob)
{
	float	*row;
	double	 s;

	if (blob == NULL)
		return 0;
	row = xcalloc((size_t)dim, sizeof(float));
	vector_decode(blob, (size_t)dim, row);
	s = vector_cosine(q, vector_norm(q, dim), row, vector_norm(row, dim),
	    dim);
	if (isnan(s) && isnan(vector_dot(q, row, dim)))
		s = 0;
	free(row);
	return s;
}

/* Read lexical row l (rank r, 1-based) into f[*nf] with its cosine and
 * the probe that will ask the vector side for its rank. A row gone since
 * (another writer, between the two sides' snapshots) is skipped. */
static int
lex_read(struct store *st, const struct store_query *q, sqlite3_stmt *stmt,
    const struct store_lex *l, size_t r, struct fused *f, size_t *nf,
    struct store_probe *probe, struct err *err)
{
	struct fused	*x = &f[*nf];
	int		 step;

	sqlite3_reset(stmt);
	sqlite3_bind_int64(stmt, 1, l->rowid);
	if ((step = sqlite3_step(stmt)) == SQLITE_DONE)
		return 0;
	if (step != SQLITE_ROW)
		return store_fail(st, err, "cannot read memory");
	memset(x, 0, sizeof(*x));
	store_entry_read(stmt, 0, &x->h.e);
	x->in_space = q->vec != NULL && sqlite3_column_bytes(stmt,
	    STORE_ENTRY_NCOLS) == q->dim * 4;
	x->h.score = !x->in_space ? 0 : blob_cosine(q->vec, q->dim,
	    sqlite3_column_blob(stmt, STORE_ENTRY_NCOLS));
	x->rrf = 1.0 / (FUSE_K + (double)r);
	x->h.lexical = l->kind;
	probe[(*nf)++].score = x->h.score;
	return 0;
}

/* Add vector hit h (rank r, 1-based) to the fused list: to the lexical
 * row it is, or as a row of its own (h moved). */
static void
fuse_vec(struct store_hit *h, size_t r, struct fused *f, size_t *nf)
{
	size_t	i;

	for (i = 0; i < *nf; i++)
		if (strcmp(f[i].h.e.slug, h->e.slug) == 0 &&
		    strcmp(f[i].h.e.store, h->e.store) == 0)
			break;
	if (i == *nf) {
		memset(&f[i], 0, sizeof(f[i]));
		f[i].h = *h;
		(*nf)++;
	} else
		store_entry_release(&h->e);
	f[i].vrank = r;
	f[i].rrf += 1.0 / (FUSE_K + (double)r);
}

/*
 * Invariant 2: a lexical row the vector side did not return within
 * FUSE_DEPTH still has a place in its whole ranking, past FUSE_DEPTH;
 * the int8 pass estimated it (probe). So the only memory naming the
 * query's identifier gets 1/(K + 1) plus a little, above every row that
 * only the embedding ranked.
 */
static void
fuse_deep(struct fused *f, size_t nlex, const struct store_probe *probe,
    size_t nvec)
{
	size_t	i, r;

	if (nvec < FUSE_DEPTH)
		return;		/* the vector side returned all it ranks */
	for (i = 0; i < nlex; i++) {
		if (f[i].vrank != 0 || !f[i].in_space || probe[i].rank == 0)
			continue;
		r = probe[i].rank > FUSE_DEPTH ? probe[i].rank : FUSE_DEPTH + 1;
		f[i].vrank = r;
		f[i].rrf += 1.0 / (FUSE_K + (double)r);
	}
}

static int
fused_cmp(const void *pa, const void *pb)
{
	const struct fused	*a = pa, *b = pb;

	if (a->rrf != b->rrf)
		return a->rrf > b->rrf ? -1 : 1;
	if (a->h.score != b->h.score)
		return a->h.score > b->h.score ? -1 : 1;
	return strcmp(a->h.e.slug, b->h.e.slug);
}

/* Move the best limit fused rows into hits, marking those the vector side
 * alone would not have shown. */
static void
fuse_take(const struct store_query *q, struct fused *f, size_t nf,
    struct store_hits *hits)
{
	size_t	i;

	qsort(f, nf, sizeof(*f), fused_cmp);
	hits->v = xcalloc(nf + 1, sizeof(*hits->v));
	for (i = 0; i < nf; i++) {
		if (i < (size_t)q->limit) {
			f[i].h.lexical_only = f[i].vrank == 0 ||
			    f[i].vrank > (size_t)q->limit;
			hits->v[hits->n++] = f[i].h;
		} else
			store_entry_release(&f[i].h.e);
	}
}

/* A lexical search reads no vectors, but its caller counts the rows under
 * another model next, from the vector side's matrices when they are
 * current (a table scan otherwise: ~9,000 pages at 10,000 memories). A
 * failure costs only that scan. */
static void
lexical_prepare(struct store *st, const struct store_query *q)
{
	struct err	err;

	if (store_vector_prepare(st, q, &err) != 0)
		log_debug("store:fts", "vectors not prepared: %s", err.msg);
}

/* A query's lexical ranking, made before its vector exists. */
struct store_lexical {
	struct store_lex	*lx;
	size_t			 n;
};

int
store_lexical_rank(struct store *st, const struct store_query *q,
    struct store_lexical **out, struct err *err)
{
	struct store_lexical	*l = xcalloc(1, sizeof(*l));

	*out = NULL;
	l->lx = xcalloc(FUSE_DEPTH, sizeof(*l->lx));
	if (q->text != NULL && q->mode != STORE_VECTOR && q->nstores > 0 &&
	    q->limit > 0 && store_fts_rank(st, q, l->lx, FUSE_DEPTH, &l->n,
	    err) != 0) {
		store_lexical_free(l);
		return -1;
	}
	*out = l;
	return 0;
}

void
store_lexical_free(struct store_lexical *l)
{
	if (l == NULL)
		return;
	free(l->lx);
	free(l);
}

/* The lexical side first (its rows' cosines are the probes), then the
 * vector side, which ranks them among all its rows. */
static int
search_fused(struct store *st, const struct store_query *q,
    const struct store_lexical *l, struct store_hits *hits,
    struct err *err)
{
	struct store_query	 vq = *q;
	struct store_hits	 vh = { NULL, 0 };
	struct fused		*f = NULL;
	struct store_probe	*probe = NULL;
	sqlite3_stmt		*stmt = NULL;
	size_t			 nf = 0, nlex, i;
	int			 rc = -1;

	f = xcalloc(l->n + FUSE_DEPTH + 1, sizeof(*f));
	probe = xcalloc(l->n + 1, sizeof(*probe));
	if (l->n > 0 && store_prepare(st, &stmt, "SELECT " STORE_ENTRY_COLS
	    ", embedding FROM entries WHERE rowid = ?", err) != 0)
		goto out;
	for (i = 0; i < l->n; i++)
		if (lex_read(st, q, stmt, &l->lx[i], i + 1, f, &nf, probe,
		    err) != 0)
			goto out;
	nlex = nf;
	vq.limit = FUSE_DEPTH;
	if (q->mode != STORE_LEXICAL) {
		if (store_vector_probe(st, &vq, probe, nlex, &vh, err) != 0)
			goto out;
		for (i = 0; i < vh.n; i++)
			fuse_vec(&vh.v[i], i + 1, f, &nf);
		fuse_deep(f, nlex, probe, vh.n);
		vh.n = 0;	/* moved into f */
	} else if (q->vec != NULL)
		lexical_prepare(st, q);
	fuse_take(q, f, nf, hits);
	nf = 0;
	rc = 0;
out:
	for (i = 0; i < nf; i++)
		store_entry_release(&f[i].h.e);
	sqlite3_finalize(stmt);
	store_hits_release(&vh);
	free(probe);
	free(f);
	return rc;
}

static const char *const mode_names[] = {
	[STORE_HYBRID] = "hybrid",
	[STORE_VECTOR] = "vector",
	[STORE_LEXICAL] = "lexical",
};

int
store_mode_parse(const char *name, enum store_mode *mode)
{
	size_t	i;

	for (i = 0; i < sizeof(mode_names) / sizeof(mode_names[0]); i++)
		if (strcmp(name, mode_names[i]) == 0) {
			*mode = (enum store_mode)i;
			return 0;
		}
	return -1;
}

int
store_search_ranked(struct store *st, const struct store_query *q,
    const struct store_lexical *l, struct store_hits *hits, struct err *err)
{
	memset(hits, 0, sizeof(*hits));
	if (q->text == NULL || q->mode == STORE_VECTOR)
		return store_vector_search(st, q, hits, err);
	if (q->nstores == 0 || q->limit <= 0)
		return 0;
	return search_fused(st, q, l, hits, err);
}

int
store_search(struct store *st, const struct store_query *q,
    struct store_hits *hits, struct err *err)
{
	struct store_lexical	*l;
	int			 rc;

	memset(hits, 0, sizeof(*hits));
	if (store_lexical_rank(st, q, &l, err) != 0)
		return -1;
	rc = store_search_ranked(st, q, l, hits, err);
	store_lexical_free(l);
	return rc;
}

int
store_stamp_recall(struct store *st, const struct store_hits *hits,
    const char *now, struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	struct sbuf	 sql = SBUF_INIT;
	size_t		 i;
	int		 step;
	int		 rc = -1;

	if (hits->n == 0)
		return 0;
	/*
	 * §5.3's "(store, slug) IN (VALUES ...)" scans the whole table (SQLite
	 * uses no index for a row-value IN list); the same rows as an OR of
	 * primary-key equalities are found through the key.
	 */
	sbuf_adds(&sql, "UPDATE entries SET recall_count = recall_count + 1, "
	    "last_recalled_at = ? WHERE ");
	for (i = 0; i < hits->n; i++)
		sbuf_adds(&sql, i == 0 ? "(store = ? AND slug = ?)" :
		    " OR (store = ? AND slug = ?)");
	/*
	 * Telemetry is not worth an fsync per recall: this one statement runs
	 * with synchronous=NORMAL (safe in WAL mode; a power cut may lose the
	 * stamp, never the database). Per connection, invisible to others.
	 */
	if (store_exec(st, "PRAGMA synchronous = NORMAL", err) != 0 ||
	    store_prepare(st, &stmt, sql.buf, err) != 0)
		goto out;
	sqlite3_bind_text(stmt, 1, now, -1, SQLITE_STATIC);
	for (i = 0; i < hits->n; i++) {
		sqlite3_bind_text(stmt, (int)(2 * i + 2), hits->v[i].e.store,
		    -1, SQLITE_STATIC);
		sqlite3_bind_text(stmt, (int)(2 * i + 3), hits->v[i].e.slug,
		    -1, SQLITE_STATIC);
	}
	/* Invariant 3: telemetry moves no vector; the cache stays valid */
	store_cache_expect(st, true);
	step = sqlite3_step(stmt);
	store_cache_expect(st, false);
	if (step != SQLITE_DONE) {
		store_fail(st, err, "recall not recorded");
		goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(stmt);
	sqlite3_exec(st->db, "PRAGMA synchronous = FULL", NULL, NULL, NULL);
	sbuf_release(&sql);
	return rc;
}

/* Invariant 4. */
int
store_hits_vectors(struct store *st, struct store_hits *hits,
    struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	size_t		 i;
	int		 step = SQLITE_DONE, n;

	if (hits->n == 0)
		return 0;
	if (store_prepare(st, &stmt, "SELECT embedding FROM entries "
	    "WHERE slug = ? AND store = ?", err) != 0)
		return -1;
	for (i = 0; i < hits->n; i++) {
		struct store_entry	*e = &hits->v[i].e;

		if (e->vec != NULL)
			continue;
		sqlite3_reset(stmt);
		sqlite3_bind_text(stmt, 1, e->slug, -1, SQLITE_STATIC);
		sqlite3_bind_text(stmt, 2, e->store, -1, SQLITE_STATIC);
		if ((step = sqlite3_step(stmt)) != SQLITE_ROW) {
			if (step != SQLITE_DONE)
				break;
			continue;
		}
		n = sqlite3_column_bytes(stmt, 0);
		if (sqlite3_column_type(stmt, 0) != SQLITE_BLOB || n == 0 ||
		    n % 4 != 0)
			continue;
		e->dim = n / 4;
		e->vec = xcalloc((size_t)e->dim, sizeof(*e->vec));
		vector_decode(sqlite3_column_blob(stmt, 0), (size_t)e->dim,
		    e->vec);
		step = SQLITE_DONE;
	}
	sqlite3_finalize(stmt);
	if (step != SQLITE_ROW && step != SQLITE_DONE)
		return store_fail(st, err, "cannot read the hits' vectors");
	return 0;
}
