/*
 * gemm.c — the encoder's matrix products: X . W^T for the linear layers
 * over weights packed once at load, attention's X . V, and the pool of
 * persistent threads they run on. AVX-512 or AVX2 kernels, chosen at run
 * time.
 *
 * Why packed: PyTorch stores a linear layer's W row-major [out, in], so
 * each output is a dot product along a row of W, ending in a horizontal
 * sum, and a tile of outputs reads many rows of W at once. Packed into
 * panels of GEMM_NR rows stored column by column, W becomes one
 * sequential stream: each step of j loads the panel's NR weights as whole
 * vectors and broadcasts x[i][j] of MR rows of X into them, so NR x MR
 * outputs accumulate in registers with no horizontal sums and no
 * transposition on the way out (bench/README.md b101: 1.3-1.6x the rate
 * of the row-major kernels this replaced, at 8 to 250 tokens).
 *  1. Sums are float, one per output in k order, as any blocked sgemm
 *     rounds: well inside test_bert's 1e-5.
 *  2. X is copied into panels of MR rows (xp[(panel * k + j) * MR + r],
 *     zero padded) before each product: n x k floats, against the
 *     product's out x k weights; the pool's threads split the panels.
 *  3. A product on t threads gives thread i the i-th of t runs of
 *     consecutive panels of W; threads never write the same output. Each
 *     W panel stays in L2 while every panel of X goes through it.
 *  4. The pool's workers are the only threads here: they start on the
 *     first task that wants them, wait for work by spinning briefly and
 *     then sleeping on a condition variable, and exit in gemm_free. The
 *     caller runs slice 0 itself and returns only when every slice is
 *     done, so a task is a plain function call to its caller.
 *  5. g->job and g->xp serve the one task in flight; a task therefore
 *     multiplies only with the _here functions, whose state is on its
 *     stack and in its caller's scratch.
 */
#include "embed/gemm.h"

#include <immintrin.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "util/xmalloc.h"

#define GEMM_SPIN	4000	/* pause instructions before sleeping */
#define MR512		12	/* rows of X per AVX-512 tile: 24 zmm sums */
#define MR256		3	/* rows of X per AVX2 tile: 12 ymm sums */

struct job {
	gemm_task_fn	*task;
	void		*arg;
	int		 threads;
};

struct gemm {
	enum gemm_isa		 isa;
	int			 mr;		/* rows of X per tile */
	float			*xp;		/* X in panels, for gemm_np */
	size_t			 xp_cap;	/* floats */
	int			 max, started;	/* threads; workers running */
	pthread_t		*tid;		/* [max - 1] */
	pthread_mutex_t		 mu;
	pthread_cond_t		 go, done;
	atomic_uint		 gen;		/* bumped per task */
	atomic_int		 pending;	/* slices not yet done */
	bool			 quit;
	struct job		 job;
};

/* One gemm_np product: X's panels times W's, into Y. */
struct np {
	const float		*x;
	float			*xp;
	const struct gemm_mat	*w;
	float			*y;
	int			 ldx, ldy, n, mr;
	enum gemm_isa		 isa;
};

#define INLINE	static inline __attribute__((always_inline))

/* ---- AVX-512: tiles of 12 rows of X by one panel of 32 outputs ---- */

#define A512	__attribute__((target("avx512f")))

/*
 * Y[0 .. ti)[0 .. 32) += Xp . Wp for one panel of each; m0 and m1 mask
 * the outputs that exist in the panel's two halves. mr (a constant where
 * inlined: 4, 8 or 12, >= ti) is how many of the panel's rows are
 * multiplied, so a short text does not pay for padding rows.
 */
