/* bert.h — the BERT encoder forward pass over CBLAS (bert.c). */
#ifndef THATCH_EMBED_BERT_H
#define THATCH_EMBED_BERT_H

#include <stdbool.h>
#include <stdint.h>

struct err;
struct json_t;
struct st;

/* The shape of a BERT encoder, from config.json. */
struct bert_config {
	int	hidden;		/* hidden_size */
	int	layers;		/* num_hidden_layers */
	int	heads;		/* num_attention_heads */
	int	inter;		/* intermediate_size */
	int	vocab;		/* vocab_size */
	int	max_pos;	/* max_position_embeddings */
	int	type_vocab;	/* type_vocab_size */
	double	eps;		/* layer_norm_eps */
};

/*
 * Read config.json's object into cfg. Anything but a BERT encoder with
 * absolute positions and exact GELU is refused with a message naming the
 * setting; path is only used in messages.
 */
int	bert_config_parse(const struct json_t *, const char *path,
	    struct bert_config *, struct err *);

/*
 * Names the layout of packed weights (bert.c's order of matrices, gemm.h's
 * panels) in the cache file's key (model.c): change it with either.
 */
#define BERT_PACK_LAYOUT	"qkv,o,i,d per layer; 32-row panels; 1"

/* Weights bound to a safetensors file; the st must outlive the bert. */
struct bert;

/*
 * Which code multiplies: gemm.c's kernels for the ISA in effect
 * (util/isa.h's isa_select: the best the CPU has, or THATCH_ISA's; the
 * only choice outside tests), gemm.c's plain C kernels, or CBLAS. The
 * tests embed the fixtures with each, and with every ISA the CPU has.
 */
enum bert_kernels {
	BERT_KERNELS_BEST,
	BERT_KERNELS_GENERIC,
	BERT_KERNELS_CBLAS,
};

/*
 * Bind every tensor of a BertModel in st (optionally under "bert.") after
 * checking each one's presence and shape against cfg. The layers' matrices
 * are packed for gemm.c (its CPUs) or used in place by CBLAS (F32; F16 and
 * BF16 are widened to copies); the word embeddings stay in the file and
 * are widened row by row as tokens need them; the rest is copied.
 * pack_path names the file that keeps the packed matrices between
 * processes (packcache.c), or is NULL to pack in memory every time.
 * threads is the most threads to multiply on (>= 1). Free with bert_free.
 */
int	bert_new(const struct st *, const struct bert_config *, int threads,
	    enum bert_kernels, const char *pack_path, struct bert **,
	    struct err *);
void	bert_free(struct bert *);

/* What multiplies: the ISA of gemm.c's kernels (util/isa.h's name), or
 * "cblas". */
const char	*bert_kernels_name(const struct bert *);

/*
 * Whether the weights b reads from files are still the files' (st_intact,
 * packcache_intact for the packed copy it maps): when false, embeddings
 * computed since are garbage and b should be freed. The caller checks the
 * st it bound; this checks what b mapped itself.
 */
bool	bert_intact(const struct bert *);

/* Scratch memory for sequences of up to max_tokens, allocated once (per
 * thread where threads work apart). */
struct bert_ws;

struct bert_ws *bert_ws_new(const struct bert *, int max_tokens);
void	bert_ws_free(struct bert_ws *);

/*
 * Run the encoder on ids[n] (0 < n <= the workspace's max_tokens, every
 * id < cfg.vocab), mean-pool the last hidden state over all n positions
 * and L2-normalise into out[cfg.hidden]. Allocates nothing.
 */
void	bert_embed(const struct bert *, struct bert_ws *, const int32_t *ids,
	    int n, float *out);

/*
 * bert_embed of nseq sequences in one pass: sequence s is len[s] ids
 * (each > 0) of ids, after the ones before it, the total at most the
 * workspace's max_tokens; its vector goes to out[s * cfg.hidden]. The
 * linear layers, LayerNorm and GELU run over all rows at once (one
 * stream of the weights for the batch), attention within each sequence,
 * so each vector is the one bert_embed gives. Allocates nothing.
 */
void	bert_embed_batch(const struct bert *, struct bert_ws *,
	    const int32_t *ids, const int *len, int nseq, float *out);

#endif
