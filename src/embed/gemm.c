/*
 * gemm.c — the encoder's matrix products: X . W^T for the linear layers
 * over weights packed once at load, attention's X . V, and the pool of
 * persistent threads they run on. The kernels (AVX-512 or AVX2 in
 * gemm_x86.c, NEON in gemm_neon.c, plain C in gemm_plain.c) are chosen at
 * run time (util/isa.c); this file is the same on every CPU.
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
 *     product's out x k weights. Each thread copies all of X for itself,
 *     into its own slice of g->xp, on its first item of the product:
 *     doing it twice costs 1/(out / threads) of the product, where
 *     splitting it took a job of its own, a second barrier per product
 *     at which both threads had to meet (48 of an embedding's 144), and
 *     had each thread read rows the other had just written.
 *     An X that is already stored transposed (attention's P) is read in
 *     place instead: column j of a tile is then MR consecutive floats of
 *     row j, the layout the panels copy X into.
 *  3. A product's items are W's panels; threads never write the same
 *     output. Each W panel stays in L2 while every panel of X goes
 *     through it.
 *  4. The pool's workers are the only threads here: they start on the
 *     first job that wants them, wait for work by spinning briefly and
 *     then sleeping on a condition variable, and exit in gemm_free.
 *  5. A job's items are split into one run per thread, but a thread that
 *     finishes its run goes on to take the others' items one at a time,
 *     from the same counters their owners take them with: a core that is
 *     busy elsewhere (another program, or a hypervisor running another
 *     guest) simply does fewer, where a fixed split would leave the
 *     caller waiting for its half. Each run's counter has a cache line
 *     of its own, so that taking an item costs an atomic increment only
 *     the owner touches until the end. The caller takes items too, then
 *     closes the job and waits only for the items in progress; a worker
 *     that wakes after the close does not join.
 *     g->state holds the job's generation, the closed bit and the number
 *     of workers in it, so that joining is one compare-and-swap that a
 *     late worker cannot win against a newer job.
 *  6. g->job and g->xp serve the one job in flight; an item therefore
 *     multiplies only with the _here functions, whose state is on its
 *     stack and in its caller's scratch. Thread t alone writes its slice
 *     of g->xp and its flag in g->packed.
 *  7. Nobody spins for a thread that is not running. The caller, once it
 *     has closed a job, spins only as long as an item in progress can
 *     take (GEMM_CLOSE_NS), then sleeps until the last worker out wakes
 *     it: a worker that the kernel took off its core mid-item would
 *     otherwise be waited for by a core it could have had.
 *  8. The workers run only while they pay (struct pace). On a busy
 *     machine a worker gets a core late or loses it mid-item, and more
 *     threads then cost more than they bring. So every job on several
 *     threads books what the workers did (their items, priced at the
 *     caller's own time per item) against what the caller lost waiting
 *     for them; a window of jobs whose workers brought less than
 *     PACE_MIN_GAIN of its time halves the threads for a spell (5 ms,
 *     doubling while windows keep losing, up to 1 s; down to the caller
 *     alone), after which a window on every thread measures again. Jobs
 *     that wake workers from their sleep are not booked: a worker's wake
 *     is the kernel's latency, not the load, and on a quiet machine it
 *     made the first window after every pause lose. This
 *     is the load the process actually gets, not the core count or the
 *     load average: the results are the same either way (invariant 1
 *     holds per output, whatever thread computes it), only the time
 *     differs.
 */
#include "embed/gemm.h"
#include "embed/gemm_int.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/xmalloc.h"

#define GEMM_SPIN	4000	/* pause instructions before sleeping */
/* the longest an item runs (a 32-row panel at 512 tokens, ~60 us here):
 * past that, a worker still inside one is off its core (invariant 7) */
#define GEMM_CLOSE_NS	100000
/* invariant 8: jobs per measuring window, the share of the window's time
 * the workers must save, and a spell's first and longest length */
