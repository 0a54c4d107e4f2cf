/* gemm.h — the encoder's matrix products on a small thread pool (gemm.c). */
#ifndef THATCH_EMBED_GEMM_H
#define THATCH_EMBED_GEMM_H

/* A pool of threads - 1 workers plus the calling thread. */
struct gemm;

/* From this many rows of X, products are only fast with gemm_wide. */
#define GEMM_WIDE_N	16

/*
 * A pool for up to threads threads (>= 1); workers start on the first
 * product that uses them. Returns NULL when this CPU lacks AVX2 with FMA:
 * the caller then multiplies with CBLAS.
 */
struct gemm	*gemm_new(int threads);
void		 gemm_free(struct gemm *);

/*
 * Whether this CPU has the wide (AVX-512) kernels. Without them, gemm_nt
 * of GEMM_WIDE_N or more rows and gemm_nn are correct but slower than
 * OpenBLAS.
 */
int	gemm_wide(const struct gemm *);

/*
 * y[i][o] += sum_j x[i][j] * w[o][j] for i < n, o < out, j < k: X times
 * W transposed, W row-major [out, k] as PyTorch stores linear layers.
 * W is read where it lies, never copied: each row once from memory, then
 * from L2 for further rows of X. threads (1 .. the pool's) split the rows
 * of W.
 */
void	gemm_nt(struct gemm *, int threads, const float *x, int ldx, int n,
	    const float *w, int ldw, int out, int k, float *y, int ldy);

/*
 * y[i][c] += sum_j x[i][j] * v[j][c] for i < n, c < d, j < k: X times V,
 * both row-major (attention's probabilities times values), on the
 * calling thread.
 */
void	gemm_nn(struct gemm *, const float *x, int ldx, int n,
	    const float *v, int ldv, int d, int k, float *y, int ldy);

/* A task for gemm_run: thread t of nt (0 is the caller). */
typedef void	gemm_task_fn(void *arg, int t, int nt);

/*
 * Run task(arg, t, nt) on nt = min(threads, the pool's) threads at once
 * and return when all are done. The task may call gemm_nn (not gemm_nt
 * or gemm_run, which use the pool's one job).
 */
void	gemm_run(struct gemm *, int threads, gemm_task_fn *, void *arg);

#endif
