/*
 * bert.c — the forward pass of Hugging Face's BertModel in inference mode,
 * mean pooling and L2 normalisation: the vectors transformers.js computes
 * with onnxruntime, to within 1e-5 per component.
 *
 * Knows tensors and shapes, not tokens or files. Matrix products go
 * through gemm.c's packed kernels (for the ISA in effect, util/isa.c: on
 * any CPU, in plain C where it has no SIMD kernels), or, when a test asks,
 * CBLAS (OpenBLAS, then loaded at bert_new) multiplies the weights in
 * place. Everything else is loops over GCC's vector types.
 *  1. Weights are row-major [out, in] as PyTorch stores them, so every
 *     linear layer is one X . W^T product. bert_new packs each layer's
 *     matrices once (pack_layers; Q, K and V as one) or maps the packed
 *     copy an earlier process kept (packcache.c), and from then on reads
 *     only those; the word embeddings stay in the file's mapping.
 *  2. Q, K and V land side by side in one [n, 3H] buffer (ldc = 3H), so
 *     each head's attention reads its slices in place.
 *  3. Blocks are post-LayerNorm: x = LN(x + sublayer(x)), eps from config,
 *     the residual added by layer_norm rather than by copying x into the
 *     product's output; GELU is the exact erf form, not the tanh
 *     approximation.
 *  4. bert_embed allocates nothing but, once, gemm.c's panels of X (they
 *     grow to the largest product seen: 512 x intermediate floats at
 *     most); all other scratch lives in struct bert_ws, sized once for the
 *     longest sequence.
 *  5. gemm.c's products run on the configured thread count at every
 *     length (a short text is bound by memory bandwidth, which a second
 *     core adds to), and so do attention's heads (gemm_run), GELU (on
 *     each panel of the intermediate product, inside it) and, from
 *     BERT_MT_ROWS tokens, LayerNorm; CBLAS runs short inputs on one
 *     thread (BERT_MT_TOKENS).
 */
#include "embed/bert.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>

#include <jansson.h>

#include "embed/blas.h"
#include "embed/gemm.h"
#include "embed/packcache.h"
#include "embed/st.h"
#include "util/err.h"
#include "util/isa.h"
#include "util/jsonx.h"
#include "util/log.h"
#include "util/xmalloc.h"

/*
 * When CBLAS multiplies, below this many tokens a second BLAS thread
 * costs more than it gives: a short text is a stream through 85 MB of weights, which OpenBLAS
 * splits badly (bge-small, 8 tokens: 11 ms on one thread, 20-30 ms on
 * two; bench/README.md). Longer texts use the configured count, which
 * pays on an idle machine (the layers' sgemms at 70 tokens: 26 ms on two
 * threads, 36 ms on one) and not on a saturated one (THATCH_THREADS=1).
 */
#define BERT_MT_TOKENS	32


/* Raw weights are read only while packing, or by CBLAS without gemm.c. */
struct layer {
	const float	*wq, *bq, *wk, *bk, *wv, *bv;
	const float	*wo, *bo, *ln1_g, *ln1_b;
	const float	*wi, *bi, *wd, *bd, *ln2_g, *ln2_b;
	const float	*bqkv;		/* bq, bk, bv in one (gemm.c only) */
	struct gemm_mat	 qkv, o, i, d;	/* packed; out and k always set */
};

struct bert {
	struct bert_config	 cfg;
	int			 threads;
	struct gemm		*gemm;		/* owned; NULL: CBLAS */
	const struct st_tensor	*word;		/* any dtype, read per row */
	const float		*pos, *type, *ln_g, *ln_b;
	struct layer		*layer;		/* owned */
	struct packcache	 packed;	/* every gemm_mat's data */
	float			**copies;	/* owned: widened tensors */
	int			 ncopies;
};

struct bert_ws {
	int	 max;
	float	*x, *tmp, *ctx;		/* [max, H] */
	float	*qkv;			/* [max, 3H] */
	float	*inter;			/* [max, I] */
	float	*scores;		/* [threads, max, scores_ld(max)] */
	float	*sums;			/* [threads, max]: 1 / column sums */
	float	*qp, *vp, *xp;		/* per thread: Q, V^T, K packed */
	size_t	 qp_len, vp_len, xp_len;	/* floats per thread */
	double	*pool;			/* [H] */
	int	*off;			/* [max]: each sequence's first row */
};

/*
 * Floats per row of attention's scores, which hold one key's score for
 * every query: whole vectors of sixteen (VN) queries for softmax_cols,
 * and whole tiles for gemm_tn_here.
 */
static int
scores_ld(int n)
{
	return (gemm_tn_cols(n) + 15) / 16 * 16;
}

/* A positive integer setting in [1, max], else -1. */
static int
config_int(const json_t *cfg, const char *key, int max, const char *path,
    int *out, struct err *err)
{
	const json_t	*v = jsonx_get(cfg, key);

	if (!json_is_integer(v) || json_integer_value(v) < 1 ||
	    json_integer_value(v) > max)
		return err_set(err, "'%s': %s is missing or out of range",
		    path, key);
	*out = (int)json_integer_value(v);
	return 0;
}

int
bert_config_parse(const struct json_t *cfg, const char *path,
    struct bert_config *c, struct err *err)
{
	const char	*s;
	const json_t	*v;

