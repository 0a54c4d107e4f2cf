/*
 * quant.c — a stored vector's int8 copies about its matrix's centre,
 * for the search cache (store_cache.c keeps them, store_nearest.c bounds
 * its scores with them). See quant.h for what the numbers mean.
 *
 * Invariants:
 *  1. Every quantity is computed in double from the float components and
 *     rounded to float once, at the end: the bounds store_nearest.c
 *     builds allow for one rounding of each of k, e, k2 and w.
 *  2. |c_j| and |r_j| <= 127 by the choice of s and s2 (|d_j / s| <= 127,
 *     rounding to nearest cannot pass 127), so no copy saturates.
 */
#include "core/quant.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/vector.h"
#include "util/xmalloc.h"

/* c_j = round(x_j / s) for s = max|x_j| / 127; returns s. */
static double
copy_int8(const double *x, int dim, signed char *c)
{
	double	mx = 0, s;
	int	j;

	for (j = 0; j < dim; j++)
		mx = fabs(x[j]) > mx ? fabs(x[j]) : mx;
	s = mx / 127;
	for (j = 0; j < dim; j++)
		c[j] = (signed char)(s == 0 ? 0 : lrint(x[j] / s));
	return s;
}

void
quant_row(const float *b, const float *mu, int dim, signed char *c,
    signed char *r, struct quant_row *out)
{
	double	*d;
	double	 norm = vector_norm(b, dim), s, s2;
	int	 j;

	/* a finite norm means finite components (squares of floats cannot
	 * overflow a double), and the centre is finite */
	if (!isfinite(norm) || norm == 0) {
		memset(c, 0, (size_t)dim);
		memset(r, 0, (size_t)dim);
		out->k = out->w = 0;
		out->e = out->k2 = norm == 0 ? 0 : INFINITY;
		return;
	}
	d = xreallocarray(NULL, (size_t)dim, sizeof(double));
	for (j = 0; j < dim; j++)
		d[j] = (double)b[j] - (double)mu[j];
	s = copy_int8(d, dim, c);
	for (j = 0; j < dim; j++)
		d[j] -= s * c[j];
	s2 = copy_int8(d, dim, r);
	out->k = (float)(s / norm);
	out->e = (float)(s / (2 * norm));
	out->k2 = (float)(s2 / norm);
	out->w = (float)(1 / norm);
	free(d);
}

void
quant_centre(const float *rows, size_t n, int dim, float *mu)
{
	double		*sum = xcalloc((size_t)dim, sizeof(double));
	const float	*b;
	size_t		 i, used = 0;
	int		 j;

	for (i = 0; i < n; i++) {
		b = rows + i * (size_t)dim;
		if (!isfinite(vector_norm(b, dim)))
			continue;
		for (j = 0; j < dim; j++)
			sum[j] += b[j];
		used++;
	}
	for (j = 0; j < dim; j++)
		mu[j] = used == 0 ? 0 : (float)(sum[j] / (double)used);
	free(sum);
}
