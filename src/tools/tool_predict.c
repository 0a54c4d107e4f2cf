/*
 * tool_predict.c — the prediction tools: prediction_query,
 * prediction_update, prediction_list, prediction_delete
 * (engines-and-extras §A8.2-§A8.5).
 *
 * Handlers embed, then call the engine (core/engine/), which does the SQL
 * and writes the reply text both families share; the writes and deletes
 * go through tool_engine.c, as the behavior tools' do.
 *  1. Statements, situations and delete/feedback lookups are passage
 *     embeddings of the raw text; only prediction_query's context is a
 *     query embedding (§A8.1). Embedding happens before any transaction.
 *  2. prediction_query reads [project, "global"] unless given a store;
 *     every other tool writes or reads one store, resolved by
 *     tool_target_store ("unknown" becomes "global", store-and-tools §2.6).
 *  3. "Not found" is a reply, not an error (§A8.1).
 */
#include "tools/tool_rows.h"

#include <stdlib.h>
#include <string.h>

#include "core/engine/predict.h"
#include "tools/tool_engine.h"
#include "util/sbuf.h"

static int
prediction_query(struct tool_ctx *ctx, const json_t *args, struct sbuf *out,
    struct err *err)
{
	const char	*store = tool_arg_str(args, "store", "");
	const char	*stores[2] = { store, "global" };
	float		*vec;
	int		 dim, rc;

	if (store[0] == '\0')
		stores[0] = ctx->default_store;
	if ((vec = tool_embed(ctx, tool_arg_str(args, "context", ""),
	    EMBED_QUERY, &dim, err)) == NULL)
		return -1;
	rc = predict_query(ctx->store, stores, store[0] ? 1 : 2, vec, dim,
	    out, err);
	free(vec);
	return rc;
}

static const char *const signals[] = {
	"confirm", "disconfirm", "soft", "create", NULL
};

static int
prediction_update(struct tool_ctx *ctx, const json_t *args,
    struct sbuf *out, struct err *err)
{
	const char		*sig = tool_arg_str(args, "signal", "create");
	struct tool_engine_args	 a = {
		.store = tool_target_store(ctx, args),
		.situation = tool_arg_str(args, "matcher", ""),
		.statement = tool_arg_str(args, "prediction", ""),
		.rationale = tool_arg_str(args, "rationale", ""),
		.signal = strcmp(sig, "confirm") == 0 ? ENGINE_CONFIRM :
		    strcmp(sig, "disconfirm") == 0 ? ENGINE_DISCONFIRM :
		    strcmp(sig, "soft") == 0 ? ENGINE_SOFT : ENGINE_NEUTRAL,
		.neutral = "create",
		.created = "created",
	};

	return tool_engine_record(ctx, &predict_engine, &a, out, err);
}

static int
prediction_list(struct tool_ctx *ctx, const json_t *args, struct sbuf *out,
    struct err *err)
{
	return engine_list(ctx->store, &predict_engine,
	    tool_target_store(ctx, args), out, err);
}

static int
prediction_delete(struct tool_ctx *ctx, const json_t *args,
    struct sbuf *out, struct err *err)
{
	return tool_engine_delete(ctx, &predict_engine, args, out, err);
}

static const struct tool_arg query_args[] = {
	{ .name = "context", .type = ARG_STRING, .flags = ARG_REQUIRED,
	  .description = "The decision you face" },
	TOOL_ARG_STORES,
	{ .name = NULL }
};

const struct tool tool_prediction_query = {
	.name = "prediction_query",
	.family = "prediction",
	.title = "Query predictions",
	.description = "What this user tends to decide in a situation.",
	.args = query_args,
	.flags = TOOL_MCP | TOOL_READONLY,
	.run = prediction_query,
};

static const struct tool_arg update_args[] = {
	{ .name = "matcher", .type = ARG_STRING, .flags = ARG_REQUIRED,
	  .description = "\"when ...\"" },
	{ .name = "prediction", .type = ARG_STRING, .flags = ARG_REQUIRED,
	  .description = "What the user does then" },
	{ .name = "signal", .type = ARG_STRING, .flags = ARG_REQUIRED,
	  .choices = signals,
	  .description = "create, confirm, disconfirm or soft (partly)" },
	{ .name = "rationale", .type = ARG_STRING, .flags = ARG_REQUIRED,
	  .description = "What the user said or did" },
	TOOL_ARG_STORE,
	{ .name = NULL }
};

const struct tool tool_prediction_update = {
	.name = "prediction_update",
	.family = "prediction",
	.title = "Update a prediction",
	.description = "Create, confirm or weaken a prediction on the "
	    "user's own signals.",
	.args = update_args,
	.flags = TOOL_MCP,
	.run = prediction_update,
};

static const struct tool_arg store_args[] = {
	TOOL_ARG_STORE,
	{ .name = NULL }
};

const struct tool tool_prediction_list = {
	.name = "prediction_list",
	.family = "prediction",
	.title = "List predictions",
	.description = "List a store's predictions.",
	.args = store_args,
	.flags = TOOL_MCP | TOOL_READONLY,
	.run = prediction_list,
};

static const struct tool_arg delete_args[] = {
	{ .name = "statement", .type = ARG_STRING, .flags = ARG_REQUIRED,
	  .description = "The prediction's text" },
	TOOL_ARG_STORE,
	{ .name = NULL }
};

const struct tool tool_prediction_delete = {
	.name = "prediction_delete",
	.family = "prediction",
	.title = "Delete a prediction",
	.description = "Delete a wrong prediction.",
	.args = delete_args,
	.flags = TOOL_MCP | TOOL_DESTRUCTIVE,
	.run = prediction_delete,
};
