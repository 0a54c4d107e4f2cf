/*
 * fuzz_st.c — the safetensors parser (src/embed/st.c) and the binding of a
 * model's tensors (bert_new, src/embed/bert.c). An input is a whole
 * safetensors file. What st_parse accepts is read back tensor by tensor,
 * then bound as a small BERT (SMALL below; the seeds hold such models in
 * F32, F16 and BF16) on gemm.c's kernels and on CBLAS, and run when that
 * succeeds.
 *
 * Properties (st.h): every tensor st_parse returns lies inside the image,
 * its size matches its shape and st_find finds it by name; nothing is
 * read outside the image (ASan: the input is an exact-size copy).
 */
#include "fuzz.h"

#include "embed/bert.h"
#include "embed/st.h"
#include "util/err.h"

/* The shape of the seeds' models (tests/fuzz/st-seeds). */
static const struct bert_config	small = { .hidden = 4, .layers = 1,
	.heads = 2, .inter = 8, .vocab = 8, .max_pos = 8, .type_vocab = 2,
	.eps = 1e-12 };

static void
check_tensors(const struct st *st, const uint8_t *data, size_t size)
{
	const struct st_tensor	*t;
	float			 buf[64];
	int64_t			 off, k;
	size_t			 i;

	for (i = 0; i < st->n; i++) {
		t = &st->tensors[i];
		FUZZ_ASSERT((const uint8_t *)t->data >= data &&
		    t->count <= (int64_t)size &&
		    (const uint8_t *)t->data + t->count *
		    (int64_t)st_dtype_size(t->dtype) <= data + size);
		FUZZ_ASSERT(t->ndim >= 0 && t->ndim <= ST_MAX_DIMS);
		FUZZ_ASSERT(st_find(st, t->name) != NULL);
		for (off = 0; off < t->count; off += k) {
			k = t->count - off < 64 ? t->count - off : 64;
			st_read(t, off, k, buf);
		}
	}
}

static void
run_small(const struct st *st, enum bert_kernels kernels)
{
	static const int32_t	 ids[] = { 1, 7, 0, 3, 5, 2 };
	struct bert		*b = NULL;
	struct bert_ws		*ws;
	struct err		 err;
	float			 out[4];

	if (bert_new(st, &small, 1, kernels, NULL, &b, &err) != 0)
		return;
	ws = bert_ws_new(b, small.max_pos);
	bert_embed(b, ws, ids, 6, out);
	bert_ws_free(ws);
	bert_free(b);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct st	*st = NULL;
	struct err	 err;

	if (st_parse(data, size, &st, &err) != 0)
		return 0;
	check_tensors(st, data, size);
	run_small(st, BERT_KERNELS_BEST);
	run_small(st, BERT_KERNELS_CBLAS);
	st_close(st);
	return 0;
}
