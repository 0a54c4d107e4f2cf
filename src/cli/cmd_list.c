/*
 * cmd_list.c — `thatch list [store]`: one line per memory, ordered by label
 * (hosts-hooks-cli §1.3). A store with no memories, or none at all, prints
 * the not-found line and exits 0; the store is not created.
 */
#include "cli/cmd.h"

#include <stdbool.h>
#include <stdio.h>

#include "cli/cli.h"
#include "core/store.h"

static int
print_entry(const struct store_entry *e, void *arg)
{
	bool	*any = arg;

	*any = true;
	printf("[%s] %s", e->store, e->label);
	if (e->branch != NULL && *e->branch != '\0')
		printf(" (branch:%s)", e->branch);
	if (e->confidence != 0)
		printf(" (c:%d)", e->confidence);
	printf(" (%s)\n", e->updated_at ? e->updated_at : "");
	return 0;
}

static int
cmd_list_exec(struct cli_ctx *ctx, int argc, char **argv)
{
	const char	*store;
	bool		 any = false;

	store = argc > 0 && *argv[0] != '\0' ? argv[0] : cli_default_store(ctx);
	if (store_list(ctx->store, store, print_entry, &any, &ctx->err) != 0)
		return CMD_FAILED;
	if (!any)
		printf("No memories in \"%s\".\n", store);
	return 0;
}

const struct cmd_entry cmd_list_entry = {
	.name = "list",
	.usage = "[store]",
	.summary = "list the memories of a store",
	.flags = CMD_STORE,
	.exec = cmd_list_exec,
};
