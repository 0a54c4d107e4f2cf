/*
 * store_search.c — exact cosine search over memories (store-and-tools §5),
 * recall telemetry, and the vector export find_duplicates reads.
 *
 * A warm process (the MCP server) must answer a recall over 100,000
 * memories in milliseconds, so it cannot read 100,000 BLOBs per query.
 * Each (store, dimension) gets an in-memory row-major float matrix with the
 * rows' norms, rowids, slugs, branches and archived flags, loaded on first
 * use, plus an int8 copy (one scale per row) that is a quarter of the
 * bytes: a scan is bound by memory bandwidth, so a query scores every
 * eligible row on the int8 copy with a SIMD dot product, which gives each
 * row an interval its exact cosine must lie in. Only rows whose interval
 * reaches the limit-th best lower end are rescored with the exact double
 * cosine of §5.1 on the float rows; the winners are fetched by rowid.
 *
 * Invariants:
 *  1. The matrices describe the database as of the last validation: they
 *     are dropped whenever PRAGMA data_version (commits by any other
 *     connection) or sqlite3_total_changes (our own) moved. Recall
 *     stamping, which changes no vector, carries a valid cache over.
 *  2. Results are exact: the int8 pass only chooses which rows get the
 *     exact score, and its per-row error bound (quantisation plus float
 *     rounding, see row_err) is rigorous, so no row that belongs in the
 *     top `limit` is ever left out. Rows whose exact score is not a number
 *     (a foreign BLOB holding NaN) are skipped.
 *  3. Equal scores keep table (rowid) order: the original scans the table
 *     and sorts stably (§5.2 step 4).
 *  4. Rows whose BLOB length is not a multiple of 4 are skipped with one
 *     warning per process; rows of another dimension are skipped silently
 *     (§1.6, §5.1).
 */
#include "core/store.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "core/store_int.h"
#include "util/err.h"
#include "util/log.h"
#include "util/num.h"
#include "util/sbuf.h"
#include "util/xmalloc.h"

/* The vectors of one (store, dim), in table order. */
struct store_mat {
	char			*store;		/* owned */
	int			 dim;
	size_t			 n, cap;
	float			*v;		/* owned, n * dim */
	double			*norm;		/* owned, sqrt(sum b_i^2) */
	signed char		*c;		/* owned, n * dim, b ~ s * c */
	float			*k;		/* owned, s / norm */
	float			*e;		/* owned, s / (2 norm) */
	sqlite3_int64		*rowid;		/* owned */
	char			**slug;		/* owned */
	char			**branch;	/* owned; NULL: SQL NULL */
	unsigned char		*archived;	/* owned */
	struct store_mat	*next;		/* owned */
};

struct store_cache {
	struct store_mat	*mats;		/* owned */
	sqlite3_int64		 changes;
	int			 data_version;
	bool			 warned;
	float			*scratch;	/* owned; approximate scores */
	size_t			 scratch_cap;
};

static void
mat_free(struct store_mat *m)
{
	size_t	i;

	for (i = 0; i < m->n; i++) {
		free(m->slug[i]);
		free(m->branch[i]);
	}
	free(m->store);
	free(m->v);
	free(m->norm);
	free(m->c);
	free(m->k);
	free(m->e);
	free(m->rowid);
	free(m->slug);
	free(m->branch);
	free(m->archived);
	free(m);
}

static void
cache_drop(struct store_cache *c)
{
	struct store_mat	*m, *next;

	for (m = c->mats; m != NULL; m = next) {
		next = m->next;
		mat_free(m);
	}
	c->mats = NULL;
}

void
store_cache_free(struct store_cache *c)
{
	if (c == NULL)
		return;
	cache_drop(c);
	free(c->scratch);
	free(c);
}

static int
data_version(struct store *st, int *dv, struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	int		 rc = -1;

	if (store_prepare(st, &stmt, "PRAGMA data_version", err) != 0)
		return -1;
	if (sqlite3_step(stmt) == SQLITE_ROW) {
		*dv = sqlite3_column_int(stmt, 0);
		rc = 0;
	} else
		store_fail(st, err, "cannot read data_version");
	sqlite3_finalize(stmt);
	return rc;
}

