/*
 * cmd_mcp.c — `thatch mcp`: the stdio MCP server the hosts spawn
 * (hosts-hooks-cli §2). Assembles the pieces and runs the loop until
 * stdin ends; the protocol itself is host/mcp.c.
 *
 * Startup order (§2.2, host-contracts C3): store (opened by the
 * dispatcher; failure exits 1), tool context with a lazy model, setup
 * detection, then the loop. The project store (git probes) is detected
 * once initialize has been answered, and the model loads on the first
 * call that embeds: initialize costs milliseconds.
 */
#include "cli/cmd.h"

#include <stdlib.h>

#include "cli/cli.h"
#include "host/hook.h"
#include "host/mcp.h"
#include "host/setup.h"
#include "host/sideband.h"
#include "tools/tool.h"
#include "util/log.h"

struct startup {
	struct cli_ctx	*cli;
	struct tool_ctx	*tools;
};

static void
detect_store(void *arg)
{
	struct startup	*s = arg;

	s->tools->default_store = cli_repo(s->cli);
}

static int
cmd_mcp_exec(struct cli_ctx *ctx, int argc, char **argv)
{
	struct tool_ctx		 tools;
	struct mcp_setup	 setup;
	struct mcp_server	*srv;
	struct sideband		*sb = NULL;
	struct setup_refresh	 refresh = { &setup, &ctx->paths };
	struct startup		 startup = { ctx, &tools };
	struct err		 err;
	char			*warning;
	int			 rc;

	(void)argc;
	(void)argv;
	tool_ctx_init(&tools, ctx->store, NULL, &ctx->paths);
	tools.clock = ctx->clock;
	srv = mcp_new(&tools, 0, 1);
	mcp_after_initialize(srv, detect_store, &startup);
	mcp_setup_detect(&ctx->paths, &setup);
	if ((warning = mcp_setup_warning(&setup)) != NULL) {
		log_warn("%s", warning);
		mcp_set_warning(srv, warning);
		free(warning);
	}
	/* the hosts' parts: auto-refresh (§2.7), queue glue, sideband (§6) */
	mcp_after_initialize(srv, setup_refresh, &refresh);
	hook_wire_queue(&tools);
	if (sideband_open(srv, &ctx->paths, &sb, &err) != 0)
		log_warn("sideband socket failed: %s", err.msg);
	rc = mcp_run(srv, &ctx->err);
	sideband_close(sb);
	mcp_free(srv);
	mcp_setup_release(&setup);
	tool_ctx_release(&tools);
	return rc == 0 ? 0 : CMD_FAILED;
}

const struct cmd_entry cmd_mcp_entry = {
	.name = "mcp",
	.usage = "",
	.summary = "run the stdio MCP server (the host spawns it)",
	.flags = CMD_STORE,
	.exec = cmd_mcp_exec,
};
