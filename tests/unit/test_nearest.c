/*
 * test_nearest.c — the vector search's top k is an exhaustive exact
 * ranking's (store_nearest.c, issue 28), on stores whose scores crowd
 * (every row near one direction, as a random model's vectors are) and on
 * spread ones, ties included (copies and doubled copies of a row score the
 * same double), warm and cold (from the vector file), for the recall and
 * the write-time duplicate check's queries; and a cold search of a dense
 * 10,000-memory store (vector, dup check, or lexical with the count of
 * rows under another model after it) reads a bounded number of pages.
 */
#include "check.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "core/store/store.h"
#include "core/store/store_int.h"
#include "tmpdb.h"
#include "util/err.h"
#include "util/num.h"
#include "util/xmalloc.h"

#define DIM	384

static unsigned	seed_state = 1;

static double
uniform(void)
{
	seed_state = seed_state * 1103515245u + 12345u;
	return ((seed_state >> 8) + 0.5) / 16777216.0;
}

static double
gauss(void)
{
	return sqrt(-2 * log(uniform())) * cos(6.283185307179586 * uniform());
}

static void
unit(float *v)
{
	double	s = 0;
	int	i;

	for (i = 0; i < DIM; i++)
		s += (double)v[i] * v[i];
	for (i = 0; i < DIM; i++)
		v[i] = (float)(v[i] / sqrt(s));
}

/* centre + w * noise, normalised: w small crowds every score. */
static void
near(float *v, const float *centre, double w)
{
	int	i;

	for (i = 0; i < DIM; i++)
		v[i] = (float)(centre[i] + w * gauss() / sqrt(DIM));
	unit(v);
}

/* A store and the vectors written to it; tmpdb_open(name) reopens it. */
struct corpus {
	char	 name[32];
	float	*vec;		/* n x DIM */
	size_t	 n, cap;
	float	 centre[8][DIM];
	int	 ncentre;
	double	 w;
};

/* Row cp->n, vector v, written through st as memory m<row>. */
static void
corpus_put(struct store *st, struct corpus *cp, const float *v)
{
	struct err		 err = { "" };
	enum store_write_result	 res;
	char			 slug[32];
	struct store_write	 w = { .store = "p", .content = "# m\n\nIn "
				    "src/core/store/store_nearest.c the band "
				    "is narrowed; run make check first.",
				    .dim = DIM, .model = "tag",
				    .now = "2026-12-06T10:00:00.000Z" };

	if (cp->n == cp->cap) {		/* doubling: ASan reallocs copy */
		cp->cap = cp->cap ? 2 * cp->cap : 1024;
		cp->vec = xreallocarray(cp->vec, cp->cap, DIM * sizeof(float));
	}
	memmove(cp->vec + cp->n * DIM, v, DIM * sizeof(float));
	snprintf(slug, sizeof(slug), "m%zu", cp->n++);
	w.slug = w.label = slug;
	w.vec = v;
	if (store_remember(st, &w, &res, &err) != 0)
		CHECK_FAIL("store_remember: %s", err.msg);
}

/*
 * n memories in store p: dense (one centre, noise 0.3: cosines ~0.95)
 * or spread (8 centres, noise 1.5); one row in 7 copies an earlier row's
 * vector and one in 11 doubles one (the same cosine, bit for bit).
 * drift: the first 300 rows lie near a second centre, so the cache's
 * centre, the mean of a store's first rows, is far from the rest.
 */
