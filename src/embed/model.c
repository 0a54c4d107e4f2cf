/*
 * model.c — the embedding model as the rest of thatch sees it: resolve an
 * id to a folder (downloading what is missing), load tokenizer, config and
 * weights, and turn text into one normalised vector.
 *
 * Knows nothing of memories (DESIGN principle 3).
 *  1. A Hub id resolves to <cache_dir>/<id>/; a folder that exists, or an
 *     id starting with '/', '.' or '~', is used in place and never
 *     downloaded into.
 *  2. A cached model is complete when config.json, model.safetensors and
 *     vocab.txt or tokenizer.json are present; only then is the network
 *     skipped, and only missing files are fetched.
 *  3. The id Xenova/bge-small-en-v1.5 (what users of the original set) is
 *     fetched from BAAI/bge-small-en-v1.5, whose safetensors hold the same
 *     weights as Xenova's ONNX export; both are tagged MODEL_DEFAULT_TAG
 *     so that rows from either implementation read as one space
 *     (store-and-tools §7).
 *  4. model_embed allocates nothing but the tokenizer's scratch: ids, the
 *     prefixed text and the encoder's workspace are reused.
 *  5. A vector is returned only if every file it was computed from was
 *     intact throughout (st_intact, bert_intact: a file cut in place
 *     under the process reads as zeros, util/os/mapguard.c). Otherwise the
 *     weights are loaded again from the same files — a packed cache cut
 *     is packed anew — and the text embedded once more; a model file
 *     that cannot be loaded fails this call and is retried by the next,
 *     and the process lives on either way.
 */
#include "embed/model.h"

#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "embed/bert.h"
#include "embed/hub.h"
#include "embed/st.h"
#include "embed/tok.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/jsonx.h"
#include "util/log.h"
#include "util/path.h"
#include "util/sbuf.h"
#include "util/sha256.h"
#include "util/xmalloc.h"

/* transformers.js truncates at the tokenizer's model_max_length. */
#define MODEL_MAX_TOKENS	512

struct model {
	char			*dir;		/* owned */
	char			*tag;		/* owned */
	char			*path;		/* owned: model.safetensors */
	char			*pack_dir;	/* owned; NULL: pack in memory */
	enum bert_kernels	 kernels;
	struct st		*st;		/* owned */
	struct tok		*tok;		/* owned */
	struct bert		*bert;		/* owned */
	struct bert_ws		*ws;		/* owned */
	struct bert_config	 cfg;
	int			 threads;
	int			 max_tokens;
	int32_t			*ids;		/* owned: [max_tokens] */
	int32_t			*batch;		/* owned: [max_tokens] */
	int			*lens;		/* owned: [max_tokens] */
	struct sbuf		 text;		/* prefix + text */
};

/* Files fetched for a Hub model, in order; required ones fail the pull. */
static const struct {
	const char	*name;
	bool		 required;
} model_files[] = {
	{ "config.json", true },
	{ "tokenizer_config.json", false },
	{ "vocab.txt", false },
	{ "tokenizer.json", false },
	{ "model.safetensors", true },
};

void
model_opts_init(struct model_opts *o, const struct paths *p)
{
	const char	*v;
	char		*end;
	long		 n;

	memset(o, 0, sizeof(*o));
	v = path_env("THATCH_MODEL");
	o->id = xstrdup(v ? v : MODEL_DEFAULT_ID);
	v = path_env("HF_HOME");
	o->cache_dir = v ? xstrdup(v) :
	    path_join(p->cache_home, "thatch/models");
	o->pack_dir = path_join(p->cache_home, "thatch/packed");
	v = path_env("HF_ENDPOINT");
	o->endpoint = xstrdup(v ? v : "https://huggingface.co");
	/* "https://hub.example/" must not make "//" in every URL */
	while ((n = (long)strlen(o->endpoint)) > 0 &&
	    o->endpoint[n - 1] == '/')
		o->endpoint[n - 1] = '\0';
	v = path_env("HF_TOKEN");
	o->token = v ? xstrdup(v) : NULL;
	v = path_env("THATCH_THREADS");
	if (v != NULL) {
		n = strtol(v, &end, 10);
		if (*end == '\0' && n > 0 && n < 1024)
			o->threads = (int)n;
	}
	o->download = true;
	o->progress = true;
}

void
model_opts_release(struct model_opts *o)
{
	free(o->id);
	free(o->cache_dir);
	free(o->pack_dir);
	free(o->endpoint);
	free(o->token);
	memset(o, 0, sizeof(*o));
}

