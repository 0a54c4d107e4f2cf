/*
 * bench.h — what every benchmark program shares: a seeded generator (the
 * same vectors on every run and machine), a monotonic clock in
 * milliseconds and the comparison that sorts samples for median and p95.
 * Header-only: each bench/bNNN-*.c is one program.
 */
#ifndef THATCH_BENCH_BENCH_H
#define THATCH_BENCH_BENCH_H

#include <math.h>
#include <stdint.h>
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

/* qsort comparator for double samples. */
static inline int
bench_cmp(const void *a, const void *b)
{
	double	x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

#endif