/* Invariant 1: drop the matrices if anyone wrote since we looked. */
static int
cache_validate(struct store *st, struct err *err)
{
	struct store_cache	*c;
	int			 dv;

	if (data_version(st, &dv, err) != 0)
		return -1;
	if (st->cache == NULL)
		st->cache = xcalloc(1, sizeof(*st->cache));
	c = st->cache;
	if (c->mats != NULL && c->data_version == dv &&
	    c->changes == sqlite3_total_changes64(st->db))
		return 0;
	cache_drop(c);
	c->data_version = dv;
	c->changes = sqlite3_total_changes64(st->db);
	return 0;
}

static double
norm_of(const float *v, int dim)
{
	double	s = 0;
	int	i;

	for (i = 0; i < dim; i++)
		s += (double)v[i] * (double)v[i];
	return sqrt(s);
}

/*
 * Row i's int8 copy: c_j = round(b_j / s) with s = max|b_j| / 127, so
 * |b_j - s c_j| <= s / 2. A row that is zero or not finite gets k = e = 0
 * and is left to the exact pass (row_err makes it always a candidate).
 */
static void
quantise(struct store_mat *m, size_t i)
{
	const float	*b = m->v + i * (size_t)m->dim;
	signed char	*c = m->c + i * (size_t)m->dim;
	float		 mx = 0, s;
	int		 j;

	for (j = 0; j < m->dim; j++)
		mx = fabsf(b[j]) > mx ? fabsf(b[j]) : mx;
	if (mx == 0 || !isfinite(mx) || !isfinite(m->norm[i])) {
		memset(c, 0, (size_t)m->dim);
		m->k[i] = 0;
		m->e[i] = mx == 0 ? 0 : INFINITY;
		return;
	}
	s = mx / 127;
	for (j = 0; j < m->dim; j++)	/* |b_j / s| <= 127 by choice of s */
		c[j] = (signed char)lrintf(b[j] / s);
	m->k[i] = (float)(s / m->norm[i]);
	m->e[i] = (float)(s / (2 * m->norm[i]));
}

/*
 * The two big arrays are first touched row by row as they fill, and on a
 * virtual machine every 4 KiB page fault is dear: they are allocated on
 * 2 MiB boundaries and offered to transparent huge pages, which makes a
 * 100,000-row load several times faster. Returns new memory holding the
 * first `keep` bytes of old (which is freed).
 */
static void *
big_regrow(void *old, size_t keep, size_t size)
{
	void	*p;

	if (size < ((size_t)2 << 20))
		return xrealloc(old, size);
	if (posix_memalign(&p, (size_t)2 << 20, size) != 0)
		return xrealloc(old, size);
	madvise(p, size, MADV_HUGEPAGE);
	if (keep > 0)
		memcpy(p, old, keep);
	free(old);
	return p;
}

static void
mat_reserve(struct store_mat *m, size_t cap)
{
	size_t	d = (size_t)m->dim;

	if (cap <= m->cap)
		return;
	m->v = big_regrow(m->v, m->n * d * sizeof(float), cap * d *
	    sizeof(float));
	m->c = big_regrow(m->c, m->n * d, cap * d);
	m->norm = xreallocarray(m->norm, cap, sizeof(double));
	m->k = xreallocarray(m->k, cap, sizeof(float));
	m->e = xreallocarray(m->e, cap, sizeof(float));
	m->rowid = xreallocarray(m->rowid, cap, sizeof(sqlite3_int64));
	m->slug = xreallocarray(m->slug, cap, sizeof(char *));
	m->branch = xreallocarray(m->branch, cap, sizeof(char *));
	m->archived = xreallocarray(m->archived, cap, 1);
	m->cap = cap;
}

/* Append one decoded row to m. */
static void
mat_push(struct store_mat *m, sqlite3_stmt *stmt, const void *blob)
{
	const unsigned char	*b;
	float			*row;

	if (m->n == m->cap)
		mat_reserve(m, m->cap * 2 + 64);
	row = m->v + m->n * (size_t)m->dim;
	store_blob_decode(blob, (size_t)m->dim, row);
	m->norm[m->n] = norm_of(row, m->dim);
	quantise(m, m->n);
	m->rowid[m->n] = sqlite3_column_int64(stmt, 0);
	m->slug[m->n] = xstrdup((const char *)sqlite3_column_text(stmt, 1));
	b = sqlite3_column_text(stmt, 2);
	m->branch[m->n] = b == NULL ? NULL : xstrdup((const char *)b);
	m->archived[m->n] = sqlite3_column_int(stmt, 3) != 0;
	m->n++;
}

