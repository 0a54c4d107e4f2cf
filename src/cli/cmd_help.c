/*
 * cmd_help.c — `thatch help [command]` and `thatch --help`: the usage text
 * generated from cmd_table[], or one command's synopsis. Help goes to
 * stdout when asked for; usage after a mistake goes to stderr (main.c).
 */
#include "cli/cmd.h"

#include <stdio.h>

#include "cli/cli.h"

static int
cmd_help_exec(struct cli_ctx *ctx, int argc, char **argv)
{
	const struct cmd_entry	*e;

	if (argc < 1) {
		cmd_usage(stdout);
		return 0;
	}
	e = cmd_find(argv[0]);
	if (e == NULL) {
		err_set(&ctx->err, "unknown command '%s'", argv[0]);
		return CMD_USAGE;
	}
	printf("usage: thatch %s%s%s\n\n  %s\n", e->name,
	    *e->usage ? " " : "", e->usage, e->summary);
	return 0;
}

const struct cmd_entry cmd_help_entry = {
	.name = "help",
	.alias = "--help",
	.usage = "[command]",
	.summary = "show this help, or one command's",
	.exec = cmd_help_exec,
};
