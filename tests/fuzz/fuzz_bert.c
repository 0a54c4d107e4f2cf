/*
 * fuzz_bert.c — the BERT forward pass (src/embed/bert.c, with gemm.c's
 * kernels and CBLAS) on small shapes. An input's first eight bytes pick a
 * config (1-4 heads of 1-24 dimensions, 1-2 layers, an intermediate size
 * of 1-96), the kernels, the dtype of the weights (F32, F16, BF16), one or
 * two threads and a seed for the weights, which are built in memory as a
 * safetensors image and go through st_parse and bert_new like a file; the
 * rest are the token ids, one byte each (modulo the vocabulary of 16).
 *
 * Properties (bert.h): the embedding is finite and of unit length; gemm.c's
 * kernels (the ISA in effect's, or the plain C ones) agree with CBLAS to within 1e-3 per component (test_bert holds
 * both to transformers.js's vectors at 1e-5 on the real shape).
 */
#include <math.h>
#include <stdbool.h>

#include <jansson.h>

#include "fuzz.h"

#include "embed/bert.h"
#include "embed/st.h"
#include "util/err.h"
#include "util/sbuf.h"

#define VOCAB		16
#define MAX_POS		64
#define NPARAMS		8

struct model {
	struct bert_config	 cfg;
	enum bert_kernels	 kernels;
	int			 dtype;		/* enum st_dtype */
	int			 threads;
	uint64_t		 rng;
};

static uint64_t
next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* One weight in [-0.5, 0.5) as dtype, little-endian, onto sb. */
static void
add_weight(struct sbuf *sb, int dtype, uint64_t *rng)
{
	uint64_t	r = next(rng);
	float		f = (float)(r >> 40) / (float)(1u << 24) - 0.5f;
	uint32_t	u;
	uint16_t	h;

	memcpy(&u, &f, sizeof(u));
	if (dtype == ST_F32) {
		sbuf_add(sb, &u, 4);
		return;
	}
	if (dtype == ST_BF16)
		h = (uint16_t)(u >> 16);
	else	/* F16: a normal number of magnitude 2^-10 .. 2^-1 */
		h = (uint16_t)((r & 0x8000) | ((5 + (r >> 16) % 10) << 10) |
		    ((r >> 32) & 0x3ff));
	sbuf_add(sb, &h, 2);
}

/* Tensor name (after "encoder.layer.<l>." when per layer) and shape: 'H' hidden, 'I' inter,
 * 'V' vocabulary, 'P' positions, 'T' token types, 0 none. */
static const struct {
	const char	*name;
	char		 d0, d1;
	bool		 per_layer;
} tensors[] = {
	{ "embeddings.word_embeddings.weight", 'V', 'H', false },
	{ "embeddings.position_embeddings.weight", 'P', 'H', false },
	{ "embeddings.token_type_embeddings.weight", 'T', 'H', false },
	{ "embeddings.LayerNorm.weight", 'H', 0, false },
	{ "embeddings.LayerNorm.bias", 'H', 0, false },
	{ "attention.self.query.weight", 'H', 'H', true },
	{ "attention.self.query.bias", 'H', 0, true },
	{ "attention.self.key.weight", 'H', 'H', true },
	{ "attention.self.key.bias", 'H', 0, true },
	{ "attention.self.value.weight", 'H', 'H', true },
	{ "attention.self.value.bias", 'H', 0, true },
	{ "attention.output.dense.weight", 'H', 'H', true },
	{ "attention.output.dense.bias", 'H', 0, true },
	{ "attention.output.LayerNorm.weight", 'H', 0, true },
	{ "attention.output.LayerNorm.bias", 'H', 0, true },
	{ "intermediate.dense.weight", 'I', 'H', true },
	{ "intermediate.dense.bias", 'I', 0, true },
	{ "output.dense.weight", 'H', 'I', true },
	{ "output.dense.bias", 'H', 0, true },
	{ "output.LayerNorm.weight", 'H', 0, true },
	{ "output.LayerNorm.bias", 'H', 0, true },
};

static int
dim(const struct bert_config *c, char d)
{
	switch (d) {
	case 'H':	return c->hidden;
	case 'I':	return c->inter;
	case 'V':	return c->vocab;
	case 'P':	return c->max_pos;
	case 'T':	return c->type_vocab;
	default:	return 0;
	}
}

