/* model.h — the embedding model: resolve, download, load, embed (model.c). */
#ifndef THATCH_EMBED_MODEL_H
#define THATCH_EMBED_MODEL_H

#include <stdbool.h>
#include <stddef.h>

#include "embed/bert.h"

struct err;
struct paths;

/* The default model and the tag the original writes for it (DESIGN.md). */
#define MODEL_DEFAULT_ID	"BAAI/bge-small-en-v1.5"
#define MODEL_DEFAULT_TAG	"Xenova/bge-small-en-v1.5"
/* Queries get this prefix; passages none (store-and-tools §7). */
#define MODEL_QUERY_PREFIX \
	"Represent this sentence for searching relevant passages: "

/* A loaded BERT-family encoder with its tokenizer. Opaque. */
struct model;

/*
 * Where the model comes from. model_opts_init fills every field from the
 * environment: id from THATCH_MODEL (a Hub id or a local folder; default
 * MODEL_DEFAULT_ID), cache_dir from HF_HOME, else
 * $XDG_CACHE_HOME/thatch/models; endpoint HF_ENDPOINT (default
 * https://huggingface.co); token HF_TOKEN; threads THATCH_THREADS (0: the
 * machine's cores); pack_dir for the packed copy of the weights every
 * process after the first maps (bert.c), NULL to pack in memory. Strings are owned; release with model_opts_release.
 */
struct model_opts {
	char	*id;
	char	*cache_dir;
	char	*pack_dir;	/* packed weights: $XDG_CACHE_HOME/thatch/packed */
	char	*endpoint;
	char	*token;
	int	 threads;
	enum bert_kernels kernels;	/* BERT_KERNELS_BEST but in tests */
	bool	 download;	/* fetch missing files (default true) */
	bool	 progress;	/* progress bar on stderr if it is a tty */
};

void	model_opts_init(struct model_opts *, const struct paths *);
void	model_opts_release(struct model_opts *);

enum embed_kind {
	EMBED_PASSAGE,		/* stored text: no prefix */
	EMBED_QUERY,		/* search text: MODEL_QUERY_PREFIX first */
};

/*
 * Resolve opts->id to a folder (downloading missing files when allowed),
 * validate and memory-map it. Fails with one line in err saying what is
 * wrong and how to fix it (e.g. offline with no cached model). Returns 0
 * and *out, or -1.
 */
int	model_open(const struct model_opts *, struct model **, struct err *);
void	model_close(struct model *);

/* Embedding dimension (hidden size): 384 for bge-small. */
int	model_dim(const struct model *);

/* The tag written to entries.model: MODEL_DEFAULT_TAG for the default
 * model, else the id as given. Borrowed for the model's life. */
const char *model_tag(const struct model *);

/* What `thatch model info` shows. Strings are borrowed for the model's
 * life. */
struct model_info {
	const char	*dir;		/* the resolved folder */
	const char	*tag;
	int		 dim, layers, heads, max_tokens, threads;
	const char	*dtype;		/* of the largest tensor: F32, ... */
	long long	 bytes;		/* size of model.safetensors */
	const char	*isa;		/* bert_kernels_name */
};

void	model_describe(const struct model *, struct model_info *);

/*
 * Embed len bytes of UTF-8 text into out[model_dim()]: tokenize (query
 * prefix for EMBED_QUERY), run the encoder, mean-pool, L2-normalise. Not
 * re-entrant: one call at a time per model. Returns 0, or -1 with err set.
 */
int	model_embed(struct model *, const char *, size_t, enum embed_kind,
	    float *out, struct err *);

/*
 * Tokens one forward pass of model_embed_batch takes at most: the texts
 * are packed into passes of up to this many tokens (bench/README.md,
 * b102: what batching gains per text at each size).
 */
#define MODEL_BATCH_TOKENS	512

/*
 * model_embed of n NUL-terminated texts into out[n * model_dim()], several
 * texts per forward pass (MODEL_BATCH_TOKENS): each vector is the one
 * model_embed gives for its text. Returns 0, or -1 with err set.
 */
int	model_embed_batch(struct model *, const char *const *texts, size_t n,
	    enum embed_kind, float *out, struct err *);

#endif
