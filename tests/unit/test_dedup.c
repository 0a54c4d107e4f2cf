/*
 * test_dedup.c — duplicate pairs and clusters (store-and-tools §5.5): what
 * find_duplicates reports, verdicts hiding pairs, cluster grouping, and the
 * blocked matrix scan agreeing with the plain double loop of the spec.
 */
#include "check.h"
#include "tmpdb.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/dedup.h"
#include "core/store/store.h"
#include "util/err.h"
#include "util/num.h"
#include "util/xmalloc.h"

static void
put(struct store *st, const char *slug, const float *vec, int dim,
    int archived)
{
	struct err		 err = { "" };
	enum store_write_result	 res;
	struct store_write	 w = {
		.store = "s", .slug = slug, .label = slug, .content = slug,
		.vec = vec, .dim = dim, .model = "m", .archived = archived,
		.now = "2025-03-07T14:05:09.042Z",
	};

	if (store_remember(st, &w, &res, &err) != 0 || res != STORE_SAVED)
		CHECK_FAIL("store_remember %s: %s", slug, err.msg);
}

static void
near_duplicates_are_paired_best_first(void)
{
	struct store		*st = tmpdb_open("pairs");
	struct dedup_result	 r;
	struct err		 err = { "" };
	float			 a[3] = { 1, 0, 0 }, b[3] = { 1, 0.1f, 0 },
				 c[3] = { 1, 0.3f, 0 }, d[3] = { 0, 1, 0 };

	put(st, "rate-a", a, 3, 0);
	put(st, "rate-b", b, 3, 0);
	put(st, "rate-c", c, 3, 0);
	put(st, "other", d, 3, 0);
	CHECK_INT(dedup_find(st, "s", DEDUP_THRESHOLD, &r, &err), 0);
	CHECK_INT(r.npairs, 3);
	/* a-b 0.995, b-c 0.981, a-c 0.958 */
	CHECK_STR(r.m.slugs[r.pairs[0].a], "rate-a");
	CHECK_STR(r.m.slugs[r.pairs[0].b], "rate-b");
	CHECK_NEAR(r.pairs[0].score, 0.995, 1e-9);
	CHECK_STR(r.m.slugs[r.pairs[1].a], "rate-b");
	CHECK_STR(r.m.slugs[r.pairs[2].b], "rate-c");
	CHECK_NEAR(r.pairs[2].score, 0.958, 1e-9);
	dedup_result_release(&r);
	store_close(st);
}

static void
verdicts_and_archived_rows_hide_pairs(void)
{
	struct store		*st = tmpdb_open("verdicts");
	struct dedup_result	 r;
	struct err		 err = { "" };
	float			 a[2] = { 1, 0 }, b[2] = { 1, 0.01f };
	size_t			 n;

	put(st, "x-one", a, 2, 0);
	put(st, "x-two", b, 2, 0);
	put(st, "x-archived", a, 2, 1);
	CHECK_INT(dedup_count(st, "s", DEDUP_THRESHOLD, &n, &err), 0);
	CHECK_INT(n, 1);
	/* a verdict written the other way round still hides the pair */
	CHECK_INT(store_verdict_set(st, "s", "x-two", "x-one", "unrelated",
	    "2025-03-07T14:05:09.042Z", &err), 0);
	CHECK_INT(dedup_find(st, "s", DEDUP_THRESHOLD, &r, &err), 0);
	CHECK_INT(r.npairs, 0);
	dedup_result_release(&r);
	CHECK_INT(dedup_count(st, "s", DEDUP_THRESHOLD, &n, &err), 0);
	CHECK_INT(n, 0);
	store_close(st);
}

static void
threshold_zero_takes_orthogonal_but_not_opposite_pairs(void)
{
	struct store		*st = tmpdb_open("zero");
	struct dedup_result	 r;
	struct err		 err = { "" };
	float			 a[2] = { 1, 0 }, b[2] = { 0, 1 },
				 c[2] = { -1, 0 };

	put(st, "a", a, 2, 0);
	put(st, "b", b, 2, 0);
	put(st, "c", c, 2, 0);
	CHECK_INT(dedup_find(st, "s", 0, &r, &err), 0);
	/* a-b 0, b-c 0; a-c -1 is out */
	CHECK_INT(r.npairs, 2);
	dedup_result_release(&r);
	store_close(st);
}