#define PACE_WINDOW	16
#define PACE_MIN_GAIN	0.10
#define PACE_SPELL_NS	5000000LL
#define PACE_SPELL_MAX_NS 1000000000LL
/* the first jobs on several threads after this long without one: the
 * workers may be asleep (GEMM_SPIN runs out in ~0.1 ms) */
#define PACE_IDLE_NS	100000LL
#define PACE_WAKE_JOBS	2

/* g->state: generation << 32 | STATE_CLOSED | workers in the job */
#define STATE_CLOSED	0x80000000u
#define STATE_WORKERS	0x7fffffffu
/* A spinning thread's hint to the core (x86 pause, AArch64 yield): it
 * frees the pipeline for the sibling hyperthread and saves power. */
static inline void
cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

/* One thread's run of a job's items: [next, end) are still to take. */
struct run {
	_Alignas(64) atomic_int	 next;
	int			 end;
};

/*
 * Invariant 8's books: the window being measured, and the spell of fewer
 * threads. Only the calling thread touches them.
 */
struct pace {
	int		 jobs;		/* in the window so far */
	int		 wide;		/* most threads a job of it used */
	long long	 spent_ns;	/* the window's jobs, start to close */
	double		 gain_ns;	/* what the workers saved them */
	int		 cap;		/* threads during the spell; 0: none */
	int		 waking;	/* jobs still not to book */
	long long	 last_wide;	/* the last job on several threads */
	long long	 until;		/* the spell's end, monotonic ns */
	long long	 spell_ns;	/* the next spell's length */
	long long	 spells;	/* since gemm_new, for gemm_spells */
};

struct job {
	gemm_item_fn	*fn;
	void		*arg;
	int		 threads;
	struct run	*runs;		/* [max] */
};

struct gemm {
	const struct gemm_kernels *kern;
	int			 mr;		/* rows of X per tile */
	float			*xp;		/* [max][xp_cap]: X in panels,
						   one copy per thread */
	size_t			 xp_cap;	/* floats per thread */
	bool			*packed;	/* [max]: thread t's copy is
						   this product's X */
	int			 max, started;	/* threads; workers running */
	pthread_t		*tid;		/* [max - 1] */
	pthread_mutex_t		 mu;
	pthread_cond_t		 go;
	pthread_cond_t		 done;		/* invariant 7 */
	atomic_uint		 gen;		/* bumped per job */
	atomic_ullong		 state;		/* invariant 5 */
	bool			 quit;
	struct pace		 pace;
	struct job		 job;
};

/* ---- the pool ---- */

/* Take the job's items until none is left, own run first (invariant 5);
 * returns how many this thread did. */
static int
take_items(struct gemm *g, int t)
{
	struct job	*j = &g->job;
	struct run	*r;
	int		 i, k, did = 0;

	for (k = 0; k < j->threads; k++) {
		r = &j->runs[(t + k) % j->threads];
		while ((i = atomic_fetch_add_explicit(&r->next, 1,
		    memory_order_relaxed)) < r->end) {
			j->fn(j->arg, i, t);
			did++;
		}
	}
	return did;
}

/* A worker leaves a job; the last one out of a closed job wakes the
 * caller, which may be asleep in wait_workers (invariant 7). */
static void
leave(struct gemm *g)
{
	unsigned long long	s = atomic_fetch_sub(&g->state, 1) - 1;

	if ((s & STATE_CLOSED) != 0 && (s & STATE_WORKERS) == 0) {
		pthread_mutex_lock(&g->mu);
		pthread_cond_signal(&g->done);
		pthread_mutex_unlock(&g->mu);
	}
}

