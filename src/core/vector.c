/*
 * vector.c — float32 vectors: the embedding BLOB codec, norms, the exact
 * cosine of store-and-tools §5.1, and the SIMD kernels of core.
 *
 * The store's search, the dedup scan and the engines compare the same
 * vectors, so the arithmetic is written once, here: a score means the
 * same bits whoever computes it. The SIMD kernels (x86's, the one
 * #include <immintrin.h> of core, with their target attributes; AArch64's
 * NEON; and a plain C loop of independent lanes the compiler vectorises
 * on any CPU) and their run-time dispatch on util/isa.c's ISA in effect
 * are here too, the vector file's checksum accumulator among them, so a
 * port to another instruction set touches one file.
 *
 * Invariants:
 *  1. A BLOB is little-endian float32 in index order on every host; a
 *     big-endian host swaps on the way in and out (§1.6: the original
 *     runs only little-endian, and a file moves between machines).
 *  2. Exact values (vector_norm, vector_dot, vector_cosine) are
 *     accumulated in double in index order, each product of two floats
 *     widened first: callers and tests compare them bit for bit.
 *  3. The float kernels (vector_sdot, vector_sdot4, vector_dot_int8) and
 *     vector_ddot2_int8 (double) give approximate scores whose order of
 *     summation depends on the machine; their callers bound the error
 *     (store_nearest.c's ROUNDING_ERR and NARROW_SLACK, dedup.c's
 *     SCAN_MARGIN) and decide with an exact cosine.
 *  4. vector_stripe_sum is a checksum's: its lanes are the same on every
 *     machine, the AVX2 loop computing the plain loop's exactly.
 */
#include "core/vector.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "util/isa.h"
#include "util/xmalloc.h"

/* ---- The BLOB codec (invariant 1) ---------------------------------------- */

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
static void
swap_copy(const void *from, size_t n, void *to)
{
	const unsigned char	*f = from;
	unsigned char		*t = to;
	size_t			 i;

	for (i = 0; i < n * 4; i += 4) {
		t[i] = f[i + 3];
		t[i + 1] = f[i + 2];
		t[i + 2] = f[i + 1];
		t[i + 3] = f[i];
	}
}

void
vector_decode(const void *blob, size_t n, float *out)
{
	swap_copy(blob, n, out);
}

const void *
vector_encode(const float *vec, size_t n, void **scratch)
{
	*scratch = xmalloc(n * 4 + 1);
	swap_copy(vec, n, *scratch);
	return *scratch;
}
#else
void
vector_decode(const void *blob, size_t n, float *out)
{
	memcpy(out, blob, n * sizeof(float));
}

const void *
vector_encode(const float *vec, size_t n, void **scratch)
{
	(void)n;
	*scratch = NULL;
	return vec;
}
#endif

/* ---- Exact values (invariant 2) ------------------------------------------ */

double
vector_norm(const float *v, int dim)
{
	double	s = 0;
	int	i;

	for (i = 0; i < dim; i++)
		s += (double)v[i] * (double)v[i];
	return sqrt(s);
}

double
vector_dot(const float *a, const float *b, int dim)
{
	double	dot = 0;
	int	i;

	for (i = 0; i < dim; i++)
		dot += (double)a[i] * (double)b[i];
	return dot;
}

double
vector_cosine(const float *a, double na, const float *b, double nb,
    int dim)
{
	if (na == 0 || nb == 0)
		return 0;
	return vector_dot(a, b, dim) / (na * nb);
}

/* ---- Approximate scores (invariant 3) ------------------------------------ */

float
vector_sdot(const float *a, const float *b, size_t d)
{
	float	s = 0;
	size_t	k;

	for (k = 0; k < d; k++)
		s += a[k] * b[k];
	return s;
}

/*
 * The portable loops sum LANES independent partial sums (index k into
 * lane k % LANES), then the lanes and the tail: a chain the compiler can
 * turn into vector adds, where vector_sdot's one sum in index order is a
 * chain of dependent scalar adds.
 */
#define LANES	8

static float
lanes_sum(const float s[LANES])
{
	return ((s[0] + s[4]) + (s[1] + s[5])) + ((s[2] + s[6]) +
	    (s[3] + s[7]));
}

static float
sdot_lanes(const float *a, const float *b, size_t d)
{
	float	s[LANES] = { 0 }, t;
	size_t	k;
	int	l;

	for (k = 0; k + LANES <= d; k += LANES)
		for (l = 0; l < LANES; l++)
			s[l] += a[k + l] * b[k + l];
	for (t = lanes_sum(s); k < d; k++)
		t += a[k] * b[k];
	return t;
}

