/*
 * b101-gemm.c — what this machine's cores can give the encoder: gemm.c's
 * throughput on bge-small's linear layers, hot and cold, so that b100's
 * latencies can be read against a floor rather than against a hope.
 *
 *  hot:  one [1536, 384] weight, 250 rows of X, multiplied over and over
 *        for about half a second: the sustained FMA rate of the kernel
 *        with its weights in L2, on 1 thread and on the pool.
 *  cold: the twelve layers' four products (Q, K and V as one, output,
 *        FFN up and down) with distinct weights, 85 MB as in the model,
 *        at 8, 70 and 250 tokens: every weight comes from L3 or memory
 *        once per pass, as in a real embedding. Best of the rounds.
 *
 * Weights are packed as bert.c packs them (gemm.h), outside the timing.
 *
 * The floor of an embedding at n tokens is its 42.5 MFLOP per token of
 * linear layers at the cold rate, plus attention (b100 measures the rest).
 *
 * Last, the share of CPU time the hypervisor gave to other guests while
 * it ran: on this VM the same binary's rates move by a third with it.
 *
 * usage: b101-gemm [threads]          (default 2)
 */
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"
#include "embed/gemm.h"
#include "util/isa.h"
#include "util/xmalloc.h"

#define H	384
#define I	1536
#define LAYERS	12

/* [rows, cols], filled with small values in [-0.5, 0.5). */
static float *
matrix(size_t rows, size_t cols)
{
	float	*m = xreallocarray(NULL, rows * cols, sizeof(*m));
	size_t	 i;

	for (i = 0; i < rows * cols; i++)
		m[i] = (float)bench_uniform() - 0.5f;
	return m;
}

/* A random [out, k] weight, packed. */
static struct gemm_mat
weights(struct gemm *g, int out, int k)
{
	struct gemm_mat	 m;
	float		*w = matrix((size_t)out, (size_t)k);
	const float	*parts[1] = { w };

	m.data = xaligned_alloc(64, gemm_mat_floats(out, k) * sizeof(float));
	gemm_pack(g, 1, &m, parts, &out, 1, k);
	free(w);
	return m;
}

static double
gflops(double n, double out, double k, double ms)
{
	return 2 * n * out * k / ms / 1e6;
}

static void
hot(struct gemm *g, int threads)
{
	float		*x = matrix(250, H), *y = matrix(250, I);
	struct gemm_mat	 w = weights(g, I, H);
	double		 t0 = bench_now_ms(), ms;
	int		 reps = 0;

	do {
		gemm_np(g, threads, x, H, 250, &w, NULL, NULL, y, I);
		reps++;
	} while ((ms = bench_now_ms() - t0) < 500);
	printf("hot   %d thread%s  [250 x 384] . [1536 x 384]^T  "
	    "%6.1f GFLOP/s sustained (%d products)\n", threads,
	    threads > 1 ? "s" : " ", gflops(250.0 * reps, I, H, ms), reps);
	free(x);
	free(w.data);
	free(y);
}

struct layer {
	struct gemm_mat	w[4];	/* QKV [3H, H], output [H, H], up, down */
};

static void
cold(struct gemm *g, int threads, const struct layer *L, int n, int rounds)
{
	float	*x = matrix((size_t)n, I), *y = matrix((size_t)n, I);
	double	 best = 1e9, t0, ms;
	int	 r, l;

	for (r = 0; r < rounds; r++) {
		t0 = bench_now_ms();
		for (l = 0; l < LAYERS; l++) {
			gemm_np(g, threads, x, H, n, &L[l].w[0], NULL, NULL, y, 3 * H);
			gemm_np(g, threads, x, H, n, &L[l].w[1], NULL, NULL, y, H);
			gemm_np(g, threads, x, H, n, &L[l].w[2], NULL, NULL, y, I);
			gemm_np(g, threads, x, I, n, &L[l].w[3], NULL, NULL, y, H);
		}
		ms = bench_now_ms() - t0;
		best = ms < best ? ms : best;
	}
	printf("cold  %d thread%s  12 layers' linear products, %3d tokens  "
	    "%6.2f ms best of %d (%5.1f GFLOP/s)\n", threads,
	    threads > 1 ? "s" : " ", n, best, rounds,
	    gflops(n, LAYERS, 4.0 * H * H + 2.0 * H * I, best));
	free(x);
	free(y);
}

int
main(int argc, char **argv)
{
	static const int	 lengths[] = { 8, 70, 250 };
	struct layer		 L[LAYERS];
	struct gemm		*g;
	struct bench_ticks	 t0 = bench_ticks();
	int			 threads = argc > 1 ? atoi(argv[1]) : 2;
	int			 l, p, i;

	/* the ISA in effect: THATCH_ISA forces one, as in the binary */
	if (threads < 1 || (g = gemm_new(threads, isa_current())) == NULL) {
		fprintf(stderr, "b101-gemm: needs a thread count >= 1\n");
		return 2;
	}
	printf("kernels: %s\n", isa_name(gemm_isa(g)));
	hot(g, 1);
	if (threads > 1)
		hot(g, threads);
	for (l = 0; l < LAYERS; l++) {
		L[l].w[0] = weights(g, 3 * H, H);
		L[l].w[1] = weights(g, H, H);
		L[l].w[2] = weights(g, I, H);
		L[l].w[3] = weights(g, H, I);
	}
	for (i = 0; i < 3; i++)
		cold(g, threads, L, lengths[i], lengths[i] < 100 ? 20 : 10);
	for (l = 0; l < LAYERS; l++)
		for (p = 0; p < 4; p++)
			free(L[l].w[p].data);
	gemm_free(g);
	printf("steal: %.0f%% of the CPU time went to other guests\n",
	    bench_steal_pct(t0, bench_ticks()));
	return 0;
}