static bool
is_dir(const char *path)
{
	struct stat	sb;

	return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

/* A Hub id: "name" or "owner/name" of [A-Za-z0-9._-], no "..". */
static bool
is_hub_id(const char *id)
{
	const char	*p;
	int		 slashes = 0;

	if (*id == '\0' || *id == '.' || *id == '-' || strstr(id, "..") ||
	    id[strlen(id) - 1] == '/')
		return false;
	for (p = id; *p; p++) {
		if (*p == '/')
			slashes++;
		else if (!(*p >= 'a' && *p <= 'z') && !(*p >= 'A' &&
		    *p <= 'Z') && !(*p >= '0' && *p <= '9') &&
		    !strchr("._-", *p))
			return false;
	}
	return slashes <= 1;
}

static bool
has_file(const char *dir, const char *name)
{
	char	*p = path_join(dir, name);
	bool	 ok = fileio_exists(p);

	free(p);
	return ok;
}

static bool
complete(const char *dir)
{
	return has_file(dir, "config.json") &&
	    has_file(dir, "model.safetensors") &&
	    (has_file(dir, "vocab.txt") || has_file(dir, "tokenizer.json"));
}

/*
 * The Hub refused a required file (r: HUB_MISSING or HUB_DENIED). The
 * first one, config.json, tells whether the model exists at all: then
 * the message says so, not that the network is down (issue 15).
 */
static int
refused(const struct model_opts *o, const char *hub, const char *file,
    int r, struct err *err)
{
	if (strcmp(file, model_files[0].name) != 0)
		return err_set(err, "model '%s' on %s has no %s: thatch needs "
		    "a BERT model with safetensors weights", hub, o->endpoint,
		    file);
	if (r == HUB_MISSING)
		return err_set(err, "model '%s' does not exist on %s: check "
		    "the id (THATCH_MODEL, or the one given to model pull)",
		    hub, o->endpoint);
	return err_set(err, "model '%s' does not exist on %s, or is private "
	    "or gated: check the id, or %s", hub, o->endpoint, o->token ?
	    "give HF_TOKEN access to it" : "set HF_TOKEN to a token that may "
	    "read it");
}

/*
 * Fetch what dir lacks of hub id from the endpoint. Returns 0; -2 when
 * the Hub refused a required file (err says why, and no retry online
 * would help); -1 on any other failure.
 */
static int
download(const struct model_opts *o, const char *hub, const char *dir,
    struct err *err)
{
	char	*url, *path;
	size_t	 i;
	int	 r = 0;

	for (i = 0; i < sizeof(model_files) / sizeof(model_files[0]); i++) {
		if (has_file(dir, model_files[i].name))
			continue;
		/* one tokenizer is enough: tokenizer.json only without vocab */
		if (strcmp(model_files[i].name, "tokenizer.json") == 0 &&
		    has_file(dir, "vocab.txt"))
			continue;
		url = xasprintf("%s/%s/resolve/main/%s", o->endpoint, hub,
		    model_files[i].name);
		path = path_join(dir, model_files[i].name);
		r = hub_fetch(url, path, o->token, o->progress, err);
		free(url);
		free(path);
		if (r < 0)
			return -1;
		if (r > 0 && model_files[i].required) {
			refused(o, hub, model_files[i].name, r, err);
			return -2;
		}
	}
	if (!complete(dir))
		return err_set(err, "%s has neither vocab.txt nor "
		    "tokenizer.json for '%s'", o->endpoint, hub);
	return 0;
}

/* opts->id to a folder holding a complete model (rule 1 and 2). */
static int
resolve(const struct model_opts *o, char **dir, struct err *err)
{
	const char	*hub = o->id;
	char		 why[sizeof(err->msg)];
	int		 r = 0;

	*dir = NULL;
	if (is_dir(o->id) || strchr("/.~", o->id[0]) != NULL) {
		if (!complete(o->id))
			return err_set(err, "model folder '%s' needs "
			    "config.json, model.safetensors and vocab.txt or "
			    "tokenizer.json (check THATCH_MODEL)", o->id);
		*dir = xstrdup(o->id);
		return 0;
	}
	if (!is_hub_id(o->id))
		return err_set(err, "THATCH_MODEL '%s' is neither a model "
		    "folder nor a Hugging Face model id", o->id);
	if (strcmp(o->id, MODEL_DEFAULT_TAG) == 0)
		hub = MODEL_DEFAULT_ID;
	*dir = path_join(o->cache_dir, hub);
	if (complete(*dir))
		return 0;
	if (!o->download)
		err_set(err, "it is not in %s", *dir);
	if (o->download && (r = download(o, hub, *dir, err)) == -2) {
		free(*dir);
		*dir = NULL;
		return -1;	/* the Hub said no: pulling again would too */
	}
	if (!o->download || r != 0) {
		snprintf(why, sizeof(why), "%s", err->msg);
		err_set(err, "model '%s' is not available (%s): run `thatch "
		    "model pull` when online, or set THATCH_MODEL to a model "
		    "folder", hub, why);
		free(*dir);
		*dir = NULL;
		return -1;
	}
	return 0;
}

static int
load_config(const char *dir, struct bert_config *cfg, struct err *err)
{
	struct sbuf	 sb = SBUF_INIT;
	json_t		*v = NULL;
	char		*path = path_join(dir, "config.json");
	int		 rc = -1;

	if (fileio_read(path, &sb, err) != 0)
		err_set(err, "cannot read '%s'", path);
	else if ((v = jsonx_parse(sb.buf, sb.len, path, err)) != NULL)
		rc = bert_config_parse(v, path, cfg, err);
	json_decref(v);
	sbuf_release(&sb);
	free(path);
	return rc;
}

static int
machine_threads(int want)
{
	long	cores = sysconf(_SC_NPROCESSORS_ONLN);

	if (cores < 1)
		cores = 1;
	/* more threads than cores never helps a compute-bound sgemm */
	return want > 0 && want < cores ? want : (int)cores;
}

/*
 * The packed-weights file for the model file at path in pack_dir, named
 * by a hash of the file's identity (where it is, its size, modification
 * time and inode) and BERT_PACK_LAYOUT: a model replaced in place or a new
 * layout gets a new name. NULL without a pack_dir or when path cannot be
 * examined.
 */
static char *
pack_path(const char *pack_dir, const char *path)
{
	struct stat	 sb;
	char		*real, *key, *name, *out, hex[SHA256_HEX_LEN];

	if (pack_dir == NULL || (real = realpath(path, NULL)) == NULL)
		return NULL;
	if (stat(real, &sb) != 0) {
		free(real);
		return NULL;
	}
	key = xasprintf("%s\n%s\n%lld %lld.%09ld %llu %llu", BERT_PACK_LAYOUT,
	    real, (long long)sb.st_size, (long long)sb.st_mtim.tv_sec,
	    sb.st_mtim.tv_nsec, (unsigned long long)sb.st_ino,
	    (unsigned long long)sb.st_dev);
	name = xasprintf("%.32s.bin", sha256_hex(key, strlen(key), hex));
	out = path_join(pack_dir, name);
	free(name);
	free(key);
	free(real);
	return out;
}

/* Map m->path and bind its weights into *st and *b, for m's config. */
static int
load_weights(const struct model *m, struct st **st, struct bert **b,
    struct err *err)
{
	char	*packed;
	int	 rc;

	*b = NULL;
	if (st_open(m->path, st, err) != 0)
		return -1;
	packed = pack_path(m->pack_dir, m->path);
	rc = bert_new(*st, &m->cfg, m->threads, m->kernels, packed, b, err);
	free(packed);
	if (rc != 0) {
		err_wrap(err, "'%s'", m->path);
		st_close(*st);
		*st = NULL;
	}
	return rc;
}

static bool
intact(const struct model *m)
{
	return st_intact(m->st) && bert_intact(m->bert);
}

/*
 * Invariant 5: replace weights read from a file that changed under them
 * by the files as they are now. The workspace fits any weights of the
 * same config and threads, so it stays.
 */
static int
reload(struct model *m, struct err *err)
{
	struct st	*st;
	struct bert	*b;
	char		 why[sizeof(err->msg)];

	if (load_weights(m, &st, &b, err) != 0) {
		snprintf(why, sizeof(why), "%s", err->msg);
		return err_set(err, "model file changed on disk while in use "
		    "and cannot be loaded again (%s); restore it or restart "
		    "thatch", why);
	}
	bert_free(m->bert);
	st_close(m->st);
	m->bert = b;
	m->st = st;
	log_debug("embed", "'%s' changed on disk: weights loaded again",
	    m->path);
	return 0;
}

int
model_open(const struct model_opts *o, struct model **out, struct err *err)
{
	struct model	*m;
	int		 rc = -1;

	*out = NULL;
	m = xcalloc(1, sizeof(*m));
	sbuf_init(&m->text);
	if (resolve(o, &m->dir, err) != 0)
		goto out;
	m->tag = xstrdup(strcmp(o->id, MODEL_DEFAULT_ID) == 0 ?
	    MODEL_DEFAULT_TAG : o->id);
	m->path = path_join(m->dir, "model.safetensors");
	m->pack_dir = o->pack_dir ? xstrdup(o->pack_dir) : NULL;
	m->kernels = o->kernels;
	m->threads = machine_threads(o->threads);
	if (load_config(m->dir, &m->cfg, err) != 0 ||
	    tok_new(m->dir, &m->tok, err) != 0 ||
	    load_weights(m, &m->st, &m->bert, err) != 0)
		goto out;
	if (tok_vocab_size(m->tok) > m->cfg.vocab) {
		err_set(err, "'%s': the tokenizer has %d tokens, the model "
		    "%d embeddings", m->dir, tok_vocab_size(m->tok),
		    m->cfg.vocab);
		goto out;
	}
	m->max_tokens = m->cfg.max_pos < MODEL_MAX_TOKENS ? m->cfg.max_pos :
	    MODEL_MAX_TOKENS;
	m->ids = xreallocarray(NULL, (size_t)m->max_tokens, sizeof(*m->ids));
	m->batch = xreallocarray(NULL, (size_t)m->max_tokens,
	    sizeof(*m->batch));
	m->lens = xreallocarray(NULL, (size_t)m->max_tokens, sizeof(*m->lens));
	m->ws = bert_ws_new(m->bert, m->max_tokens);
	*out = m;
	m = NULL;
	rc = 0;
out:
	model_close(m);
	return rc;
}

void
model_close(struct model *m)
{
	if (m == NULL)
		return;
	bert_ws_free(m->ws);
	bert_free(m->bert);
	st_close(m->st);
	tok_free(m->tok);
	free(m->ids);
	free(m->batch);
	free(m->lens);
	sbuf_release(&m->text);
	free(m->pack_dir);
	free(m->path);
	free(m->tag);
	free(m->dir);
	free(m);
}

int
model_dim(const struct model *m)
{
	return m->cfg.hidden;
}

const char *
model_tag(const struct model *m)
{
	return m->tag;
}

void
model_describe(const struct model *m, struct model_info *info)
{
	const struct st_tensor	*big = NULL;
	size_t			 i;

	for (i = 0; i < m->st->n; i++) {
		if (big == NULL || m->st->tensors[i].count > big->count)
			big = &m->st->tensors[i];
	}
	info->dir = m->dir;
	info->tag = m->tag;
	info->dim = m->cfg.hidden;
	info->layers = m->cfg.layers;
	info->heads = m->cfg.heads;
	info->max_tokens = m->max_tokens;
	info->threads = m->threads;
	info->dtype = big ? st_dtype_name(big->dtype) : "F32";
	info->bytes = (long long)m->st->size;
	info->isa = bert_kernels_name(m->bert);
}

/* The token ids of text (the query prefix first for EMBED_QUERY) into
 * ids[max_tokens]; returns their number. */
static int
encode(struct model *m, const char *text, size_t len, enum embed_kind kind,
    int32_t *ids)
{
	if (kind == EMBED_QUERY) {
		sbuf_reset(&m->text);
		sbuf_adds(&m->text, MODEL_QUERY_PREFIX);
		sbuf_add(&m->text, text, len);
		text = m->text.buf;
		len = m->text.len;
	}
	return tok_encode(m->tok, text, len, ids, m->max_tokens);
}

/* nseq sequences of ids (lens) through the encoder, files intact (5). */
static int
forward(struct model *m, const int32_t *ids, const int *lens, int nseq,
    float *out, struct err *err)
{
	int	tries;

	for (tries = 0; tries < 2; tries++) {
		if (!intact(m) && reload(m, err) != 0)
			return -1;
		bert_embed_batch(m->bert, m->ws, ids, lens, nseq, out);
		if (intact(m))
			return 0;
	}
	return err_set(err, "model file changed on disk while in use, "
	    "twice in a row; restore it or restart thatch");
}

int
model_embed(struct model *m, const char *text, size_t len,
    enum embed_kind kind, float *out, struct err *err)
{
	int	n = encode(m, text, len, kind, m->ids);

	return forward(m, m->ids, &n, 1, out, err);
}

int
model_embed_batch(struct model *m, const char *const *texts, size_t n,
    enum embed_kind kind, float *out, struct err *err)
{
	size_t	i, first = 0;
	int	len, total = 0, nseq = 0, cap = m->max_tokens;

	if (MODEL_BATCH_TOKENS < cap)
		cap = MODEL_BATCH_TOKENS;
	for (i = 0; i < n; i++) {
		len = encode(m, texts[i], strlen(texts[i]), kind, m->ids);
		if (nseq > 0 && total + len > cap) {
			if (forward(m, m->batch, m->lens, nseq, out +
			    first * (size_t)m->cfg.hidden, err) != 0)
				return -1;
			first = i;
			total = nseq = 0;
		}
		memcpy(m->batch + total, m->ids, (size_t)len * sizeof(*m->ids));
		m->lens[nseq++] = len;
		total += len;
	}
	if (nseq > 0)
		return forward(m, m->batch, m->lens, nseq, out +
		    first * (size_t)m->cfg.hidden, err);
	return 0;
}
