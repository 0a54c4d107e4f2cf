/*
 * tool_list.c — memory_list's page: a bounded listing for the agent, whose
 * context pays for every line (issue 27), instead of the whole store.
 *
 * memory_list (tool_memory.c) asks here first and prints the original's
 * full listing, with the same line format (tool_memory_list_line, here so
 * that page and listing cannot differ), only when this declines.
 *  1. Without limit, offset, prefix or branch, a store of at most
 *     TOOL_LIST_PAGE memories is declined: its listing stays byte for byte the
 *     original's (§0.3), which has no header.
 *  2. A page starts with one header line: how many match in all, which
 *     rows these are, and, when more remain, the offset of the next page.
 *     The lines below are tool_memory_list_line's, unchanged.
 *  3. At most TOOL_LIST_MAX lines, and fewer when they would pass
 *     TOOL_ANSWER_CAP, so that a page is never cut after the fact.
 */
#include "tools/budget/tool_list.h"

#include "tools/budget/tool_cut.h"
#include "core/store/store.h"
#include "text/fence.h"
#include "tools/tool.h"
#include "util/sbuf.h"

int
tool_memory_list_line(const struct store_entry *e, void *arg)
{
	struct tool_list_walk	*w = arg;

	sbuf_adds(w->out, w->n++ ? "\n[" : "[");
	text_fence_field(w->out, e->store);
	sbuf_adds(w->out, "] ");
	text_fence_field(w->out, e->label);
	if (e->branch != NULL && *e->branch != '\0') {
		sbuf_adds(w->out, " (branch:");
		text_fence_field(w->out, e->branch);
		sbuf_addc(w->out, ')');
	}
	if (e->confidence != 0)
		sbuf_addf(w->out, " (c:%d)", e->confidence);
	if (e->archived)
		sbuf_adds(w->out, " (archived)");
	sbuf_adds(w->out, " (");
	text_fence_field(w->out, e->updated_at);
	sbuf_addc(w->out, ')');
	return w->cap > 0 && w->out->len > w->cap;
}

static const char *const page_args[] = { "limit", "offset", "prefix",
    "branch", NULL };

static bool
asks_for_page(const json_t *args)
{
	const char *const	*a;

	for (a = page_args; *a != NULL; a++)
		if (args != NULL && json_object_get(args, *a) != NULL)
			return true;
	return false;
}

/* What the filters keep, for the header: ` with label prefix "x"`. */
static void
add_filters(struct sbuf *out, const struct store_page *pg)
{
	if (pg->prefix != NULL)
		sbuf_addf(out, " with label prefix \"%s\"", pg->prefix);
	if (pg->branch != NULL)
		sbuf_addf(out, " on branch %s", pg->branch);
}

static void
add_header(struct sbuf *out, const char *store, const struct store_page *pg,
    long long total, size_t shown)
{
	long long	next = pg->offset + (long long)shown;

	sbuf_addf(out, "%lld memories in \"%s\"", total, store);
	add_filters(out, pg);
	sbuf_addf(out, "; showing %lld-%lld, most recently updated first.",
	    pg->offset + 1, next);
	if (next < total)
		sbuf_addf(out, " Next page: memory_list with offset %lld "
		    "(or narrow with prefix, branch).", next);
	sbuf_adds(out, "\n");
}

int
tool_memory_list_page(struct tool_ctx *ctx, const json_t *args,
    const char *store, struct sbuf *out, bool *paged, struct err *err)
{
	struct sbuf		 lines = SBUF_INIT;
	/* a page of long labels stops short of the answer cap, so that
	 * the header's next offset is the first line not shown */
	struct tool_list_walk	 w = { &lines, 0, TOOL_ANSWER_CAP - 1000 };
	struct store_page	 pg;
	long long		 total;
	int			 n;

	*paged = false;
	if (!asks_for_page(args)) {
		if (store_count(ctx->store, store, &n, err) != 0)
			return -1;
		if (n <= TOOL_LIST_PAGE)
			return 0;
	}
	pg.prefix = tool_arg_str(args, "prefix", NULL);
	pg.branch = tool_arg_str(args, "branch", NULL);
	pg.limit = tool_arg_int(args, "limit", TOOL_LIST_PAGE);
	pg.offset = tool_arg_int(args, "offset", 0);
	if (store_list_page(ctx->store, store, &pg, tool_memory_list_line, &w,
	    &total, err) != 0) {
		sbuf_release(&lines);
		return -1;
	}
	*paged = true;
	if (w.n == 0) {
		sbuf_addf(out, "No memories in \"%s\"", store);
		add_filters(out, &pg);
		if (pg.offset > 0)
			sbuf_addf(out, " at offset %lld (%lld in all)",
			    pg.offset, total);
		sbuf_adds(out, ".");
	} else {
		add_header(out, store, &pg, total, w.n);
		sbuf_add(out, lines.buf, lines.len);
	}
	sbuf_release(&lines);
	return 0;
}
