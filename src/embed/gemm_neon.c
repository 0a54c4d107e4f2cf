/*
 * gemm_neon.c — gemm.c's AArch64 kernels: Advanced SIMD tiles of 3 rows
 * of X by a panel of 32 outputs, 24 q-register sums (with the weight
 * vector and three broadcast rows of X, 28 of the 32 registers), each
 * step of k one vfmaq_f32 per sum: the AVX2 kernels' blocking on 128-bit
 * vectors. Built only for AArch64, where NEON is always present.
 *
 * Invariant: sums are float, one per output in k order (gemm.c
 * invariant 1); a tile's padding rows of X are zero or never stored.
 */
#include "embed/gemm_int.h"

#if defined(__aarch64__)
#include <arm_neon.h>

#define MR_NEON		3
#define VECS		(GEMM_NR / 4)	/* q registers per row of a panel */
_Static_assert(GEMM_MR_MAX % MR_NEON == 0, "gemm_tn_cols's padding");

/* Y[0 .. ti)[0 .. live) = Xp . Wp + b for one tile of X and one panel. */
static void
tile(const struct np *a, const float *xp, const float *wp, float *y,
    int ti, int live, const float *b)
{
	float32x4_t	acc[MR_NEON][VECS], x[MR_NEON], w, v;
	float		t[4];
	float		*yr;
	size_t		xs = a->xs;
	int		r, c, e, j, k = a->w->k;

	for (r = 0; r < MR_NEON; r++)
		for (c = 0; c < VECS; c++)
			acc[r][c] = vdupq_n_f32(0);
	for (j = 0; j < k; j++, xp += xs, wp += GEMM_NR) {
		__builtin_prefetch(wp + GEMM_PF_COLUMNS * GEMM_NR);
		__builtin_prefetch(wp + GEMM_PF_COLUMNS * GEMM_NR + 16);
		for (r = 0; r < MR_NEON; r++)
			x[r] = vld1q_dup_f32(xp + r);
		for (c = 0; c < VECS; c++) {
			w = vld1q_f32(wp + 4 * c);
			for (r = 0; r < MR_NEON; r++)
				acc[r][c] = vfmaq_f32(acc[r][c], x[r], w);
		}
	}
	for (r = 0; r < ti; r++) {
		yr = y + (size_t)r * a->ldy;
		for (c = 0; c < VECS && 4 * c < live; c++) {
			v = vaddq_f32(acc[r][c], vld1q_f32(b + 4 * c));
			if (4 * c + 4 <= live) {
				vst1q_f32(yr + 4 * c, v);
				continue;
			}
			vst1q_f32(t, v);
			for (e = 0; 4 * c + e < live; e++)
				yr[4 * c + e] = t[e];
		}
	}
}

static void
panel(const struct np *a, const float *xr, int p)
{
	gemm_panel_tiles(a, xr, p, MR_NEON, tile);
}

static void
xp_panel(float *dst, const float *const *src, int k)
{
	gemm_xp_plain(dst, src, k, MR_NEON);
}

static const struct gemm_kernels neon = {
	ISA_NEON, MR_NEON, panel, xp_panel
};
const struct gemm_kernels *const gemm_kernels_neon = &neon;
#else
const struct gemm_kernels *const gemm_kernels_neon = NULL;
#endif