/* How many rows mat_load will find, to allocate once (a guess: rows may
 * come and go before the scan; mat_push grows if needed). */
static size_t
mat_count(struct store *st, const char *store, int dim)
{
	sqlite3_stmt	*stmt = NULL;
	struct err	 ignored;
	size_t		 n = 0;

	if (store_prepare(st, &stmt, "SELECT COUNT(*) FROM entries "
	    "WHERE store = ? AND length(embedding) = ?", &ignored) != 0)
		return 0;
	sqlite3_bind_text(stmt, 1, store, -1, SQLITE_STATIC);
	sqlite3_bind_int(stmt, 2, dim * 4);
	if (sqlite3_step(stmt) == SQLITE_ROW)
		n = (size_t)sqlite3_column_int64(stmt, 0);
	sqlite3_finalize(stmt);
	return n;
}

static void
warn_bad_blob(struct store *st, const char *store, const char *slug)
{
	if (st->cache->warned)
		return;
	st->cache->warned = true;
	log_warn("skipping memory '%s' in store '%s': its embedding is not "
	    "a whole number of float32 values (further ones not reported)",
	    slug, store);
}

static int
mat_load(struct store *st, const char *store, int dim,
    struct store_mat **out, struct err *err)
{
	sqlite3_stmt		*stmt = NULL;
	struct store_mat	*m;
	const char		*slug;
	int			 step, bytes;

	*out = NULL;
	if (store_prepare(st, &stmt, "SELECT rowid, slug, branch, archived, "
	    "embedding FROM entries WHERE store = ? AND embedding IS NOT NULL",
	    err) != 0)
		return -1;
	sqlite3_bind_text(stmt, 1, store, -1, SQLITE_STATIC);
	m = xcalloc(1, sizeof(*m));
	m->store = xstrdup(store);
	m->dim = dim;
	mat_reserve(m, mat_count(st, store, dim) + 1);
	while ((step = sqlite3_step(stmt)) == SQLITE_ROW) {
		slug = (const char *)sqlite3_column_text(stmt, 1);
		bytes = sqlite3_column_bytes(stmt, 4);
		if (bytes % 4 != 0)
			warn_bad_blob(st, store, slug ? slug : "");
		else if (bytes / 4 == dim && slug != NULL)
			mat_push(m, stmt, sqlite3_column_blob(stmt, 4));
	}
	sqlite3_finalize(stmt);
	if (step != SQLITE_DONE) {
		mat_free(m);
		return store_fail(st, err, "cannot read embeddings");
	}
	m->next = st->cache->mats;
	st->cache->mats = m;
	*out = m;
	return 0;
}

static int
mat_get(struct store *st, const char *store, int dim,
    struct store_mat **out, struct err *err)
{
	struct store_mat	*m;

	for (m = st->cache->mats; m != NULL; m = m->next) {
		if (m->dim == dim && strcmp(m->store, store) == 0) {
			*out = m;
			return 0;
		}
	}
	return mat_load(st, store, dim, out, err);
}

/*
 * Dot products of the float query with each int8 row. The AVX2 version
 * widens 8 int8 at a time to floats (GCC scalarises that conversion when
 * written with vector extensions) and is chosen at run time; the plain
 * loop is for other machines.
 */
static void
dot_rows_plain(const float *q, const signed char *m, size_t n, int dim,
    float *out)
{
	size_t	r;
	int	i;
	float	s;

	for (r = 0; r < n; r++, m += dim) {
		s = 0;
		for (i = 0; i < dim; i++)
			s += q[i] * m[i];
		out[r] = s;
	}
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

__attribute__((target("avx2,fma")))
static void
dot_rows_avx2(const float *q, const signed char *m, size_t n, int dim,
    float *out)
{
	size_t	r;
	int	i;
	__m256	a0, a1, y0, y1;
	__m128	h;
	float	s;

	for (r = 0; r < n; r++, m += dim) {
		a0 = _mm256_setzero_ps();
		a1 = _mm256_setzero_ps();
		for (i = 0; i + 16 <= dim; i += 16) {
			y0 = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(
			    _mm_loadl_epi64((const __m128i *)(m + i))));
			y1 = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(
			    _mm_loadl_epi64((const __m128i *)(m + i + 8))));
			a0 = _mm256_fmadd_ps(_mm256_loadu_ps(q + i), y0,
			    a0);
			a1 = _mm256_fmadd_ps(_mm256_loadu_ps(q + i + 8), y1,
			    a1);
		}
		a0 = _mm256_add_ps(a0, a1);
		h = _mm_add_ps(_mm256_castps256_ps128(a0),
		    _mm256_extractf128_ps(a0, 1));
		h = _mm_add_ps(h, _mm_movehl_ps(h, h));
		h = _mm_add_ss(h, _mm_shuffle_ps(h, h, 1));
		s = _mm_cvtss_f32(h);
		for (; i < dim; i++)
			s += q[i] * m[i];
		out[r] = s;
	}
}

