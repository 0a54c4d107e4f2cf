/*
 * store_nearest.c — the exact cosine search (store-and-tools §5), bounded
 * by the int8 cache: the vector side of store_search.
 *
 * A warm process (the MCP server) must answer a recall over 100,000
 * memories in milliseconds, so it cannot read 100,000 BLOBs per query.
 * store_cache.c keeps an int8 copy of every vector less the store's
 * centre (core/quant.h; one scale per row). A query scores every eligible
 * row on that copy with a SIMD dot product (core/vector.c), which gives
 * each row an interval its exact cosine must lie in; taking the centre
 * out makes it several times narrower on a store whose vectors share a
 * direction, as every embedding model's do. Rows whose interval reaches
 * the limit-th best lower end (the band: thousands of rows when a store's
 * scores crowd, as a random model's or a store of near-duplicates do) get
 * a second interval, 254 times narrower, from the residual int8 copy;
 * only rows whose narrow interval still reaches the cut are rescored
 * exactly, from their BLOBs fetched by rowid, best upper end first, until
 * no remaining row can reach the limit-th exact score. So a query reads
 * about limit BLOBs however densely the scores crowd.
 *
 * Invariants:
 *  1. A search runs in one read transaction (unless the caller has one
 *     open), so validation, the int8 pass and the BLOB fetches see one
 *     snapshot. A vector file cut under a search (mapguard) drops the
 *     cache and the search is redone from the table.
 *  2. Results are exact: the int8 passes only choose which rows get the
 *     exact §5.1 score (vector_cosine), their per-row error bounds
 *     (quantisation plus rounding, see row_err and narrow) are rigorous,
 *     and
 *     the exact pass stops only when the next row's upper bound is below
 *     the limit-th exact key. Rows whose exact score is not a number (a
 *     foreign BLOB holding NaN) are skipped.
 *  3. Equal scores keep table (rowid) order: the original scans the table
 *     and sorts stably (§5.2 step 4).
 */
#include "core/store/store.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/store/store_int.h"
#include "core/vector.h"
#include "util/err.h"
#include "util/log.h"
#include "util/os/mapguard.h"
#include "util/num.h"
#include "util/xmalloc.h"

/*
 * From this many rows a second thread scans half of them: the scan is
 * bound by memory bandwidth, which a second core adds to (100,000 rows:
 * 3.7 ms on one thread), and a thread costs ~0.1 ms to start.
 */
#define DOT_MT_ROWS	32768

struct dot_half {
	const float		*q;
	const signed char	*m;
	size_t			 n;
	int			 dim;
	float			*out;
};

static void *
dot_half_main(void *arg)
{
	struct dot_half	*h = arg;

	vector_dot_int8(h->q, h->m, h->n, h->dim, h->out);
	return NULL;
}

/* vector_dot_int8, on two threads for large stores (one if the second
 * fails). */
static void
dot_rows_split(const float *q, const signed char *m, size_t n, int dim,
    float *out)
{
	struct dot_half	 h;
	pthread_t	 tid;
	size_t		 half = n / 2;

	if (n < DOT_MT_ROWS || sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		vector_dot_int8(q, m, n, dim, out);
		return;
	}
	h = (struct dot_half){ q, m + half * (size_t)dim, n - half, dim,
	    out + half };
	if (pthread_create(&tid, NULL, dot_half_main, &h) != 0) {
		vector_dot_int8(q, m, n, dim, out);
		return;
	}
	vector_dot_int8(q, m, half, dim, out);
	pthread_join(tid, NULL);
}

/*
 * Row i's approximate cosine is (dot(q, mu) + s dot(q, c)) / (|q| |b|) =
 * mdot * w + k * dot(q, c) / |q| (core/quant.h; mdot = dot(q, mu) / |q|).
 * How far it may be from the exact one: quantisation moves the dot by at
 * most (s / 2) * |q|_1, i.e. e * q1 in cosine units (q1 = |q|_1 / |q|).
 * Float rounding of a dim-term dot errs by about dim * 2^-24 of its
 * terms' size; each term here, over |q||b|, is at most about |b - mu| /
 * |b| <= 1 + |mu| w, as is the rounding of k and w, and dim * 2^-20
 * times that covers them with room to spare.
 */
