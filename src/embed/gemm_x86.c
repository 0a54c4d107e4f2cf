/*
 * gemm_x86.c — gemm.c's x86-64 kernels: AVX-512F tiles of 12 rows of X by
 * a panel of 32 outputs, AVX2 + FMA tiles of 3 rows by 32 (gemm_int.h's
 * tables). Built only for x86-64, each function with its ISA's target
 * attribute, so the rest of the tree needs no x86 flag; gemm.c uses them
 * only where isa.c found the CPU has them.
 *
 * Invariant: sums are float, one per output in k order (gemm.c
 * invariant 1); a tile's padding rows of X are zero or never stored.
 */
#include "embed/gemm_int.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

#define MR512		12	/* rows of X per AVX-512 tile: 24 zmm sums */
#define MR256		3	/* rows of X per AVX2 tile: 12 ymm sums */
_Static_assert(GEMM_MR_MAX % MR512 == 0 && GEMM_MR_MAX % MR256 == 0,
    "gemm_tn_cols's padding");

#define INLINE	static inline __attribute__((always_inline))

/* The two cache lines of a panel's column at p (past the end is harmless:
 * a prefetch does not fault). */
INLINE void
prefetch_column(const float *p)
{
	_mm_prefetch((const char *)p, _MM_HINT_T0);
	_mm_prefetch((const char *)(p + 16), _MM_HINT_T0);
}

/* ---- AVX-512: tiles of 12 rows of X by one panel of 32 outputs ---- */

#define A512	__attribute__((target("avx512f")))

/*
 * Y[0 .. ti)[0 .. 32) = Xp . Wp + (b0, b1) for one panel of each; m0 and
 * m1 mask the outputs that exist in the panel's two halves. mr (a
 * constant where inlined: 4, 8 or 12, >= ti) is how many of the panel's
 * rows are multiplied, so a short text does not pay for padding rows.
 */
INLINE A512 void
tile512(const struct np *a, const float *xp, const float *wp, float *y,
    int ti, __mmask16 m0, __mmask16 m1, __m512 b0, __m512 b1, const int mr)
{
	__m512	acc[MR512][2], w0, w1, xb;
	float	*yr;
	int	r, j, k = a->w->k;

#pragma GCC unroll 12
	for (r = 0; r < mr; r++)
		acc[r][0] = acc[r][1] = _mm512_setzero_ps();
	for (j = 0; j < k; j++) {
		prefetch_column(wp + (size_t)(j + GEMM_PF_COLUMNS) * GEMM_NR);
		w0 = _mm512_load_ps(wp + (size_t)j * GEMM_NR);
		w1 = _mm512_load_ps(wp + (size_t)j * GEMM_NR + 16);
#pragma GCC unroll 12
		for (r = 0; r < mr; r++) {
			xb = _mm512_set1_ps(xp[(size_t)j * a->xs + r]);
			acc[r][0] = _mm512_fmadd_ps(xb, w0, acc[r][0]);
			acc[r][1] = _mm512_fmadd_ps(xb, w1, acc[r][1]);
		}
	}
	for (r = 0; r < ti; r++) {
		yr = y + (size_t)r * a->ldy;
		_mm512_mask_storeu_ps(yr, m0, _mm512_add_ps(acc[r][0], b0));
		_mm512_mask_storeu_ps(yr + 16, m1, _mm512_add_ps(acc[r][1],
		    b1));
	}
}

static A512 void
panel512(const struct np *a, const float *xr, int p)
{
	const int	 k = a->w->k, live = a->w->out - p * GEMM_NR;
	const float	*wp = a->w->data + (size_t)p * k * GEMM_NR, *xp;
	__mmask16	 m0, m1;
	__m512		 b0, b1;
	float		*y;
	int		 i, ti;

	m0 = (__mmask16)(live >= 16 ? 0xffff : (1u << live) - 1);
	m1 = (__mmask16)(live >= 32 ? 0xffff : live <= 16 ? 0 :
	    (1u << (live - 16)) - 1);
	b0 = b1 = _mm512_setzero_ps();
	if (a->bias != NULL) {
		b0 = _mm512_maskz_loadu_ps(m0, a->bias + p * GEMM_NR);
		b1 = _mm512_maskz_loadu_ps(m1, a->bias + p * GEMM_NR + 16);
	}
	for (i = 0; i < a->n; i += MR512) {
		xp = xr + (size_t)i * a->xi;
		y = a->y + (size_t)i * a->ldy + p * GEMM_NR;
		ti = a->n - i < MR512 ? a->n - i : MR512;
		if (ti > 8)
			tile512(a, xp, wp, y, ti, m0, m1, b0, b1, 12);
		else if (ti > 4)
			tile512(a, xp, wp, y, ti, m0, m1, b0, b1, 8);
		else
			tile512(a, xp, wp, y, ti, m0, m1, b0, b1, 4);
	}
}

/* ---- AVX2 + FMA: tiles of 3 rows of X by one panel of 32 outputs ---- */

#define A256	__attribute__((target("avx2,fma")))

