/* tool_engine.h — the handlers the prediction and behavior tools share
 * (tool_engine.c; used by tool_predict.c and tool_behavior.c). */
#ifndef THATCH_TOOLS_TOOL_ENGINE_H
#define THATCH_TOOLS_TOOL_ENGINE_H

#include <jansson.h>

#include "core/engine/engine.h"

struct err;
struct sbuf;
struct tool_ctx;

/*
 * What prediction_update and behavior_codify share: embed situation and
 * statement as passages, engine_record them into store with signal
 * (neutral: provenance "create" or "codify") and append the reply
 * (created: "created" or "codified"). Borrowed.
 */
struct tool_engine_args {
	const char		*store, *situation, *statement, *rationale;
	enum engine_signal	 signal;
	const char		*neutral, *created;
};

int	tool_engine_record(struct tool_ctx *, const struct engine *,
	    const struct tool_engine_args *, struct sbuf *, struct err *);

/* prediction_delete / behavior_delete: the "statement" argument's item. */
int	tool_engine_delete(struct tool_ctx *, const struct engine *,
	    const json_t *args, struct sbuf *, struct err *);

#endif