/* m's weights as a safetensors image, into file. */
static void
build(struct model *m, struct sbuf *file)
{
	struct sbuf	 data = SBUF_INIT;
	json_t		*hdr = json_object();
	char		 name[128], *text;
	uint64_t	 hlen;
	size_t		 i, begin;
	int		 l, n, k, d0, d1;

	sbuf_init(&data);
	for (i = 0; i < sizeof(tensors) / sizeof(tensors[0]); i++)
		for (l = 0; l < (tensors[i].per_layer ? m->cfg.layers : 1);
		    l++) {
			if (tensors[i].per_layer)
				snprintf(name, sizeof(name),
				    "encoder.layer.%d.%s", l, tensors[i].name);
			else
				snprintf(name, sizeof(name), "%s",
				    tensors[i].name);
			d0 = dim(&m->cfg, tensors[i].d0);
			d1 = dim(&m->cfg, tensors[i].d1);
			n = d0 * (d1 ? d1 : 1);
			begin = data.len;
			for (k = 0; k < n; k++)
				add_weight(&data, m->dtype, &m->rng);
			json_object_set_new(hdr, name, json_pack(
			    "{s:s,s:o,s:[I,I]}", "dtype",
			    st_dtype_name(m->dtype), "shape", d1 ?
			    json_pack("[i,i]", d0, d1) : json_pack("[i]", d0),
			    "data_offsets", (json_int_t)begin,
			    (json_int_t)data.len));
		}
	text = json_dumps(hdr, JSON_COMPACT);
	hlen = strlen(text);
	sbuf_add(file, &hlen, 8);	/* little-endian: x86 and arm64 */
	sbuf_adds(file, text);
	sbuf_add(file, data.buf, data.len);
	free(text);
	json_decref(hdr);
	sbuf_release(&data);
}

/* Embed ids[n] with kernels into out; the model must be accepted. */
static void
embed(const struct st *st, const struct model *m, enum bert_kernels kernels,
    const int32_t *ids, int n, float *out)
{
	struct bert	*b = NULL;
	struct bert_ws	*ws;
	struct err	 err;

	if (bert_new(st, &m->cfg, m->threads, kernels, NULL, &b, &err) != 0) {
		fprintf(stderr, "bert_new: %s\n", err.msg);
		abort();
	}
	ws = bert_ws_new(b, n);
	bert_embed(b, ws, ids, n, out);
	bert_ws_free(ws);
	bert_free(b);
}

/* The config the first bytes pick, through bert_config_parse. */
static void
pick(const uint8_t *p, struct model *m)
{
	struct err	 err;
	json_t		*j;
	int		 heads = 1 + p[0] % 4;

	j = json_pack("{s:s,s:s,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:f}",
	    "model_type", "bert", "hidden_act", "gelu",
	    "hidden_size", heads * (1 + p[1] % 24),
	    "num_hidden_layers", 1 + p[2] % 2,
	    "num_attention_heads", heads,
	    "intermediate_size", 1 + p[3] % 96,
	    "vocab_size", VOCAB, "max_position_embeddings", MAX_POS,
	    "type_vocab_size", 2, "layer_norm_eps", 1e-12);
	FUZZ_ASSERT(bert_config_parse(j, "fuzz", &m->cfg, &err) == 0);
	json_decref(j);
	m->kernels = (enum bert_kernels)(p[4] % 3);
	m->dtype = p[5] % 3;
	m->threads = 1 + (p[6] & 1);
	m->rng = 0x9e3779b97f4a7c15ull ^ p[7];
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t		 params[NPARAMS] = { 0 };
	int32_t		 ids[MAX_POS] = { 0 };
	float		 out[96], ref[96];
	struct sbuf	 file = SBUF_INIT;
	struct model	 m;
	struct st	*st = NULL;
	struct err	 err;
	double		 norm = 0;
	int		 n, j;

	memcpy(params, data, size < NPARAMS ? size : NPARAMS);
	pick(params, &m);
	n = size > NPARAMS ? (int)(size - NPARAMS) : 0;
	if (n > MAX_POS)
		n = MAX_POS;
	for (j = 0; j < n; j++)
		ids[j] = data[NPARAMS + j] % VOCAB;
	if (n == 0)
		n = 1;

	sbuf_init(&file);
	build(&m, &file);
	FUZZ_ASSERT(st_parse(file.buf, file.len, &st, &err) == 0);
	embed(st, &m, m.kernels, ids, n, out);
	for (j = 0; j < m.cfg.hidden; j++) {
		FUZZ_ASSERT(isfinite(out[j]));
		norm += (double)out[j] * out[j];
	}
	FUZZ_ASSERT(fabs(norm - 1) < 1e-3);
	if (m.kernels != BERT_KERNELS_CBLAS) {
		embed(st, &m, BERT_KERNELS_CBLAS, ids, n, ref);
		for (j = 0; j < m.cfg.hidden; j++)
			FUZZ_ASSERT(fabsf(out[j] - ref[j]) < 1e-3f);
	}
	st_close(st);
	sbuf_release(&file);
	return 0;
}
