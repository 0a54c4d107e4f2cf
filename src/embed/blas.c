/*
 * blas.c — the matrix product, from the system's BLAS loaded on first use:
 * OpenBLAS (Debian's libopenblas0) on Linux and the BSDs, the Accelerate
 * framework, which every macOS has, on macOS.
 *
 * Linking OpenBLAS costs every thatch process its load and the start of
 * its thread pool, before main() (bench/README.md b001); most commands and
 * every buffering hook never multiply a matrix. So the library is opened
 * with dlopen by the first caller (model_open, the duplicate scan) and
 * its two entry points are called through this table.
 *
 * Invariant: the table is written once, by blas_open, before any product
 * runs; thatch multiplies from one thread, so no lock is needed. This is
 * process-wide state by nature (a loaded library), like the log sink.
 */
#include "embed/blas.h"

#include <stdbool.h>
#include <stddef.h>

#include "util/os/dl.h"
#include "util/err.h"

typedef void	sgemm_fn(enum blas_order, enum blas_trans,
		    enum blas_trans, int, int, int, float, const float *,
		    int, const float *, int, float, float *, int);
typedef void	threads_fn(int);

#ifdef __APPLE__
#define BLAS_LIBRARY \
	"/System/Library/Frameworks/Accelerate.framework/Accelerate"
#define BLAS_PACKAGE	"macOS's Accelerate framework"
#else
#define BLAS_LIBRARY	"libopenblas.so.0"
#define BLAS_PACKAGE	"the Debian package libopenblas0"
#endif

static struct {
	void		*dl;
	sgemm_fn	*sgemm;
	threads_fn	*set_threads;
} blas;

int
blas_open(struct err *err)
{
	const struct dl_sym	syms[] = {
		{ "cblas_sgemm", (void **)&blas.sgemm, false },
		{ "openblas_set_num_threads", (void **)&blas.set_threads,
		    true },
	};

	if (blas.dl != NULL)
		return 0;
	blas.dl = dl_load(BLAS_LIBRARY, BLAS_PACKAGE, syms,
	    sizeof(syms) / sizeof(syms[0]), err);
	return blas.dl != NULL ? 0 : -1;
}

void
blas_sgemm(enum blas_order order, enum blas_trans ta, enum blas_trans tb,
    int m, int n, int k, float alpha, const float *a, int lda,
    const float *b, int ldb, float beta, float *c, int ldc)
{
	blas.sgemm(order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c,
	    ldc);
}

void
blas_set_threads(int n)
{
	if (blas.set_threads != NULL)
		blas.set_threads(n);
}
