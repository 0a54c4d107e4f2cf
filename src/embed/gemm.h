/* gemm.h — the encoder's matrix products on a small thread pool (gemm.c). */
#ifndef THATCH_EMBED_GEMM_H
#define THATCH_EMBED_GEMM_H

#include <stddef.h>

#include "util/isa.h"

/* A pool of threads - 1 workers plus the calling thread. */
struct gemm;

/* Rows of W per packed panel. */
#define GEMM_NR		32

/*
 * A pool for up to threads threads (>= 1) with isa's kernels (the plain C
 * ones where isa is not available: isa_available); workers start on the
 * first product that uses them.
 */
struct gemm	*gemm_new(int threads, enum isa isa);
void		 gemm_free(struct gemm *);

/* The kernels in use. */
enum isa	 gemm_isa(const struct gemm *);

/*
 * A weight matrix W [out, k] packed for gemm_np: panels of GEMM_NR rows,
 * each stored column by column (panel p holds w[p * NR + c][j] at
 * data[(p * k + j) * NR + c]), the last panel zero padded. The kernel then
 * reads one sequential stream of weights and adds whole vectors of
 * outputs, where W in PyTorch's row-major layout would need a dot
 * product per output. data is the caller's, gemm_mat_floats(out, k)
 * floats aligned to 64 bytes.
 */
struct gemm_mat {
	float	*data;
	int	 out, k;
};

size_t	gemm_mat_floats(int out, int k);

/*
 * Pack the rows of nparts row-major matrices, parts[i] with rows[i] rows
 * of k floats each, one under the other, into m (m->data set by the
 * caller), on up to threads threads.
 */
void	gemm_pack(struct gemm *, int threads, struct gemm_mat *m,
	    const float *const *parts, const int *rows, int nparts, int k);

/*
 * Whether m holds what gemm_pack would pack from these sources, judged
 * by the first and last weight of every row in the first and last panels:
 * a check that a packed copy kept elsewhere (packcache.c) belongs to this
 * model, reading a few pages of each source rather than all of them.
 */
int	gemm_pack_matches(const struct gemm_mat *m,
	    const float *const *parts, const int *rows, int nparts);

/*
 * A finishing step for a product's outputs: y[r * ldy + c] for r < n and
 * c < cols are final, and still in cache, when it runs.
 */
typedef void	gemm_post_fn(float *y, int n, int cols, int ldy);

/*
 * y[i][o] = bias[o] + sum_j x[i][j] * w[o][j] for i < n, o < m->out, j <
 * m->k (bias may be NULL): X times the packed W transposed, as a linear
 * layer multiplies, then post (may be NULL) over each panel of GEMM_NR
 * outputs as it is done: an activation that needs no job of its own.
 * threads (1 .. the pool's) share W's panels; x's rows are first copied
 * into panels the kernel broadcasts from.
 */
void	gemm_np(struct gemm *, int threads, const float *x, int ldx, int n,
	    const struct gemm_mat *m, const float *bias, gemm_post_fn *post,
	    float *y, int ldy);

/*
 * The same on the calling thread, for a task under gemm_run (attention's
 * heads): gemm_pack_here packs out rows of w, ldw floats apart;
 * gemm_pack_t_here packs W = V^T for V [k, out] (ldv floats apart), so
 * that X . W^T is X . V; gemm_np_here copies X into xp, the caller's
 * gemm_xp_floats(n, k) floats, instead of the pool's buffer. No bias.
 */
void	gemm_pack_here(struct gemm_mat *m, const float *w, int ldw, int out,
	    int k);
void	gemm_pack_t_here(struct gemm_mat *m, const float *v, int ldv, int k,
	    int out);
size_t	gemm_xp_floats(const struct gemm *, int n, int k);
void	gemm_np_here(const struct gemm *, float *xp, const float *x,
	    int ldx, int n, const struct gemm_mat *m, float *y, int ldy);

/*
 * y = X . W^T on the calling thread for X given transposed: xt[j][i]
 * (ldxt floats apart) is x[i][j], read in place with no copy into
 * panels (attention's P, which softmax leaves transposed). Each row of xt
 * must have gemm_tn_cols(n) readable floats: the kernels read whole
 * tiles of X's rows, and the products past n are not stored.
 */
int	gemm_tn_cols(int n);
void	gemm_tn_here(const struct gemm *, const float *xt, int ldxt, int n,
	    const struct gemm_mat *m, float *y, int ldy);

/* One item of a job for gemm_run, on the thread whose scratch is slot t
 * (0 for the caller, 1 .. threads - 1 for the pool's workers). */
typedef void	gemm_item_fn(void *arg, int item, int t);

/*
 * fn(arg, i, t) for every i < items, on up to threads threads at once,
 * each taking the next item not yet taken; returns when all are done.
 * Items may call the _here functions (not gemm_np, gemm_pack or
 * gemm_run, which use the pool). A thread the system is slow to run
 * takes fewer items, so items should be many and small enough to even
 * out, but each worth more than its atomic increment (~0.1 us).
 */
void	gemm_run(struct gemm *, int threads, int items, gemm_item_fn *,
	    void *arg);

/* How many times the pool has cut its threads because its workers did
 * not pay (gemm.c invariant 8): for tests and benchmarks. */
long long	gemm_spells(const struct gemm *);

#endif
