/*
 * dedup.c — near-duplicate pairs of one store and their clusters.
 *
 * find_duplicates and the hygiene count (store-and-tools §5.5, §6) compare
 * every pair of a store's memories. The original's double loop of double-
 * precision cosines took 132 s on 10,000 memories; here the pair scores
 * come from a blocked single-precision matrix product (an sgemm over
 * unit-scaled rows, one tile at a time so memory stays small), and only
 * the pairs near the threshold are re-scored exactly.
 *  1. A pair's fate is decided by the exact cosine of §5.1 (core/vector.c's
 *     vector_cosine, as every score): the float product only rules
 *     out pairs more than SCAN_MARGIN below the threshold, far outside its
 *     rounding error (|error| < 1e-5 for unit rows of a few thousand
 *     dimensions), and counts pairs more than SCAN_MARGIN above it.
 *  2. Reported scores are round3 of the exact cosine.
 *  3. Pairs with a verdict in dedup_pairs are skipped whatever its status
 *     (§5.6); verdict slugs are matched in either order.
 *  4. Nothing here writes to the database.
 *
 * CBLAS is the embedding engine's library; core uses it here only because
 * a pairwise scan is a matrix product, as the original's 132 s showed,
 * and only from SCAN_BLAS_ROWS rows: a smaller store's pairs cost less
 * than loading the library. A system without a BLAS to load scans with
 * the plain dot products at every size: slower, never wrong.
 */
#include "core/dedup.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/vector.h"
#include "embed/blas.h"
#include "util/err.h"
#include "util/log.h"
#include "util/num.h"
#include "util/xmalloc.h"

#define SCAN_MARGIN	1e-4
#define TILE_ROWS	256
#define TILE_COLS	2048

/* What one scan collects: the pairs (find) or only their number (count). */
struct scan {
	const struct store_matrix	*m;
	double				 threshold;
	uint64_t			*verdicts;	/* sorted keys */
	size_t				 nverdicts;
	struct dedup_pair		*pairs;		/* NULL: count only */
	size_t				 npairs, cap;
	bool				 blas;		/* loaded: tiles */
};

static uint64_t
pair_key(size_t a, size_t b, size_t n)
{
	return a < b ? (uint64_t)a * n + b : (uint64_t)b * n + a;
}

