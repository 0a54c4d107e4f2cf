/*
 * test_quant.c — a stored vector's int8 copies about a centre (core/
 * quant.c): what the search's bounds take for granted. Rebuilt from its
 * copies, a row is within half a residual step of itself in every
 * component, whatever the centre; the steps and the scales agree; no
 * copy saturates; a zero row, a row at the centre and a row that is not
 * finite get the values the search expects; and the centre is the mean
 * of the finite rows.
 */
#include "check.h"

#include <math.h>
#include <stdlib.h>

#include "core/quant.h"

#define DIM	384

static unsigned	seed = 7;

static double
uniform(void)
{
	seed = seed * 1103515245u + 12345u;
	return ((seed >> 8) + 0.5) / 16777216.0 * 2 - 1;
}

/* Within half a residual step of b: |b - mu - s c - s2 r| <= s2 / 2, with
 * s = k / w and s2 = k2 / w read back from floats (off by a relative
 * 2^-22 each, times |c_j|, |r_j| <= 127: that much slack). */
static void
check_rebuilt(const float *b, const float *mu, const signed char *c,
    const signed char *r, const struct quant_row *q)
{
	double	s = (double)q->k / q->w, s2 = (double)q->k2 / q->w, x, worst;
	int	j;

	worst = s2 / 2 + (s + s2) * 127 * ldexp(1, -22);
	for (j = 0; j < DIM; j++) {
		x = (double)b[j] - mu[j] - s * c[j] - s2 * r[j];
		if (fabs(x) > worst) {
			CHECK_FAIL("component %d is %g from its copy, over %g",
			    j, fabs(x), worst);
			return;
		}
		CHECK(c[j] >= -127 && c[j] <= 127 && r[j] >= -127 &&
		    r[j] <= 127);
	}
	CHECK(fabs((double)q->e - s * q->w / 2) <= 1e-6 * q->e);
}

static void
a_row_is_its_copies_within_half_a_step(void)
{
	float		b[DIM], mu[DIM];
	signed char	c[DIM], r[DIM];
	struct quant_row q;
	int		t, j;

	for (t = 0; t < 200; t++) {
		for (j = 0; j < DIM; j++) {
			mu[j] = t % 3 == 0 ? 0 : (float)(0.05 * uniform());
			b[j] = (float)(mu[j] * (t % 5) + 0.01 * uniform() *
			    (t % 7 + 1));
		}
		if (t % 11 == 0)
			b[t % DIM] = 40;	/* one component dominates */
		quant_row(b, mu, DIM, c, r, &q);
		check_rebuilt(b, mu, c, r, &q);
	}
}

static void
degenerate_rows_get_what_the_search_expects(void)
{
	float		b[DIM] = { 0 }, mu[DIM];
	signed char	c[DIM], r[DIM];
	struct quant_row q;
	int		j;

	for (j = 0; j < DIM; j++)
		mu[j] = (float)uniform();
	quant_row(b, mu, DIM, c, r, &q);	/* zero: cosine 0, exact */
	CHECK(q.k == 0 && q.e == 0 && q.k2 == 0 && q.w == 0);
	quant_row(mu, mu, DIM, c, r, &q);	/* at the centre */
	CHECK(q.k == 0 && q.e == 0 && q.k2 == 0 && q.w > 0);
	for (j = 0; j < DIM; j++)
		CHECK(c[j] == 0 && r[j] == 0);
	b[3] = NAN;				/* no bound holds */
	quant_row(b, mu, DIM, c, r, &q);
	CHECK(q.k == 0 && q.w == 0 && isinf(q.e) && isinf(q.k2));
	b[3] = INFINITY;
	quant_row(b, mu, DIM, c, r, &q);
	CHECK(q.k == 0 && q.w == 0 && isinf(q.e) && isinf(q.k2));
}

static void
the_centre_is_the_mean_of_finite_rows(void)
{
	float	rows[4 * DIM], mu[DIM];
	int	j;

	for (j = 0; j < DIM; j++) {
		rows[j] = 1;
		rows[DIM + j] = (float)j;
		rows[2 * DIM + j] = j == 5 ? NAN : 100;	/* left out */
		rows[3 * DIM + j] = -3;
	}
	quant_centre(rows, 4, DIM, mu);
	for (j = 0; j < DIM; j++)
		CHECK(mu[j] == (float)((1.0 + j - 3) / 3));
	quant_centre(rows + 2 * DIM, 1, DIM, mu);	/* no finite row */
	for (j = 0; j < DIM; j++)
		CHECK(mu[j] == 0);
}

CHECK_MAIN(
	TEST(a_row_is_its_copies_within_half_a_step),
	TEST(degenerate_rows_get_what_the_search_expects),
	TEST(the_centre_is_the_mean_of_finite_rows)
)
