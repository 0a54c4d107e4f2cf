/*
 * vector.h — float32 vectors (vector.c): the embedding BLOB codec, norms,
 * the exact cosine, and the SIMD kernels every core module shares.
 */
#ifndef THATCH_CORE_VECTOR_H
#define THATCH_CORE_VECTOR_H

#include <stddef.h>
#include <stdint.h>

/*
 * Embedding BLOBs (store-and-tools §1.6): little-endian float32 in index
 * order, on every host. vector_decode copies n floats out of the
 * (possibly unaligned) column bytes. vector_encode returns the 4 * n
 * bytes to bind: vec itself, with *scratch NULL, on a little-endian
 * host; on a big-endian one *scratch, a new buffer the caller frees once
 * the bytes are bound or copied.
 */
void		 vector_decode(const void *blob, size_t n, float *out);
const void	*vector_encode(const float *vec, size_t n, void **scratch);

/* |v|: sqrt of the sum of v_i^2, accumulated in double in index order. */
double		 vector_norm(const float *v, int dim);

/*
 * The exact dot product: the sum of a_i b_i, each product widened to
 * double, accumulated in double in index order.
 */
double		 vector_dot(const float *a, const float *b, int dim);

/*
 * The exact cosine of §5.1: vector_dot(a, b) / (na * nb), na and nb the
 * vector_norm of a and of b; 0 when either norm is 0, NaN when a
 * component is not a number.
 */
double		 vector_cosine(const float *a, double na, const float *b,
		    double nb, int dim);

/*
 * Approximate scores (single-precision sums, for choosing which pairs or
 * rows get an exact cosine). vector_sdot sums a_k b_k in float in index
 * order. vector_sdot4 puts in out[r] the product of row a + r * d (r < 4)
 * with b: the same sum in an order that depends on the ISA in effect
 * (util/isa.h: independent lanes summed last, on every ISA).
 */
float		 vector_sdot(const float *a, const float *b, size_t d);
void		 vector_sdot4(const float *a, size_t d, const float *b,
		    float out[4]);

/*
 * out[r] = the float dot of q with int8 row r of m (n rows of dim,
 * row-major), summed in an order that depends on the ISA in effect
 * (util/isa.h: AVX-512, AVX2 with FMA, NEON, or plain).
 */
void		 vector_dot_int8(const float *q, const signed char *m,
		    size_t n, int dim, float *out);

/*
 * out[0], out[1] = the dots of q with int8 rows a and b of dim, summed
 * in double (each product exact; the order of summation depends on the
 * machine): the second, tight pass over a band of rows.
 */
void		 vector_ddot2_int8(const float *q, const signed char *a,
		    const signed char *b, int dim, double out[2]);

/*
 * The vector file's checksum accumulator (vecfile.c), over n 64-byte
 * stripes of p: for each 8-byte word w of lane j (k = w ^ key[j]),
 * acc[j ^ 1] += w and acc[j] += (k & 0xffffffff) * (k >> 32). The same
 * lanes on every machine (the AVX2 loop computes the plain one's).
 */
void		 vector_stripe_sum(uint64_t acc[8], const uint64_t key[8],
		    const unsigned char *p, size_t n);

#endif