/* Join job gen unless it is closed or already over. */
static bool
join(struct gemm *g, unsigned gen)
{
	unsigned long long	s = atomic_load(&g->state);

	do {
		if (s >> 32 != gen || (s & STATE_CLOSED) != 0)
			return false;
	} while (!atomic_compare_exchange_weak(&g->state, &s, s + 1));
	return true;
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
			cpu_relax();
		pthread_mutex_lock(&g->mu);
		while (atomic_load(&g->gen) == seen && !g->quit)
			pthread_cond_wait(&g->go, &g->mu);
		quit = g->quit;
		pthread_mutex_unlock(&g->mu);
		if (quit)
			return NULL;
		seen = atomic_load(&g->gen);
		if (join(g, seen)) {
			if (w.t < g->job.threads)
				take_items(g, w.t);
			leave(g);
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

/* Split items into a run per thread. */
static void
runs_set(struct job *j, int items, int threads)
{
	int	t;

	j->threads = threads;
	for (t = 0; t < threads; t++) {
		atomic_store_explicit(&j->runs[t].next, items * t / threads,
		    memory_order_relaxed);
		j->runs[t].end = items * (t + 1) / threads;
	}
}

/* isa's kernels, or the plain ones where this build or CPU lacks it. */
static const struct gemm_kernels *
kernels_for(enum isa isa)
{
	const struct gemm_kernels	*k = NULL;

	if (isa_available(isa))
		switch (isa) {
		case ISA_AVX512:
			k = gemm_kernels_avx512;
			break;
		case ISA_AVX2:
			k = gemm_kernels_avx2;
			break;
		case ISA_NEON:
			k = gemm_kernels_neon;
			break;
		default:
			break;
		}
	return k != NULL ? k : gemm_kernels_plain;
}

struct gemm *
gemm_new(int threads, enum isa isa)
{
	struct gemm	*g;

	g = xcalloc(1, sizeof(*g));
	g->kern = kernels_for(isa);
	g->mr = g->kern->mr;
	g->max = threads < 1 ? 1 : threads;
	g->started = -1;
	g->job.runs = xaligned_alloc(64, (size_t)g->max *
	    sizeof(*g->job.runs));
	g->packed = xcalloc((size_t)g->max, sizeof(*g->packed));
	pthread_mutex_init(&g->mu, NULL);
	pthread_cond_init(&g->go, NULL);
	pthread_cond_init(&g->done, NULL);
	g->pace.spell_ns = PACE_SPELL_NS;
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
	free(g->job.runs);
	free(g->packed);
	free(g->xp);
	free(g);
}

enum isa
gemm_isa(const struct gemm *g)
{
	return g->kern->isa;
}

static long long
now_ns(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Wait for the workers still inside the closed job: spin while one could
 * be finishing an item, then sleep (invariant 7). */
static void
wait_workers(struct gemm *g, long long closed)
{
	int	spin;

	for (spin = 0; (atomic_load(&g->state) & STATE_WORKERS) != 0;
	    spin++) {
		cpu_relax();
		if ((spin & 63) == 63 && now_ns() - closed > GEMM_CLOSE_NS)
			break;
	}
	pthread_mutex_lock(&g->mu);
	while ((atomic_load(&g->state) & STATE_WORKERS) != 0)
		pthread_cond_wait(&g->done, &g->mu);
	pthread_mutex_unlock(&g->mu);
}

/* How many threads the next job may use (invariant 8). */
static int
pace_threads(struct gemm *g, int threads, long long now)
{
	struct pace	*p = &g->pace;

	if (p->cap == 0)
		return threads;
	if (now >= p->until) {
		p->cap = 0;	/* the spell is over: measure every thread */
		return threads;
	}
	return threads < p->cap ? threads : p->cap;
}

/*
 * Book one job run on threads threads: it took spent ns from its start to
 * its close, the caller did mine of its items in mine_ns and waited
 * wait_ns for the workers, who did the rest.
 */
static void
pace_book(struct gemm *g, int threads, int items, int mine,
    long long mine_ns, long long spent, long long wait_ns, long long now)
{
	struct pace	*p = &g->pace;
	double		 per_item = mine > 0 ? (double)mine_ns / mine : 0;

	/* idle since the last job ended, waits for its workers included */
	if (now - spent - p->last_wide > PACE_IDLE_NS)
		p->waking = PACE_WAKE_JOBS;
	p->last_wide = now + wait_ns;
	if (p->waking > 0) {
		p->waking--;
		return;
	}
	p->spent_ns += spent;
	p->gain_ns += (items - mine) * per_item - (double)wait_ns;
	if (threads > p->wide)
		p->wide = threads;
	if (++p->jobs < PACE_WINDOW)
		return;
	if (p->gain_ns < PACE_MIN_GAIN * (double)p->spent_ns) {
		p->cap = p->wide / 2;
		p->until = now + p->spell_ns;
		p->spells++;
		if (p->spell_ns < PACE_SPELL_MAX_NS)
			p->spell_ns *= 2;
	} else if (p->cap == 0)
		p->spell_ns = PACE_SPELL_NS;	/* every thread paid */
	p->jobs = p->wide = 0;
	p->spent_ns = 0;
	p->gain_ns = 0;
}

void
gemm_run(struct gemm *g, int threads, int items, gemm_item_fn *fn,
    void *arg)
{
	long long	start, took, closed;
	unsigned	gen;
	int		mine;

	if (threads > items)
		threads = items;
	if (threads > 1 && g->started < 0)
		pool_start(g);
	if (threads > g->max)
		threads = g->max;
	start = threads > 1 ? now_ns() : 0;	/* a lone job is not paced */
	if (threads > 1)
		threads = pace_threads(g, threads, start);
	g->job.fn = fn;
	g->job.arg = arg;
	runs_set(&g->job, items, threads > 1 ? threads : 1);
	if (threads <= 1) {
		take_items(g, 0);
		return;
	}
	gen = atomic_load(&g->gen) + 1;
	atomic_store(&g->state, (unsigned long long)gen << 32);
	pthread_mutex_lock(&g->mu);
	atomic_store_explicit(&g->gen, gen, memory_order_release);
	pthread_cond_broadcast(&g->go);
	pthread_mutex_unlock(&g->mu);
	took = now_ns();
	mine = take_items(g, 0);
	closed = now_ns();
	atomic_fetch_or(&g->state, STATE_CLOSED);
	wait_workers(g, closed);
	took = closed - took;
	pace_book(g, threads, items, mine, took, closed - start,
	    now_ns() - closed, closed);
}

long long
gemm_spells(const struct gemm *g)
{
	return g->pace.spells;
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
 * Panel p of W, a column of the panel at a time: the 32 source rows are
 * read side by side (their lines stay in L1 for 16 columns) and the
 * panel is written in order.
 */
static void
pack_panel(void *arg, int p, int t)
{
	const struct pack	*a = arg;
	const float		*src[GEMM_NR];
	float			*dst;
	int			 c, j, k = a->m->k;

	(void)t;
	dst = a->m->data + (size_t)p * k * GEMM_NR;
	for (c = 0; c < GEMM_NR; c++)
		src[c] = pack_row(a, p * GEMM_NR + c);
	for (j = 0; j < k; j++)
		for (c = 0; c < GEMM_NR; c++)
			*dst++ = src[c] != NULL ? src[c][j] : 0;
}

static int
panels(int out)
{
	return (out + GEMM_NR - 1) / GEMM_NR;
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
	gemm_run(g, threads, panels(m->out), pack_panel, &a);
}

void
gemm_pack_here(struct gemm_mat *m, const float *w, int ldw, int out, int k)
{
	const float	*parts[1] = { w };
	struct pack	 a = { m, parts, &out, 1, ldw };
	int		 p;

	m->out = out;
	m->k = k;
	for (p = 0; p < panels(out); p++)
		pack_panel(&a, p, 0);
}

void
gemm_pack_t_here(struct gemm_mat *m, const float *v, int ldv, int k,
    int out)
{
	float	*dst = m->data;
	int	 p, j, c, np = panels(out);

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
	int		 np = panels(m->out), p, c, k = m->k;

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

/* X's panel q into dst (invariant 2). */
static void
xp_panel(const struct np *a, int q, float *dst)
{
	const float	*src[GEMM_MR_MAX];
	int		 r, mr = a->mr;

	for (r = 0; r < mr; r++)
		src[r] = q * mr + r < a->n ?
		    a->x + (size_t)(q * mr + r) * a->ldx : NULL;
	a->kern->xp_panel(dst, src, a->w->k);
}

static int x_panels(const struct np *);

/* W's panel p times all of X (invariant 3), X packed first by a thread
 * that has not yet (invariant 2). */
static void
np_item(void *arg, int p, int t)
{
	const struct np	*a = arg;
	const float	*xr = a->xr;
	float		*xp;
	int		 q;

	if (a->xp != NULL) {
		xp = a->xp + (size_t)t * a->xp_stride;
		if (!a->packed[t]) {
			for (q = 0; q < x_panels(a); q++)
				xp_panel(a, q, xp + (size_t)q * a->mr *
				    a->w->k);
			a->packed[t] = true;
		}
		xr = xp;
	}
	a->kern->panel(a, xr, p);
	if (a->post != NULL)
		a->post(a->y + p * GEMM_NR, a->n, a->w->out - p * GEMM_NR <
		    GEMM_NR ? a->w->out - p * GEMM_NR : GEMM_NR, a->ldy);
}

static int
x_panels(const struct np *a)
{
	return (a->n + a->mr - 1) / a->mr;
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
	bool		packed = false;
	struct np	a = { .x = x, .xp = xp, .packed = &packed,
			    .xi = (size_t)m->k, .xs = (size_t)g->mr, .w = m,
			    .y = y, .ldx = ldx, .ldy = ldy, .n = n,
			    .mr = g->mr, .kern = g->kern };
	int		p;

	for (p = 0; p < panels(m->out); p++)
		np_item(&a, p, 0);
}

int
gemm_tn_cols(int n)
{
	/* every ISA's rows per tile divide GEMM_MR_MAX */
	return (n + GEMM_MR_MAX - 1) / GEMM_MR_MAX * GEMM_MR_MAX;
}

void
gemm_tn_here(const struct gemm *g, const float *xt, int ldxt, int n,
    const struct gemm_mat *m, float *y, int ldy)
{
	struct np	a = { .xr = xt, .xi = 1, .xs = (size_t)ldxt, .w = m,
			    .y = y, .ldy = ldy, .n = n, .mr = g->mr,
			    .kern = g->kern };
	int		p;

	for (p = 0; p < panels(m->out); p++)
		np_item(&a, p, 0);
}

void
gemm_np(struct gemm *g, int threads, const float *x, int ldx, int n,
    const struct gemm_mat *m, const float *bias, gemm_post_fn *post,
    float *y, int ldy)
{
	struct np	a = { .x = x, .w = m, .bias = bias, .post = post,
			    .y = y, .ldx = ldx,
			    .ldy = ldy, .n = n, .mr = g->mr,
			    .kern = g->kern };
	/* a whole number of cache lines, so each copy starts on one */
	size_t		need = (gemm_xp_floats(g, n, m->k) + 15) / 16 * 16;

	if (need > g->xp_cap) {
		free(g->xp);
		g->xp = xaligned_alloc(64, (size_t)g->max * need *
		    sizeof(float));
		g->xp_cap = need;
	}
	memset(g->packed, 0, (size_t)g->max * sizeof(*g->packed));
	a.xp = g->xp;
	a.xp_stride = g->xp_cap;
	a.packed = g->packed;
	a.xi = (size_t)m->k;
	a.xs = (size_t)g->mr;
	gemm_run(g, threads, panels(m->out), np_item, &a);
}