static void
corpus_make(struct corpus *cp, const char *name, size_t n, bool dense,
    bool drift)
{
	struct store	*st;
	struct err	 err = { "" };
	size_t		 i, j;
	int		 k;
	float		 v[DIM];

	snprintf(cp->name, sizeof(cp->name), "%s", name);
	cp->n = cp->cap = 0;
	cp->vec = NULL;
	cp->ncentre = dense && !drift ? 1 : 8;
	cp->w = dense ? 0.3 : 1.5;
	for (k = 0; k < cp->ncentre; k++) {
		for (j = 0; j < DIM; j++)
			cp->centre[k][j] = (float)gauss();
		unit(cp->centre[k]);
	}
	st = tmpdb_open(cp->name);
	CHECK_INT(store_exec(st, "BEGIN", &err), 0);
	for (i = 0; i < n; i++) {
		j = (size_t)(uniform() * (double)i) % (i > 0 ? i : 1);
		if (i > 0 && i % 7 == 0)
			memcpy(v, cp->vec + j * DIM, DIM * sizeof(float));
		else if (i > 0 && i % 11 == 0)
			for (k = 0; k < DIM; k++)
				v[k] = 2 * cp->vec[j * DIM + k];
		else if (dense)
			near(v, cp->centre[drift && i < 300], cp->w);
		else
			near(v, cp->centre[i % (size_t)cp->ncentre], cp->w);
		corpus_put(st, cp, v);
	}
	CHECK_INT(store_exec(st, "COMMIT", &err), 0);
	store_close(st);
}

struct ranked {
	size_t	row;
	double	score, key;
};

static int
ranked_cmp(const void *pa, const void *pb)
{
	const struct ranked	*a = pa, *b = pb;

	if (a->key != b->key)
		return a->key > b->key ? -1 : 1;
	return a->row < b->row ? -1 : a->row > b->row;	/* rowid order */
}

/* The exhaustive answer: every row's exact cosine (as §5.1 computes it),
 * at or above min, by key then table order; the first limit. */
static size_t
brute(const struct corpus *cp, const float *q, const struct store_query *sq,
    struct ranked *out)
{
	struct ranked	*all = xcalloc(cp->n + 1, sizeof(*all));
	const float	*r;
	double		 dot, nq, nr, s;
	size_t		 i, n = 0;
	int		 k;

	for (i = 0; i < cp->n; i++) {
		r = cp->vec + i * DIM;
		for (dot = nq = nr = 0, k = 0; k < DIM; k++) {
			dot += (double)q[k] * r[k];
			nq += (double)q[k] * q[k];
			nr += (double)r[k] * r[k];
		}
		s = nq == 0 || nr == 0 ? 0 : dot / (sqrt(nq) * sqrt(nr));
		if (s < sq->min_score)
			continue;
		all[n++] = (struct ranked){ i, s,
		    sq->rank_round3 ? num_round3(s) : s };
	}
	qsort(all, n, sizeof(*all), ranked_cmp);
	n = n < (size_t)sq->limit ? n : (size_t)sq->limit;
	memcpy(out, all, n * sizeof(*out));
	free(all);
	return n;
}

static void
check_same(struct store *st, const struct corpus *cp, const float *q,
    const struct store_query *sq)
{
	struct ranked		*want = xcalloc((size_t)sq->limit,
				    sizeof(*want));
	struct store_hits	 h;
	struct err		 err = { "" };
	size_t			 n = brute(cp, q, sq, want), i;
	char			 slug[32];

	CHECK_INT(store_search(st, sq, &h, &err), 0);
	CHECK_INT(h.n, n);
	for (i = 0; i < n && i < h.n; i++) {
		snprintf(slug, sizeof(slug), "m%zu", want[i].row);
		CHECK_STR(h.v[i].e.slug, slug);
		CHECK(h.v[i].score == want[i].score);
	}
	store_hits_release(&h);
	free(want);
}

/* A query: near a centre, a stored row itself (ties at the top), or
 * anywhere. */
static void
query_make(const struct corpus *cp, int kind, float *q)
{
	size_t	i;

	if (kind == 0)
		near(q, cp->centre[(int)(uniform() * cp->ncentre) %
		    cp->ncentre], cp->w);
	else if (kind == 1)
		memcpy(q, cp->vec + (size_t)(uniform() * (double)cp->n) %
		    cp->n * DIM, DIM * sizeof(float));
	else
		for (i = 0; i < DIM; i++)
			q[i] = (float)gauss();
}