static void
dot4_plain(const float *a, size_t d, const float *b, float out[4])
{
	int	r;

	for (r = 0; r < 4; r++)
		out[r] = sdot_lanes(a + r * d, b, d);
}

/*
 * Dot products of the float query with each int8 row. The AVX-512, AVX2
 * and NEON versions widen 16 or 8 int8 at a time to floats (GCC
 * scalarises that conversion when written with vector extensions) and
 * are chosen at run time; the plain loop is for other machines.
 */
static void
dot_int8_plain(const float *q, const signed char *m, size_t n, int dim,
    float *out)
{
	size_t	r;
	int	i, l;
	float	s[LANES], t;

	for (r = 0; r < n; r++, m += dim) {
		memset(s, 0, sizeof(s));
		for (i = 0; i + LANES <= dim; i += LANES)
			for (l = 0; l < LANES; l++)
				s[l] += q[i + l] * (float)m[i + l];
		for (t = lanes_sum(s); i < dim; i++)
			t += q[i] * m[i];
		out[r] = t;
	}
}

/*
 * The dots of the float query with two int8 rows, in double: each
 * product of a float and an int8 is exact in double and a sum of dim of
 * them errs by ~dim * 2^-53 of it, so store_nearest.c's second pass
 * bounds these dots by the quantisation alone, whatever the order of
 * summation (the AVX2 version keeps four lanes, AVX-512's eight,
 * NEON's eight in four pairs).
 */
static void
ddot2_plain(const float *q, const signed char *a, const signed char *b,
    int dim, double out[2])
{
	double	sa = 0, sb = 0;
	int	i;

	for (i = 0; i < dim; i++) {
		sa += (double)q[i] * a[i];
		sb += (double)q[i] * b[i];
	}
	out[0] = sa;
	out[1] = sb;
}

/* ---- The vector file's checksum (invariant 4) ---------------------------- */

static void
stripes_plain(uint64_t acc[8], const uint64_t key[8], const unsigned char *p,
    size_t n)
{
	uint64_t	w, k;
	size_t		i;
	int		j;

	for (i = 0; i < n; i++, p += 64)
		for (j = 0; j < 8; j++) {
			memcpy(&w, p + 8 * j, 8);
			k = w ^ key[j];
			acc[j ^ 1] += w;
			acc[j] += (k & 0xffffffffu) * (k >> 32);
		}
}

/* ---- x86-64 versions ---------------------------------------------------- */

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

__attribute__((target("avx2,fma")))
static float
hsum_avx2(__m256 v)
{
	__m128	h = _mm_add_ps(_mm256_castps256_ps128(v),
		    _mm256_extractf128_ps(v, 1));

	h = _mm_add_ps(h, _mm_movehl_ps(h, h));
	h = _mm_add_ss(h, _mm_shuffle_ps(h, h, 1));
	return _mm_cvtss_f32(h);
}

/*
 * Rows a[0..3] against row b: each 8 floats of b are loaded once for
 * four products, which halves the loads a pair costs (dedup.c's scan).
 */
__attribute__((target("avx2,fma")))
static void
dot4_avx2(const float *a, size_t d, const float *b, float out[4])
{
	__m256	s0 = _mm256_setzero_ps(), s1 = s0, s2 = s0, s3 = s0, y;
	size_t	k;
	int	r;

	for (k = 0; k + 8 <= d; k += 8) {
		y = _mm256_loadu_ps(b + k);
		s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + k), y, s0);
		s1 = _mm256_fmadd_ps(_mm256_loadu_ps(a + d + k), y, s1);
		s2 = _mm256_fmadd_ps(_mm256_loadu_ps(a + 2 * d + k), y, s2);
		s3 = _mm256_fmadd_ps(_mm256_loadu_ps(a + 3 * d + k), y, s3);
	}
	out[0] = hsum_avx2(s0);
	out[1] = hsum_avx2(s1);
	out[2] = hsum_avx2(s2);
	out[3] = hsum_avx2(s3);
	for (; k < d; k++)
		for (r = 0; r < 4; r++)
			out[r] += a[r * d + k] * b[k];
}