	if (!json_is_object(cfg))
		return err_set(err, "'%s' is not a JSON object", path);
	s = jsonx_str(cfg, "model_type");
	if (s != NULL && strcmp(s, "bert") != 0)
		return err_set(err, "'%s': model_type '%s' is not supported; "
		    "thatch runs BERT encoders (bge, all-MiniLM, e5, gte)",
		    path, s);
	s = jsonx_str(cfg, "hidden_act");
	if (s != NULL && strcmp(s, "gelu") != 0)
		return err_set(err, "'%s': hidden_act '%s' is not supported "
		    "(thatch runs exact GELU)", path, s);
	s = jsonx_str(cfg, "position_embedding_type");
	if (s != NULL && strcmp(s, "absolute") != 0)
		return err_set(err, "'%s': position_embedding_type '%s' is "
		    "not supported", path, s);
	if (config_int(cfg, "hidden_size", 8192, path, &c->hidden, err) ||
	    config_int(cfg, "num_hidden_layers", 128, path, &c->layers,
	    err) ||
	    config_int(cfg, "num_attention_heads", 256, path, &c->heads,
	    err) ||
	    config_int(cfg, "intermediate_size", 65536, path, &c->inter,
	    err) ||
	    config_int(cfg, "vocab_size", 1 << 22, path, &c->vocab, err) ||
	    config_int(cfg, "max_position_embeddings", 8192, path,
	    &c->max_pos, err))
		return -1;
	c->type_vocab = 2;
	if (jsonx_get(cfg, "type_vocab_size") != NULL &&
	    config_int(cfg, "type_vocab_size", 1024, path, &c->type_vocab,
	    err) != 0)
		return -1;
	if (c->hidden % c->heads != 0)
		return err_set(err, "'%s': hidden_size %d is not a multiple "
		    "of num_attention_heads %d", path, c->hidden, c->heads);
	c->eps = 1e-12;
	v = jsonx_get(cfg, "layer_norm_eps");
	if (v != NULL) {
		if (!json_is_number(v) || json_number_value(v) <= 0 ||
		    json_number_value(v) > 1)
			return err_set(err, "'%s': bad layer_norm_eps", path);
		c->eps = json_number_value(v);
	}
	return 0;
}

/*
 * The F32 data of tensor prefix+name after checking its shape ([d0] when
 * d1 is 0, else [d0, d1]): in the file's mapping if it is aligned F32 and
 * in_place allows, else in a copy the bert owns. With packed matrices
 * everything else is copied (a few hundred KB), so that once they are
 * packed the file's pages can leave the resident set for good.
 */
/* A buffer of count floats that b frees with its widened copies. */
static float *
owned_copy(struct bert *b, size_t count)
{
	float	*copy = xreallocarray(NULL, count, sizeof(float));

	b->copies = xreallocarray(b->copies, (size_t)b->ncopies + 1,
	    sizeof(*b->copies));
	b->copies[b->ncopies++] = copy;
	return copy;
}

static const float *
weight(struct bert *b, const struct st *st, const char *prefix,
    const char *name, int64_t d0, int64_t d1, bool in_place,
    struct err *err)
{
	const struct st_tensor	*t;
	char			 full[256];
	float			*copy;

	snprintf(full, sizeof(full), "%s%s", prefix, name);
	t = st_find(st, full);
	if (t == NULL) {
		err_set(err, "tensor '%s' is missing", full);
		return NULL;
	}
	if (t->ndim != (d1 ? 2 : 1) || t->shape[0] != d0 ||
	    (d1 && t->shape[1] != d1)) {
		err_set(err, "tensor '%s' has shape [%lld%s%lld], config.json "
		    "says [%lld%s%lld]", full, (long long)t->shape[0],
		    t->ndim > 1 ? ", " : "", t->ndim > 1 ?
		    (long long)t->shape[1] : 0LL, (long long)d0,
		    d1 ? ", " : "", (long long)d1);
		return NULL;
	}
	if (in_place && t->dtype == ST_F32 && ((uintptr_t)t->data & 3) == 0)
		return t->data;
	copy = owned_copy(b, (size_t)t->count);
	st_read(t, 0, t->count, copy);
	return copy;
}

/* Q's, K's and V's biases one after the other, as the fused product
 * adds them. */
static const float *
fused_bias(struct bert *b, const struct layer *L)
{
	size_t	 h = (size_t)b->cfg.hidden;
	float	*copy = owned_copy(b, 3 * h);

	memcpy(copy, L->bq, h * sizeof(float));
	memcpy(copy + h, L->bk, h * sizeof(float));
	memcpy(copy + 2 * h, L->bv, h * sizeof(float));
	return copy;
}

static int
bind_layer(struct bert *b, const struct st *st, const char *prefix, int l,
    struct err *err)
{
	static const struct {
		const char	*name;
		size_t		 off;
		int		 d0, d1;	/* 'H' hidden, 'I' inter, 0 */
	} tab[] = {
#define W(n, f, a, c) { n, offsetof(struct layer, f), a, c }
		W("attention.self.query.weight", wq, 'H', 'H'),
		W("attention.self.query.bias", bq, 'H', 0),
		W("attention.self.key.weight", wk, 'H', 'H'),
		W("attention.self.key.bias", bk, 'H', 0),
		W("attention.self.value.weight", wv, 'H', 'H'),
		W("attention.self.value.bias", bv, 'H', 0),
		W("attention.output.dense.weight", wo, 'H', 'H'),
		W("attention.output.dense.bias", bo, 'H', 0),
		W("attention.output.LayerNorm.weight", ln1_g, 'H', 0),
		W("attention.output.LayerNorm.bias", ln1_b, 'H', 0),
		W("intermediate.dense.weight", wi, 'I', 'H'),
		W("intermediate.dense.bias", bi, 'I', 0),
		W("output.dense.weight", wd, 'H', 'I'),
		W("output.dense.bias", bd, 'H', 0),
		W("output.LayerNorm.weight", ln2_g, 'H', 0),
		W("output.LayerNorm.bias", ln2_b, 'H', 0),
#undef W
	};
	struct layer	*L = &b->layer[l];
	char		 name[128];
	const float	*w;
	size_t		 i;
	int64_t		 dim[3] = { 0 };
	int		 h = b->cfg.hidden, in = b->cfg.inter;