/* Recall-shaped and dup-check-shaped queries (round3 keys, at or above
 * 0.85), warm in one connection, then cold in a new one. */
static void
check_corpus(const struct corpus *cp)
{
	static const int	limits[] = { 1, 5, 10, 37 };
	const char		*stores[] = { "p" };
	struct store_query	 sq = { .stores = stores, .nstores = 1,
				    .dim = DIM };
	float			 q[DIM];
	struct store		*st;
	int			 i, pass;

	for (pass = 0; pass < 2; pass++) {
		st = tmpdb_open(cp->name);
		for (i = 0; i < 12; i++) {
			query_make(cp, i % 3, q);
			sq.vec = q;
			sq.limit = limits[i % 4];
			sq.rank_round3 = i % 4 == 3;
			sq.min_score = sq.rank_round3 ? 0.85 : -2;
			check_same(st, cp, q, &sq);
		}
		store_close(st);
	}
}

static void
corpus_free(struct corpus *cp)
{
	free(cp->vec);
}

static void
top_k_is_the_exhaustive_ranking(void)
{
	struct corpus	cp;
	char		name[32];
	int		i;

	for (i = 0; i < 8; i++) {
		snprintf(name, sizeof(name), "prop%d", i);
		corpus_make(&cp, name, 300 + (size_t)(uniform() * 1700),
		    i % 2 == 0, false);
		check_corpus(&cp);
		corpus_free(&cp);
	}
}

/*
 * Before the residual pass a cold search of this store read 2,100 pages
 * (2,900 for the dup check's query): every row within the int8 error of
 * the 10th score. Now about limit rows are, plus the schema and the key:
 * 23 and 52 pages. A lexical search of words every row holds, and the
 * count of rows under another model a recall makes after it, read 5,200
 * (the count scanned the table: the lexical side had loaded no vectors);
 * now ~230, the index's doclists and row sizes of 10,000 matches.
 */
#define DENSE_N		10000
#define PAGES_MAX	200
#define LEX_PAGES_MAX	1000

static void
cold_dense_search_reads_few_pages(void)
{
	struct corpus		 cp;
	const char		*stores[] = { "p" };
	struct store_query	 sq = { .stores = stores, .nstores = 1,
				    .dim = DIM, .limit = 10, .min_score = -2 };
	struct store_hits	 h;
	struct store_space	 sp = { DIM, "tag" };
	struct store_space_count c;
	struct err		 err = { "" };
	struct store		*st;
	float			 q[DIM];
	long long		 before;
	int			 pass;

	corpus_make(&cp, "dense10k", DENSE_N, true, false);
	query_make(&cp, 0, q);
	sq.vec = q;
	st = tmpdb_open(cp.name);	/* writes the vector file */
	CHECK_INT(store_search(st, &sq, &h, &err), 0);
	/* copied about zero, every row of this store was in the band */
	if (store_vector_band(st) >= DENSE_N / 3)
		CHECK_FAIL("the band is %zu rows of %d",
		    store_vector_band(st), DENSE_N);
	store_hits_release(&h);
	store_close(st);
	for (pass = 0; pass < 3; pass++) {
		sq.rank_round3 = pass == 1;	/* the dup check's query */
		sq.min_score = pass == 1 ? 0.85 : -2;
		sq.mode = pass == 2 ? STORE_LEXICAL : STORE_HYBRID;
		sq.text = pass == 2 ? "the band is narrowed" : NULL;
		st = tmpdb_open(cp.name);
		before = store_pages_read(st);
		CHECK_INT(store_search(st, &sq, &h, &err), 0);
		CHECK_INT(h.n, 10);
		if (pass == 2) {	/* what memory_recall does next */
			CHECK_INT(store_count_other_space(st, "p", &sp, &c,
			    &err), 0);
			CHECK_INT(c.memories, 0);
		}
		if (store_pages_read(st) - before >=
		    (pass == 2 ? LEX_PAGES_MAX : PAGES_MAX))
			CHECK_FAIL("a cold search read %lld pages",
			    store_pages_read(st) - before);
		store_hits_release(&h);
		store_close(st);
	}
	/* exact too where fusion asks the vector side for 100 */
	st = tmpdb_open(cp.name);
	sq.text = NULL;
	sq.mode = STORE_HYBRID;
	for (pass = 0; pass < 4; pass++) {
		query_make(&cp, pass % 3, q);
		sq.limit = pass < 2 ? 100 : 10;
		sq.rank_round3 = pass == 3;
		sq.min_score = pass == 3 ? 0.85 : -2;
		check_same(st, &cp, q, &sq);
	}
	store_close(st);
	corpus_free(&cp);
}