#define ROUNDING_ERR(dim)	((double)(dim) / 1048576 + 1e-6)

static double
row_scale(const struct store_mat *m, size_t i)
{
	return 1 + m->mu_norm * (double)m->w[i];
}

static double
row_err(const struct store_mat *m, size_t i, double q1)
{
	return (double)m->e[i] * q1 + ROUNDING_ERR(m->dim) * row_scale(m, i);
}

/* One store's cached rows as a query sees them. */
struct qmat {
	struct store_mat	*m;
	double			 mdot;		/* dot(q, mu) / |q| */
	float			*approx;	/* borrowed; NAN: ineligible */
	sqlite3_int64		 excl;		/* exclude_slug's rowid */
	bool			 has_excl;
};

/* A row in the band around the cut: its upper bound, then exact score;
 * base is its centre's share of its approximation (mdot * w). */
struct cand {
	struct store_mat	*m;
	size_t			 i;
	double			 base, upper, lower, score, key;
};

/* Min-heap of the `k` best values pushed. */
struct topk {
	double	*v;	/* owned */
	size_t	 n, k;
};

static void
topk_push(struct topk *t, double s)
{
	size_t	i, c;

	if (t->n < t->k) {
		for (i = t->n++; i > 0 && t->v[(i - 1) / 2] > s;
		    i = (i - 1) / 2)
			t->v[i] = t->v[(i - 1) / 2];
		t->v[i] = s;
		return;
	}
	if (s <= t->v[0])
		return;
	for (i = 0; (c = 2 * i + 1) < t->n; i = c) {
		if (c + 1 < t->n && t->v[c + 1] < t->v[c])
			c++;
		if (t->v[c] >= s)
			break;
		t->v[i] = t->v[c];
	}
	t->v[i] = s;
}

static bool
row_eligible(const struct store_query *q, const struct qmat *qm, size_t i)
{
	const struct store_mat	*m = qm->m;

	if (!q->include_archived && (m->flags[i] & ROW_ARCHIVED))
		return false;
	if (q->branch != NULL && *q->branch != '\0' && m->branch[i] != NULL &&
	    strcmp(m->branch[i], q->branch) != 0)
		return false;
	return !qm->has_excl || m->rowid[i] != qm->excl;
}

static sqlite3_int64
cand_rowid(const struct cand *c)
{
	return c->m->rowid[c->i];
}

/* Descending by x, then table order (invariant 3). */
static int
cand_order(double x, double y, const struct cand *a, const struct cand *b)
{
	if (x != y)
		return x > y ? -1 : 1;
	return cand_rowid(a) < cand_rowid(b) ? -1 :
	    cand_rowid(a) > cand_rowid(b);
}

/* Final order: by key. */
static int
cand_cmp(const void *pa, const void *pb)
{
	const struct cand	*a = pa, *b = pb;

	return cand_order(a->key, b->key, a, b);
}

/* Rescoring order: most promising first. */
static int
cand_cmp_upper(const void *pa, const void *pb)
{
	const struct cand	*a = pa, *b = pb;

	return cand_order(a->upper, b->upper, a, b);
}

/* exclude_slug's rowid in qm's store (find_similar, §5.4). */
static int
exclude_rowid(struct store *st, const char *slug, struct qmat *qm,
    struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	int		 step;

	if (store_prepare(st, &stmt, "SELECT rowid FROM entries "
	    "WHERE slug = ? AND store = ?", err) != 0)
		return -1;
	sqlite3_bind_text(stmt, 1, slug, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 2, qm->m->store, -1, SQLITE_STATIC);
	step = sqlite3_step(stmt);
	if (step == SQLITE_ROW) {
		qm->excl = sqlite3_column_int64(stmt, 0);
		qm->has_excl = true;
	}
	sqlite3_finalize(stmt);
	if (step != SQLITE_ROW && step != SQLITE_DONE)
		return store_fail(st, err, "cannot read memory");
	return 0;
}