	for (i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		dim[1] = tab[i].d0 == 'H' ? b->cfg.hidden : b->cfg.inter;
		dim[2] = tab[i].d1 == 0 ? 0 :
		    tab[i].d1 == 'H' ? b->cfg.hidden : b->cfg.inter;
		snprintf(name, sizeof(name), "encoder.layer.%d.%s", l,
		    tab[i].name);
		w = weight(b, st, prefix, name, dim[1], dim[2],
		    tab[i].d1 != 0 || b->gemm == NULL, err);
		if (w == NULL)
			return -1;
		memcpy((char *)L + tab[i].off, &w, sizeof(w));
	}
	if (b->gemm != NULL)
		L->bqkv = fused_bias(b, L);
	L->qkv = (struct gemm_mat){ NULL, 3 * h, h };
	L->o = (struct gemm_mat){ NULL, h, h };
	L->i = (struct gemm_mat){ NULL, in, h };
	L->d = (struct gemm_mat){ NULL, h, in };
	return 0;
}

/* Free the widened copy at p, if p is one; weights in the file stay. */
static void
drop_copy(struct bert *b, const float *p)
{
	int	i;

	for (i = 0; i < b->ncopies; i++) {
		if (b->copies[i] == p) {
			free(b->copies[i]);
			b->copies[i] = b->copies[--b->ncopies];
			return;
		}
	}
}

/* A layer's four packed matrices and their sources, in packing order. */
struct layer_mats {
	struct gemm_mat	*m[4];
	const float	*parts[4][3];
	int		 rows[4][3], nparts[4];
};

static void
layer_mats(struct bert *b, struct layer *L, struct layer_mats *lm)
{
	int	h = b->cfg.hidden, in = b->cfg.inter;

	*lm = (struct layer_mats){
		{ &L->qkv, &L->o, &L->i, &L->d },
		{ { L->wq, L->wk, L->wv }, { L->wo }, { L->wi }, { L->wd } },
		{ { h, h, h }, { h }, { in }, { h } },
		{ 3, 1, 1, 1 },
	};
}

/*
 * Point every layer's matrices into b->packed, in order; with pack, pack
 * them there first, else check that what is there matches the model: the
 * first and the last matrix, which a foreign, shifted or cut file would
 * not match (each check maps a few 2 MB pages of the model file, so
 * checking all of them would map it whole). Returns 0, or -1 when a check
 * fails.
 */
static int
lay_out(struct bert *b, bool pack)
{
	struct layer_mats	 lm;
	size_t			 at = 0;
	int			 l, i;

	for (l = 0; l < b->cfg.layers; l++) {
		layer_mats(b, &b->layer[l], &lm);
		for (i = 0; i < 4; i++) {
			lm.m[i]->data = b->packed.data + at;
			at += gemm_mat_floats(lm.m[i]->out, lm.m[i]->k);
			if (pack)
				gemm_pack(b->gemm, b->threads, lm.m[i],
				    lm.parts[i], lm.rows[i], lm.nparts[i],
				    lm.m[i]->k);
			else if (((l == 0 && i == 0) ||
			    (l == b->cfg.layers - 1 && i == 3)) &&
			    !gemm_pack_matches(lm.m[i], lm.parts[i],
			    lm.rows[i], lm.nparts[i]))
				return -1;
		}
	}
	return 0;
}

/*
 * Pack every layer's matrices (gemm.h), Q, K and V as one [3H, H] matrix
 * so that attention's projections are one product, or map the packed copy
 * an earlier process left at pack_path (packcache.c), and save a fresh
 * packing there for the next one. From then on the packed weights are the
 * only ones read: widened copies are freed and the file's pages leave the
 * resident set (st_unmap_pages), so the process holds the weights once
 * and, of the word embeddings, only the pages of rows it has read.
 */
static void
pack_layers(struct bert *b, const struct st *st, const char *pack_path)
{
	struct layer_mats	 lm;
	struct layer		*L;
	struct err		 err;
	size_t			 total = 0;
	int			 l, i, j;

	for (l = 0; l < b->cfg.layers; l++) {
		layer_mats(b, &b->layer[l], &lm);
		for (i = 0; i < 4; i++)
			total += gemm_mat_floats(lm.m[i]->out, lm.m[i]->k);
	}
	if (pack_path != NULL &&
	    packcache_map(pack_path, total, &b->packed) == 0) {
		if (lay_out(b, false) == 0 && packcache_intact(&b->packed))
			goto packed;
		log_debug("embed", "'%s' does not match the model: packing "
		    "anew", pack_path);
		packcache_release(&b->packed);
	}
	packcache_alloc(total, &b->packed);
	lay_out(b, true);
	if (pack_path != NULL && packcache_save(pack_path, &b->packed,
	    &err) != 0)
		log_debug("embed", "packed weights not kept: %s", err.msg);
packed:
	for (l = 0; l < b->cfg.layers; l++) {
		L = &b->layer[l];
		layer_mats(b, L, &lm);
		for (i = 0; i < 4; i++)
			for (j = 0; j < lm.nparts[i]; j++)
				drop_copy(b, lm.parts[i][j]);
		L->wq = L->wk = L->wv = L->wo = L->wi = L->wd = NULL;
	}
	st_unmap_pages(st, b->word);
}

