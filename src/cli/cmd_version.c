/*
 * cmd_version.c — `thatch --version`: print the version. Deliberately
 * opens nothing, so it measures the bare start-up cost.
 */
#include "cli/cmd.h"

#include <stdio.h>

static int
cmd_version_exec(struct cli_ctx *ctx, int argc, char **argv)
{
	(void)ctx;
	(void)argc;
	(void)argv;
	printf("%s\n", THATCH_VERSION);
	return 0;
}

const struct cmd_entry cmd_version_entry = {
	.name = "--version",
	.alias = { "-v" },
	.args = "",
	.max_args = 0,
	.example = "thatch --version",
	.summary = "print the version",
	.exec = cmd_version_exec,
};
