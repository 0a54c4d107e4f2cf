/*
 * cmd_tools.c — `thatch tools [name]`: the agent-facing tools, generated
 * from the tool table (DESIGN principle 4), so the help can never differ
 * from what tools/list advertises.
 */
#include "cli/cmd.h"

#include <stdio.h>

#include "cli/cli.h"
#include "tools/tool.h"
#include "util/sbuf.h"

static int
cmd_tools_exec(struct cli_ctx *ctx, int argc, char **argv)
{
	const struct tool *const	*t;
	const struct tool		*one = NULL;
	struct sbuf			 out = SBUF_INIT;

	if (argc > 0 && (one = tool_find(argv[0])) == NULL) {
		err_set(&ctx->err, "unknown tool '%s'", argv[0]);
		return CMD_USAGE;
	}
	for (t = tool_table; *t != NULL; t++) {
		if (one != NULL && *t != one)
			continue;
		if (out.len > 0)
			sbuf_addc(&out, '\n');
		tool_help(*t, &out);
	}
	fputs(out.buf, stdout);
	sbuf_release(&out);
	return 0;
}

const struct cmd_entry cmd_tools_entry = {
	.name = "tools",
	.args = "[tool]",
	.max_args = 1,
	.example = "thatch tools memory_remember",
	.summary = "describe the agent-facing MCP tools",
	.exec = cmd_tools_exec,
};