int
bert_new(const struct st *st, const struct bert_config *cfg, int threads,
    enum bert_kernels kernels, const char *pack_path, struct bert **out,
    struct err *err)
{
	struct bert	*b;
	const char	*prefix;
	bool		 in_place;
	enum isa	 isa;
	int		 l, rc = -1;

	*out = NULL;
	b = xcalloc(1, sizeof(*b));
	b->cfg = *cfg;
	b->threads = threads < 1 ? 1 : threads;
	if (kernels == BERT_KERNELS_BEST && isa_select(&isa, err) != 0)
		goto out;
	if (kernels != BERT_KERNELS_CBLAS)
		b->gemm = gemm_new(b->threads, kernels == BERT_KERNELS_BEST ?
		    isa : ISA_GENERIC);
	else if (blas_open(err) != 0)
		goto out;
	b->layer = xcalloc((size_t)cfg->layers, sizeof(*b->layer));
	prefix = st_find(st, "bert.embeddings.word_embeddings.weight") ?
	    "bert." : "";
	b->word = st_find(st, "embeddings.word_embeddings.weight");
	if (*prefix != '\0')
		b->word = st_find(st, "bert.embeddings.word_embeddings.weight");
	if (b->word == NULL) {
		err_set(err, "tensor 'embeddings.word_embeddings.weight' is "
		    "missing");
		goto out;
	}
	if (b->word->ndim != 2 || b->word->shape[0] != cfg->vocab ||
	    b->word->shape[1] != cfg->hidden) {
		err_set(err, "tensor 'embeddings.word_embeddings.weight' does "
		    "not have shape [%d, %d]", cfg->vocab, cfg->hidden);
		goto out;
	}
	in_place = b->gemm == NULL;
	if ((b->pos = weight(b, st, prefix,
	    "embeddings.position_embeddings.weight", cfg->max_pos,
	    cfg->hidden, in_place, err)) == NULL ||
	    (b->type = weight(b, st, prefix,
	    "embeddings.token_type_embeddings.weight", cfg->type_vocab,
	    cfg->hidden, in_place, err)) == NULL ||
	    (b->ln_g = weight(b, st, prefix, "embeddings.LayerNorm.weight",
	    cfg->hidden, 0, in_place, err)) == NULL ||
	    (b->ln_b = weight(b, st, prefix, "embeddings.LayerNorm.bias",
	    cfg->hidden, 0, in_place, err)) == NULL)
		goto out;
	for (l = 0; l < cfg->layers; l++) {
		if (bind_layer(b, st, prefix, l, err) != 0)
			goto out;
	}
	if (b->gemm != NULL)
		pack_layers(b, st, pack_path);
	*out = b;
	b = NULL;
	rc = 0;
out:
	bert_free(b);
	return rc;
}

const char *
bert_kernels_name(const struct bert *b)
{
	return b->gemm != NULL ? isa_name(gemm_isa(b->gemm)) : "cblas";
}

void
bert_free(struct bert *b)
{
	int	i;

	if (b == NULL)
		return;
	for (i = 0; i < b->ncopies; i++)
		free(b->copies[i]);
	free(b->copies);
	if (b->packed.data != NULL)
		packcache_release(&b->packed);
	free(b->layer);
	gemm_free(b->gemm);
	free(b);
}

bool
bert_intact(const struct bert *b)
{
	return packcache_intact(&b->packed);
}

static float *
ws_alloc(size_t rows, size_t cols)
{
	return xreallocarray(NULL, rows * cols, sizeof(float));
}

struct bert_ws *
bert_ws_new(const struct bert *b, int max_tokens)
{
	const struct bert_config *cfg = &b->cfg;
	struct bert_ws	*ws = xcalloc(1, sizeof(*ws));
	size_t		 n = (size_t)max_tokens, h = (size_t)cfg->hidden;
	size_t		 t = (size_t)b->threads;
	int		 d;

	ws->max = max_tokens;
	ws->x = ws_alloc(n, h);
	ws->tmp = ws_alloc(n, h);
	ws->ctx = ws_alloc(n, h);
	ws->qkv = ws_alloc(n, 3 * h);
	ws->inter = ws_alloc(n, (size_t)cfg->inter);
	/* zeroed: softmax_cols and gemm_tn_here read the padding columns */
	ws->scores = xcalloc(t * n * (size_t)scores_ld(max_tokens),
	    sizeof(float));
	ws->sums = ws_alloc(t, n);
	if (b->gemm != NULL) {
		d = (int)h / cfg->heads;
		ws->qp_len = gemm_mat_floats(max_tokens, d);
		ws->vp_len = gemm_mat_floats(d, max_tokens);
		ws->xp_len = gemm_xp_floats(b->gemm, max_tokens, d);
		ws->qp = xaligned_alloc(64, t * ws->qp_len * sizeof(float));
		ws->vp = xaligned_alloc(64, t * ws->vp_len * sizeof(float));
		ws->xp = xaligned_alloc(64, t * ws->xp_len * sizeof(float));
	}
	ws->pool = xreallocarray(NULL, h, sizeof(double));
	ws->off = xreallocarray(NULL, n, sizeof(int));
	return ws;
}

