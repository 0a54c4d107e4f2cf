/*
 * gemm.c — Y += X . W^T for the encoder's linear layers and attention
 * scores, with AVX-512 or AVX2 FMA kernels chosen at run time and a pool
 * of persistent threads that split the rows of W.
 *
 * Why not sgemm: a short text is a stream through every weight once, and
 * sgemm first packs W into its own layout, reading and writing each
 * weight before using it. Here, under GEMM_WIDE_N rows of X, each row of
 * W is dotted in place against four rows of X held in L1 (AVX2: it beat
 * AVX-512 tiles of 8 rows, 4.3 against 5.7 ms at 8 tokens), so a weight
 * costs one read from memory. From GEMM_WIDE_N rows (AVX-512 only) X is
 * transposed once and each weight is broadcast into 16-32 rows of X.
 *  1. Sums are float, eight partial sums per output added at the end
 *     (AVX2) or one sum per output in k order (wide): the rounding of any
 *     blocked sgemm, well inside test_bert's 1e-5.
 *  2. Rows of W are taken in blocks of GEMM_OB, and every tile of X runs
 *     through a block before the next block starts, so a block stays in
 *     L2 while the tiles of X come from L1.
 *  3. A product on t threads gives thread i the i-th of t contiguous
 *     slices of W's rows; threads never write the same output.
 *  4. The pool's workers are the only threads here: they start on the
 *     first product that wants them, wait for work by spinning briefly
 *     and then sleeping on a condition variable, and exit in gemm_free.
 *     The caller runs slice 0 itself and returns only when every slice is
 *     done, so a product is a plain function call to its caller.
 *  5. g->job and g->xt describe the one product or gemm_run task in
 *     flight; a task therefore multiplies only with gemm_nn, which keeps
 *     its job on the stack. A wide product runs twice on the pool: the
 *     threads first build X^T (columns split), then multiply.
 */
#include "embed/gemm.h"

#include <immintrin.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "util/xmalloc.h"

#define GEMM_OB		48	/* rows of W per block (a multiple of 3) */
#define GEMM_SPIN	4000	/* pause instructions before sleeping */

struct job;
typedef void	kernel_fn(const struct job *, int o0, int o1);

struct job {
	kernel_fn	*kernel;
	gemm_task_fn	*task;		/* gemm_run's, instead of kernel */
	void		*arg;
	const float	*x, *w;
	const float	*xt;		/* wide kernel: X^T, [k, npad] */
	float		*y;
	int		 ldx, ldw, ldy, n, out, k, threads, npad;
};

struct gemm {
	kernel_fn		*kernel;
	kernel_fn		*wide;		/* NULL: none for this CPU */
	float			*xt;		/* X^T for wide */
	size_t			 xt_cap;	/* floats */
	int			 max, started;	/* threads; workers running */
	pthread_t		*tid;		/* [max - 1] */
	pthread_mutex_t		 mu;
	pthread_cond_t		 go, done;
	atomic_uint		 gen;		/* bumped per product */
	atomic_int		 pending;	/* slices not yet done */
	bool			 quit;
	struct job		 job;
};

/* ---- AVX-512 ---- */

#define A512	__attribute__((target("avx512f")))
#define INLINE	static inline __attribute__((always_inline))

/*
 * Wide: for GEMM_WIDE_N or more rows of X, tiles of 12 rows of W by 16
 * or 32 rows of X, from X^T (built once per product): each step of j
 * broadcasts w[o][j] from its row in place and multiplies it into
 * sixteen rows of X at once, so no horizontal sums are needed.
 */