INLINE A512 void
tile512(const float *xp, const float *wp, int k, float *y, int ldy, int ti,
    __mmask16 m0, __mmask16 m1, const int mr)
{
	__m512	acc[MR512][2], w0, w1, xb;
	float	*yr;
	int	r, j;

#pragma GCC unroll 12
	for (r = 0; r < mr; r++)
		acc[r][0] = acc[r][1] = _mm512_setzero_ps();
	for (j = 0; j < k; j++) {
		w0 = _mm512_load_ps(wp + (size_t)j * GEMM_NR);
		w1 = _mm512_load_ps(wp + (size_t)j * GEMM_NR + 16);
#pragma GCC unroll 12
		for (r = 0; r < mr; r++) {
			xb = _mm512_set1_ps(xp[(size_t)j * MR512 + r]);
			acc[r][0] = _mm512_fmadd_ps(xb, w0, acc[r][0]);
			acc[r][1] = _mm512_fmadd_ps(xb, w1, acc[r][1]);
		}
	}
	for (r = 0; r < ti; r++) {
		yr = y + (size_t)r * ldy;
		_mm512_mask_storeu_ps(yr, m0, _mm512_add_ps(acc[r][0],
		    _mm512_maskz_loadu_ps(m0, yr)));
		_mm512_mask_storeu_ps(yr + 16, m1, _mm512_add_ps(acc[r][1],
		    _mm512_maskz_loadu_ps(m1, yr + 16)));
	}
}

static A512 void
panel512(const struct np *a, int p)
{
	const int	 k = a->w->k, live = a->w->out - p * GEMM_NR;
	const float	*wp = a->w->data + (size_t)p * k * GEMM_NR, *xp;
	__mmask16	 m0, m1;
	float		*y;
	int		 i, ti;

	m0 = (__mmask16)(live >= 16 ? 0xffff : (1u << live) - 1);
	m1 = (__mmask16)(live >= 32 ? 0xffff : live <= 16 ? 0 :
	    (1u << (live - 16)) - 1);
	for (i = 0; i < a->n; i += MR512) {
		xp = a->xp + (size_t)i * k;
		y = a->y + (size_t)i * a->ldy + p * GEMM_NR;
		ti = a->n - i < MR512 ? a->n - i : MR512;
		if (ti > 8)
			tile512(xp, wp, k, y, a->ldy, ti, m0, m1, 12);
		else if (ti > 4)
			tile512(xp, wp, k, y, a->ldy, ti, m0, m1, 8);
		else
			tile512(xp, wp, k, y, a->ldy, ti, m0, m1, 4);
	}
}

/* ---- AVX2 + FMA: tiles of 3 rows of X by one panel of 32 outputs ---- */

#define A256	__attribute__((target("avx2,fma")))

INLINE A256 void
tile256(const float *xp, const float *wp, int k, float *y, int ldy, int ti,
    const __m256i *mask)
{
	__m256	acc[MR256][4], w[4], xb;
	float	*yr;
	int	r, c, j;

#pragma GCC unroll 4
	for (r = 0; r < MR256; r++)
#pragma GCC unroll 4
		for (c = 0; c < 4; c++)
			acc[r][c] = _mm256_setzero_ps();
	for (j = 0; j < k; j++) {
#pragma GCC unroll 4
		for (c = 0; c < 4; c++)
			w[c] = _mm256_load_ps(wp + (size_t)j * GEMM_NR + 8 * c);
#pragma GCC unroll 4
		for (r = 0; r < MR256; r++) {
			xb = _mm256_broadcast_ss(xp + (size_t)j * MR256 + r);
#pragma GCC unroll 4
			for (c = 0; c < 4; c++)
				acc[r][c] = _mm256_fmadd_ps(xb, w[c],
				    acc[r][c]);
		}
	}
	for (r = 0; r < ti; r++) {
		yr = y + (size_t)r * ldy;
		for (c = 0; c < 4; c++)
			_mm256_maskstore_ps(yr + 8 * c, mask[c], _mm256_add_ps(
			    acc[r][c], _mm256_maskload_ps(yr + 8 * c,
			    mask[c])));
	}
}

