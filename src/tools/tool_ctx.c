/*
 * tool_ctx.c — the tool context every handler gets: its lazily loaded
 * model, the default behaviors seeded once that model is there, the
 * step-wise warm-up a server runs when idle, and embedding with it.
 *
 *  1. A failed model load is not remembered: the next call retries it
 *     (store-and-tools §7 "a failed load is forgotten").
 *  2. Seeding runs in the process that loads the model, after the load,
 *     never before the MCP server answers initialize; when every stamp is
 *     current it costs one SELECT and embeds nothing (engines-and-extras
 *     §A9).
 *  3. Beside a caller's work on a second thread (tool_embed_while), the
 *     model is only loaded or, once seeded, asked to embed: neither
 *     touches the store; seeding waits until that work is joined. The
 *     caller's work touches neither the model nor ctx.
 */
#include "tools/tool.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/engine/behavior.h"
#include "core/store/store.h"
#include "util/err.h"
#include "util/log.h"
#include "util/xmalloc.h"

void
tool_ctx_init(struct tool_ctx *ctx, struct store *st, const char *dflt,
    const struct paths *paths)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->store = st;
	ctx->default_store = dflt;
	ctx->paths = paths;
	ctx->clock = clock_system();
	ctx->notify = notify_spawner_system();
	model_opts_init(&ctx->model_opts, paths);
}

void
tool_ctx_release(struct tool_ctx *ctx)
{
	model_close(ctx->model);
	ctx->model = NULL;
	model_opts_release(&ctx->model_opts);
}

/* behavior_seed's embedder: a passage embedding with the model arg. */
static int
passage(void *arg, const char *text, float *out, struct err *err)
{
	return model_embed(arg, text, strlen(text), EMBED_PASSAGE, out, err);
}

/* The default behaviors, embedded with ctx's freshly loaded model;
 * failures are logged, never returned. */
static void
seed_behaviors(struct tool_ctx *ctx)
{
	struct behavior_embedder	emb;
	struct err			err;

	if (ctx->store == NULL || ctx->model == NULL)
		return;
	emb.embed = passage;
	emb.arg = ctx->model;
	emb.dim = model_dim(ctx->model);
	emb.model = model_tag(ctx->model);
	if (behavior_seed(ctx->store, &emb, &ctx->clock, NULL, &err) != 0)
		log_warn("seeding default behaviors: %s", err.msg);
}

/*
 * Seed the default behaviors (engines-and-extras §A9) once the model is
 * loaded, when the database takes a write now: seeding can wait, a tool
 * call behind another process's write transaction cannot (nine seeds at
 * the 5 s busy timeout each held a server 45 s). Until it is done, every
 * use of the model tries again; a lock taken meanwhile costs a seed
 * STORE_BEST_EFFORT_MS, not 5 s.
 */
static void
seed(struct tool_ctx *ctx)
{
	if (ctx->store != NULL && !store_can_write(ctx->store))
		return;
	if (ctx->store != NULL) {
		store_busy_timeout(ctx->store, STORE_BEST_EFFORT_MS);
		seed_behaviors(ctx);
		store_busy_timeout(ctx->store, STORE_BUSY_MS);
	}
	ctx->seeded = true;
}

/* The model, loaded if it is not: touches no store (invariant 3); a
 * failure is not remembered (invariant 1). 0 or -1 with err. */
static int
model_load(struct tool_ctx *ctx, struct err *err)
{
	if (ctx->model != NULL)
		return 0;
	if (model_open(&ctx->model_opts, &ctx->model, err) != 0) {
		log_debug("model:load", "failed: %s", err->msg);
		ctx->model = NULL;
		return -1;
	}
	log_debug("model:load", "loaded, %d dimensions",
	    model_dim(ctx->model));
	return 0;
}

struct model *
tool_model(struct tool_ctx *ctx, struct err *err)
{
	if (model_load(ctx, err) != 0)
		return NULL;
	if (!ctx->seeded)
		seed(ctx);	/* engines-and-extras §A9, after load */
	return ctx->model;
}

int
tool_warm(struct tool_ctx *ctx, int step, struct err *err)
{
	const char		*stores[2] = { ctx->default_store ?
				    ctx->default_store : "unknown", "global" };
	struct store_hits	 hits = { NULL, 0 };
	struct store_query	 q;
	float			*unit;
	bool			 download = ctx->model_opts.download;
	int			 rc;

	if (step == 0) {
		ctx->model_opts.download = false;
		rc = tool_model(ctx, err) != NULL ? 1 : -1;
		ctx->model_opts.download = download;
		return rc;
	}
	memset(&q, 0, sizeof(q));
	q.stores = &stores[step - 1];
	q.nstores = 1;
	q.dim = model_dim(ctx->model);
	q.limit = 1;
	q.min_score = -2;
	q.vec = unit = xcalloc((size_t)q.dim, sizeof(*unit));
	unit[0] = 1;
	rc = store_search(ctx->store, &q, &hits, err);
	store_hits_release(&hits);
	free(unit);
	return rc != 0 ? -1 : step < 2;
}

float *
tool_embed(struct tool_ctx *ctx, const char *text, enum embed_kind kind,
    int *dim, struct err *err)
{
	struct model	*m;
	float		*vec;

	if ((m = tool_model(ctx, err)) == NULL)
		return NULL;
	*dim = model_dim(m);
	vec = xcalloc((size_t)*dim, sizeof(*vec));
	if (model_embed(m, text, strlen(text), kind, vec, err) != 0) {
		free(vec);
		return NULL;
	}
	return vec;
}

/* A caller's work on a second thread while the model loads or embeds. */
struct side_job {
	int		(*fn)(void *, struct err *);
	void		*arg;
	struct err	 err;
	int		 rc;
};

static void *
side_job_main(void *arg)
{
	struct side_job	*j = arg;

	j->rc = j->fn(j->arg, &j->err);
	return NULL;
}

float *
tool_embed_while(struct tool_ctx *ctx, const char *text,
    enum embed_kind kind, int *dim, int (*fn)(void *, struct err *),
    void *arg, struct err *err)
{
	struct side_job	 j = { fn, arg, { "" }, 0 };
	struct err	 merr = { "" };
	pthread_t	 tid;
	float		*vec = NULL;
	bool		 beside;

	if (!(beside = pthread_create(&tid, NULL, side_job_main, &j) == 0))
		side_job_main(&j);
	/* meanwhile, the model's work that touches no store (invariant 3):
	 * its load, and its embedding once seeding has run */
	if (model_load(ctx, &merr) == 0 && ctx->seeded)
		vec = tool_embed(ctx, text, kind, dim, &merr);
	if (beside)
		pthread_join(tid, NULL);
	if (j.rc != 0) {
		free(vec);
		*err = j.err;
		return NULL;
	}
	if (vec == NULL && ctx->model != NULL && !ctx->seeded)
		return tool_embed(ctx, text, kind, dim, err);	/* seeds */
	if (vec == NULL)
		*err = merr;
	return vec;
}