__attribute__((target("avx2,fma")))
static void
dot_int8_avx2(const float *q, const signed char *m, size_t n, int dim,
    float *out)
{
	size_t	r;
	int	i;
	__m256	a0, a1, y0, y1;
	__m128	h;
	float	s;

	for (r = 0; r < n; r++, m += dim) {
		a0 = _mm256_setzero_ps();
		a1 = _mm256_setzero_ps();
		for (i = 0; i + 16 <= dim; i += 16) {
			y0 = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(
			    _mm_loadl_epi64((const __m128i *)(m + i))));
			y1 = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(
			    _mm_loadl_epi64((const __m128i *)(m + i + 8))));
			a0 = _mm256_fmadd_ps(_mm256_loadu_ps(q + i), y0,
			    a0);
			a1 = _mm256_fmadd_ps(_mm256_loadu_ps(q + i + 8), y1,
			    a1);
		}
		a0 = _mm256_add_ps(a0, a1);
		h = _mm_add_ps(_mm256_castps256_ps128(a0),
		    _mm256_extractf128_ps(a0, 1));
		h = _mm_add_ps(h, _mm_movehl_ps(h, h));
		h = _mm_add_ss(h, _mm_shuffle_ps(h, h, 1));
		s = _mm_cvtss_f32(h);
		for (; i < dim; i++)
			s += q[i] * m[i];
		out[r] = s;
	}
}

/* Half the instructions of the AVX2 loop: 100,000 rows took 4 ms. */
__attribute__((target("avx512f")))
static void
dot_int8_avx512(const float *q, const signed char *m, size_t n, int dim,
    float *out)
{
	size_t	r;
	int	i;
	__m512	a0, a1, y0, y1;
	float	s;

	for (r = 0; r < n; r++, m += dim) {
		a0 = _mm512_setzero_ps();
		a1 = _mm512_setzero_ps();
		for (i = 0; i + 32 <= dim; i += 32) {
			y0 = _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(
			    _mm_loadu_si128((const __m128i *)(m + i))));
			y1 = _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(
			    _mm_loadu_si128((const __m128i *)(m + i + 16))));
			a0 = _mm512_fmadd_ps(_mm512_loadu_ps(q + i), y0, a0);
			a1 = _mm512_fmadd_ps(_mm512_loadu_ps(q + i + 16), y1,
			    a1);
		}
		s = _mm512_reduce_add_ps(_mm512_add_ps(a0, a1));
		for (; i < dim; i++)
			s += q[i] * m[i];
		out[r] = s;
	}
}

/* Four int8 at p as doubles. */
__attribute__((target("avx2,fma")))
static __m256d
int8x4_pd(const signed char *p)
{
	int32_t	w;

	memcpy(&w, p, 4);
	return _mm256_cvtepi32_pd(_mm_cvtepi8_epi32(_mm_cvtsi32_si128(w)));
}

__attribute__((target("avx2,fma")))
static void
ddot2_avx2(const float *q, const signed char *a, const signed char *b,
    int dim, double out[2])
{
	__m256d	sa = _mm256_setzero_pd(), sb = sa, x;
	__m128d	h;
	double	r[2];
	int	i, k;

	for (i = 0; i + 4 <= dim; i += 4) {
		x = _mm256_cvtps_pd(_mm_loadu_ps(q + i));
		sa = _mm256_fmadd_pd(x, int8x4_pd(a + i), sa);
		sb = _mm256_fmadd_pd(x, int8x4_pd(b + i), sb);
	}
	for (k = 0; k < 2; k++) {
		x = k == 0 ? sa : sb;
		h = _mm_add_pd(_mm256_castpd256_pd128(x),
		    _mm256_extractf128_pd(x, 1));
		r[k] = _mm_cvtsd_f64(_mm_add_sd(h, _mm_unpackhi_pd(h, h)));
	}
	for (; i < dim; i++) {
		r[0] += (double)q[i] * a[i];
		r[1] += (double)q[i] * b[i];
	}
	out[0] = r[0];
	out[1] = r[1];
}

/* ddot2_avx2 on eight lanes: the band's second pass (store_nearest.c)
 * was most of a warm recall's vector side on a crowded store. */
__attribute__((target("avx512f")))
static void
ddot2_avx512(const float *q, const signed char *a, const signed char *b,
    int dim, double out[2])
{
	__m512d	sa = _mm512_setzero_pd(), sb = sa, x;
	double	r[2];
	int	i;

	for (i = 0; i + 8 <= dim; i += 8) {
		int64_t	wa, wb;

		memcpy(&wa, a + i, 8);
		memcpy(&wb, b + i, 8);
		x = _mm512_cvtps_pd(_mm256_loadu_ps(q + i));
		sa = _mm512_fmadd_pd(x, _mm512_cvtepi32_pd(_mm256_cvtepi8_epi32(
		    _mm_cvtsi64_si128(wa))), sa);
		sb = _mm512_fmadd_pd(x, _mm512_cvtepi32_pd(_mm256_cvtepi8_epi32(
		    _mm_cvtsi64_si128(wb))), sb);
	}
	r[0] = _mm512_reduce_add_pd(sa);
	r[1] = _mm512_reduce_add_pd(sb);
	for (; i < dim; i++) {
		r[0] += (double)q[i] * a[i];
		r[1] += (double)q[i] * b[i];
	}
	out[0] = r[0];
	out[1] = r[1];
}