void
bert_ws_free(struct bert_ws *ws)
{
	if (ws == NULL)
		return;
	free(ws->x);
	free(ws->tmp);
	free(ws->ctx);
	free(ws->qkv);
	free(ws->inter);
	free(ws->scores);
	free(ws->sums);
	free(ws->qp);
	free(ws->vp);
	free(ws->xp);
	free(ws->pool);
	free(ws->off);
	free(ws);
}

/*
 * exp and erf sixteen lanes at a time, as GCC vector extensions compiled
 * once per ISA (target_clones): glibc's scalar expf and erff took 40% of a
 * 250-token embedding. exp is Cephes' expf (1 ulp) with the inputs clamped
 * to [-87, 88]; erf is Eigen's rational approximation on [-4, 4] (erf is
 * +-1 in float beyond). onnxruntime approximates both too; test_bert
 * bounds the error.
 */
typedef float	vf __attribute__((vector_size(64)));
typedef int32_t	vi __attribute__((vector_size(64)));

#define VN	((int)(sizeof(vf) / sizeof(float)))
_Static_assert(sizeof(vf) == 16 * sizeof(float), "scores_ld's vectors");
/* always inlined: a call would pass vectors by a per-ISA convention */
#define VINLINE	static inline __attribute__((always_inline))
/* clang checks the vector ABI of each call before it inlines, and refuses
 * one from an avx512f clone to a helper built without it: under clang the
 * kernels build once, for the baseline ISA (GCC's default clone). Off
 * x86-64 there is nothing to clone for: AArch64's baseline is NEON. */
#if defined(__clang__) || !defined(__x86_64__)
#define CLONES
#else
#define CLONES	__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
/* v's lanes in the order of the sixteen constant indices: the builtin GCC
 * (since 12) and clang both spell alike, unlike GCC's __builtin_shuffle */
#define VSHUFFLE(v, ...)	__builtin_shufflevector(v, v, __VA_ARGS__)

VINLINE vf
vsplat(float f)
{
	/* a lane shuffle, not a list of sixteen f: GCC builds the list
	 * lane by lane, inside the loop, when f is not a constant */
	return VSHUFFLE((vf){ f }, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	    0, 0);
}

/* Lanes of x clamped to [lo, hi] (comparisons give -1 where true). */
VINLINE vf
vclamp(vf x, float lo, float hi)
{
	vi	m;

	m = x < vsplat(lo);
	x = (vf)(((vi)vsplat(lo) & m) | ((vi)x & ~m));
	m = x > vsplat(hi);
	return (vf)(((vi)vsplat(hi) & m) | ((vi)x & ~m));
}

VINLINE vf
vexp(vf x)
{
	const vf	magic = vsplat(12582912.0f);	/* 1.5 * 2^23 */
	vf		t, n, r, p;
	vi		bits;

	x = vclamp(x, -87.0f, 88.0f);
	t = x * vsplat(1.44269504088896341f) + magic;	/* round(x/ln2) */
	n = t - magic;
	r = x - n * vsplat(0.693359375f) - n * vsplat(-2.12194440e-4f);
	p = vsplat(1.9875691500e-4f);
	p = p * r + vsplat(1.3981999507e-3f);
	p = p * r + vsplat(8.3334519073e-3f);
	p = p * r + vsplat(4.1665795894e-2f);
	p = p * r + vsplat(1.6666665459e-1f);
	p = p * r + vsplat(5.0000001201e-1f);
	p = p * r * r + r + vsplat(1.0f);
	/* the low mantissa bits of t hold n: add n to p's exponent */
	bits = ((vi)t - (vi)magic) << 23;
	return (vf)((vi)p + bits);
}

VINLINE vf
verf(vf x)
{
	vf	x2, p, q;

	x = vclamp(x, -4.0f, 4.0f);
	x2 = x * x;
	p = x2 * vsplat(-2.72614225801306e-10f) +
	    vsplat(2.77068142495902e-08f);
	p = x2 * p + vsplat(-2.10102402082508e-06f);
	p = x2 * p + vsplat(-5.69250639462346e-05f);
	p = x2 * p + vsplat(-7.34990630326855e-04f);
	p = x2 * p + vsplat(-2.95459980854025e-03f);
	p = x2 * p + vsplat(-1.60960333262415e-02f);
	q = x2 * vsplat(-1.45660718464996e-05f) +
	    vsplat(-2.13374055278905e-04f);
	q = x2 * q + vsplat(-1.68282697438203e-03f);
	q = x2 * q + vsplat(-7.37332916720468e-03f);
	q = x2 * q + vsplat(-1.42647390514189e-02f);
	return x * p / q;
}

