/*
 * cmd_hygiene.c — `thatch hygiene`: the hygiene report of the project
 * store (hosts-hooks-cli §1.3, §7.2), or exactly `Store is healthy.`
 * [deviation] a failure prints `[thatch hygiene] failed: …` and exits 1
 * where the original crashed.
 */
#include "cli/cmd.h"

#include <stdio.h>

#include "cli/cli.h"
#include "core/hygiene.h"
#include "core/repo.h"
#include "core/repo_cache.h"
#include "util/sbuf.h"

static int
cmd_hygiene_exec(struct cli_ctx *ctx, int argc, char **argv)
{
	struct repo_cache_sql	 cache;
	struct sbuf		 out = SBUF_INIT;
	char			**live;
	size_t			 nlive;
	int			 rc;

	(void)argc;
	(void)argv;
	repo_cache_init(&cache, ctx->store, &ctx->clock);
	repo_branches(ctx->paths.project_dir, &cache.cache, &live, &nlive);
	rc = hygiene_report(ctx->store, cli_default_store(ctx),
	    (const char *const *)live, nlive, clock_now(&ctx->clock), &out,
	    &ctx->err);
	if (rc == 0)
		puts(out.len > 0 ? out.buf : "Store is healthy.");
	sbuf_release(&out);
	repo_branches_free(live, nlive);
	return rc == 0 ? 0 : CMD_FAILED;
}

const struct cmd_entry cmd_hygiene_entry = {
	.name = "hygiene",
	.args = "",
	.max_args = 0,
	.env = "CLAUDE_PROJECT_DIR CURSOR_PROJECT_DIR",
	.example = "thatch hygiene",
	.summary = "report duplicate, stale and orphaned memories",
	.flags = CMD_STORE,
	.exec = cmd_hygiene_exec,
};
