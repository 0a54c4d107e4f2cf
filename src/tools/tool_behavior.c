/*
 * tool_behavior.c — the behavior tools: behavior_codify,
 * behavior_feedback, behavior_list, behavior_delete (engines-and-extras
 * §A8.6-§A8.8); the writes and deletes go through tool_engine.c, as the
 * prediction tools' do. The default behaviors (§A9) are seeded by the
 * tool context once the model is loaded (tool_ctx.c).
 *
 *  1. Every tool reads or writes one store, the project's by default: the
 *     seeded defaults live in "global", so feedback on them names it
 *     (§A8.7 gotcha, kept for parity).
 *  2. behavior_feedback has no soft signal: relevant true is confirm
 *     ("ham: <context>"), false is disconfirm ("spam: <context>").
 */
#include "tools/tool_rows.h"

#include <stdlib.h>

#include "core/engine/behavior.h"
#include "tools/tool_engine.h"
#include "util/os/clock.h"
#include "util/sbuf.h"
#include "util/xmalloc.h"

static int
behavior_codify(struct tool_ctx *ctx, const json_t *args, struct sbuf *out,
    struct err *err)
{
	struct tool_engine_args	a = {
		.store = tool_target_store(ctx, args),
		.situation = tool_arg_str(args, "situation", ""),
		.statement = tool_arg_str(args, "behavior", ""),
		.rationale = tool_arg_str(args, "rationale", ""),
		.signal = ENGINE_NEUTRAL,
		.neutral = "codify",
		.created = "codified",
	};

	return tool_engine_record(ctx, &behavior_engine, &a, out, err);
}

static int
behavior_feedback(struct tool_ctx *ctx, const json_t *args,
    struct sbuf *out, struct err *err)
{
	const char		*text = tool_arg_str(args, "behavior", "");
	const char		*store = tool_target_store(ctx, args);
	bool			 ham = tool_arg_bool(args, "relevant") == 1;
	struct engine_item	 it;
	char			 now[CLOCK_ISO_LEN], *detail;
	float			*vec;
	bool			 found;
	int			 dim, rc;

	if ((vec = tool_embed(ctx, text, EMBED_PASSAGE, &dim, err)) == NULL)
		return -1;
	detail = xasprintf("%s: %s", ham ? "ham" : "spam",
	    tool_arg_str(args, "context", ""));
	rc = engine_grade(ctx->store, &behavior_engine, store, vec, dim,
	    ham ? ENGINE_CONFIRM : ENGINE_DISCONFIRM, detail,
	    clock_iso(clock_now(&ctx->clock), now), &it, &found, err);
	if (rc == 0 && !found)
		sbuf_addf(out, "No behavior matching \"%s\" found in \"%s\".",
		    text, store);
	else if (rc == 0)
		engine_render_graded(ham ? ENGINE_CONFIRM : ENGINE_DISCONFIRM,
		    &it, out);
	engine_item_release(&it);
	free(detail);
	free(vec);
	return rc;
}

static int
behavior_list(struct tool_ctx *ctx, const json_t *args, struct sbuf *out,
    struct err *err)
{
	return engine_list(ctx->store, &behavior_engine,
	    tool_target_store(ctx, args), out, err);
}

static int
behavior_delete(struct tool_ctx *ctx, const json_t *args, struct sbuf *out,
    struct err *err)
{
	return tool_engine_delete(ctx, &behavior_engine, args, out, err);
}

static const struct tool_arg codify_args[] = {
	{ .name = "situation", .type = ARG_STRING, .flags = ARG_REQUIRED,
	  .description = "When it applies" },
	{ .name = "behavior", .type = ARG_STRING, .flags = ARG_REQUIRED,
	  .description = "What to do then, imperative" },
	{ .name = "rationale", .type = ARG_STRING, .flags = ARG_REQUIRED,
	  .description = "Why it is worth keeping" },
	TOOL_ARG_STORE,
	{ .name = NULL }
};

const struct tool tool_behavior_codify = {
	.name = "behavior_codify",
	.family = "behavior",
	.title = "Codify a behavior",
	.description = "Codify a rule for yourself, \"when X, do Y\"; "
	    "never one that makes you less thorough.",
	.args = codify_args,
	.flags = TOOL_MCP,
	.run = behavior_codify,
};

static const struct tool_arg feedback_args[] = {
	{ .name = "behavior", .type = ARG_STRING, .flags = ARG_REQUIRED,
	  .description = "The rule's text" },
	{ .name = "relevant", .type = ARG_BOOLEAN, .flags = ARG_REQUIRED,
	  .description = "Whether it applied here" },
	{ .name = "context", .type = ARG_STRING, .flags = ARG_REQUIRED,
	  .description = "The situation, briefly" },
	TOOL_ARG_STORE,
	{ .name = NULL }
};

const struct tool tool_behavior_feedback = {
	.name = "behavior_feedback",
	.family = "behavior",
	.title = "Grade a behavior",
	.description = "Grade whether a surfaced rule applied (not whether "
	    "it is good).",
	.args = feedback_args,
	.flags = TOOL_MCP,
	.run = behavior_feedback,
};

static const struct tool_arg store_args[] = {
	TOOL_ARG_STORE,
	{ .name = NULL }
};

const struct tool tool_behavior_list = {
	.name = "behavior_list",
	.family = "behavior",
	.title = "List behaviors",
	.description = "List a store's behaviors.",
	.args = store_args,
	.flags = TOOL_MCP | TOOL_READONLY,
	.run = behavior_list,
};

static const struct tool_arg delete_args[] = {
	{ .name = "statement", .type = ARG_STRING, .flags = ARG_REQUIRED,
	  .description = "The behavior's text" },
	TOOL_ARG_STORE,
	{ .name = NULL }
};

const struct tool tool_behavior_delete = {
	.name = "behavior_delete",
	.family = "behavior",
	.title = "Delete a behavior",
	.description = "Delete a wrong behavior.",
	.args = delete_args,
	.flags = TOOL_MCP | TOOL_DESTRUCTIVE,
	.run = behavior_delete,
};