__attribute__((target("avx2")))
static void
stripes_avx2(uint64_t acc[8], const uint64_t key[8], const unsigned char *p,
    size_t n)
{
	__m256i		a[2], k[2], d, dk;
	size_t		i;
	int		h;

	for (h = 0; h < 2; h++) {
		a[h] = _mm256_loadu_si256((const __m256i *)(acc + 4 * h));
		k[h] = _mm256_loadu_si256((const __m256i *)(key + 4 * h));
	}
	for (i = 0; i < n; i++, p += 64)
		for (h = 0; h < 2; h++) {
			d = _mm256_loadu_si256((const __m256i *)(p + 32 * h));
			dk = _mm256_xor_si256(d, k[h]);
			a[h] = _mm256_add_epi64(a[h], _mm256_add_epi64(
			    _mm256_mul_epu32(dk, _mm256_srli_epi64(dk, 32)),
			    _mm256_shuffle_epi32(d, _MM_SHUFFLE(1, 0, 3, 2))));
		}
	for (h = 0; h < 2; h++)
		_mm256_storeu_si256((__m256i *)(acc + 4 * h), a[h]);
}

#endif

/* ---- AArch64 versions (NEON: every AArch64 CPU has it) ------------------- */

#if defined(__aarch64__)
#include <arm_neon.h>

/* As dot4_avx2: each 4 floats of b loaded once for four products. */
static void
dot4_neon(const float *a, size_t d, const float *b, float out[4])
{
	float32x4_t	s0 = vdupq_n_f32(0), s1 = s0, s2 = s0, s3 = s0, y;
	size_t		k;
	int		r;

	for (k = 0; k + 4 <= d; k += 4) {
		y = vld1q_f32(b + k);
		s0 = vfmaq_f32(s0, vld1q_f32(a + k), y);
		s1 = vfmaq_f32(s1, vld1q_f32(a + d + k), y);
		s2 = vfmaq_f32(s2, vld1q_f32(a + 2 * d + k), y);
		s3 = vfmaq_f32(s3, vld1q_f32(a + 3 * d + k), y);
	}
	out[0] = vaddvq_f32(s0);
	out[1] = vaddvq_f32(s1);
	out[2] = vaddvq_f32(s2);
	out[3] = vaddvq_f32(s3);
	for (; k < d; k++)
		for (r = 0; r < 4; r++)
			out[r] += a[r * d + k] * b[k];
}

/* Sixteen int8 widened to four vectors of floats per step, four sums. */
static void
dot_int8_neon(const float *q, const signed char *m, size_t n, int dim,
    float *out)
{
	float32x4_t	a[4];
	int16x8_t	lo, hi;
	int8x16_t	v;
	size_t		r;
	int		i;
	float		s;

	for (r = 0; r < n; r++, m += dim) {
		a[0] = a[1] = a[2] = a[3] = vdupq_n_f32(0);
		for (i = 0; i + 16 <= dim; i += 16) {
			v = vld1q_s8(m + i);
			lo = vmovl_s8(vget_low_s8(v));
			hi = vmovl_high_s8(v);
			a[0] = vfmaq_f32(a[0], vld1q_f32(q + i), vcvtq_f32_s32(
			    vmovl_s16(vget_low_s16(lo))));
			a[1] = vfmaq_f32(a[1], vld1q_f32(q + i + 4),
			    vcvtq_f32_s32(vmovl_high_s16(lo)));
			a[2] = vfmaq_f32(a[2], vld1q_f32(q + i + 8),
			    vcvtq_f32_s32(vmovl_s16(vget_low_s16(hi))));
			a[3] = vfmaq_f32(a[3], vld1q_f32(q + i + 12),
			    vcvtq_f32_s32(vmovl_high_s16(hi)));
		}
		s = vaddvq_f32(vaddq_f32(vaddq_f32(a[0], a[1]),
		    vaddq_f32(a[2], a[3])));
		for (; i < dim; i++)
			s += q[i] * m[i];
		out[r] = s;
	}
}

