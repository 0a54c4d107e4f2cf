/*
 * tool_hygiene.c — the store_hygiene tool: the hygiene report of the project
 * store (store-and-tools §6), and with list: true the memories behind
 * each signal, as `thatch hygiene --list` prints them (issue 15).
 *
 * Read-only, like the report: no telemetry, no verdicts. The line and the
 * list come from core/hygiene.c, which the CLI prints too, so the agent
 * and the user read the same names.
 *  1. Only the project store is examined (§6: never global), with the
 *     branches of the project directory; a directory that is no git
 *     worktree skips the orphan signal rather than calling every branch
 *     deleted.
 */
#include "tools/tool_rows.h"

#include <string.h>

#include "core/hygiene.h"
#include "core/repo.h"
#include "core/repo_cache.h"
#include "util/path.h"
#include "util/sbuf.h"

/* The list of repo and its report line (appended to line; nothing when
 * healthy), with the project directory's branches. */
static int
list_with_line(struct tool_ctx *ctx, const char *repo,
    struct hygiene_list *l, struct sbuf *line, struct err *err)
{
	struct repo_cache_sql	  cache;
	char			**live = NULL;
	size_t			  nlive = 0;
	int			  rc;

	repo_cache_init(&cache, ctx->store, &ctx->clock);
	if (ctx->paths != NULL)
		repo_branches(ctx->paths->project_dir, &cache.cache, &live,
		    &nlive);
	rc = hygiene_list(ctx->store, repo, (const char *const *)live, nlive,
	    clock_now(&ctx->clock), l, err);
	if (rc == 0 && ctx->paths != NULL)
		hygiene_drift(ctx->store, repo, ctx->paths->project_dir,
		    &l->facts, &l->drifted);
	if (rc == 0)
		hygiene_format(&l->facts, repo, (const char *const *)live,
		    nlive, line);
	repo_branches_free(live, nlive);
	return rc;
}

static int
store_hygiene(struct tool_ctx *ctx, const json_t *args, struct sbuf *out,
    struct err *err)
{
	const char		*repo = tool_target_store(ctx, NULL);
	struct hygiene_list	 l;
	size_t			 start = out->len;

	if (list_with_line(ctx, repo, &l, out, err) != 0)
		return -1;
	if (out->len == start)
		sbuf_addf(out, "Store \"%s\" is healthy.", repo);
	else if (tool_arg_bool(args, "list") == 1) {
		sbuf_adds(out, "\n\n");
		hygiene_list_format(&l, out);
		sbuf_setlen(out, out->len - 1);	/* its last newline */
	} else
		sbuf_adds(out, "\nCall store_hygiene with list: true to see "
		    "which memories these are.");
	hygiene_list_release(&l);
	return 0;
}

static const struct tool_arg hygiene_args[] = {
	{ .name = "list", .type = ARG_BOOLEAN,
	  .description = "Name the memories behind each signal" },
	{ .name = NULL }
};

const struct tool tool_store_hygiene = {
	.name = "store_hygiene",
	.family = "memory",
	.title = "Check store hygiene",
	.description = "Count duplicates, stale memories, dead branches' "
	    "and changed code's memories.",
	.args = hygiene_args,
	.flags = TOOL_MCP | TOOL_READONLY,
	.run = store_hygiene,
};
