/*
 * test_gemm.c — the encoder's products give what plain double-precision
 * loops give, to float rounding, for every shape's edges: rows of X that
 * do not fill a tile, outputs that do not fill a panel, one thread or
 * two, every ISA's kernels the CPU has (plain C, AVX2, AVX-512, NEON),
 * with a bias or (attention's products) without, X in panels or read
 * transposed in place; stacked
 * sources pack as one matrix; a packed copy that no longer matches
 * its weights is noticed; and a pool whose workers hold every job up
 * cuts its threads, each item still done exactly once.
 */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "embed/gemm.h"
#include "util/xmalloc.h"

static float
value(unsigned *seed)
{
	*seed = *seed * 1103515245u + 12345u;
	return (float)((*seed >> 8) & 0xffff) / 65536.0f - 0.5f;
}

static float *
filled(size_t n, unsigned seed)
{
	float	*p = xreallocarray(NULL, n ? n : 1, sizeof(*p));
	size_t	 i;

	for (i = 0; i < n; i++)
		p[i] = value(&seed);
	return p;
}

static struct gemm_mat
packed(struct gemm *g, int threads, const float *const *parts,
    const int *rows, int nparts, int k)
{
	struct gemm_mat	m;
	int		i, out = 0;

	for (i = 0; i < nparts; i++)
		out += rows[i];
	m.data = xaligned_alloc(64, gemm_mat_floats(out, k) * sizeof(float));
	gemm_pack(g, threads, &m, parts, rows, nparts, k);
	return m;
}

/*
 * y = x . w^T + bias by gemm_np on threads threads or, with threads 0, y
 * = x . w^T by gemm_np_here, or with threads -1 by gemm_tn_here from x
 * transposed, whose padding columns hold NaN that must reach no output;
 * against the same in double. y starts as garbage and has an extra
 * column (ldy = out + 1) that must stay as it was.
 */
static void
check_product(enum isa isa, int threads, int n, int out, int k)
{
	struct gemm	*g = gemm_new(threads > 0 ? threads : 1, isa);
	struct gemm_mat	 m;
	float		*x, *w, *bias, *y, *y0, *xp, *xt;
	const float	*parts[1];
	double		 want, diff, worst = 0;
	int		 i, o, j, ldy = out + 1, ldxt = gemm_tn_cols(n);

	CHECK_INT(gemm_isa(g), isa);
	x = filled((size_t)n * k, 1);
	w = filled((size_t)out * k, 2);
	bias = filled((size_t)out, 4);
	y0 = filled((size_t)n * ldy, 3);
	y = xreallocarray(NULL, (size_t)n * ldy, sizeof(*y));
	memcpy(y, y0, (size_t)n * ldy * sizeof(*y));
	parts[0] = w;
	m = packed(g, 1, parts, &out, 1, k);
	if (threads > 0) {
		gemm_np(g, threads, x, k, n, &m, bias, NULL, y, ldy);
	} else if (threads < 0) {
		xt = xreallocarray(NULL, (size_t)k * ldxt, sizeof(*xt));
		for (j = 0; j < k; j++)
			for (i = 0; i < ldxt; i++)
				xt[(size_t)j * ldxt + i] = i < n ?
				    x[(size_t)i * k + j] : NAN;
		gemm_tn_here(g, xt, ldxt, n, &m, y, ldy);
		free(xt);
	} else {
		xp = xaligned_alloc(64, gemm_xp_floats(g, n, k) *
		    sizeof(float));
		gemm_np_here(g, xp, x, k, n, &m, y, ldy);
		free(xp);
	}
	for (i = 0; i < n; i++) {
		for (o = 0; o < out; o++) {
			want = threads > 0 ? bias[o] : 0;
			for (j = 0; j < k; j++)
				want += (double)x[(size_t)i * k + j] *
				    w[(size_t)o * k + j];
			diff = fabs(want - y[(size_t)i * ldy + o]);
			worst = isnan(diff) || diff > worst ? diff : worst;
		}
		if (y[(size_t)i * ldy + out] != y0[(size_t)i * ldy + out])
			CHECK_FAIL("isa %d, %d threads, %dx%dx%d: row %d's "
			    "column past out was written", isa, threads, n,
			    out, k, i);
	}
	if (!(worst <= 1e-4))	/* NaN included */
		CHECK_FAIL("isa %d, %d threads, %dx%dx%d: off by %g", isa,
		    threads, n, out, k, worst);
	free(m.data);
	free(x);
	free(w);
	free(bias);
	free(y);
	free(y0);
	gemm_free(g);
}