INLINE A512 void
wtile512(const struct job *jb, int i0, int o0, int to, const int nv)
{
	const float	*w[12], *xt = jb->xt + i0;
	__m512		 acc[12][2], x0, x1 = _mm512_setzero_ps();
	float		 lane[12][32], *y;
	int		 r, l, j, ni;

	for (r = 0; r < 12; r++)
		w[r] = jb->w + (size_t)(o0 + (r < to ? r : to - 1)) * jb->ldw;
#pragma GCC unroll 12
	for (r = 0; r < 12; r++)
		acc[r][0] = acc[r][1] = _mm512_setzero_ps();
	for (j = 0; j < jb->k; j++) {
		x0 = _mm512_loadu_ps(xt + (size_t)j * jb->npad);
		if (nv > 1)
			x1 = _mm512_loadu_ps(xt + (size_t)j * jb->npad + 16);
#pragma GCC unroll 12
		for (r = 0; r < 12; r++) {
			acc[r][0] = _mm512_fmadd_ps(_mm512_set1_ps(w[r][j]),
			    x0, acc[r][0]);
			if (nv > 1)
				acc[r][1] = _mm512_fmadd_ps(
				    _mm512_set1_ps(w[r][j]), x1, acc[r][1]);
		}
	}
#pragma GCC unroll 12
	for (r = 0; r < 12; r++) {
		_mm512_storeu_ps(lane[r], acc[r][0]);
		if (nv > 1)
			_mm512_storeu_ps(lane[r] + 16, acc[r][1]);
	}
	/* row by row of Y, so that each row's outputs are adjacent */
	ni = jb->n - i0 < 16 * nv ? jb->n - i0 : 16 * nv;
	for (l = 0; l < ni; l++) {
		y = jb->y + (size_t)(i0 + l) * jb->ldy + o0;
		for (r = 0; r < to; r++)
			y[r] += lane[r][l];
	}
}

static A512 void
wide512(const struct job *jb, int o0, int o1)
{
	int	ob, oe, i, o;

	for (ob = o0; ob < o1; ob = oe) {
		oe = ob + GEMM_OB < o1 ? ob + GEMM_OB : o1;
		for (i = 0; i < jb->n; i += 32) {
			for (o = ob; o < oe; o += 12) {
				if (i + 16 < jb->n)
					wtile512(jb, i, o, oe - o < 12 ?
					    oe - o : 12, 2);
				else
					wtile512(jb, i, o, oe - o < 12 ?
					    oe - o : 12, 1);
			}
		}
	}
}

/* y[i][c] += sum_j x[i][j] v[j][c] for rows i0 .. i0 + ti (<= 12). */
INLINE A512 void
ntile512(const struct job *jb, int i0, const int ti)
{
	__m512		 acc[12][2], v0, v1;
	__mmask16	 m0, m1;
	float		*y;
	int		 r, j, c;

	for (c = 0; c < jb->out; c += 32) {
		m0 = (__mmask16)(jb->out - c >= 16 ? 0xffff :
		    (1u << (jb->out - c)) - 1);
		m1 = (__mmask16)(jb->out - c >= 32 ? 0xffff :
		    jb->out - c <= 16 ? 0 : (1u << (jb->out - c - 16)) - 1);
#pragma GCC unroll 12
		for (r = 0; r < ti; r++)
			acc[r][0] = acc[r][1] = _mm512_setzero_ps();
		for (j = 0; j < jb->k; j++) {
			v0 = _mm512_maskz_loadu_ps(m0, jb->w +
			    (size_t)j * jb->ldw + c);
			v1 = _mm512_maskz_loadu_ps(m1, jb->w +
			    (size_t)j * jb->ldw + c + 16);
#pragma GCC unroll 12
			for (r = 0; r < ti; r++) {
				acc[r][0] = _mm512_fmadd_ps(_mm512_set1_ps(
				    jb->x[(size_t)(i0 + r) * jb->ldx + j]), v0,
				    acc[r][0]);
				acc[r][1] = _mm512_fmadd_ps(_mm512_set1_ps(
				    jb->x[(size_t)(i0 + r) * jb->ldx + j]), v1,
				    acc[r][1]);
			}
		}
		for (r = 0; r < ti; r++) {
			y = jb->y + (size_t)(i0 + r) * jb->ldy + c;
			_mm512_mask_storeu_ps(y, m0, _mm512_add_ps(acc[r][0],
			    _mm512_maskz_loadu_ps(m0, y)));
			_mm512_mask_storeu_ps(y + 16, m1, _mm512_add_ps(
			    acc[r][1], _mm512_maskz_loadu_ps(m1, y + 16)));
		}
	}
}

static A512 void
nn512(const struct job *jb)
{
	int	i;

	for (i = 0; i + 12 <= jb->n; i += 12)
		ntile512(jb, i, 12);
	for (; i < jb->n; i++)
		ntile512(jb, i, 1);
}

