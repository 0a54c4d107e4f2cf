/*
 * cmd_help.c — `thatch help [command]`, `thatch --help`/`-h`: the usage
 * text generated from the command table the dispatcher left in the context,
 * or one command's synopsis, options, environment and example from its row
 * (cmd_help_print, cmd.c), so the help shown is exactly what cli_parse
 * accepts. Help goes to stdout when asked for; usage after a mistake goes
 * to stderr (cmd.c).
 */
#include "cli/cmd.h"

#include <stdio.h>

#include "cli/cli.h"

static int
cmd_help_exec(struct cli_ctx *ctx, int argc, char **argv)
{
	const struct cmd_entry	*e;

	if (argc < 1) {
		cmd_usage(ctx->table, stdout);
		return 0;
	}
	e = cmd_find(ctx->table, argv[0]);
	if (e == NULL) {
		err_set(&ctx->err, "unknown command '%s'", argv[0]);
		return CMD_USAGE;
	}
	cmd_help_print(stdout, e);
	return 0;
}

const struct cmd_entry cmd_help_entry = {
	.name = "help",
	.alias = { "--help", "-h" },
	.args = "[command]",
	.max_args = 1,
	.example = "thatch help search",
	.summary = "show this help, or one command's",
	.exec = cmd_help_exec,
};
