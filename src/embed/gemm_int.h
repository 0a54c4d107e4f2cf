/*
 * gemm_int.h — what gemm.c's pool shares with its kernels (gemm_x86.c,
 * gemm_neon.c, gemm_plain.c): one product's arguments and each ISA's
 * table of tile kernels.
 */
#ifndef THATCH_EMBED_GEMM_INT_H
#define THATCH_EMBED_GEMM_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "embed/gemm.h"
#include "util/isa.h"

/* The most rows of X per tile of any kernels (AVX-512's); every ISA's
 * rows per tile divide it (gemm_tn_cols). */
#define GEMM_MR_MAX	12
/*
 * Columns of a W panel (128 bytes each) that the kernels prefetch ahead:
 * 4 KB, the next page, which the hardware's prefetchers (confined to a
 * page) do not reach. With weights coming from L3 or memory this took an
 * 8-token text's products from 2.4 to 2.0 ms (bench/README.md b101).
 */
#define GEMM_PF_COLUMNS	32

/*
 * One product: X times W's panels, into Y. The kernels read x[i][j] at
 * xr[i * xi + j * xs]: from X's panels (thread t's copy at xp + t *
 * xp_stride, xi = k, xs = MR, made once as packed[t] records) or from X
 * transposed in place (xp NULL, xr = X^T, xi = 1, xs = its leading
 * dimension).
 */
struct np {
	const float		*x;
	float			*xp;
	size_t			 xp_stride;
	bool			*packed;
	const float		*xr;
	size_t			 xi, xs;
	const struct gemm_mat	*w;
	const float		*bias;		/* [w->out] or NULL */
	gemm_post_fn		*post;		/* or NULL */
	float			*y;
	int			 ldx, ldy, n, mr;
	const struct gemm_kernels *kern;
};

/*
 * An ISA's kernels. panel: y for W's panel p and every row of X, from xr
 * (struct np); it may read whole tiles of mr rows of X, but stores only
 * the n rows and the panel's live outputs. xp_panel: one panel of mr rows
 * of X from src (NULL rows are padding) in gemm.c's layout (invariant 2):
 * dst[j * mr + r] = src[r][j].
 */
struct gemm_kernels {
	enum isa	 isa;
	int		 mr;		/* rows of X per tile */
	void		(*panel)(const struct np *, const float *xr, int p);
	void		(*xp_panel)(float *dst, const float *const *src,
			    int k);
};

/* Each ISA's table; NULL where this build has no such kernels. */
extern const struct gemm_kernels *const gemm_kernels_avx512;
extern const struct gemm_kernels *const gemm_kernels_avx2;
extern const struct gemm_kernels *const gemm_kernels_neon;
extern const struct gemm_kernels *const gemm_kernels_plain;

/* dst[j * mr + r] = src[r][j] (0 for a NULL row), element by element:
 * the layout every ISA's xp_panel writes. */
void	gemm_xp_plain(float *dst, const float *const *src, int k, int mr);

/*
 * Y[0 .. ti)[0 .. live) = Xp . Wp + b[0 .. live) for one tile of X (at
 * xp, read as struct np says) and W's panel at wp; b has GEMM_NR floats.
 */
typedef void	gemm_tile_fn(const struct np *, const float *xp,
		    const float *wp, float *y, int ti, int live,
		    const float *b);

/* A panel kernel from a tile kernel of mr rows: W's panel p times every
 * tile of X, the bias zero padded to the panel's width. */
void	gemm_panel_tiles(const struct np *, const float *xr, int p, int mr,
	    gemm_tile_fn *);

/* The outputs of W's panel p that exist (GEMM_NR but in the last). */
static inline int
gemm_live(const struct np *a, int p)
{
	int	live = a->w->out - p * GEMM_NR;

	return live < GEMM_NR ? live : GEMM_NR;
}

#endif