/*
 * A store whose first rows (the cache's centre) lie elsewhere than the
 * rest: the centre is far from most rows, the band is most of the store
 * again, and it is narrowed on two threads (from 8,192 rows); the top k
 * stays exact, warm and from the vector file.
 */
static void
a_poor_centre_stays_exact(void)
{
	struct corpus		 cp;
	const char		*stores[] = { "p" };
	struct store_query	 sq = { .stores = stores, .nstores = 1,
				    .dim = DIM, .min_score = -2 };
	struct store		*st;
	float			 q[DIM];
	int			 pass;

	corpus_make(&cp, "drift", DENSE_N, true, true);
	for (pass = 0; pass < 6; pass++) {
		st = tmpdb_open(cp.name);
		near(q, cp.centre[0], cp.w);
		sq.vec = q;
		sq.limit = pass % 2 == 0 ? 100 : 10;
		check_same(st, &cp, q, &sq);
		if (pass == 0 && store_vector_band(st) < 8192)
			CHECK_FAIL("the band is %zu rows: the two threads "
			    "went untested", store_vector_band(st));
		store_close(st);
	}
	corpus_free(&cp);
}

/*
 * Rows written after the centre was taken are copied about it, however
 * far from it they lie: the centre's opposite, vectors a hundred
 * thousand times shorter than it (their bounds are all rounding) and
 * the zero vector; the top k stays exact, warm and then cold.
 */
static void
late_rows_far_from_the_centre_stay_exact(void)
{
	struct corpus		 cp;
	const char		*stores[] = { "p" };
	struct store_query	 sq = { .stores = stores, .nstores = 1,
				    .dim = DIM, .min_score = -2 };
	struct store		*st;
	float			 v[DIM], q[DIM];
	int			 i, k, pass;

	corpus_make(&cp, "late", 600, true, false);
	st = tmpdb_open(cp.name);
	query_make(&cp, 0, q);
	sq.vec = q;
	sq.limit = 10;
	check_same(st, &cp, q, &sq);	/* the cache and its centre */
	for (i = 0; i < 40; i++) {
		near(v, cp.centre[0], cp.w);
		for (k = 0; k < DIM; k++)
			v[k] = i % 4 == 0 ? -v[k] : i % 4 == 1 ?
			    v[k] * 1e-5f : i % 4 == 2 ? 0 : v[k];
		corpus_put(st, &cp, v);
	}
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < 12; i++) {
			query_make(&cp, i % 3, q);
			if (i % 4 == 3)		/* the opposite side */
				for (k = 0; k < DIM; k++)
					q[k] = -q[k];
			sq.limit = i % 2 ? 37 : 5;
			check_same(st, &cp, q, &sq);
		}
		store_close(st);
		st = tmpdb_open(cp.name);
	}
	store_close(st);
	corpus_free(&cp);
}

CHECK_MAIN(
	TEST(top_k_is_the_exhaustive_ranking),
	TEST(a_poor_centre_stays_exact),
	TEST(late_rows_far_from_the_centre_stay_exact),
	TEST(cold_dense_search_reads_few_pages),
	TEST(tmpdb_cleanup)
)