/* The query's distinct stores' matrices of its dimension, made exact by
 * the cache, each with exclude_slug's rowid in it. */
static int
query_mats(struct store *st, const struct store_query *q,
    struct qmat **out, size_t *nout, struct err *err)
{
	struct store_mat	**m;
	struct qmat		 *qm;
	size_t			  i, n = 0;
	int			  rc = -1;

	qm = xcalloc(q->nstores + 1, sizeof(*qm));
	m = xcalloc(q->nstores + 1, sizeof(*m));
	*out = qm;
	*nout = 0;
	if (store_cache_mats(st, q, m, &n, err) != 0)
		goto out;
	for (i = 0; i < n; i++) {
		qm[i].m = m[i];
		if (q->exclude_slug != NULL && exclude_rowid(st,
		    q->exclude_slug, &qm[i], err) != 0)
			goto out;
	}
	*nout = n;
	rc = 0;
out:
	free(m);
	return rc;
}

/*
 * The approximate pass: each matrix's approx gets every row's approximate
 * cosine (NAN for ineligible rows); the return is the limit-th best lower
 * bound of an exact score, below which no row can make the cut.
 */
static double
approx_scores(const struct store_query *q, double qnorm, double q1,
    struct qmat *qm, size_t nqm)
{
	struct topk	 t = { xcalloc((size_t)q->limit, sizeof(double)), 0,
			    (size_t)q->limit };
	struct store_mat *m;
	size_t		 k, i;
	double		 kth;
	float		*a;

	for (k = 0; k < nqm; k++) {
		m = qm[k].m;
		a = qm[k].approx;
		qm[k].mdot = qnorm == 0 ? 0 : vector_dot(q->vec, m->mu,
		    q->dim) / qnorm;
		dot_rows_split(q->vec, m->c, m->n, q->dim, a);
		for (i = 0; i < m->n; i++) {
			if (!row_eligible(q, &qm[k], i)) {
				a[i] = NAN;
				continue;
			}
			a[i] = qnorm == 0 ? 0 : (float)(m->k[i] * a[i] / qnorm +
			    qm[k].mdot * m->w[i]);
			topk_push(&t, a[i] - row_err(m, i, q1));
		}
	}
	kth = t.n < t.k ? -INFINITY : t.v[0];
	free(t.v);
	return kth;
}

/*
 * The second pass, over the band only: b = mu + s c + s2 r + d with
 * |d_j| <= s2 / 2, so cos = base + (k dot(q, c) + k2 dot(q, r)) / |q|
 * within k2 / 2 * q1 (q1 = |q|_1 / |q|). The dots are summed in double
 * (exact products, so their rounding is ~2^-53 of them); k, k2 and w are
 * floats, off by 2^-24 of a term of at most ~row_scale: NARROW_SLACK
 * times that covers both. The row's upper bound becomes the lower of its
 * two and its narrow lower bound goes to t; a row that is not finite
 * keeps its first.
 */
#define NARROW_SLACK	1e-6

static void
narrow_one(const struct store_query *q, double qnorm, double q1,
    struct cand *c, struct topk *t)
{
	const struct store_mat	*m = c->m;
	size_t			 i = c->i;
	double			 a, d[2], half;
	int			 dim = q->dim;

	if (qnorm == 0 || !isfinite(m->k2[i]) || !isfinite(m->e[i]))
		return;
	vector_ddot2_int8(q->vec, m->c + i * (size_t)dim,
	    m->r + i * (size_t)dim, dim, d);
	a = c->base + ((double)m->k[i] * d[0] + (double)m->k2[i] * d[1]) /
	    qnorm;
	half = (double)m->k2[i] / 2 * q1 + NARROW_SLACK * row_scale(m, i);
	c->upper = fmin(c->upper, a + half);
	if (isfinite(a))
		topk_push(t, a - half);
}

