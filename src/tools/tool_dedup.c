/*
 * tool_dedup.c — the dedup tools: find_duplicates and dedup_mark_checked
 * (store-and-tools §4.9, §4.10).
 *
 * The pair computation and clustering live in core/dedup.c; this file
 * renders them and records verdicts.
 *  1. find_duplicates is read-only: no telemetry, no verdict changes.
 *  2. deviation (§4.10, issue 15): dedup_mark_checked takes only the four
 *     verdicts the classifier skill gives, and both labels must name a
 *     memory of the store; the original recorded any status for any
 *     labels, so a typo silently hid nothing and a misspelt verdict
 *     matched no reader. It never creates a store.
 *  3. Output literals (Cluster of, [score:], the arrows) are the
 *     original's byte for byte.
 */
#include "tools/tool_rows.h"

#include <stdlib.h>
#include <string.h>

#include "core/dedup.h"
#include "core/slug.h"
#include "core/store/store.h"
#include "util/os/clock.h"
#include "util/err.h"
#include "util/num.h"
#include "util/sbuf.h"

static void
add_cluster(struct sbuf *out, const struct dedup_result *r,
    const struct dedup_cluster *c)
{
	const struct dedup_pair	*p;
	char			 num[NUM_BUFSZ];
	size_t			 i;

	sbuf_addf(out, "Cluster of %zu:", c->nmembers);
	for (i = 0; i < c->npairs; i++) {
		p = &r->pairs[c->pairs[i]];
		sbuf_addf(out, "\n  [score:%s] \"%s\" \u2194 \"%s\"",
		    num_js(p->score, num), r->m.labels[p->a],
		    r->m.labels[p->b]);
	}
}

static int
find_duplicates(struct tool_ctx *ctx, const json_t *args, struct sbuf *out,
    struct err *err)
{
	const char		*store = tool_target_store(ctx, args);
	double			 t = tool_arg_num(args, "threshold",
				    DEDUP_THRESHOLD);
	struct dedup_result	 r;
	struct dedup_clusters	 cs;
	char			 num[NUM_BUFSZ];
	size_t			 i;

	if (dedup_find(ctx->store, store, t, &r, err) != 0) {
		dedup_result_release(&r);
		return -1;
	}
	if (r.npairs == 0)
		sbuf_addf(out, "No duplicate candidates in \"%s\" above "
		    "threshold %s.", store, num_js(t, num));
	dedup_cluster(&r, &cs);
	for (i = 0; i < cs.n; i++) {
		if (i > 0)
			sbuf_adds(out, "\n\n");
		add_cluster(out, &r, &cs.v[i]);
	}
	dedup_clusters_release(&cs);
	dedup_result_release(&r);
	return 0;
}

/* 0 when label (slug) names a memory of store, else -1 saying so. */
static int
require_memory(struct tool_ctx *ctx, const char *store, const char *label,
    const char *slug, struct err *err)
{
	struct store_entry	e;
	bool			found;

	memset(&e, 0, sizeof(e));
	if (store_get(ctx->store, store, slug, &e, &found, err) != 0)
		return -1;
	store_entry_release(&e);
	if (!found)
		return err_set(err, "no memory labeled \"%s\" in store "
		    "\"%s\": give the labels as find_duplicates printed them, "
		    "before forgetting either memory", label, store);
	return 0;
}

static int
mark_checked(struct tool_ctx *ctx, const json_t *args, struct sbuf *out,
    struct err *err)
{
	const char	*store = tool_target_store(ctx, args);
	const char	*la = tool_arg_str(args, "label_a", "");
	const char	*lb = tool_arg_str(args, "label_b", "");
	const char	*status = tool_arg_str(args, "status", "");
	char		 now[CLOCK_ISO_LEN], *a, *b;
	int		 rc;

	a = slug_make(la, strlen(la));
	b = slug_make(lb, strlen(lb));
	rc = require_memory(ctx, store, la, a, err) != 0 ||
	    require_memory(ctx, store, lb, b, err) != 0 ? -1 :
	    store_verdict_set(ctx->store, store, a, b, status,
	    clock_iso(clock_now(&ctx->clock), now), err);
	free(a);
	free(b);
	if (rc != 0)
		return -1;
	sbuf_addf(out, "[checked] %s :: \"%s\" \u2194 \"%s\" \u2192 %s", store,
	    la, lb, status);
	return 0;
}

/* ---- Rows -------------------------------------------------------------- */

static const struct tool_arg find_args[] = {
	TOOL_ARG_STORE,
	{ .name = "threshold", .type = ARG_NUMBER, .flags = ARG_MIN | ARG_MAX,
	  .min = 0, .max = 1,
	  .description = "Min cosine (default 0.85)" },
	{ .name = NULL }
};

const struct tool tool_find_duplicates = {
	.name = "find_duplicates",
	.family = "dedup",
	.title = "Find duplicate memories",
	.description = "Find unreviewed near-duplicate memories.",
	.args = find_args,
	.flags = TOOL_MCP | TOOL_READONLY,
	.run = find_duplicates,
};

/* The classifier skill's verdicts (§4.10's documented values). */
static const char *const verdicts[] = {
	"duplicate", "supplement", "contradiction", "unrelated", NULL,
};

static const struct tool_arg mark_args[] = {
	{ .name = "label_a", .type = ARG_STRING, .flags = ARG_REQUIRED,
	  .description = "One label" },
	{ .name = "label_b", .type = ARG_STRING, .flags = ARG_REQUIRED,
	  .description = "The other" },
	{ .name = "status", .type = ARG_STRING, .flags = ARG_REQUIRED,
	  .choices = verdicts,
	  .description = "The verdict" },
	TOOL_ARG_STORE,
	{ .name = NULL }
};

const struct tool tool_dedup_mark_checked = {
	.name = "dedup_mark_checked",
	.family = "dedup",
	.title = "Record a duplicate verdict",
	.description = "Record a find_duplicates verdict before merging or "
	    "forgetting either.",
	.args = mark_args,
	.flags = TOOL_MCP,
	.run = mark_checked,
};