/* ---- AVX2 + FMA: tiles of 4 rows of X by 3 rows of W ---- */

#define A256	__attribute__((target("avx2,fma")))

INLINE A256 float
hsum256(__m256 v)
{
	__m128	s = _mm_add_ps(_mm256_castps256_ps128(v),
		    _mm256_extractf128_ps(v, 1));

	s = _mm_add_ps(s, _mm_movehl_ps(s, s));
	s = _mm_add_ss(s, _mm_movehdup_ps(s));
	return _mm_cvtss_f32(s);
}

INLINE A256 void
tile256(const struct job *jb, int i0, int o0, const int ti, const int to)
{
	const float	*x = jb->x + (size_t)i0 * jb->ldx;
	const float	*w = jb->w + (size_t)o0 * jb->ldw;
	__m256		 acc[4][3], xv, wv[3];
	__m256i		 m;
	int		 i, o, j, k = jb->k;

#pragma GCC unroll 8
	for (i = 0; i < ti; i++)
#pragma GCC unroll 8
		for (o = 0; o < to; o++)
			acc[i][o] = _mm256_setzero_ps();
	for (j = 0; j + 8 <= k; j += 8) {
#pragma GCC unroll 8
		for (o = 0; o < to; o++)
			wv[o] = _mm256_loadu_ps(w + (size_t)o * jb->ldw + j);
#pragma GCC unroll 8
		for (i = 0; i < ti; i++) {
			xv = _mm256_loadu_ps(x + (size_t)i * jb->ldx + j);
#pragma GCC unroll 8
			for (o = 0; o < to; o++)
				acc[i][o] = _mm256_fmadd_ps(xv, wv[o],
				    acc[i][o]);
		}
	}
	if (j < k) {
		m = _mm256_cmpgt_epi32(_mm256_set1_epi32(k - j),
		    _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
#pragma GCC unroll 8
		for (o = 0; o < to; o++)
			wv[o] = _mm256_maskload_ps(w + (size_t)o * jb->ldw +
			    j, m);
#pragma GCC unroll 8
		for (i = 0; i < ti; i++) {
			xv = _mm256_maskload_ps(x + (size_t)i * jb->ldx + j,
			    m);
#pragma GCC unroll 8
			for (o = 0; o < to; o++)
				acc[i][o] = _mm256_fmadd_ps(xv, wv[o],
				    acc[i][o]);
		}
	}
#pragma GCC unroll 8
	for (i = 0; i < ti; i++)
#pragma GCC unroll 8
		for (o = 0; o < to; o++)
			jb->y[(size_t)(i0 + i) * jb->ldy + o0 + o] +=
			    hsum256(acc[i][o]);
}

static A256 void
edge256(const struct job *jb, int i0, int o0, int ti, int to)
{
#define E(a, b)	case (a) * 4 + (b): tile256(jb, i0, o0, a, b); break
#define E3(a)	E(a, 1); E(a, 2); E(a, 3)
	switch (ti * 4 + to) {
	E3(1); E3(2); E3(3); E3(4);
	}
#undef E3
#undef E
}

static A256 void
kernel256(const struct job *jb, int o0, int o1)
{
	int	ob, oe, i, o;

	for (ob = o0; ob < o1; ob = oe) {
		oe = ob + GEMM_OB < o1 ? ob + GEMM_OB : o1;
		for (i = 0; i < jb->n; i += 4) {
			for (o = ob; o < oe; o += 3) {
				if (i + 4 <= jb->n && o + 3 <= oe)
					tile256(jb, i, o, 4, 3);
				else
					edge256(jb, i, o, jb->n - i < 4 ?
					    jb->n - i : 4, oe - o < 3 ?
					    oe - o : 3);
			}
		}
	}
}

/* ---- the pool ---- */

/* Slice t of the current product's rows of W, in multiples of 3. */
static void
slice_run(struct gemm *g, int t)
{
	const struct job	*jb = &g->job;
	int			 per = (jb->out + jb->threads - 1) / jb->threads;
	int			 o0, o1;

	per = (per + 2) / 3 * 3;
	o0 = t * per;
	o1 = o0 + per < jb->out ? o0 + per : jb->out;
	if (jb->task != NULL)
		jb->task(jb->arg, t, jb->threads);
	else if (o0 < o1)
		jb->kernel(jb, o0, o1);
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
gemm_new(int threads)
{
	struct gemm	*g;
	kernel_fn	*k = NULL;

	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
		k = kernel256;
	if (k == NULL)
		return NULL;
	g = xcalloc(1, sizeof(*g));
	g->kernel = k;
	g->wide = __builtin_cpu_supports("avx512f") ? wide512 : NULL;
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
	free(g->xt);
	free(g);
}

/* X^T for the wide kernel, built by gemm_run's threads. */
struct xt {
	const float	*x;
	float		*xt;		/* [k, npad], npad = n rounded up to 16 */
	int		 ldx, n, k, npad;
};

/* Columns [k * t / nt, k * (t + 1) / nt) of X into X^T's rows, zero
 * padded; sixteen rows of X gathered at a time. */
static A512 void
xt_part(void *arg, int t, int nt)
{
	const struct xt	*a = arg;
	int		 i, j, j0 = a->k * t / nt, j1 = a->k * (t + 1) / nt;
	__m512i		 idx = _mm512_mullo_epi32(_mm512_set1_epi32(a->ldx),
			    _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
			    10, 11, 12, 13, 14, 15));
	float		*row;

	for (i = 0; i + 16 <= a->n; i += 16)
		for (j = j0; j < j1; j++)
			_mm512_storeu_ps(a->xt + (size_t)j * a->npad + i,
			    _mm512_i32gather_ps(idx, a->x + (size_t)i *
			    a->ldx + j, 4));
	for (j = j0; j < j1; j++) {
		row = a->xt + (size_t)j * a->npad;
		for (i = a->n - a->n % 16; i < a->n; i++)
			row[i] = a->x[(size_t)i * a->ldx + j];
		for (; i < a->npad; i++)
			row[i] = 0;
	}
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

int
gemm_wide(const struct gemm *g)
{
	return g->wide != NULL;
}

void
gemm_nn(struct gemm *g, const float *x, int ldx, int n, const float *v,
    int ldv, int d, int k, float *y, int ldy)
{
	struct job	jb = { .x = x, .w = v, .y = y, .ldx = ldx, .ldw = ldv,
			    .ldy = ldy, .n = n, .out = d, .k = k };
	int		i, j, c;

	if (g->wide != NULL) {
		nn512(&jb);
		return;
	}
	for (i = 0; i < n; i++)
		for (j = 0; j < k; j++)
			for (c = 0; c < d; c++)
				y[(size_t)i * ldy + c] += x[(size_t)i * ldx +
				    j] * v[(size_t)j * ldv + c];
}

void
gemm_run(struct gemm *g, int threads, gemm_task_fn *task, void *arg)
{
	g->job = (struct job){ .task = task, .arg = arg, .threads = 1 };
	pool_run(g, threads);
}

void
gemm_nt(struct gemm *g, int threads, const float *x, int ldx, int n,
    const float *w, int ldw, int out, int k, float *y, int ldy)
{
	struct xt	a = { .x = x, .ldx = ldx, .n = n, .k = k,
			    .npad = (n + 15) / 16 * 16 };
	size_t		need = (size_t)a.npad * (size_t)k;

	if (g->wide != NULL && n >= GEMM_WIDE_N) {
		if (need > g->xt_cap) {
			free(g->xt);
			g->xt = xreallocarray(NULL, need, sizeof(float));
			g->xt_cap = need;
		}
		a.xt = g->xt;
		gemm_run(g, threads, xt_part, &a);
	}
	g->job = (struct job){ .kernel = g->kernel, .x = x, .w = w, .y = y,
	    .ldx = ldx, .ldw = ldw, .ldy = ldy, .n = n, .out = out, .k = k,
	    .threads = 1 };
	if (a.xt != NULL) {
		g->job.kernel = g->wide;
		g->job.xt = a.xt;
		g->job.npad = a.npad;
	}
	pool_run(g, out < 6 ? 1 : threads);
}

