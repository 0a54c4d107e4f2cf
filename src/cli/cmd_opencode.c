/*
 * cmd_opencode.c — `thatch opencode`: the core process opencode's thatch
 * plugin spawns, one per opencode process, speaking newline-delimited JSON
 * on stdin and stdout (docs/opencode.md); the protocol is
 * host/opencode/opencode.c's.
 * The project store is detected on the first request that needs it and
 * the model warms up while the plugin is quiet, so the plugin's start
 * waits for neither.
 */
#include "cli/cmd.h"

#include "cli/cli.h"
#include "host/opencode/opencode.h"

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
	oc = opencode_new(ctx->store, &ctx->paths, ctx->clock, repo_of, ctx);
	rc = opencode_run(oc, 0, 1, &ctx->err);
	opencode_free(oc);
	return rc == 0 ? 0 : CMD_FAILED;
}

const struct cmd_entry cmd_opencode_entry = {
	.name = "opencode",
	.args = "",
	.max_args = 0,
	.env = "XDG_CONFIG_HOME",
	.reads = READS_MODEL,
	.example = "thatch opencode   # started by the opencode plugin",
	.summary = "the core of the opencode plugin (the plugin spawns it)",
	.flags = CMD_STORE,
	.exec = cmd_opencode_exec,
};
