/*
 * gemm_plain.c — gemm.c's kernels for any CPU: tiles of 4 rows of X by a
 * panel of 32 outputs in plain C, whose fixed-length inner loop over the
 * panel's outputs the compiler vectorises for whatever SIMD the target
 * has (SSE2 on any x86-64, Advanced SIMD on AArch64), and the element by
 * element copy of X into panels that every ISA's layout is defined by.
 *
 * Invariant: sums are float, one per output in k order (gemm.c
 * invariant 1), as in every other ISA's kernels.
 */
#include "embed/gemm_int.h"

#include <string.h>

#define MR_PLAIN	4
_Static_assert(GEMM_MR_MAX % MR_PLAIN == 0, "gemm_tn_cols's padding");

void
gemm_xp_plain(float *dst, const float *const *src, int k, int mr)
{
	int	j, r;

	for (j = 0; j < k; j++)
		for (r = 0; r < mr; r++)
			*dst++ = src[r] != NULL ? src[r][j] : 0;
}

/* Y[0 .. ti)[0 .. live) = Xp . Wp + b for one tile of X and one panel. */
static void
tile(const struct np *a, const float *xp, const float *wp, float *y,
    int ti, int live, const float *b)
{
	float		acc[MR_PLAIN][GEMM_NR], x;
	const float	*w;
	int		r, c, j, k = a->w->k;

	memset(acc, 0, sizeof(acc));
	for (j = 0; j < k; j++) {
		w = wp + (size_t)j * GEMM_NR;
		for (r = 0; r < MR_PLAIN; r++) {
			x = xp[(size_t)j * a->xs + r];
			for (c = 0; c < GEMM_NR; c++)
				acc[r][c] += x * w[c];
		}
	}
	for (r = 0; r < ti; r++)
		for (c = 0; c < live; c++)
			y[(size_t)r * a->ldy + c] = acc[r][c] + b[c];
}

void
gemm_panel_tiles(const struct np *a, const float *xr, int p, int mr,
    gemm_tile_fn *fn)
{
	const int	 k = a->w->k, live = gemm_live(a, p);
	const float	*wp = a->w->data + (size_t)p * k * GEMM_NR;
	float		 b[GEMM_NR] = { 0 };
	int		 i;

	if (a->bias != NULL)
		memcpy(b, a->bias + p * GEMM_NR, (size_t)live * sizeof(*b));
	for (i = 0; i < a->n; i += mr)
		fn(a, xr + (size_t)i * a->xi, wp, a->y + (size_t)i * a->ldy +
		    p * GEMM_NR, a->n - i < mr ? a->n - i : mr, live, b);
}

static void
panel(const struct np *a, const float *xr, int p)
{
	gemm_panel_tiles(a, xr, p, MR_PLAIN, tile);
}

static void
xp_panel(float *dst, const float *const *src, int k)
{
	gemm_xp_plain(dst, src, k, MR_PLAIN);
}

static const struct gemm_kernels plain = {
	ISA_GENERIC, MR_PLAIN, panel, xp_panel
};
const struct gemm_kernels *const gemm_kernels_plain = &plain;