VINLINE vf
vload(const float *p)
{
	vf	v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* Lanes of the larger of a and b. */
VINLINE vf
vmax(vf a, vf b)
{
	vi	m = a > b;

	return (vf)(((vi)a & m) | ((vi)b & ~m));
}

/* The sum of v's lanes: four halvings. */
VINLINE float
vhsum(vf v)
{
	v += VSHUFFLE(v, 8, 9, 10, 11, 12, 13, 14, 15, 0, 0, 0, 0, 0, 0, 0, 0);
	v += VSHUFFLE(v, 4, 5, 6, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
	v += VSHUFFLE(v, 2, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
	v += VSHUFFLE(v, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
	return v[0];
}

/*
 * A row's last, partial vector: the m < VN floats at p, zero padded, and
 * back. Out of line, so that the loops' full vectors stay in registers.
 */
static __attribute__((noinline)) void
vtail_load(vf *v, const float *p, int m)
{
	memset(v, 0, sizeof(*v));
	memcpy(v, p, (size_t)m * sizeof(float));
}

static __attribute__((noinline)) void
vtail_store(float *p, const vf *v, int m)
{
	memcpy(p, v, (size_t)m * sizeof(float));
}

/* The first m floats at p (all VN when m >= VN), zero padded. */
VINLINE vf
vpart(const float *p, int m)
{
	vf	v;

	if (m >= VN)
		return vload(p);
	vtail_load(&v, p, m);
	return v;
}

VINLINE void
vstore_part(float *p, vf v, int m)
{
	if (m >= VN)
		memcpy(p, &v, sizeof(v));
	else
		vtail_store(p, &v, m);
}

/* v's first m lanes, then lanes of fill. */
VINLINE vf
vfirst(vf v, int m, vf fill)
{
	const vi	lane = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13,
			    14, 15 };
	vi		keep = lane < m;

	return (vf)(((vi)v & keep) | ((vi)fill & ~keep));
}

/*
 * y = LN(y + bias + res) * g + b, row by row: bias [h] and res [n, h],
 * the block's input that the residual connection adds, may be NULL.
 */
CLONES static void
layer_norm(float *y, int n, int h, const float *bias, const float *res,
    const float *g, const float *b, double eps)
{
	vf	v, acc, mean, inv;
	float	*r;
	int	 i, j;

	for (i = 0; i < n; i++) {
		r = y + (size_t)i * h;
		acc = vsplat(0);
		for (j = 0; j < h; j += VN) {
			v = vpart(r + j, h - j);
			if (bias != NULL)
				v += vpart(bias + j, h - j);
			if (res != NULL)
				v += vpart(res + (size_t)i * h + j, h - j);
			vstore_part(r + j, v, h - j);
			acc += v;
		}
		mean = vsplat(vhsum(acc) / (float)h);
		acc = vsplat(0);
		for (j = 0; j < h; j += VN) {
			v = vfirst(vpart(r + j, h - j) - mean, h - j,
			    vsplat(0));
			acc += v * v;
		}
		inv = vsplat(1.0f / sqrtf(vhsum(acc) / (float)h +
		    (float)eps));
		for (j = 0; j < h; j += VN)
			vstore_part(r + j, (vpart(r + j, h - j) - mean) * inv *
			    vpart(g + j, h - j) + vpart(b + j, h - j), h - j);
	}
}

/*
 * Softmax over each column of s[n, ld], one query's scores against the n
 * keys, but for its division: s = exp(scale * (s - the column's max))
 * and sums[c] = 1 / the column's sum, which attention applies to the
 * n x d product rather than to the n x n scores (rows_scale). Sixteen
 * queries go down the keys side by side, so there is no horizontal step
 * and no partial vector: columns n .. ld are scratch.
 */
CLONES static void
softmax_cols(float *s, int n, int ld, float scale, float *sums)
{
	const vf	ninf = vsplat(-INFINITY), mul = vsplat(scale);
	vf		v, top, top2, sum;
	float		*p;
	int		c, j;

	for (c = 0; c < n; c += VN) {
		p = s + c;
		/* two maxima, so that each waits on the other's latency */
		top = top2 = ninf;
		for (j = 0; j + 1 < n; j += 2) {
			top = vmax(top, vload(p + (size_t)j * ld));
			top2 = vmax(top2, vload(p + (size_t)(j + 1) * ld));
		}
		if (j < n)
			top = vmax(top, vload(p + (size_t)j * ld));
		top = vmax(top, top2);
		sum = vsplat(0);
		for (j = 0; j < n; j++, p += ld) {
			v = vexp((vload(p) - top) * mul);
			memcpy(p, &v, sizeof(v));
			sum += v;
		}
		vstore_part(sums + c, vsplat(1) / sum, n - c);
	}
}

/* y = GELU(y) over n floats (biases already added), exact erf form. */
CLONES static void
gelu(float *y, int n)
{
	vf	v;
	int	j;

	for (j = 0; j < n; j += VN) {
		v = vpart(y + j, n - j);
		vstore_part(y + j, vsplat(0.5f) * v * (vsplat(1.0f) +
		    verf(v * vsplat((float)M_SQRT1_2))), n - j);
	}
}


/*
 * y[n, out] = x[n, k] . w[out, k]^T + bias (may be NULL) through CBLAS
 * (no gemm.c): y's rows are set to the bias for the product to add onto.
 */
static void
blas_nt(const float *x, int ldx, int n, const float *w, int out, int k,
    const float *bias, float *y, int ldy)
{
	int	i;

	for (i = 0; i < n && bias != NULL; i++)
		memcpy(y + (size_t)i * ldy, bias, (size_t)out * sizeof(float));
	blas_sgemm(BLAS_ROW_MAJOR, BLAS_NO_TRANS, BLAS_TRANS, n, out, k, 1.0f,
	    x, ldx, w, k, bias != NULL ? 1.0f : 0.0f, y, ldy);
}

/*
 * y[n, m.out] = x[n, m.k] . W^T + bias (may be NULL) on up to threads
 * threads: W packed in m, or raw at w for CBLAS.
 */
static void
linear(const struct bert *b, int threads, const float *x, int ldx, int n,
    const struct gemm_mat *m, const float *w, const float *bias, float *y,
    int ldy)
{
	if (b->gemm != NULL)
		gemm_np(b->gemm, threads, x, ldx, n, m, bias, NULL, y, ldy);
	else
		blas_nt(x, ldx, n, w, m->out, m->k, bias, y, ldy);
}

/* GELU on a panel of the intermediate product as gemm_np finishes it. */
static void
gelu_panel(float *y, int n, int cols, int ldy)
{
	int	r;

	for (r = 0; r < n; r++)
		gelu(y + (size_t)r * ldy, cols);
}

/*
 * The feed-forward block's first half: GELU(x . Wi^T + bi). With gemm.c
 * the activation runs on each panel inside the product, while it is in
 * cache, instead of in a pass and a job of its own.
 */
static void
intermediate(const struct bert *b, int threads, const struct layer *L,
    const float *x, int n, float *y)
{
	int	h = b->cfg.hidden, in = b->cfg.inter;

	if (b->gemm != NULL) {
		gemm_np(b->gemm, threads, x, h, n, &L->i, L->bi, gelu_panel,
		    y, in);
		return;
	}
	blas_nt(x, h, n, L->wi, in, h, L->bi, y, in);
	gelu(y, n * in);
}

/*
 * LayerNorm on the pool's threads, BERT_ROWS_ITEM rows an item;
 * under BERT_MT_ROWS rows waking a thread costs more than it saves.
 */
#define BERT_MT_ROWS	32
#define BERT_ROWS_ITEM	8

struct rows {
	float		*y;
	int		 n, h;		/* rows, floats per row */
	const float	*bias, *res, *g, *b;
	double		 eps;
};

static int
rows_items(int n)
{
	return (n + BERT_ROWS_ITEM - 1) / BERT_ROWS_ITEM;
}

static int
rows_in_item(const struct rows *a, int item)
{
	int	left = a->n - item * BERT_ROWS_ITEM;

	return left < BERT_ROWS_ITEM ? left : BERT_ROWS_ITEM;
}

static void
layer_norm_item(void *arg, int item, int t)
{
	const struct rows	*a = arg;
	size_t			 at = (size_t)item * BERT_ROWS_ITEM * a->h;

	(void)t;
	layer_norm(a->y + at, rows_in_item(a, item), a->h, a->bias,
	    a->res != NULL ? a->res + at : NULL, a->g, a->b, a->eps);
}


/* layer_norm of y's n rows of h after a block whose input was res, on
 * the pool when it pays. */
static void
norm_rows(const struct bert *b, int threads, float *y, int n,
    const float *bias, const float *res, const float *g, const float *beta)
{
	struct rows	a = { y, n, b->cfg.hidden, bias, res, g, beta,
			    b->cfg.eps };

	if (b->gemm != NULL && n >= BERT_MT_ROWS)
		gemm_run(b->gemm, threads, rows_items(n), layer_norm_item,
		    &a);
	else
		layer_norm(y, n, a.h, bias, res, g, beta, a.eps);
}


/* One layer's heads of every sequence of a batch, for attention_head. */
struct heads {
	const struct bert	*b;
	struct bert_ws		*ws;
	const int		*len;	/* [nseq] tokens of each sequence */
	const int		*off;	/* [nseq] its first row */
};

/* ctx[i][0 .. d) *= sums[i] for each of n rows ld floats apart. */
static void
rows_scale(float *ctx, int n, int d, int ld, const float *sums)
{
	float	*r;
	int	 i, j;

	for (i = 0; i < n; i++) {
		r = ctx + (size_t)i * ld;
		for (j = 0; j < d; j++)
			r[j] *= sums[i];
	}
}

/*
 * Head k of the layer whose Q, K and V are in ws->qkv, into its columns
 * of ws->ctx, with thread t's scratch. Both products are gemm.c's on
 * this thread, setting rather than adding to their outputs. The scores
 * are computed transposed, S^T = K . Q^T (Q packed as the weights), so
 * that softmax runs down columns sixteen queries at a time and leaves P
 * transposed, which is how ctx = P . V (V^T packed) reads it in place.
 */
static void
attention_head(void *arg, int job, int t)
{
	const struct heads	*a = arg;
	const struct bert	*b = a->b;
	struct bert_ws		*ws = a->ws;
	struct gemm_mat		 qp, vp;
	int			 seq = job / b->cfg.heads, k = job % b->cfg.heads;
	int			 n = a->len[seq], h = b->cfg.hidden;
	int			 ld = scores_ld(n), d = h / b->cfg.heads;
	float			*scores, *sums, *xp, *ctx;
	const float		*q = ws->qkv + (size_t)a->off[seq] * 3 * h +
				    k * d;

	scores = ws->scores + (size_t)t * ws->max * scores_ld(ws->max);
	sums = ws->sums + (size_t)t * ws->max;
	qp.data = ws->qp + (size_t)t * ws->qp_len;
	vp.data = ws->vp + (size_t)t * ws->vp_len;
	xp = ws->xp + (size_t)t * ws->xp_len;
	ctx = ws->ctx + (size_t)a->off[seq] * h + k * d;
	gemm_pack_here(&qp, q, 3 * h, n, d);
	gemm_np_here(b->gemm, xp, q + h, 3 * h, n, &qp, scores, ld);
	softmax_cols(scores, n, ld, 1.0f / sqrtf((float)d), sums);
	gemm_pack_t_here(&vp, q + 2 * h, 3 * h, n, d);
	gemm_tn_here(b->gemm, scores, ld, n, &vp, ctx, h);
	rows_scale(ctx, n, d, h, sums);
}

/* attention_head through CBLAS, every head of every sequence, on one
 * thread. */
static void
attention_blas(const struct bert *b, const struct heads *a, int nseq)
{
	struct bert_ws	*ws = a->ws;
	int		 h = b->cfg.hidden, d = h / b->cfg.heads, ld, n, k, s;
	float		*q, *ctx;

	for (s = 0; s < nseq; s++) {
		n = a->len[s];
		ld = scores_ld(n);
		for (k = 0; k < b->cfg.heads; k++) {
			q = ws->qkv + (size_t)a->off[s] * 3 * h + k * d;
			ctx = ws->ctx + (size_t)a->off[s] * h + k * d;
			blas_sgemm(BLAS_ROW_MAJOR, BLAS_NO_TRANS, BLAS_TRANS, n,
			    n, d, 1, q + h, 3 * h, q, 3 * h, 0, ws->scores,
			    ld);
			softmax_cols(ws->scores, n, ld, 1.0f /
			    sqrtf((float)d), ws->sums);
			blas_sgemm(BLAS_ROW_MAJOR, BLAS_TRANS, BLAS_NO_TRANS, n,
			    d, n, 1, ws->scores, ld, q + 2 * h, 3 * h, 0, ctx,
			    h);
			rows_scale(ctx, n, d, h, ws->sums);
		}
	}
}

/* Self-attention of a batch: the products over all n rows at once, the
 * heads within each sequence (a's). */
static void
attention(const struct bert *b, const struct layer *L, struct bert_ws *ws,
    const struct heads *a, int nseq, int n, int threads)
{
	int	h = b->cfg.hidden;

	if (b->gemm != NULL) {
		linear(b, threads, ws->x, h, n, &L->qkv, NULL, L->bqkv,
		    ws->qkv, 3 * h);
		gemm_run(b->gemm, threads, nseq * b->cfg.heads,
		    attention_head, (void *)a);
	} else {
		blas_nt(ws->x, h, n, L->wq, h, h, L->bq, ws->qkv, 3 * h);
		blas_nt(ws->x, h, n, L->wk, h, h, L->bk, ws->qkv + h, 3 * h);
		blas_nt(ws->x, h, n, L->wv, h, h, L->bv, ws->qkv + 2 * h,
		    3 * h);
		attention_blas(b, a, nseq);
	}
	linear(b, threads, ws->ctx, h, n, &L->o, L->wo, NULL, ws->tmp, h);
	norm_rows(b, threads, ws->tmp, n, L->bo, ws->x, L->ln1_g, L->ln1_b);
}

static void
feed_forward(const struct bert *b, const struct layer *L,
    struct bert_ws *ws, int n, int threads)
{
	int	h = b->cfg.hidden, in = b->cfg.inter;

	intermediate(b, threads, L, ws->tmp, n, ws->inter);
	linear(b, threads, ws->inter, in, n, &L->d, L->wd, NULL, ws->x, h);
	norm_rows(b, threads, ws->x, n, L->bd, ws->tmp, L->ln2_g, L->ln2_b);
}

/* Mean-pool rows [0, n) of x (h floats each) and L2-normalise into out. */
static void
pool(const float *x, int n, int h, double *sum, float *out)
{
	double	norm = 0;
	int	i, j;

	for (j = 0; j < h; j++)
		sum[j] = 0;
	for (i = 0; i < n; i++) {
		for (j = 0; j < h; j++)
			sum[j] += x[(size_t)i * h + j];
	}
	for (j = 0; j < h; j++)
		norm += sum[j] * sum[j];
	norm = norm > 0 ? sqrt(norm) : 1;
	for (j = 0; j < h; j++)
		out[j] = (float)(sum[j] / norm);
}

void
bert_embed_batch(const struct bert *b, struct bert_ws *ws,
    const int32_t *ids, const int *len, int nseq, float *out)
{
	struct heads	 a;
	int		*off = ws->off;
	int		 h = b->cfg.hidden, i, j, l, s, n = 0;
	float		*r;

	for (s = 0; s < nseq; s++) {
		off[s] = n;
		n += len[s];
	}
	if (b->gemm == NULL)
		blas_set_threads(n < BERT_MT_TOKENS ? 1 : b->threads);
	for (s = 0; s < nseq; s++)
		for (i = 0; i < len[s]; i++) {
			r = ws->x + (size_t)(off[s] + i) * h;
			st_read(b->word, (int64_t)ids[off[s] + i] * h, h, r);
			for (j = 0; j < h; j++)
				r[j] += b->pos[(size_t)i * h + j] + b->type[j];
		}
	layer_norm(ws->x, n, h, NULL, NULL, b->ln_g, b->ln_b, b->cfg.eps);
	a.b = b;
	a.ws = ws;
	a.len = len;
	a.off = off;
	for (l = 0; l < b->cfg.layers; l++) {
		attention(b, &b->layer[l], ws, &a, nseq, n, b->threads);
		feed_forward(b, &b->layer[l], ws, n, b->threads);
	}
	for (s = 0; s < nseq; s++)
		pool(ws->x + (size_t)off[s] * h, len[s], h, ws->pool,
		    out + (size_t)s * h);
}

void
bert_embed(const struct bert *b, struct bert_ws *ws, const int32_t *ids,
    int n, float *out)
{
	bert_embed_batch(b, ws, ids, &n, 1, out);
}
