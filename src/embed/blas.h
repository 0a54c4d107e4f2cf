/* blas.h — the matrix product, from the system's BLAS loaded on first use (blas.c). */
#ifndef THATCH_EMBED_BLAS_H
#define THATCH_EMBED_BLAS_H

struct err;

/* CBLAS's argument values (netlib's cblas.h, which every CBLAS shares):
 * the product is called through a pointer, so thatch needs no BLAS
 * header to build, only a library to load at run time. */
enum blas_order { BLAS_ROW_MAJOR = 101 };
enum blas_trans { BLAS_NO_TRANS = 111, BLAS_TRANS = 112 };

/*
 * Load the BLAS if not yet loaded: OpenBLAS on Linux and the BSDs, the
 * Accelerate framework on macOS. Must succeed before blas_sgemm or
 * blas_set_threads is called; cheap after the first call. Returns 0, or -1
 * with err saying what to install.
 */
int	blas_open(struct err *);

/* cblas_sgemm, with the same arguments. */
void	blas_sgemm(enum blas_order, enum blas_trans, enum blas_trans,
	    int m, int n, int k, float alpha, const float *a, int lda,
	    const float *b, int ldb, float beta, float *c, int ldc);

/* openblas_set_num_threads; nothing where the library has no such call
 * (Accelerate sizes its own pool). */
void	blas_set_threads(int);

#endif