static void
test_products_match_plain_loops_at_every_edge(void)
{
	static const int	ns[] = { 1, 2, 3, 4, 11, 12, 13, 25, 70 };
	static const int	outs[] = { 1, 16, 31, 32, 33, 100 };
	static const int	ks[] = { 1, 7, 20, 64 };
	size_t			a, b, c;
	int			isa, threads;

	for (isa = 0; isa < ISA_COUNT; isa++)
		for (threads = isa_available((enum isa)isa) ? -1 : 3;
		    threads <= 2; threads++)
			for (a = 0; a < sizeof(ns) / sizeof(ns[0]); a++)
				for (b = 0; b < sizeof(outs) / sizeof(outs[0]);
				    b++)
					for (c = 0; c < sizeof(ks) /
					    sizeof(ks[0]); c++)
						check_product((enum isa)isa,
						    threads,
						    ns[a], outs[b], ks[c]);
	CHECK(1);	/* the loops above fail by themselves */
}

static void
test_stacked_sources_pack_as_one_matrix(void)
{
	struct gemm	*g = gemm_new(2, isa_best());
	struct gemm_mat	 one, three;
	float		*w = filled(90 * 40, 5);
	const float	*whole[1] = { w };
	const float	*split[3] = { w, w + 20 * 40, w + 50 * 40 };
	int		 all = 90, rows[3] = { 20, 30, 40 };

	one = packed(g, 2, whole, &all, 1, 40);
	three = packed(g, 1, split, rows, 3, 40);
	CHECK_INT(three.out, 90);
	CHECK(memcmp(one.data, three.data, gemm_mat_floats(90, 40) *
	    sizeof(float)) == 0);
	free(one.data);
	free(three.data);
	free(w);
	gemm_free(g);
}

static void
test_a_packed_copy_of_other_weights_is_noticed(void)
{
	struct gemm	*g = gemm_new(1, isa_best());
	struct gemm_mat	 m;
	float		*w = filled(100 * 48, 7);
	const float	*parts[1] = { w };
	float		 last = w[99 * 48 + 47];
	int		 rows = 100;

	m = packed(g, 1, parts, &rows, 1, 48);
	CHECK(gemm_pack_matches(&m, parts, &rows, 1));
	w[99 * 48 + 47] = last + 1;	/* the last weight of the last row */
	CHECK(!gemm_pack_matches(&m, parts, &rows, 1));
	w[99 * 48 + 47] = last;
	CHECK(gemm_pack_matches(&m, parts, &rows, 1));
	memset(m.data, 0, 16 * sizeof(float));	/* a zeroed first panel */
	CHECK(!gemm_pack_matches(&m, parts, &rows, 1));
	free(m.data);
	free(w);
	gemm_free(g);
}

/* A job's items: each counts its runs; the workers' take a millisecond,
 * as if the system kept taking them off their cores. (Every worker is
 * slow: a pool whose one slow worker never got to join would rightly
 * keep its threads.) */
#define SLOW_ITEMS	8
static atomic_int	slow_runs[SLOW_ITEMS];

static void
slow_worker_item(void *arg, int i, int t)
{
	struct timespec	ms = { 0, 1000000 };

	(void)arg;
	if (t != 0)
		nanosleep(&ms, NULL);
	atomic_fetch_add(&slow_runs[i], 1);
}

static void
test_a_worker_that_holds_jobs_up_cuts_the_threads(void)
{
	static const int	pools[] = { 2, 4 };
	struct gemm		*g;
	size_t			 c;
	int			 i, jobs = 64;

	for (c = 0; c < sizeof(pools) / sizeof(pools[0]); c++) {
		g = gemm_new(pools[c], isa_best());
		for (i = 0; i < SLOW_ITEMS; i++)
			atomic_store(&slow_runs[i], 0);
		for (i = 0; i < jobs; i++)
			gemm_run(g, pools[c], SLOW_ITEMS,
			    slow_worker_item, NULL);
		for (i = 0; i < SLOW_ITEMS; i++)
			CHECK_INT(atomic_load(&slow_runs[i]), jobs);
		CHECK(gemm_spells(g) >= 1);
		gemm_free(g);
	}
}

CHECK_MAIN(
	TEST(test_products_match_plain_loops_at_every_edge),
	TEST(test_stacked_sources_pack_as_one_matrix),
	TEST(test_a_packed_copy_of_other_weights_is_noticed),
	TEST(test_a_worker_that_holds_jobs_up_cuts_the_threads)
)