/* The least upper bound that can make a cut at kth (round3 ranking: a
 * score within a rounding step of the cut ties). */
static double
band_floor(const struct store_query *q, double kth)
{
	return fmax(kth - (q->rank_round3 ? 1e-3 : 0), q->min_score);
}

/*
 * From this many rows beyond the cut's own, a second thread narrows half
 * of them: on a crowded store of 100,000 memories the band is tens of
 * thousands of rows, ~50 ns each, most of a warm recall's vector side.
 */
#define NARROW_MT_ROWS	8192

/* Narrowing c[0 .. n): the rows not at or above kth whose first upper
 * bound reaches cut, their narrow lower bounds into t. */
struct narrow_part {
	const struct store_query	*q;
	double				 qnorm, q1, kth, cut;
	struct cand			*c;
	size_t				 n;
	struct topk			 t;
};

static void
narrow_rest(struct narrow_part *p)
{
	size_t	j;

	for (j = 0; j < p->n; j++)
		if (!(p->c[j].lower >= p->kth) && !(p->c[j].upper < p->cut))
			narrow_one(p->q, p->qnorm, p->q1, &p->c[j], &p->t);
}

static void *
narrow_rest_main(void *arg)
{
	narrow_rest(arg);
	return NULL;
}

/* narrow_rest over all of a's rows, on two threads when they are many
 * (one if the second fails): the other half's bounds go to their own
 * heap, then into a's, and the limit best of the union are the limit
 * best of the two heaps' (each row writes only its own cand). */
static void
narrow_split(struct narrow_part *a)
{
	struct narrow_part	b = *a;
	pthread_t		tid;
	size_t			i;

	if (a->n < NARROW_MT_ROWS || sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		narrow_rest(a);
		return;
	}
	b.c = a->c + a->n / 2;
	b.n = a->n - a->n / 2;
	b.t = (struct topk){ xcalloc(a->t.k, sizeof(double)), 0, a->t.k };
	if (pthread_create(&tid, NULL, narrow_rest_main, &b) != 0) {
		free(b.t.v);
		narrow_rest(a);
		return;
	}
	a->n /= 2;
	narrow_rest(a);
	pthread_join(tid, NULL);
	for (i = 0; i < b.t.n; i++)
		topk_push(&a->t, b.t.v[i]);
	free(b.t.v);
}

/*
 * Narrow the band c[0 .. n) around approx_scores's cut kth; return the
 * cut from the narrow lower bounds (the limit-th best of them, at least
 * kth): a row outside the band is below kth, so the band holds every row
 * that could set it. First the rows at or above kth (the limit rows that
 * set it, and ties), whose narrow bounds give a cut near the true one;
 * then only the rest whose first upper bound reaches that cut: a row
 * below it would be dropped narrowed or not, and its lower bound, lower
 * still, cannot move the limit-th best. On a crowded store that skips
 * about half the band.
 */
static double
narrow(const struct store_query *q, double qnorm, double q1, struct cand *c,
    size_t n, double kth)
{
	struct narrow_part	 p = { q, qnorm, q1, kth, 0, c, n,
				    { xcalloc((size_t)q->limit, sizeof(double)),
				    0, (size_t)q->limit } };
	size_t			 j;
	double			 cut;

	for (j = 0; j < n; j++)
		if (c[j].lower >= kth)
			narrow_one(q, qnorm, q1, &c[j], &p.t);
	p.cut = band_floor(q, p.t.n < p.t.k ? kth : fmax(kth, p.t.v[0]));
	narrow_split(&p);
	cut = p.t.n < p.t.k ? kth : fmax(kth, p.t.v[0]);
	free(p.t.v);
	return cut;
}

/*
 * The rows whose upper bound reaches the cut (the band; the return is
 * how many), narrowed, most promising first. Of those, only the rows
 * whose narrow upper bound still reaches the narrow cut are kept and
 * sorted: limit rows score at or above that cut, so a row below it cannot
 * be among the first limit (rescore would reach it, if at all, after
 * them). On a crowded store the band is thousands of rows and the kept
 * ones a few dozen.
 */