static A256 void
panel256(const struct np *a, int p)
{
	const int	k = a->w->k, live = a->w->out - p * GEMM_NR;
	__m256i		mask[4];
	int		i, c;

	for (c = 0; c < 4; c++)
		mask[c] = _mm256_cmpgt_epi32(_mm256_set1_epi32(live - 8 * c),
		    _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
	for (i = 0; i < a->n; i += MR256)
		tile256(a->xp + (size_t)i * k, a->w->data + (size_t)p * k *
		    GEMM_NR, k, a->y + (size_t)i * a->ldy + p * GEMM_NR,
		    a->ldy, a->n - i < MR256 ? a->n - i : MR256, mask);
}

/* ---- the pool ---- */

static void
slice_run(struct gemm *g, int t)
{
	g->job.task(g->job.arg, t, g->job.threads);
}

struct worker {
	struct gemm	*g;
	int		 t;
	unsigned	 seen;	/* gen at creation: later ones are work */
};

static void *
worker_main(void *arg)
{
	struct worker	 w = *(struct worker *)arg;
	struct gemm	*g = w.g;
	unsigned	 seen = w.seen;
	int		 spin;
	bool		 quit;

	free(arg);
	for (;;) {
		for (spin = 0; spin < GEMM_SPIN &&
		    atomic_load_explicit(&g->gen, memory_order_acquire) ==
		    seen; spin++)
			_mm_pause();
		pthread_mutex_lock(&g->mu);
		while (atomic_load(&g->gen) == seen && !g->quit)
			pthread_cond_wait(&g->go, &g->mu);
		quit = g->quit;
		pthread_mutex_unlock(&g->mu);
		if (quit)
			return NULL;
		seen = atomic_load(&g->gen);
		if (w.t < g->job.threads)
			slice_run(g, w.t);
		if (atomic_fetch_sub(&g->pending, 1) == 1) {
			pthread_mutex_lock(&g->mu);
			pthread_cond_signal(&g->done);
			pthread_mutex_unlock(&g->mu);
		}
	}
}

/* Start the workers; on failure the pool stays single-threaded. */
static void
pool_start(struct gemm *g)
{
	struct worker	*w;

	g->tid = xreallocarray(NULL, (size_t)g->max, sizeof(*g->tid));
	for (g->started = 0; g->started < g->max - 1; g->started++) {
		w = xmalloc(sizeof(*w));
		w->g = g;
		w->t = g->started + 1;
		w->seen = atomic_load(&g->gen);
		if (pthread_create(&g->tid[g->started], NULL, worker_main,
		    w) != 0) {
			free(w);
			break;
		}
	}
	g->max = g->started + 1;
}

struct gemm *
gemm_new(int threads, enum gemm_isa max)
{
	struct gemm	*g;

	__builtin_cpu_init();
	if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma"))
		return NULL;
	g = xcalloc(1, sizeof(*g));
	g->isa = max >= GEMM_AVX512 && __builtin_cpu_supports("avx512f") ?
	    GEMM_AVX512 : GEMM_AVX2;
	g->mr = g->isa == GEMM_AVX512 ? MR512 : MR256;
	g->max = threads < 1 ? 1 : threads;
	g->started = -1;
	pthread_mutex_init(&g->mu, NULL);
	pthread_cond_init(&g->go, NULL);
	pthread_cond_init(&g->done, NULL);
	return g;
}

void
gemm_free(struct gemm *g)
{
	int	i;

	if (g == NULL)
		return;
	pthread_mutex_lock(&g->mu);
	g->quit = true;
	pthread_cond_broadcast(&g->go);
	pthread_mutex_unlock(&g->mu);
	for (i = 0; i < g->started; i++)
		pthread_join(g->tid[i], NULL);
	pthread_mutex_destroy(&g->mu);
	pthread_cond_destroy(&g->go);
	pthread_cond_destroy(&g->done);
	free(g->tid);
	free(g->xp);
	free(g);
}

/* Run g->job's slices on threads threads (the caller's is slice 0). */
static void
pool_run(struct gemm *g, int threads)
{
	int	spin;

	if (threads > 1 && g->started < 0)
		pool_start(g);
	if (threads > g->max)
		threads = g->max;
	g->job.threads = threads > 1 ? threads : 1;
	if (threads <= 1) {
		slice_run(g, 0);
		return;
	}
	atomic_store(&g->pending, g->started);
	pthread_mutex_lock(&g->mu);
	atomic_fetch_add(&g->gen, 1);
	pthread_cond_broadcast(&g->go);
	pthread_mutex_unlock(&g->mu);
	slice_run(g, 0);
	for (spin = 0; spin < GEMM_SPIN && atomic_load(&g->pending) > 0;
	    spin++)
		_mm_pause();
	pthread_mutex_lock(&g->mu);
	while (atomic_load(&g->pending) > 0)
		pthread_cond_wait(&g->done, &g->mu);
	pthread_mutex_unlock(&g->mu);
}


enum gemm_isa
gemm_isa(const struct gemm *g)
{
	return g->isa;
}

void
gemm_run(struct gemm *g, int threads, gemm_task_fn *task, void *arg)
{
	g->job = (struct job){ .task = task, .arg = arg, .threads = 1 };
	pool_run(g, threads);
}

/* ---- packing ---- */

size_t
gemm_mat_floats(int out, int k)
{
	return (size_t)(out + GEMM_NR - 1) / GEMM_NR * GEMM_NR * (size_t)k;
}

/* gemm_pack's sources: rows[i] rows of parts[i] (ld floats apart), one
 * under the other. */
struct pack {
	struct gemm_mat		*m;
	const float *const	*parts;
	const int		*rows;
	int			 nparts, ld;
};

/* Row o of the stacked sources, or NULL past the last (padding). */
static const float *
pack_row(const struct pack *a, int o)
{
	int	i;

	for (i = 0; i < a->nparts; o -= a->rows[i], i++)
		if (o < a->rows[i])
			return a->parts[i] + (size_t)o * a->ld;
	return NULL;
}

/*
 * Panels t, t + nt, ... of W, a column of the panel at a time: the 32
 * source rows are read side by side (their lines stay in L1 for 16
 * columns) and the panel is written in order.
 */
static void
pack_part(void *arg, int t, int nt)
{
	const struct pack	*a = arg;
	const float		*src[GEMM_NR];
	float			*dst;
	int			 p, c, j, k = a->m->k;
	int			 np = (a->m->out + GEMM_NR - 1) / GEMM_NR;

	for (p = t; p < np; p += nt) {
		dst = a->m->data + (size_t)p * k * GEMM_NR;
		for (c = 0; c < GEMM_NR; c++)
			src[c] = pack_row(a, p * GEMM_NR + c);
		for (j = 0; j < k; j++)
			for (c = 0; c < GEMM_NR; c++)
				*dst++ = src[c] != NULL ? src[c][j] : 0;
	}
}

void
gemm_pack(struct gemm *g, int threads, struct gemm_mat *m,
    const float *const *parts, const int *rows, int nparts, int k)
{
	struct pack	a = { m, parts, rows, nparts, k };
	int		i;

	m->k = k;
	for (m->out = 0, i = 0; i < nparts; i++)
		m->out += rows[i];
	gemm_run(g, threads, pack_part, &a);
}

void
gemm_pack_here(struct gemm_mat *m, const float *w, int ldw, int out, int k)
{
	const float	*parts[1] = { w };
	struct pack	 a = { m, parts, &out, 1, ldw };

	m->out = out;
	m->k = k;
	pack_part(&a, 0, 1);
}

void
gemm_pack_t_here(struct gemm_mat *m, const float *v, int ldv, int k,
    int out)
{
	float	*dst = m->data;
	int	 p, j, c, np = (out + GEMM_NR - 1) / GEMM_NR;

	m->out = out;
	m->k = k;
	for (p = 0; p < np; p++)
		for (j = 0; j < k; j++)
			for (c = 0; c < GEMM_NR; c++)
				*dst++ = p * GEMM_NR + c < out ?
				    v[(size_t)j * ldv + p * GEMM_NR + c] : 0;
}

int
gemm_pack_matches(const struct gemm_mat *m, const float *const *parts,
    const int *rows, int nparts)
{
	struct pack	 a = { (struct gemm_mat *)m, parts, rows, nparts, m->k };
	const float	*src, *panel;
	int		 np = (m->out + GEMM_NR - 1) / GEMM_NR, p, c, k = m->k;

	for (p = 0; p < np; p += np - 1 > 0 ? np - 1 : 1) {
		panel = m->data + (size_t)p * k * GEMM_NR;
		for (c = 0; c < GEMM_NR; c++) {
			src = pack_row(&a, p * GEMM_NR + c);
			if (src != NULL && (panel[c] != src[0] ||
			    panel[(size_t)(k - 1) * GEMM_NR + c] != src[k - 1]))
				return 0;
		}
	}
	return 1;
}

/* ---- products ---- */

/* One panel of MR256 rows of X from src (NULL rows are padding). */
static void
xp_panel256(float *dst, const float *const *src, int k)
{
	int	j, r;

	for (j = 0; j < k; j++)
		for (r = 0; r < MR256; r++)
			*dst++ = src[r] != NULL ? src[r][j] : 0;
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

/* X's panels t, t + nt, ... (invariant 2). */
static void
xp_part(void *arg, int t, int nt)
{
	const struct np	*a = arg;
	const float	*src[MR512];
	float		*dst;
	int		 q, r, k = a->w->k, mr = a->mr;

	for (q = t; q * mr < a->n; q += nt) {
		dst = a->xp + (size_t)q * mr * k;
		for (r = 0; r < mr; r++)
			src[r] = q * mr + r < a->n ?
			    a->x + (size_t)(q * mr + r) * a->ldx : NULL;
		if (a->isa == GEMM_AVX512)
			xp_panel512(dst, src, k);
		else
			xp_panel256(dst, src, k);
	}
}

/* W's panels [np * t / nt, np * (t + 1) / nt) (invariant 3). */
static void
np_part(void *arg, int t, int nt)
{
	const struct np	*a = arg;
	int		 np = (a->w->out + GEMM_NR - 1) / GEMM_NR, p;

	for (p = np * t / nt; p < np * (t + 1) / nt; p++) {
		if (a->isa == GEMM_AVX512)
			panel512(a, p);
		else
			panel256(a, p);
	}
}

size_t
gemm_xp_floats(const struct gemm *g, int n, int k)
{
	return (size_t)(n + g->mr - 1) / (size_t)g->mr * (size_t)g->mr *
	    (size_t)k;
}

void
gemm_np_here(const struct gemm *g, float *xp, const float *x, int ldx,
    int n, const struct gemm_mat *m, float *y, int ldy)
{
	struct np	a = { .x = x, .xp = xp, .w = m, .y = y, .ldx = ldx,
			    .ldy = ldy, .n = n, .mr = g->mr, .isa = g->isa };

	xp_part(&a, 0, 1);
	np_part(&a, 0, 1);
}

void
gemm_np(struct gemm *g, int threads, const float *x, int ldx, int n,
    const struct gemm_mat *m, float *y, int ldy)
{
	struct np	a = { .x = x, .w = m, .y = y, .ldx = ldx, .ldy = ldy,
			    .n = n, .mr = g->mr, .isa = g->isa };
	size_t		need = gemm_xp_floats(g, n, m->k);
	int		np = (m->out + GEMM_NR - 1) / GEMM_NR;

	if (need > g->xp_cap) {
		free(g->xp);
		g->xp = xaligned_alloc(64, need * sizeof(float));
		g->xp_cap = need;
	}
	a.xp = g->xp;
	gemm_run(g, threads, xp_part, &a);
	gemm_run(g, np < threads ? np : threads, np_part, &a);
}