static void
dot_rows(const float *q, const signed char *m, size_t n, int dim, float *out)
{
	if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
		dot_rows_avx2(q, m, n, dim, out);
	else
		dot_rows_plain(q, m, n, dim, out);
}
#else
#define dot_rows	dot_rows_plain
#endif

/* §5.1 exactly: double accumulation, 0 for a zero denominator. */
static double
cosine_exact(const float *q, double qnorm, const float *row, double rnorm,
    int dim)
{
	double	dot = 0;
	int	i;

	if (qnorm == 0 || rnorm == 0)
		return 0;
	for (i = 0; i < dim; i++)
		dot += (double)q[i] * (double)row[i];
	return dot / (qnorm * rnorm);
}

/*
 * How far row i's approximate cosine k * dot(q, c) / |q| may be from the
 * exact one: quantisation moves the dot by at most (s / 2) * |q|_1, i.e.
 * e * q1 in cosine units (q1 = |q|_1 / |q|); float rounding of a dim-term
 * dot errs by about dim * 2^-24 of |q||b|, and dim * 2^-20 covers it with
 * room to spare.
 */
#define ROUNDING_ERR(dim)	((double)(dim) / 1048576 + 1e-6)

static double
row_err(const struct store_mat *m, size_t i, double q1)
{
	return (double)m->e[i] * q1 + ROUNDING_ERR(m->dim);
}

/* A row that made the band, with its exact score. */
struct cand {
	struct store_mat	*m;
	size_t			 i;
	double			 score, key;
};

/* Min-heap of the `limit` best approximate scores. */
struct topk {
	float	*v;	/* owned */
	size_t	 n, k;
};

static void
topk_push(struct topk *t, float s)
{
	size_t	i, c;
	float	tmp;

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
		tmp = t->v[c];
		t->v[i] = tmp;
	}
	t->v[i] = s;
}

static bool
row_eligible(const struct store_query *q, const struct store_mat *m,
    size_t i)
{
	if (!q->include_archived && m->archived[i])
		return false;
	if (q->branch != NULL && *q->branch != '\0' && m->branch[i] != NULL &&
	    strcmp(m->branch[i], q->branch) != 0)
		return false;
	return q->exclude_slug == NULL || strcmp(m->slug[i],
	    q->exclude_slug) != 0;
}

static int
cand_cmp(const void *pa, const void *pb)
{
	const struct cand	*a = pa, *b = pb;

	if (a->key != b->key)
		return a->key > b->key ? -1 : 1;
	return a->m->rowid[a->i] < b->m->rowid[b->i] ? -1 :
	    a->m->rowid[a->i] > b->m->rowid[b->i];
}

/* The query's distinct stores' matrices of its dimension. */
static int
query_mats(struct store *st, const struct store_query *q,
    struct store_mat ***out, size_t *nout, struct err *err)
{
	struct store_mat	**mats;
	size_t			  i, j, n = 0;

	mats = xcalloc(q->nstores + 1, sizeof(*mats));
	*out = mats;
	*nout = 0;
	for (i = 0; i < q->nstores; i++) {
		for (j = 0; j < i; j++)
			if (strcmp(q->stores[i], q->stores[j]) == 0)
				break;
		if (j < i)
			continue;
		if (mat_get(st, q->stores[i], q->dim, &mats[n], err) != 0)
			return -1;
		n++;
	}
	*nout = n;
	return 0;
}

/*
 * The approximate pass: approx[k] gets every row's approximate cosine (NAN
 * for ineligible rows); the return is the limit-th best lower bound of an
 * exact score, below which no row can make the cut.
 */
static double
approx_scores(const struct store_query *q, double qnorm, double q1,
    struct store_mat **mats, size_t nmats, float **approx)
{
	struct topk	 t = { xcalloc((size_t)q->limit, sizeof(float)), 0,
			    (size_t)q->limit };
	struct store_mat *m;
	size_t		 k, i;
	double		 kth;
	float		*a;

