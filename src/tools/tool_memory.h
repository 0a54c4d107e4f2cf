/* tool_memory.h — what the memory tools (tool_memory.c) share with the CLI
 * and the hosts: recall, the recall nudge's matches, the space notice. */
#ifndef THATCH_TOOLS_TOOL_MEMORY_H
#define THATCH_TOOLS_TOOL_MEMORY_H

struct err;
struct sbuf;
struct store_hits;
struct store_query;
struct tool_ctx;

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

/* How many memories memory_recall returns when neither the call nor
 * config.json's recall.limit says. */
#define TOOL_RECALL_LIMIT	10
int	tool_nudge_matches(struct tool_ctx *, const struct store_query *q,
	    double threshold, struct store_hits *hits, struct err *);

/*
 * Once per ctx, after a search with the model loaded: when the stores q
 * searched hold memories embedded in another space than the model's
 * (store_count_other_space), append one line to out saying how many, that
 * search by meaning cannot rank them (a vector of another dimension is
 * not seen; one of another model, ranked by numbers of another space),
 * and that `thatch reembed` fixes it.
 * Appends nothing otherwise; a count that fails is only logged.
 */
void	tool_space_notice(struct tool_ctx *, const struct store_query *q,
	    struct sbuf *out);

#endif
