/*
 * tool_engine.c — the handlers the prediction and behavior tools share:
 * recording a situation and statement (prediction_update,
 * behavior_codify) and deleting a statement's item (prediction_delete,
 * behavior_delete), for whichever engine (core/engine/) they are given.
 *
 *  1. Statements and situations are passage embeddings of the raw text
 *     (engines-and-extras §A8.1), made before any transaction.
 *  2. The engine writes the reply text, so both families answer alike.
 */
#include "tools/tool_engine.h"

#include <stdlib.h>

#include "tools/tool.h"
#include "util/os/clock.h"
#include "util/sbuf.h"

int
tool_engine_record(struct tool_ctx *ctx, const struct engine *eng,
    const struct tool_engine_args *a, struct sbuf *out, struct err *err)
{
	struct engine_write	w = { 0 };
	struct engine_item	it;
	enum engine_outcome	oc;
	float			*svec = NULL, *ivec = NULL;
	char			 now[CLOCK_ISO_LEN];
	int			 rc = -1;

	if ((svec = tool_embed(ctx, a->situation, EMBED_PASSAGE, &w.dim,
	    err)) == NULL ||
	    (ivec = tool_embed(ctx, a->statement, EMBED_PASSAGE, &w.dim,
	    err)) == NULL)
		goto out;
	w.store = a->store;
	w.situation = a->situation;
	w.situation_vec = svec;
	w.statement = a->statement;
	w.statement_vec = ivec;
	w.model = model_tag(ctx->model);
	w.rationale = a->rationale;
	w.signal = a->signal;
	w.neutral = a->neutral;
	w.now = clock_iso(clock_now(&ctx->clock), now);
	if (engine_record(ctx->store, eng, &w, &oc, &it, err) != 0)
		goto out;
	engine_render_record(&w, oc, &it, a->created, out);
	engine_item_release(&it);
	rc = 0;
out:
	free(svec);
	free(ivec);
	return rc;
}

int
tool_engine_delete(struct tool_ctx *ctx, const struct engine *eng,
    const json_t *args, struct sbuf *out, struct err *err)
{
	const char	*statement = tool_arg_str(args, "statement", "");
	float		*vec;
	int		 dim, rc;

	if ((vec = tool_embed(ctx, statement, EMBED_PASSAGE, &dim,
	    err)) == NULL)
		return -1;
	rc = engine_forget(ctx->store, eng, tool_target_store(ctx, args),
	    statement, vec, dim, out, err);
	free(vec);
	return rc;
}