static size_t
band_collect(const struct store_query *q, double qnorm, double q1,
    struct qmat *qm, size_t nqm, double kth, struct cand **out,
    size_t *nout)
{
	double		 floor_ = band_floor(q, kth);
	struct cand	*c;
	size_t		 n = 0, k, i, j;
	struct store_mat *m;
	double		 upper;

	/* room for every row, not cleared: only the band's is written */
	for (k = 0; k < nqm; k++)
		n += qm[k].m->n;
	c = xreallocarray(NULL, n + 1, sizeof(*c));
	for (n = 0, k = 0; k < nqm; k++) {
		m = qm[k].m;
		for (i = 0; i < m->n; i++) {
			if (isnan(qm[k].approx[i]))
				continue;
			upper = qm[k].approx[i] + row_err(m, i, q1);
			if (upper < floor_)
				continue;
			c[n++] = (struct cand){ m, i, qm[k].mdot *
			    (double)m->w[i], upper,
			    qm[k].approx[i] - row_err(m, i, q1), 0, 0 };
		}
	}
	floor_ = band_floor(q, narrow(q, qnorm, q1, c, n, kth));
	for (i = j = 0; i < n; i++)
		if (!(c[i].upper < floor_))
			c[j++] = c[i];
	if (j > 0)
		qsort(c, j, sizeof(*c), cand_cmp_upper);
	*out = c;
	*nout = j;
	return n;
}

/*
 * The exact pass (invariant 2): score candidates from their BLOBs, best
 * upper bound first, until the next one cannot reach the limit-th key
 * (a round3 key may exceed its score by half a step). c[0 .. *nc) are
 * left scored and in final order.
 */
static int
rescore(struct store *st, const struct store_query *q, double qnorm,
    struct cand *c, size_t *nc, struct err *err)
{
	struct topk	 t = { xcalloc((size_t)q->limit, sizeof(double)), 0,
			    (size_t)q->limit };
	sqlite3_stmt	*stmt = NULL;
	float		*row = xcalloc((size_t)q->dim, sizeof(float));
	const void	*blob;
	size_t		 j, n = 0;
	double		 s;
	int		 step, rc = -1;

	if (store_prepare(st, &stmt, "SELECT embedding FROM entries "
	    "WHERE rowid = ?", err) != 0)
		goto out;
	for (j = 0; j < *nc; j++) {
		if (t.n == t.k && c[j].upper + (q->rank_round3 ? 1e-3 : 0) <
		    t.v[0])
			break;
		sqlite3_reset(stmt);
		sqlite3_bind_int64(stmt, 1, cand_rowid(&c[j]));
		if ((step = sqlite3_step(stmt)) != SQLITE_ROW) {
			if (step == SQLITE_DONE)
				continue;	/* invariant 1: cannot happen */
			store_fail(st, err, "cannot read embeddings");
			goto out;
		}
		blob = sqlite3_column_blob(stmt, 0);
		if (sqlite3_column_bytes(stmt, 0) != q->dim * 4)
			continue;		/* invariant 1: cannot happen */
		vector_decode(blob, (size_t)q->dim, row);
		s = vector_cosine(q->vec, qnorm, row, vector_norm(row, q->dim),
		    q->dim);
		if (isnan(s) || s < q->min_score)
			continue;
		c[n] = c[j];
		c[n].score = s;
		c[n].key = q->rank_round3 ? num_round3(s) : s;
		topk_push(&t, c[n++].key);
	}
	if (n > 0)
		qsort(c, n, sizeof(*c), cand_cmp);
	*nc = n;
	rc = 0;
out:
	sqlite3_finalize(stmt);
	free(row);
	free(t.v);
	return rc;
}

