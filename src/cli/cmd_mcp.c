/*
 * cmd_mcp.c — `thatch mcp`: the stdio MCP server the hosts spawn
 * (hosts-hooks-cli §2). Assembles the pieces and runs the loop until
 * stdin ends; the protocol itself is host/mcp.c.
 *
 * Startup order (§2.2, host-contracts C3): store (opened by the
 * dispatcher; failure exits 1), tool context with a lazy model, setup
 * detection, then the loop. The project store (git probes) is detected
 * once initialize has been answered, and the model stays lazy:
 * initialize costs milliseconds. Once the client has been quiet for
 * MCP_IDLE_MS the model is warmed up in idle steps (tool_warm: load and
 * seed, then the two vector caches a recall reads), so the first recall
 * and the first hook's sideband request do not pay for it; THATCH_WARMUP=0
 * turns that off, and a step that fails is logged once and leaves the
 * model to the first call that needs it.
 *
 * The server also serves the /thatch actions as MCP prompts and says what
 * thatch is in its initialize instructions, both spelled for the detected
 * host, and warns once, on a tool result, when the executable was
 * upgraded under it (host/version_watch.c; THATCH_VERSION_CHECK_MS
 * shortens the schedule for tests). With `thatch sync --auto on` for the
 * project it syncs the project store in the background (host/autosync.c).
 */
#include "cli/cmd.h"

#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/repo.h"
#include "core/sync/sync.h"
#include "host/autosync.h"
#include "host/hook.h"
#include "host/mcp.h"
#include "host/prompts.h"
#include "host/setup/setup_host.h"
#include "host/sideband/sideband.h"
#include "host/version_watch.h"
#include "text/actions.h"
#include "tools/tool.h"
#include "util/log.h"
#include "util/path.h"
#include "util/sbuf.h"

struct startup {
	struct cli_ctx	*cli;
	struct tool_ctx	*tools;
	struct mcp_server *srv;
	struct autosync	*autosync;	/* owned; NULL: sync --auto off */
	int		 step;		/* the next warm-up step */
};

static void
detect_store(void *arg)
{
	struct startup	*s = arg;

	s->tools->default_store = cli_repo(s->cli);
}

/* `thatch sync --auto on` for this project: pull now, push after writes
 * (docs/sync.md), in a child process, never on a hook's path. */
static void
start_autosync(void *arg)
{
	struct startup	*s = arg;
	const char	*store = repo_store_name(s->tools->default_store);
	char		*remote;

	if (strcmp(store, "global") == 0 ||
	    (remote = sync_auto_remote(s->cli->store, store)) == NULL)
		return;
	s->autosync = autosync_start(s->srv, &s->cli->paths, store, remote);
	free(remote);
}

static bool
warm_up(void *arg)
{
	struct startup	*s = arg;
	struct err	 err;
	int		 r;

	r = tool_warm(s->tools, s->step, &err);
	log_debug("mcp:warm", "step %d: %s", s->step++, r < 0 ? err.msg :
	    "ok");
	if (r < 0)
		log_warn("warm-up stopped, the model will load on first use: "
		    "%s", err.msg);
	return r == 1;
}

static int
cmd_mcp_exec(struct cli_ctx *ctx, int argc, char **argv)
{
	struct tool_ctx		 tools;
	struct mcp_setup	 setup;
	struct mcp_server	*srv;
	struct prompts		*prompts;
	struct version_watch	*watch;
	struct sbuf		 instructions = SBUF_INIT;
	struct sideband		*sb = NULL;
	struct setup_host_refresh refresh = { &setup, &ctx->paths };
	struct startup		 startup = { ctx, &tools, NULL, NULL, 0 };
	const char		*warmup = path_env("THATCH_WARMUP");
	struct err		 err;
	char			*warning;
	int			 rc;

	(void)argc;
	(void)argv;
	tool_ctx_init(&tools, ctx->store, NULL, &ctx->paths);
	tools.clock = ctx->clock;
	srv = mcp_new(&tools, 0, 1);
	startup.srv = srv;
	mcp_after_initialize(srv, detect_store, &startup);
	mcp_after_initialize(srv, start_autosync, &startup);
	if (warmup == NULL || strcmp(warmup, "0") != 0)
		mcp_when_idle(srv, warm_up, &startup);
	mcp_setup_detect(&ctx->paths, &setup);
	/* the tool spelling the agent sees (host-contracts §1.6) */
	sbuf_init(&instructions);
	text_mcp_instructions(&instructions, text_tool_prefix(setup.host ==
	    MCP_HOST_CLAUDE ? TEXT_HOST_CLAUDE : TEXT_HOST_CURSOR));
	mcp_set_instructions(srv, instructions.buf);
	sbuf_release(&instructions);
	prompts = prompts_new(setup.host);
	mcp_set_prompts(srv, prompts_list(prompts));
	/* engines-and-extras §B10: an upgrade under a running server */
	watch = version_watch_new(setup.host == MCP_HOST_CLAUDE ?
	    "Claude Code" : setup.host == MCP_HOST_CURSOR ? "Cursor" : NULL,
	    "MCP server");
	mcp_set_notice(srv, version_watch_notice, watch);
	if ((warning = mcp_setup_warning(&setup)) != NULL) {
		log_warn("%s", warning);
		mcp_set_warning(srv, warning);
		free(warning);
	}
	/* the hosts' parts: auto-refresh (§2.7), queue glue, sideband (§6) */
	mcp_after_initialize(srv, setup_host_refresh, &refresh);
	hook_wire_queue(&tools);
	if (sideband_open(srv, &ctx->paths, &sb, &err) != 0)
		log_warn("sideband socket failed: %s", err.msg);
	rc = mcp_run(srv, &ctx->err);
	autosync_free(startup.autosync);
	sideband_close(sb);
	mcp_free(srv);
	prompts_free(prompts);
	version_watch_free(watch);
	mcp_setup_release(&setup);
	tool_ctx_release(&tools);
	return rc == 0 ? 0 : CMD_FAILED;
}

const struct cmd_entry cmd_mcp_entry = {
	.name = "mcp",
	.args = "",
	.max_args = 0,
	.env = "CLAUDE_CONFIG_DIR CURSOR_CONFIG_DIR",
	.reads = READS_PROJECT | READS_MODEL,
	.example = "thatch mcp < requests.jsonl",
	.summary = "run the stdio MCP server (the host spawns it)",
	.flags = CMD_STORE,
	.exec = cmd_mcp_exec,
};
