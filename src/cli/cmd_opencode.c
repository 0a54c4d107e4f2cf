/*
 * cmd_opencode.c — `thatch opencode`: the core process opencode's thatch
 * plugin spawns, one per opencode process, speaking newline-delimited JSON
 * on stdin and stdout (docs/opencode.md); the protocol is
 * host/opencode/opencode.c's.
 * The project store is detected on the first request that needs it and
 * the model warms up while the plugin is quiet, so the plugin's start
 * waits for neither. The project is --directory, the session's directory
 * the plugin passes as data (issue 30): it spawns the core in the nearest
 * directory that exists, since a removed worktree cannot be a process's
 * directory, and only the repo_paths cache can name its store.
 */
#include "cli/cmd.h"

#include <stdlib.h>

#include "cli/cli.h"
#include "host/opencode/opencode.h"
#include "util/xmalloc.h"

static const char *
repo_of(void *arg)
{
	return cli_repo(arg);
}

static int
cmd_opencode_exec(struct cli_ctx *ctx, int argc, char **argv)
{
	struct opencode	*oc;
	int		 rc;

	(void)argc;
	(void)argv;
	if (cli_opt(ctx, "--directory") != NULL) {
		free(ctx->paths.project_dir);
		ctx->paths.project_dir = xstrdup(cli_opt(ctx, "--directory"));
	}
	oc = opencode_new(ctx->store, &ctx->paths, ctx->clock, repo_of, ctx);
	rc = opencode_run(oc, 0, 1, &ctx->err);
	opencode_free(oc);
	return rc == 0 ? 0 : CMD_FAILED;
}

static const struct cmd_opt opencode_opts[] = {
	{ "--directory", "<dir>", "the opencode session's directory (the "
	    "project), when it is not where the core runs" },
	{ NULL, NULL, NULL },
};

const struct cmd_entry cmd_opencode_entry = {
	.name = "opencode",
	.args = "",
	.max_args = 0,
	.opts = opencode_opts,
	.env = "XDG_CONFIG_HOME",
	.reads = READS_MODEL,
	.example = "thatch opencode   # started by the opencode plugin",
	.summary = "the core of the opencode plugin (the plugin spawns it)",
	.flags = CMD_STORE,
	.exec = cmd_opencode_exec,
};
