/*
 * cmd_stores.c — `thatch stores`: every store name, one per line, in byte
 * order. `global` always exists, so the output is never empty.
 */
#include "cli/cmd.h"

#include <stdio.h>

#include "cli/cli.h"
#include "core/store.h"

static int
print_store(const char *name, void *arg)
{
	(void)arg;
	printf("%s\n", name);
	return 0;
}

static int
cmd_stores_exec(struct cli_ctx *ctx, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	if (store_list_stores(ctx->store, print_store, NULL, &ctx->err) != 0)
		return CMD_FAILED;
	return 0;
}

const struct cmd_entry cmd_stores_entry = {
	.name = "stores",
	.usage = "",
	.summary = "list every store",
	.flags = CMD_STORE,
	.exec = cmd_stores_exec,
};
