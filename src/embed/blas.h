/* blas.h — the matrix product, from OpenBLAS loaded on first use (blas.c). */
#ifndef THATCH_EMBED_BLAS_H
#define THATCH_EMBED_BLAS_H

#include <cblas.h>

struct err;

/*
 * Load OpenBLAS if not yet loaded. Must succeed before blas_sgemm or
 * blas_set_threads is called; cheap after the first call. Returns 0, or -1
 * with err saying which package to install.
 */
int	blas_open(struct err *);

/* cblas_sgemm, with the same arguments. */
void	blas_sgemm(enum CBLAS_ORDER, enum CBLAS_TRANSPOSE, enum CBLAS_TRANSPOSE,
	    int m, int n, int k, float alpha, const float *a, int lda,
	    const float *b, int ldb, float beta, float *c, int ldc);

/* openblas_set_num_threads. */
void	blas_set_threads(int);

#endif
