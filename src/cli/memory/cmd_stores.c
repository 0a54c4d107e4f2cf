/*
 * cmd_stores.c — `thatch stores`: every store name, one per line, in byte
 * order, control characters escaped (utf8_escape). `global` always
 * exists, so the output is never empty.
 */
#include "cli/cmd.h"

#include <stdio.h>

#include "cli/cli.h"
#include "core/store/store.h"
#include "util/sbuf.h"
#include "util/utf8.h"

static int
print_store(const char *name, void *arg)
{
	struct sbuf	*line = arg;

	sbuf_reset(line);
	utf8_addf(line, "%s\n", name);
	fputs(line->buf, stdout);
	return 0;
}

static int
add_store(const char *name, void *arg)
{
	json_array_append_new(arg, cli_json_str(name));
	return 0;
}

static int
cmd_stores_exec(struct cli_ctx *ctx, int argc, char **argv)
{
	struct sbuf	 line = SBUF_INIT;
	json_t		*arr;
	int		 rc;

	(void)argc;
	(void)argv;
	if (!cli_flag(ctx, "--json")) {
		rc = store_list_stores(ctx->store, print_store, &line,
		    &ctx->err);
		sbuf_release(&line);
		return rc == 0 ? 0 : CMD_FAILED;
	}
	arr = json_array();
	if (store_list_stores(ctx->store, add_store, arr, &ctx->err) != 0) {
		json_decref(arr);
		return CMD_FAILED;
	}
	cli_print_json(arr);
	return 0;
}

static const struct cmd_opt stores_opts[] = {
	{ "--json", NULL, "print one JSON array of the names" },
	{ NULL, NULL, NULL },
};

const struct cmd_entry cmd_stores_entry = {
	.name = "stores",
	.args = "",
	.max_args = 0,
	.opts = stores_opts,
	.example = "thatch stores",
	.summary = "list every store",
	.flags = CMD_STORE,
	.exec = cmd_stores_exec,
};
