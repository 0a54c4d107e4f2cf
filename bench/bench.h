/*
 * bench.h — what every benchmark program shares: a seeded generator (the
 * same vectors on every run and machine), a monotonic clock and the
 * process's CPU clock in milliseconds, and bench_record, which prints a
 * case's median, p95 and wall-to-CPU ratio with the "@" record that
 * bench/b150-load.sh collects (bench/js/stats.mjs prints the same).
 * Header-only: each bench/bNNN-*.c is one program.
 */
#ifndef THATCH_BENCH_BENCH_H
#define THATCH_BENCH_BENCH_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static uint64_t	bench_rng = 88172645463325252ull;

/* Uniform in [0, 1) from xorshift64. */
static inline double
bench_uniform(void)
{
	bench_rng ^= bench_rng << 13;
	bench_rng ^= bench_rng >> 7;
	bench_rng ^= bench_rng << 17;
	return (double)(bench_rng >> 11) / 9007199254740992.0;
}

/* Standard normal (Box-Muller). */
static inline double
bench_gauss(void)
{
	double	u = bench_uniform() + 1.0 / 18014398509481984.0;
	double	v = bench_uniform();

	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

/* Scale v[0..dim) to unit length, as the model's vectors are. */
static inline void
bench_normalise(float *v, int dim)
{
	double	n = 0;
	int	i;

	for (i = 0; i < dim; i++)
		n += (double)v[i] * v[i];
	for (i = 0; i < dim; i++)
		v[i] = (float)(v[i] / sqrt(n));
}

static inline double
bench_now_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* CPU time of this process so far, every thread's, in ms. */
static inline double
bench_cpu_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* The start of a timed call: wall and CPU clocks now. */
struct bench_mark {
	double	wall, cpu;
};

static inline struct bench_mark
bench_mark(void)
{
	return (struct bench_mark){ bench_now_ms(), bench_cpu_ms() };
}

/* Wall ms since m; the CPU ms since m into *cpu. */
static inline double
bench_since(struct bench_mark m, double *cpu)
{
	*cpu = bench_cpu_ms() - m.cpu;
	return bench_now_ms() - m.wall;
}

/* qsort comparator for double samples. */
static inline int
bench_cmp(const void *a, const void *b)
{
	double	x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * One case's n calls, wall[i] and cpu[i] ms each (wall is sorted in
 * place): a summary line, then the record "@ case calls median p95
 * wall-total cpu-total" (tab-separated) for bench/b150-load.sh. The
 * wall-to-CPU ratio is of the totals: on a quiet machine a call that
 * keeps two threads busy has about 0.5, one thread 1.0; a ratio above
 * that is time spent waiting for a core.
 */
static inline void
bench_record(const char *name, double *wall, const double *cpu, int n)
{
	double	tw = 0, tc = 0;
	int	i;

	for (i = 0; i < n; i++) {
		tw += wall[i];
		tc += cpu[i];
	}
	qsort(wall, (size_t)n, sizeof(*wall), bench_cmp);
	printf("  %-34s median %8.2f ms   p95 %8.2f ms   wall/cpu %.2f   "
	    "(%d calls)\n", name, wall[n / 2], wall[n * 95 / 100],
	    tc > 0 ? tw / tc : 0, n);
	printf("@\t%s\t%d\t%.3f\t%.3f\t%.3f\t%.3f\n", name, n, wall[n / 2],
	    wall[n * 95 / 100], tw, tc);
	fflush(stdout);
}

/*
 * The machine's total and stolen CPU ticks so far (/proc/stat): on a VM,
 * time the hypervisor gave to other guests. Two readings around a
 * measurement tell how much of it the neighbours took; 0 when unknown.
 */
struct bench_ticks {
	double	total, steal;
};

static inline struct bench_ticks
bench_ticks(void)
{
	struct bench_ticks	 t = { 0, 0 };
	double			 v[8] = { 0 };
	FILE			*fp = fopen("/proc/stat", "r");
	int			 i;

	if (fp != NULL && fscanf(fp, "cpu %lf %lf %lf %lf %lf %lf %lf %lf",
	    &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) == 8) {
		for (i = 0; i < 8; i++)
			t.total += v[i];
		t.steal = v[7];
	}
	if (fp != NULL)
		fclose(fp);
	return t;
}

/* Percent of the CPU time between a and b that was stolen. */
static inline double
bench_steal_pct(struct bench_ticks a, struct bench_ticks b)
{
	return b.total > a.total ?
	    100 * (b.steal - a.steal) / (b.total - a.total) : 0;
}

/*
 * A memory of about 340 characters (~80 BERT tokens), the i-th of a
 * seeded sequence: a label line and sentences drawn from a small pool of
 * what agents store, with numbers so that no two texts are equal. The
 * caller frees the string.
 */
static inline char *
bench_memory(int i)
{
	static const char *const pool[] = {
		"Run make -j2 before pushing; the CI job fails on warnings.",
		"Tests live in tests/e2e and use lib.sh for the server.",
		"The API returns 429 when the token bucket is empty; retry.",
		"Config is read from $XDG_CONFIG_HOME/app/config.json first.",
		"Use the staging database for migrations, never production.",
		"The linter rejects tabs in YAML; convert them to spaces.",
		"Error ECONNRESET from the proxy means the upstream timed out.",
		"Dates are stored as ISO-8601 strings with milliseconds.",
		"The release script tags the commit and uploads the tarball.",
		"Prefer small functions whose names say what they do.",
	};
	char	*buf = malloc(512);
	size_t	 len, n = sizeof(pool) / sizeof(pool[0]);
	int	 k;

	if (buf == NULL)
		return NULL;
	len = (size_t)snprintf(buf, 512, "# note %d about module %d\n\n", i,
	    i % 97);
	for (k = 0; len < 330; k++)
		len += (size_t)snprintf(buf + len, 512 - len, "%s ",
		    pool[(size_t)(i * 7 + k * 3 + (int)(bench_uniform() * 3)) %
		    n]);
	return buf;
}

#endif