static int
fetch_hit(struct store *st, sqlite3_stmt *stmt, sqlite3_int64 rowid,
    double score, struct store_hits *hits, struct err *err)
{
	int	step;

	sqlite3_reset(stmt);
	sqlite3_bind_int64(stmt, 1, rowid);
	step = sqlite3_step(stmt);
	if (step == SQLITE_DONE)
		return 0;	/* invariant 1: cannot happen */
	if (step != SQLITE_ROW)
		return store_fail(st, err, "cannot read memory");
	store_entry_read(stmt, 0, &hits->v[hits->n].e);
	hits->v[hits->n++].score = score;
	return 0;
}

/* One score slot per row of every matrix, reusing the cache's buffer so a
 * warm query touches no fresh pages. */
static void
scratch_split(struct store_cache *c, struct qmat *qm, size_t nqm)
{
	size_t	k, total = 0;

	for (k = 0; k < nqm; k++)
		total += qm[k].m->n;
	if (total + 1 > c->scratch_cap) {
		free(c->scratch);
		c->scratch_cap = total + 1;
		c->scratch = xcalloc(c->scratch_cap, sizeof(float));
	}
	for (k = 0, total = 0; k < nqm; k++) {
		qm[k].approx = c->scratch + total;
		total += qm[k].m->n;
	}
}

/*
 * Each probe's rank among the eligible rows by their int8-pass scores:
 * 1 + how many score above it, read off a histogram of those scores in
 * PROBE_BINS bins over [-1, 1] (one pass, a counter per row, no BLOB
 * read: a binary search per row over the probes cost as much as the int8
 * pass itself). Rows in the probe's own bin count half. The int8 scores
 * and the bins are estimates; past the rows the search returns, a few
 * hundred rows either way move a reciprocal rank by less than 1/160^2.
 */
#define PROBE_BINS	8192

static size_t
probe_bin(double a)
{
	double	b = (a + 1) * (PROBE_BINS / 2);

	return b <= 0 ? 0 : b >= PROBE_BINS - 1 ? PROBE_BINS - 1 : (size_t)b;
}

static void
probe_ranks(const struct qmat *qm, size_t nqm, struct store_probe *p,
    size_t np)
{
	uint32_t	*cnt = xcalloc(PROBE_BINS, sizeof(*cnt));
	uint32_t	*above = xcalloc(PROBE_BINS, sizeof(*above));
	size_t		 k, i, b;
	float		 a;

	for (k = 0; k < nqm; k++)
		for (i = 0; i < qm[k].m->n; i++)
			if (!isnan(a = qm[k].approx[i]))
				cnt[probe_bin(a)]++;
	for (b = PROBE_BINS - 1; b-- > 0; )
		above[b] = above[b + 1] + cnt[b + 1];
	for (i = 0; i < np; i++) {
		b = probe_bin(p[i].score);
		p[i].rank = 1 + above[b] + cnt[b] / 2;
	}
	free(above);
	free(cnt);
}

/* store_search inside its snapshot (invariant 1). */
static int
search_snapshot(struct store *st, struct store_cache *cache,
    const struct store_query *q, struct store_probe *probe, size_t nprobe,
    struct store_hits *hits, struct err *err)
{
	struct qmat	*qm = NULL;
	struct cand	*c = NULL;
	sqlite3_stmt	*stmt = NULL;
	size_t		 nqm = 0, nc = 0, i;
	double		 qnorm, q1 = 0;
	int		 rc = -1;