static void
clusters_are_connected_components_in_score_order(void)
{
	struct store		*st = tmpdb_open("clusters");
	struct dedup_result	 r;
	struct dedup_clusters	 cs;
	struct err		 err = { "" };
	float			 a[3] = { 1, 0, 0 }, b[3] = { 1, 0.05f, 0 },
				 c[3] = { 1, 0.1f, 0 }, p[3] = { 0, 0, 1 },
				 q[3] = { 0, 0.4f, 1 };

	put(st, "a", a, 3, 0);
	put(st, "b", b, 3, 0);
	put(st, "c", c, 3, 0);
	put(st, "p", p, 3, 0);
	put(st, "q", q, 3, 0);
	CHECK_INT(dedup_find(st, "s", DEDUP_THRESHOLD, &r, &err), 0);
	CHECK_INT(r.npairs, 4);
	dedup_cluster(&r, &cs);
	CHECK_INT(cs.n, 2);
	CHECK_INT(cs.v[0].nmembers, 3);
	CHECK_INT(cs.v[0].npairs, 3);
	CHECK_INT(cs.v[1].nmembers, 2);
	CHECK_STR(r.m.slugs[r.pairs[cs.v[1].pairs[0]].a], "p");
	dedup_clusters_release(&cs);
	dedup_result_release(&r);
	store_close(st);
}

/* The spec's double loop, for comparison with the blocked scan. */
static size_t
naive_count(const float *v, size_t n, int dim, double t)
{
	size_t	i, j, count = 0;
	int	k;

	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++) {
			double	dot = 0, na = 0, nb = 0;

			for (k = 0; k < dim; k++) {
				dot += (double)v[i * dim + k] * v[j * dim + k];
				na += (double)v[i * dim + k] * v[i * dim + k];
				nb += (double)v[j * dim + k] * v[j * dim + k];
			}
			if (dot / (sqrt(na) * sqrt(nb)) >= t)
				count++;
		}
	return count;
}

/* A store of n noisy vectors in a few themes (many pairs straddle the
 * threshold): count and find agree with the double loop. */
static void
scan_matches_the_double_loop(const char *name, size_t N)
{
	struct store		*st = tmpdb_open(name);
	struct err		 err = { "" };
	struct dedup_result	 r;
	enum { DIM = 8 };
	float			*v = xmalloc(N * DIM * sizeof(*v));
	char			 slug[32];
	size_t			 i, n;
	unsigned		 seed = 7;
	int			 k;

	store_exec(st, "BEGIN", &err);
	for (i = 0; i < N; i++) {
		for (k = 0; k < DIM; k++) {
			seed = seed * 1103515245u + 12345u;
			v[i * DIM + k] = (float)((i % 5 == (size_t)k) * 2.0 +
			    ((seed >> 8) % 1000) / 1000.0);
		}
		snprintf(slug, sizeof(slug), "m%04zu", i);
		put(st, slug, v + i * DIM, DIM, 0);
	}
	store_exec(st, "COMMIT", &err);
	CHECK_INT(dedup_count(st, "s", DEDUP_THRESHOLD, &n, &err), 0);
	CHECK_INT(n, naive_count(v, N, DIM, DEDUP_THRESHOLD));
	CHECK(n > N / 2);
	CHECK_INT(dedup_find(st, "s", DEDUP_THRESHOLD, &r, &err), 0);
	CHECK_INT(r.npairs, n);
	for (i = 1; i < r.npairs; i++)
		if (r.pairs[i].score > r.pairs[i - 1].score)
			CHECK_FAIL("pair %zu out of order", i);
	dedup_result_release(&r);
	free(v);
	store_close(st);
}

/* From 2,048 rows: OpenBLAS tiles shared by two threads. */
static void
blocked_scan_matches_the_double_loop(void)
{
	scan_matches_the_double_loop("blocked", 2100);
}

/* Below: four rows at a time, and a last block of one row. */
static void
small_scan_matches_the_double_loop(void)
{
	scan_matches_the_double_loop("small", 1001);
}

CHECK_MAIN(
	TEST(near_duplicates_are_paired_best_first),
	TEST(verdicts_and_archived_rows_hide_pairs),
	TEST(threshold_zero_takes_orthogonal_but_not_opposite_pairs),
	TEST(clusters_are_connected_components_in_score_order),
	TEST(blocked_scan_matches_the_double_loop),
	TEST(small_scan_matches_the_double_loop),
	TEST(tmpdb_cleanup)
)
