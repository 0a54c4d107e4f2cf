/* tool_rows.h — the rows of tool_table[], one per tool, by family (tools.c). */
#ifndef THATCH_TOOLS_TOOLS_H
#define THATCH_TOOLS_TOOLS_H

#include "core/engine/engine.h"
#include "tools/tool.h"

/*
 * Each family file exports one `const struct tool tool_<name>` per tool;
 * tool_table[] in tools.c lists them in registry order (store-and-tools
 * §4.2). Adding a tool: its row here, its pointer there, its handler in the
 * family file.
 */

/* memory.c (rows 1-6) */
extern const struct tool tool_memory_remember;
extern const struct tool tool_memory_recall;
extern const struct tool tool_memory_list;
extern const struct tool tool_memory_show;
extern const struct tool tool_memory_forget;
extern const struct tool tool_store_list;

struct store_hits;
struct store_query;

/*
 * Recall (store-and-tools §5.3), shared by memory_recall and `thatch
 * search`: embed query as a query (BGE prefix), search q with it (the
 * caller fills everything but vec and dim), stamp recall telemetry on the
 * hits. hits is replaced; release it even on failure. Returns 0; 1 when
 * there are hits but the stamp failed (err says "recall not recorded ..."
 * and why: the hits are still the answer); or -1.
 */
int	tool_memory_search(struct tool_ctx *, const char *query,
	    struct store_query *q, struct store_hits *hits, struct err *);

/*
 * The recall nudge's matches, for every host (the MCP sideband's match,
 * opencode's chat.message): q (stores, vec, text, limit) searched with
 * the text fused, best first, keeping the hits whose cosine reaches
 * threshold or that hold an identifier the text names (STORE_LEX_IDENT),
 * at most q->limit of them. The first TOOL_NUDGE_READ fused rows are
 * read, so that an identifier's memory is found under the threshold. No
 * telemetry (store-and-tools §5.3). hits is replaced; release it even on
 * failure. Returns 0 or -1.
 */
#define TOOL_NUDGE_READ	20
int	tool_nudge_matches(struct tool_ctx *, const struct store_query *q,
	    double threshold, struct store_hits *hits, struct err *);

/*
 * Once per ctx, after a search with the model loaded: when the stores q
 * searched hold memories embedded in another space than the model's
 * (store_count_other_space), append one line to out saying how many, that
 * search by meaning cannot see them, and that `thatch reembed` fixes it.
 * Appends nothing otherwise; a count that fails is only logged.
 */
void	tool_space_notice(struct tool_ctx *, const struct store_query *q,
	    struct sbuf *out);

/* dedup.c (rows 7-8) */
extern const struct tool tool_find_duplicates;
extern const struct tool tool_dedup_mark_checked;

/* extraction.c (rows 9-10) */
extern const struct tool tool_extraction_done;
extern const struct tool tool_get_extraction_payload;

/* predict.c, behavior.c (rows 11-18) */
extern const struct tool tool_prediction_query;
extern const struct tool tool_prediction_update;
extern const struct tool tool_prediction_list;
extern const struct tool tool_prediction_delete;
extern const struct tool tool_behavior_codify;
extern const struct tool tool_behavior_feedback;
extern const struct tool tool_behavior_list;
extern const struct tool tool_behavior_delete;

/* config.c (rows 19-21) */
extern const struct tool tool_config_get;
extern const struct tool tool_config_set;
extern const struct tool tool_notify_user;

/* session.c (rows 23-24; editor-only) */
extern const struct tool tool_session_search;
extern const struct tool tool_session_get;

/* watch.c (rows 25-29; editor-only) */
extern const struct tool tool_watch_create;
extern const struct tool tool_watch_branch_create;
extern const struct tool tool_watch_list;
extern const struct tool tool_watch_cancel;
extern const struct tool tool_watch_command_create;

/* chat.c (rows 29-35) */
extern const struct tool tool_chat_register;
extern const struct tool tool_chat_list;
extern const struct tool tool_chat_send;
extern const struct tool tool_chat_read;
extern const struct tool tool_chat_unregister;
extern const struct tool tool_chat_broadcast;
extern const struct tool tool_chat_status;

/* thatch's own, after the original's registry (issue 15): memory.c,
 * hygiene.c */
extern const struct tool tool_memory_move;
extern const struct tool tool_store_hygiene;

/*
 * What prediction_update and behavior_codify share (predict.c): embed
 * situation and statement as passages, engine_record them into store with
 * signal (neutral: provenance "create" or "codify") and append the reply
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

/*
 * Seed the default behaviors with ctx's freshly loaded model (behavior.c,
 * engines-and-extras §A9); tool_model calls it once the model is loaded
 * and the database takes a write (tools.c).
 * Failures are logged, never returned.
 */
void	tool_behavior_seed(struct tool_ctx *);

#endif