	for (k = 0; k < nmats; k++) {
		m = mats[k];
		a = approx[k];
		dot_rows(q->vec, m->c, m->n, q->dim, a);
		for (i = 0; i < m->n; i++) {
			if (!row_eligible(q, m, i)) {
				a[i] = NAN;
				continue;
			}
			a[i] = qnorm == 0 ? 0 : (float)(m->k[i] * a[i] / qnorm);
			topk_push(&t, (float)(a[i] - row_err(m, i, q1)));
		}
	}
	kth = t.n < t.k ? -INFINITY : t.v[0];
	free(t.v);
	return kth;
}

/* The band around the cut, exactly scored and sorted. */
static void
band_collect(const struct store_query *q, double qnorm, double q1,
    struct store_mat **mats, size_t nmats, float **approx, double kth,
    struct cand **out, size_t *nout)
{
	/* round3 ranking: a score within a rounding step of the cut ties */
	double		 floor_ = fmax(kth - (q->rank_round3 ? 1e-3 : 0),
			    q->min_score);
	struct cand	*c = NULL;
	size_t		 n = 0, cap = 0, k, i;
	struct store_mat *m;
	double		 s;

	for (k = 0; k < nmats; k++) {
		m = mats[k];
		for (i = 0; i < m->n; i++) {
			if (isnan(approx[k][i]) ||
			    approx[k][i] + row_err(m, i, q1) < floor_)
				continue;
			s = cosine_exact(q->vec, qnorm, m->v + i *
			    (size_t)m->dim, m->norm[i], m->dim);
			if (isnan(s) || s < q->min_score)
				continue;
			if (n == cap) {
				cap = cap ? cap * 2 : 32;
				c = xreallocarray(c, cap, sizeof(*c));
			}
			c[n++] = (struct cand){ m, i, s,
			    q->rank_round3 ? num_round3(s) : s };
		}
	}
	if (n > 0)
		qsort(c, n, sizeof(*c), cand_cmp);
	*out = c;
	*nout = n;
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
		return 0;	/* deleted since validation: not a hit */
	if (step != SQLITE_ROW)
		return store_fail(st, err, "cannot read memory");
	store_entry_read(stmt, 0, &hits->v[hits->n].e);
	hits->v[hits->n++].score = score;
	return 0;
}

/* One score slot per row of every matrix, reusing the cache's buffer so a
 * warm query touches no fresh pages. */
static float **
scratch_split(struct store_cache *c, struct store_mat **mats, size_t nmats)
{
	float	**approx = xcalloc(nmats + 1, sizeof(*approx));
	size_t	  k, total = 0;

	for (k = 0; k < nmats; k++)
		total += mats[k]->n;
	if (total + 1 > c->scratch_cap) {
		free(c->scratch);
		c->scratch_cap = total + 1;
		c->scratch = xcalloc(c->scratch_cap, sizeof(float));
	}
	for (k = 0, total = 0; k < nmats; k++) {
		approx[k] = c->scratch + total;
		total += mats[k]->n;
	}
	return approx;
}

int
store_search(struct store *st, const struct store_query *q,
    struct store_hits *hits, struct err *err)
{
	struct store_mat	**mats = NULL;
	struct cand		 *c = NULL;
	float			**approx = NULL;
	sqlite3_stmt		 *stmt = NULL;
	size_t			  nmats = 0, nc = 0, i;
	double			  qnorm, q1 = 0;
	int			  rc = -1;

	memset(hits, 0, sizeof(*hits));
	if (q->nstores == 0 || q->limit <= 0 || q->dim <= 0)
		return 0;
	if (cache_validate(st, err) != 0 ||
	    query_mats(st, q, &mats, &nmats, err) != 0)
		goto out;
	qnorm = norm_of(q->vec, q->dim);
	for (i = 0; i < (size_t)q->dim; i++)
		q1 += fabs((double)q->vec[i]);
	q1 = qnorm == 0 ? 0 : q1 / qnorm;
	approx = scratch_split(st->cache, mats, nmats);
	band_collect(q, qnorm, q1, mats, nmats, approx, approx_scores(q, qnorm,
	    q1, mats, nmats, approx), &c, &nc);
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
		if (fetch_hit(st, stmt, c[i].m->rowid[c[i].i], c[i].score, hits,
		    err) != 0)
			goto out;
	}
	rc = 0;