INLINE A256 void
tile256(const struct np *a, const float *xp, const float *wp, float *y,
    int ti, const __m256i *mask, const __m256 *bias)
{
	__m256	acc[MR256][4], w[4], xb;
	float	*yr;
	int	r, c, j, k = a->w->k;

#pragma GCC unroll 4
	for (r = 0; r < MR256; r++)
#pragma GCC unroll 4
		for (c = 0; c < 4; c++)
			acc[r][c] = _mm256_setzero_ps();
	for (j = 0; j < k; j++) {
		prefetch_column(wp + (size_t)(j + GEMM_PF_COLUMNS) * GEMM_NR);
#pragma GCC unroll 4
		for (c = 0; c < 4; c++)
			w[c] = _mm256_load_ps(wp + (size_t)j * GEMM_NR + 8 * c);
#pragma GCC unroll 4
		for (r = 0; r < MR256; r++) {
			xb = _mm256_broadcast_ss(xp + (size_t)j * a->xs + r);
#pragma GCC unroll 4
			for (c = 0; c < 4; c++)
				acc[r][c] = _mm256_fmadd_ps(xb, w[c],
				    acc[r][c]);
		}
	}
	for (r = 0; r < ti; r++) {
		yr = y + (size_t)r * a->ldy;
		for (c = 0; c < 4; c++)
			_mm256_maskstore_ps(yr + 8 * c, mask[c],
			    _mm256_add_ps(acc[r][c], bias[c]));
	}
}

static A256 void
panel256(const struct np *a, const float *xr, int p)
{
	const int	k = a->w->k, live = a->w->out - p * GEMM_NR;
	__m256i		mask[4];
	__m256		bias[4];
	int		i, c;

	for (c = 0; c < 4; c++) {
		mask[c] = _mm256_cmpgt_epi32(_mm256_set1_epi32(live - 8 * c),
		    _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
		bias[c] = a->bias == NULL ? _mm256_setzero_ps() :
		    _mm256_maskload_ps(a->bias + p * GEMM_NR + 8 * c,
		    mask[c]);
	}
	for (i = 0; i < a->n; i += MR256)
		tile256(a, xr + (size_t)i * a->xi, a->w->data +
		    (size_t)p * k * GEMM_NR, a->y + (size_t)i * a->ldy +
		    p * GEMM_NR, a->n - i < MR256 ? a->n - i : MR256, mask,
		    bias);
}


/*
 * One panel of MR512 rows of X from src (NULL rows are padding), sixteen
 * columns at a time: the rows' sixteen floats are transposed in registers
 * (16 x 16, the last four rows zero) and each column's MR512 floats
 * stored in order, where an element-wise copy would cost a load and a
 * store per float (12% of a 250-token embedding, P's panels included).
 */
static A512 void
xp_panel512(float *dst, const float *const *src, int k)
{
	__m512		 r[16], a[16], b[16], c0, c1, c2, c3;
	__mmask16	 m;
	int		 j, i, n;

	for (j = 0; j < k; j += 16) {
		n = k - j < 16 ? k - j : 16;
		m = (__mmask16)((1u << n) - 1);
		for (i = 0; i < 16; i++)
			r[i] = i < MR512 && src[i] != NULL ?
			    _mm512_maskz_loadu_ps(m, src[i] + j) :
			    _mm512_setzero_ps();
		for (i = 0; i < 8; i++) {
			a[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
			a[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i],
			    r[2 * i + 1]);
		}
		/* b[4i + c]: rows 4i .. 4i + 3 of column 4L + c in lane L */
		for (i = 0; i < 4; i++) {
#define PD(v)	_mm512_castps_pd(v)
#define PS(v)	_mm512_castpd_ps(v)
			b[4 * i] = PS(_mm512_unpacklo_pd(PD(a[4 * i]),
			    PD(a[4 * i + 2])));
			b[4 * i + 1] = PS(_mm512_unpackhi_pd(PD(a[4 * i]),
			    PD(a[4 * i + 2])));
			b[4 * i + 2] = PS(_mm512_unpacklo_pd(PD(a[4 * i + 1]),
			    PD(a[4 * i + 3])));
			b[4 * i + 3] = PS(_mm512_unpackhi_pd(PD(a[4 * i + 1]),
			    PD(a[4 * i + 3])));
#undef PS
#undef PD
		}
		/* column 4L + c: lane L of b[c], b[4 + c], b[8 + c], b[12 + c] */
		for (i = 0; i < 4; i++) {
			c0 = _mm512_shuffle_f32x4(b[i], b[4 + i], 0x88);
			c1 = _mm512_shuffle_f32x4(b[i], b[4 + i], 0xdd);
			c2 = _mm512_shuffle_f32x4(b[8 + i], b[12 + i], 0x88);
			c3 = _mm512_shuffle_f32x4(b[8 + i], b[12 + i], 0xdd);
			r[i] = _mm512_shuffle_f32x4(c0, c2, 0x88);
			r[4 + i] = _mm512_shuffle_f32x4(c1, c3, 0x88);
			r[8 + i] = _mm512_shuffle_f32x4(c0, c2, 0xdd);
			r[12 + i] = _mm512_shuffle_f32x4(c1, c3, 0xdd);
		}
		for (i = 0; i < n; i++)
			_mm512_mask_storeu_ps(dst + (size_t)(j + i) * MR512,
			    (1u << MR512) - 1, r[i]);
	}
}

static void
xp_panel256(float *dst, const float *const *src, int k)
{
	gemm_xp_plain(dst, src, k, MR256);
}

static const struct gemm_kernels avx512 = {
	ISA_AVX512, MR512, panel512, xp_panel512
};
static const struct gemm_kernels avx2 = {
	ISA_AVX2, MR256, panel256, xp_panel256
};
const struct gemm_kernels *const gemm_kernels_avx512 = &avx512;
const struct gemm_kernels *const gemm_kernels_avx2 = &avx2;
#else
const struct gemm_kernels *const gemm_kernels_avx512 = NULL;
const struct gemm_kernels *const gemm_kernels_avx2 = NULL;
#endif
