/*
 * cmd_reminder.c — `thatch reminder [--json]`: the session-start hook
 * (Claude Code SessionStart plain, Cursor sessionStart with --json). The
 * recall instructions for the project store and, when the store needs
 * care, the hygiene line (hosts-hooks-cli §7.1). Reads no stdin; a failed
 * hygiene report (or a database that will not open) costs only the
 * hygiene part.
 */
#include "cli/cmd.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "core/hygiene.h"
#include "core/repo.h"
#include "core/repo_cache.h"
#include "host/hook.h"
#include "text/nudge.h"
#include "util/sbuf.h"

static int
cmd_reminder_exec(struct cli_ctx *ctx, int argc, char **argv)
{
	struct repo_cache_sql	 cache;
	struct sbuf		 report = SBUF_INIT, out = SBUF_INIT;
	struct err		 err;
	char			**live;
	size_t			 nlive;
	bool			 json = false;
	int			 i;

	for (i = 0; i < argc; i++)
		if (strcmp(argv[i], "--json") == 0)
			json = true;
	if (!json && hook_in_cursor(NULL))
		return 0;	/* host-contracts C6: the --json twin speaks */
	sbuf_init(&report);
	sbuf_init(&out);
	if (cli_open_store(ctx) == 0) {
		repo_cache_init(&cache, ctx->store, &ctx->clock);
		repo_branches(ctx->paths.project_dir, &cache.cache, &live,
		    &nlive);
		if (hygiene_report(ctx->store, cli_default_store(ctx),
		    (const char *const *)live, nlive, clock_now(&ctx->clock),
		    &report, &err) != 0) {
			fprintf(stderr, "[thatch] hygiene report failed: %s\n",
			    err.msg);
			sbuf_reset(&report);
		}
		repo_branches_free(live, nlive);
	} else
		fprintf(stderr, "[thatch] hygiene report failed: %s\n",
		    ctx->err.msg);
	text_nudge_reminder(&out, cli_default_store(ctx),
	    report.len > 0 ? report.buf : NULL);
	hook_emit(stdout, json ? HOOK_CURSOR : HOOK_PLAIN, NULL, out.buf);
	sbuf_release(&report);
	sbuf_release(&out);
	return 0;
}

const struct cmd_entry cmd_reminder_entry = {
	.name = "reminder",
	.usage = "[--json]",
	.summary = "session-start hook: recall instructions and hygiene",
	.flags = CMD_HOOK,	/* a broken store costs only the hygiene line */
	.exec = cmd_reminder_exec,
};