	if (query_mats(st, q, &qm, &nqm, err) != 0)
		goto out;
	if (q->limit <= 0) {		/* store_vector_prepare */
		rc = 0;
		goto out;
	}
	qnorm = vector_norm(q->vec, q->dim);
	for (i = 0; i < (size_t)q->dim; i++)
		q1 += fabs((double)q->vec[i]);
	q1 = qnorm == 0 ? 0 : q1 / qnorm;
	scratch_split(cache, qm, nqm);
	cache->band = band_collect(q, qnorm, q1, qm, nqm, approx_scores(q,
	    qnorm, q1, qm, nqm), &c, &nc);
	if (nprobe > 0)
		probe_ranks(qm, nqm, probe, nprobe);
	if (rescore(st, q, qnorm, c, &nc, err) != 0)
		goto out;
	if (nc > (size_t)q->limit)
		nc = (size_t)q->limit;
	if (nc == 0) {
		rc = 0;
		goto out;
	}
	if (store_prepare(st, &stmt, "SELECT " STORE_ENTRY_COLS
	    " FROM entries WHERE rowid = ?", err) != 0)
		goto out;
	hits->v = xcalloc(nc, sizeof(*hits->v));
	for (i = 0; i < nc; i++) {
		if (fetch_hit(st, stmt, cand_rowid(&c[i]), c[i].score, hits,
		    err) != 0)
			goto out;
	}
	rc = 0;
out:
	free(qm);
	free(c);
	sqlite3_finalize(stmt);
	return rc;
}

int
store_vector_search(struct store *st, const struct store_query *q,
    struct store_hits *hits, struct err *err)
{
	return store_vector_probe(st, q, NULL, 0, hits, err);
}

/* search_snapshot in a snapshot of its own unless the caller has one
 * (invariant 1), redone from the table if the vector file was cut. */
static int
vector_run(struct store *st, const struct store_query *q,
    struct store_probe *probe, size_t nprobe, struct store_hits *hits,
    struct err *err)
{
	struct store_cache	*c = store_cache_get(st);
	bool			 began = false;
	int			 rc;

	if (sqlite3_get_autocommit(st->db)) {
		if (store_exec(st, "BEGIN", err) != 0)
			return -1;
		began = c->reading = true;
	}
	rc = search_snapshot(st, c, q, probe, nprobe, hits, err);
	if (c->map.p != NULL && !mapguard_intact(c->map.guard)) {
		/* the vector file was cut under us: what it gave is zeros */
		log_debug("store:vecfile", "vector file cut while mapped; "
		    "searching the table");
		store_hits_release(hits);
		store_cache_drop(c);
		rc = search_snapshot(st, c, q, probe, nprobe, hits, err);
	}
	if (began) {
		if (rc == 0 && store_exec(st, "COMMIT", err) != 0)
			rc = -1;
		store_rollback(st);
		c->reading = false;
	}
	if (c->file_save) {
		c->file_save = false;
		if (rc == 0)
			store_cache_save(st, q->dim);
	}
	return rc;
}

int
store_vector_probe(struct store *st, const struct store_query *q,
    struct store_probe *probe, size_t nprobe, struct store_hits *hits,
    struct err *err)
{
	memset(hits, 0, sizeof(*hits));
	if (q->nstores == 0 || q->limit <= 0 || q->dim <= 0)
		return 0;
	return vector_run(st, q, probe, nprobe, hits, err);
}

int
store_vector_prepare(struct store *st, const struct store_query *q,
    struct err *err)
{
	struct store_query	pq = *q;
	struct store_hits	none;

	memset(&none, 0, sizeof(none));
	if (q->nstores == 0 || q->dim <= 0)
		return 0;
	pq.limit = 0;
	return vector_run(st, &pq, NULL, 0, &none, err);
}

int
store_search_preload(struct store *st, struct err *err)
{
	struct store_cache	*c = store_cache_get(st);
	bool			 began = false;
	int			 rc;

	if (c->file_tried || c->mats != NULL)
		return 0;
	if (sqlite3_get_autocommit(st->db)) {
		if (store_exec(st, "BEGIN", err) != 0)
			return -1;
		began = true;
	}
	rc = store_cache_preload(st, err);
	if (began) {
		if (rc == 0 && store_exec(st, "COMMIT", err) != 0)
			rc = -1;
		store_rollback(st);
	}
	return rc;
}

size_t
store_vector_band(struct store *st)
{
	return store_cache_get(st)->band;
}

void
store_hits_release(struct store_hits *hits)
{
	size_t	i;

	for (i = 0; i < hits->n; i++)
		store_entry_release(&hits->v[i].e);
	free(hits->v);
	memset(hits, 0, sizeof(*hits));
}

