/*
 * quant.h — the search cache's int8 copies of a stored vector (quant.c),
 * and the numbers that bound how far a score read off them may be from
 * the exact cosine (store_nearest.c proves its bounds from these).
 *
 * A row b is copied relative to a centre mu shared by its matrix (the
 * mean of the store's vectors, quant_centre): d = b - mu ~ s c, and what
 * that misses ~ s2 r, with c and r int8 rows. Embedding models put most
 * of every vector along one common direction, which the centre takes
 * out, so s, the int8 step, is several times smaller than for b itself
 * and so is every bound built on it. Any centre gives exact bounds; a
 * good one gives tight bounds.
 */
#ifndef THATCH_CORE_QUANT_H
#define THATCH_CORE_QUANT_H

#include <stddef.h>

/*
 * A row's scales, each over |b| so that scores come out as cosines:
 * k = s / |b|, e = s / (2 |b|) (the first copy's worst error per unit of
 * |q|_1), k2 = s2 / |b|, w = 1 / |b| (what the centre's share is
 * multiplied by). A zero row has all four 0; a row with a component or
 * a norm that is not finite has k = w = 0 and e = k2 = infinity: no
 * bound holds, and the search scores it exactly.
 */
struct quant_row {
	float	k, e, k2, w;
};

/*
 * Copy b (dim floats) about mu into c and r (dim each): c_j =
 * round(d_j / s) for d_j = b_j - mu_j and s = max|d_j| / 127, then r_j =
 * round(t_j / s2) for t_j = d_j - s c_j and s2 = max|t_j| / 127, all in
 * double, so |b_j - mu_j - s c_j - s2 r_j| <= s2 / 2 (and <= s / 2
 * without r). mu must be finite (quant_centre's always is; a vector
 * file's is checked when it is parsed).
 */
void	quant_row(const float *b, const float *mu, int dim, signed char *c,
	    signed char *r, struct quant_row *out);

/*
 * mu = the mean of the n rows of dim at rows (row-major), summed in
 * double; rows with a component that is not finite are left out. All
 * zeros when no row counts: then the copies are of b itself.
 */
void	quant_centre(const float *rows, size_t n, int dim, float *mu);

#endif