out:
	free(approx);
	free(mats);
	free(c);
	sqlite3_finalize(stmt);
	return rc;
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

int
store_stamp_recall(struct store *st, const struct store_hits *hits,
    const char *now, struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	struct sbuf	 sql = SBUF_INIT;
	sqlite3_int64	 before = sqlite3_total_changes64(st->db);
	size_t		 i;
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
	if (sqlite3_step(stmt) != SQLITE_DONE) {
		store_fail(st, err, "cannot record recall");
		goto out;
	}
	/* Invariant 1: telemetry moves no vector; keep a valid cache. */
	if (st->cache != NULL && st->cache->changes == before)
		st->cache->changes = sqlite3_total_changes64(st->db);
	rc = 0;
out:
	sqlite3_finalize(stmt);
	sqlite3_exec(st->db, "PRAGMA synchronous = FULL", NULL, NULL, NULL);
	sbuf_release(&sql);
	return rc;
}

void
store_matrix_release(struct store_matrix *mx)
{
	size_t	i;

	for (i = 0; i < mx->n; i++) {
		free(mx->slugs[i]);
		free(mx->labels[i]);
	}
	free(mx->slugs);
	free(mx->labels);
	free(mx->v);
	memset(mx, 0, sizeof(*mx));
}

/* dim 0: the most common whole-float dimension of the eligible rows. */
static int
common_dim(struct store *st, const char *store, bool include_archived,
    int *dim, struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	int		 step;

	if (store_prepare(st, &stmt, include_archived ?
	    "SELECT length(embedding) / 4 AS d FROM entries WHERE store = ? "
	    "AND embedding IS NOT NULL AND length(embedding) % 4 = 0 "
	    "GROUP BY d ORDER BY COUNT(*) DESC, d DESC LIMIT 1" :
	    "SELECT length(embedding) / 4 AS d FROM entries WHERE store = ? "
	    "AND embedding IS NOT NULL AND length(embedding) % 4 = 0 "
	    "AND archived = 0 "
	    "GROUP BY d ORDER BY COUNT(*) DESC, d DESC LIMIT 1", err) != 0)
		return -1;
	sqlite3_bind_text(stmt, 1, store, -1, SQLITE_STATIC);
	step = sqlite3_step(stmt);
	*dim = step == SQLITE_ROW ? sqlite3_column_int(stmt, 0) : 0;
	sqlite3_finalize(stmt);
	if (step != SQLITE_ROW && step != SQLITE_DONE)
		return store_fail(st, err, "cannot read embeddings");
	return 0;
}

int
store_vectors(struct store *st, const char *store, int dim,
    bool include_archived, struct store_matrix *mx, struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	size_t		 cap = 0;
	int		 step;

	memset(mx, 0, sizeof(*mx));
	if (dim == 0 && common_dim(st, store, include_archived, &dim, err) != 0)
		return -1;
	mx->dim = dim;
	if (dim <= 0)
		return 0;
	if (store_prepare(st, &stmt, "SELECT slug, label, embedding "
	    "FROM entries WHERE store = ?1 AND embedding IS NOT NULL "
	    "AND length(embedding) = ?2 AND (?3 OR archived = 0) "
	    "ORDER BY slug", err) != 0)
		return -1;
	sqlite3_bind_text(stmt, 1, store, -1, SQLITE_STATIC);
	sqlite3_bind_int(stmt, 2, dim * 4);
	sqlite3_bind_int(stmt, 3, include_archived);
	while ((step = sqlite3_step(stmt)) == SQLITE_ROW) {
		if (mx->n == cap) {
			cap = cap ? cap * 2 : 64;
			mx->v = xreallocarray(mx->v, cap, (size_t)dim *
			    sizeof(float));
			mx->slugs = xreallocarray(mx->slugs, cap,
			    sizeof(char *));
			mx->labels = xreallocarray(mx->labels, cap,
			    sizeof(char *));
		}
		store_blob_decode(sqlite3_column_blob(stmt, 2), (size_t)dim,
		    mx->v + mx->n * (size_t)dim);
		mx->slugs[mx->n] = xstrdup((const char *)
		    sqlite3_column_text(stmt, 0));
		mx->labels[mx->n++] = xstrdup((const char *)
		    sqlite3_column_text(stmt, 1));
	}
	sqlite3_finalize(stmt);
	if (step != SQLITE_DONE)
		return store_fail(st, err, "cannot read embeddings");
	return 0;
}