/* Four int32 lanes times four floats, into two double accumulators each
 * (the products exact, as in ddot2_plain). */
static void
ddot2_neon_quad(float32x4_t q, int32x4_t v, float64x2_t *lo, float64x2_t *hi)
{
	*lo = vfmaq_f64(*lo, vcvt_f64_f32(vget_low_f32(q)),
	    vcvtq_f64_s64(vmovl_s32(vget_low_s32(v))));
	*hi = vfmaq_f64(*hi, vcvt_high_f64_f32(q),
	    vcvtq_f64_s64(vmovl_high_s32(v)));
}

/* ddot2_avx2 on NEON's two-double lanes, four accumulators a row. */
static void
ddot2_neon(const float *q, const signed char *a, const signed char *b,
    int dim, double out[2])
{
	float64x2_t	sa[4], sb[4];
	int16x8_t	wa, wb;
	float32x4_t	q0, q1;
	int		i, k;

	for (k = 0; k < 4; k++)
		sa[k] = sb[k] = vdupq_n_f64(0);
	for (i = 0; i + 8 <= dim; i += 8) {
		wa = vmovl_s8(vld1_s8(a + i));
		wb = vmovl_s8(vld1_s8(b + i));
		q0 = vld1q_f32(q + i);
		q1 = vld1q_f32(q + i + 4);
		ddot2_neon_quad(q0, vmovl_s16(vget_low_s16(wa)), &sa[0], &sa[1]);
		ddot2_neon_quad(q1, vmovl_high_s16(wa), &sa[2], &sa[3]);
		ddot2_neon_quad(q0, vmovl_s16(vget_low_s16(wb)), &sb[0], &sb[1]);
		ddot2_neon_quad(q1, vmovl_high_s16(wb), &sb[2], &sb[3]);
	}
	out[0] = vaddvq_f64(vaddq_f64(vaddq_f64(sa[0], sa[1]),
	    vaddq_f64(sa[2], sa[3])));
	out[1] = vaddvq_f64(vaddq_f64(vaddq_f64(sb[0], sb[1]),
	    vaddq_f64(sb[2], sb[3])));
	for (; i < dim; i++) {
		out[0] += (double)q[i] * a[i];
		out[1] += (double)q[i] * b[i];
	}
}
#endif

/* ---- Dispatch on the ISA in effect (util/isa.c) -------------------------- */

void
vector_sdot4(const float *a, size_t d, const float *b, float out[4])
{
	switch (isa_current()) {
#if defined(__x86_64__) && defined(__GNUC__)
	case ISA_AVX512:	/* no wider version: a row is 1.5 KB */
	case ISA_AVX2:
		dot4_avx2(a, d, b, out);
		return;
#endif
#if defined(__aarch64__)
	case ISA_NEON:
		dot4_neon(a, d, b, out);
		return;
#endif
	default:
		dot4_plain(a, d, b, out);
	}
}

void
vector_dot_int8(const float *q, const signed char *m, size_t n, int dim,
    float *out)
{
	switch (isa_current()) {
#if defined(__x86_64__) && defined(__GNUC__)
	case ISA_AVX512:
		dot_int8_avx512(q, m, n, dim, out);
		return;
	case ISA_AVX2:
		dot_int8_avx2(q, m, n, dim, out);
		return;
#endif
#if defined(__aarch64__)
	case ISA_NEON:
		dot_int8_neon(q, m, n, dim, out);
		return;
#endif
	default:
		dot_int8_plain(q, m, n, dim, out);
	}
}

void
vector_stripe_sum(uint64_t acc[8], const uint64_t key[8],
    const unsigned char *p, size_t n)
{
#if defined(__x86_64__) && defined(__GNUC__)
	if (isa_current() == ISA_AVX2 || isa_current() == ISA_AVX512) {
		stripes_avx2(acc, key, p, n);
		return;
	}
#endif
	stripes_plain(acc, key, p, n);
}

void
vector_ddot2_int8(const float *q, const signed char *a,
    const signed char *b, int dim, double out[2])
{
#if defined(__x86_64__) && defined(__GNUC__)
	if (isa_current() == ISA_AVX512) {
		ddot2_avx512(q, a, b, dim, out);
		return;
	}
	if (isa_current() == ISA_AVX2) {
		ddot2_avx2(q, a, b, dim, out);
		return;
	}
#endif
#if defined(__aarch64__)
	if (isa_current() == ISA_NEON) {
		ddot2_neon(q, a, b, dim, out);
		return;
	}
#endif
	ddot2_plain(q, a, b, dim, out);
}