static int
cmp_key(const void *x, const void *y)
{
	uint64_t	a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

static int
cmp_slug(const void *key, const void *elt)
{
	return strcmp(key, *(char *const *)elt);
}

struct verdict_walk {
	struct scan	*sc;
	size_t		 cap;
};

static int
add_verdict(const char *a, const char *b, const char *status, void *arg)
{
	struct verdict_walk		*w = arg;
	const struct store_matrix	*m = w->sc->m;
	char				**ia, **ib;

	(void)status;
	ia = bsearch(a, m->slugs, m->n, sizeof(*m->slugs), cmp_slug);
	ib = bsearch(b, m->slugs, m->n, sizeof(*m->slugs), cmp_slug);
	if (ia == NULL || ib == NULL)
		return 0;
	if (w->sc->nverdicts == w->cap) {
		w->cap = w->cap ? w->cap * 2 : 16;
		w->sc->verdicts = xreallocarray(w->sc->verdicts, w->cap,
		    sizeof(*w->sc->verdicts));
	}
	w->sc->verdicts[w->sc->nverdicts++] = pair_key((size_t)(ia - m->slugs),
	    (size_t)(ib - m->slugs), m->n);
	return 0;
}

static bool
has_verdict(const struct scan *sc, size_t a, size_t b)
{
	uint64_t	k = pair_key(a, b, sc->m->n);

	return sc->nverdicts > 0 && bsearch(&k, sc->verdicts, sc->nverdicts,
	    sizeof(k), cmp_key) != NULL;
}

/* Decide pair (i, j) whose approximate cosine is approx. */
static void
consider(struct scan *sc, size_t i, size_t j, float approx)
{
	const struct store_matrix	*m = sc->m;
	const float			*a, *b;
	double				 exact;

	if (approx < sc->threshold - SCAN_MARGIN || has_verdict(sc, i, j))
		return;
	if (sc->pairs == NULL && approx > sc->threshold + SCAN_MARGIN) {
		sc->npairs++;
		return;
	}
	a = m->v + i * (size_t)m->dim;
	b = m->v + j * (size_t)m->dim;
	exact = vector_cosine(a, vector_norm(a, m->dim), b,
	    vector_norm(b, m->dim), m->dim);
	if (exact < sc->threshold)
		return;
	if (sc->pairs != NULL) {
		if (sc->npairs == sc->cap) {
			sc->cap *= 2;
			sc->pairs = xreallocarray(sc->pairs, sc->cap,
			    sizeof(*sc->pairs));
		}
		sc->pairs[sc->npairs] = (struct dedup_pair){ i, j,
		    num_round3(exact) };
	}
	sc->npairs++;
}

/* Row i of m scaled to unit length into u (zeros stay zeros). */
static void
unit_rows(const struct store_matrix *m, float *u)
{
	size_t	i, j, d = (size_t)m->dim;
	double	norm;

	for (i = 0; i < m->n; i++) {
		norm = vector_norm(m->v + i * d, m->dim);
		norm = norm > 0 ? 1 / norm : 0;
		for (j = 0; j < d; j++)
			u[i * d + j] = (float)(m->v[i * d + j] * norm);
	}
}

/*
 * The pair scan's threads share the row tiles through next: each takes
 * the next tile when it is done with one, so a thread the machine does
 * not run leaves its tiles to the one it does (an OpenBLAS pool instead
 * waited for its descheduled worker, spinning in sched_yield: under load
 * a 1,000-memory scan's wall time was 7x its CPU time). Each thread keeps
 * its own pairs; they are merged in thread order, and cmp_pair's order
 * does not depend on which thread found a pair.
 */
struct pair_job {
	const float	*u;
	struct scan	 sc;		/* this thread's pairs */
	size_t		*next;		/* shared: the next tile's first row */
	pthread_mutex_t	*lock;
};

/* Every pair i < j of the tiles this thread takes: C = U[rows] U[cols]^T. */
static void *
pair_worker(void *arg)
{
	struct pair_job	*job = arg;
	size_t		 n = job->sc.m->n, d = (size_t)job->sc.m->dim;
	size_t		 i, j, i0, j0, ni, nj;
	float		*c = xmalloc((size_t)TILE_ROWS * TILE_COLS * sizeof(*c));

	for (;;) {
		pthread_mutex_lock(job->lock);
		i0 = *job->next;
		*job->next += TILE_ROWS;
		pthread_mutex_unlock(job->lock);
		if (i0 >= n)
			break;
		ni = n - i0 < TILE_ROWS ? n - i0 : TILE_ROWS;
		for (j0 = i0; j0 < n; j0 += TILE_COLS) {
			nj = n - j0 < TILE_COLS ? n - j0 : TILE_COLS;
			blas_sgemm(BLAS_ROW_MAJOR, BLAS_NO_TRANS, BLAS_TRANS,
			    (int)ni, (int)nj, (int)d, 1.0f, job->u + i0 * d,
			    (int)d, job->u + j0 * d, (int)d, 0.0f, c, (int)nj);
			for (i = 0; i < ni; i++)
				for (j = i0 + i + 1 > j0 ? i0 + i + 1 - j0 : 0;
				    j < nj; j++)
					consider(&job->sc, i0 + i, j0 + j,
					    c[i * nj + j]);
		}
	}
	free(c);
	return NULL;
}

/*
 * Below this many rows the pairs are plain dot products on the calling
 * thread (1,000 rows: ~2e8 multiply-adds, a few ms): loading OpenBLAS
 * costs more than that, and its pool's worker, started at load, spins
 * and is joined at exit (under load a 1,000-memory hygiene waited tens of
 * milliseconds for it). From here on the product is worth the library,
 * and two threads share the tiles.
 */
#define SCAN_BLAS_ROWS	2048
#define SCAN_THREADS	2

/*
 * Every pair of a small matrix, without BLAS (|error| as sgemm's): rows
 * i .. i + 3 at a time against every later row (vector_sdot4 loads each
 * later row once for four products), a last block of fewer rows one by
 * one.
 */
static void
scan_small(struct scan *sc, const float *u)
{
	size_t	n = sc->m->n, d = (size_t)sc->m->dim, i, j, r;
	float	dot[4];

	for (i = 0; i + 4 <= n; i += 4)
		for (j = i + 1; j < n; j++) {
			vector_sdot4(u + i * d, d, u + j * d, dot);
			for (r = 0; r < 4 && i + r < j; r++)
				consider(sc, i + r, j, dot[r]);
		}
	for (; i < n; i++)
		for (j = i + 1; j < n; j++)
			consider(sc, i, j, vector_sdot(u + i * d, u + j * d,
			    d));
}

/* Add src's pairs to dst's. */
static void
scan_merge(struct scan *dst, struct scan *src)
{
	if (dst->pairs != NULL && src->npairs > 0) {
		if (dst->npairs + src->npairs > dst->cap) {
			dst->cap = dst->npairs + src->npairs;
			dst->pairs = xreallocarray(dst->pairs, dst->cap,
			    sizeof(*dst->pairs));
		}
		memcpy(dst->pairs + dst->npairs, src->pairs, src->npairs *
		    sizeof(*src->pairs));
	}
	dst->npairs += src->npairs;
}

/* Whether the BLAS loads; if not, say once why the scan goes without. */
static bool
blas_available(void)
{
	struct err	e;

	if (blas_open(&e) == 0)
		return true;
	log_debug("dedup", "plain products: %s", e.msg);
	return false;
}

/* Every pair i < j: small matrices or no BLAS directly, large ones tile
 * by tile on up to SCAN_THREADS threads (BLAS loaded by scan_store). */
static void
scan_pairs(struct scan *sc)
{
	const struct store_matrix	*m = sc->m;
	struct pair_job			 job[SCAN_THREADS];
	pthread_t			 tid[SCAN_THREADS];
	pthread_mutex_t			 lock = PTHREAD_MUTEX_INITIALIZER;
	size_t				 next = 0;
	float				*u = xmalloc(m->n * (size_t)m->dim *
					    sizeof(*u));
	int				 t, nt = 1;
	bool				 started[SCAN_THREADS] = { false };

	unit_rows(m, u);
	if (!sc->blas) {
		scan_small(sc, u);
		free(u);
		return;
	}
	if (sysconf(_SC_NPROCESSORS_ONLN) >= 2)
		nt = SCAN_THREADS;
	blas_set_threads(1);	/* our threads share the work, not its */
	for (t = 0; t < nt; t++) {
		job[t] = (struct pair_job){ u, *sc, &next, &lock };
		job[t].sc.npairs = 0;
		job[t].sc.cap = 16;
		job[t].sc.pairs = sc->pairs == NULL ? NULL :
		    xmalloc(job[t].sc.cap * sizeof(*sc->pairs));
		if (t > 0)
			started[t] = pthread_create(&tid[t], NULL,
			    pair_worker, &job[t]) == 0;
	}
	pair_worker(&job[0]);
	for (t = 0; t < nt; t++) {
		if (t > 0 && started[t])
			pthread_join(tid[t], NULL);
		scan_merge(sc, &job[t].sc);
		free(job[t].sc.pairs);
	}
	free(u);
}

/* Rounded score descending; ties in generation order (a, then b). */
static int
cmp_pair(const void *x, const void *y)
{
	const struct dedup_pair	*p = x, *q = y;

	if (p->score != q->score)
		return p->score < q->score ? 1 : -1;
	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	return (p->b > q->b) - (p->b < q->b);
}

static int
scan_store(struct store *st, const char *store, double threshold,
    struct scan *sc, struct store_matrix *m, struct err *err)
{
	struct verdict_walk	w = { sc, 0 };

	sc->m = m;
	sc->threshold = threshold;
	if (store_vectors(st, store, 0, false, m, err) != 0)
		return -1;
	if (m->n < 2)
		return 0;
	sc->blas = m->n >= SCAN_BLAS_ROWS && blas_available();
	if (store_verdicts(st, store, add_verdict, &w, err) != 0)
		return -1;
	if (sc->nverdicts > 1)
		qsort(sc->verdicts, sc->nverdicts, sizeof(*sc->verdicts),
		    cmp_key);
	scan_pairs(sc);
	return 0;
}

int
dedup_find(struct store *st, const char *store, double threshold,
    struct dedup_result *r, struct err *err)
{
	struct scan	sc = { 0 };
	int		rc;

	memset(r, 0, sizeof(*r));
	sc.cap = 16;
	sc.pairs = xmalloc(sc.cap * sizeof(*sc.pairs));
	rc = scan_store(st, store, threshold, &sc, &r->m, err);
	free(sc.verdicts);
	qsort(sc.pairs, sc.npairs, sizeof(*sc.pairs), cmp_pair);
	r->pairs = sc.pairs;
	r->npairs = rc == 0 ? sc.npairs : 0;
	return rc;
}

int
dedup_count(struct store *st, const char *store, double threshold,
    size_t *n, struct err *err)
{
	struct store_matrix	m = { 0 };
	struct scan		sc = { 0 };
	int			rc;

	rc = scan_store(st, store, threshold, &sc, &m, err);
	*n = rc == 0 ? sc.npairs : 0;
	free(sc.verdicts);
	store_matrix_release(&m);
	return rc;
}

void
dedup_result_release(struct dedup_result *r)
{
	store_matrix_release(&r->m);
	free(r->pairs);
	memset(r, 0, sizeof(*r));
}

static size_t
root(size_t *parent, size_t x)
{
	while (parent[x] != x)
		x = parent[x] = parent[parent[x]];
	return x;
}

void
dedup_cluster(const struct dedup_result *r, struct dedup_clusters *out)
{
	struct dedup_cluster	*c;
	size_t			*parent, *bucket, *seen;
	size_t			 i, k, n = r->m.n;

	memset(out, 0, sizeof(*out));
	if (r->npairs == 0)
		return;
	parent = xmalloc(n * sizeof(*parent));
	bucket = xmalloc(n * sizeof(*bucket));
	seen = xmalloc(n * sizeof(*seen));
	for (i = 0; i < n; i++) {
		parent[i] = i;
		bucket[i] = seen[i] = SIZE_MAX;
	}
	for (i = 0; i < r->npairs; i++)
		parent[root(parent, r->pairs[i].a)] =
		    root(parent, r->pairs[i].b);
	/* first pass: number the buckets and size them */
	out->v = xcalloc(r->npairs, sizeof(*out->v));
	for (i = 0; i < r->npairs; i++) {
		k = root(parent, r->pairs[i].a);
		if (bucket[k] == SIZE_MAX)
			bucket[k] = out->n++;
		out->v[bucket[k]].npairs++;
	}
	for (i = 0; i < out->n; i++) {
		out->v[i].pairs = xmalloc(out->v[i].npairs * sizeof(size_t));
		out->v[i].npairs = 0;
	}
	for (i = 0; i < r->npairs; i++) {
		k = bucket[root(parent, r->pairs[i].a)];
		c = &out->v[k];
		c->pairs[c->npairs++] = i;
		if (seen[r->pairs[i].a] != k) {
			seen[r->pairs[i].a] = k;
			c->nmembers++;
		}
		if (seen[r->pairs[i].b] != k) {
			seen[r->pairs[i].b] = k;
			c->nmembers++;
		}
	}
	free(parent);
	free(bucket);
	free(seen);
}

void
dedup_clusters_release(struct dedup_clusters *cs)
{
	size_t	i;

	for (i = 0; i < cs->n; i++)
		free(cs->v[i].pairs);
	free(cs->v);
	memset(cs, 0, sizeof(*cs));
}
