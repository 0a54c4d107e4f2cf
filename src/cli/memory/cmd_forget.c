/*
 * cmd_forget.c — `thatch forget <label> [store]`: delete one memory and its
 * dedup verdicts (hosts-hooks-cli §1.3). An unknown label is not an error:
 * it prints the not-found line and exits 0.
 *
 * deviation (issue 3): a missing or empty label is a usage error, exit 2;
 * a hash-fallback label that matches nothing fails with one line, as in
 * cmd_show.c. Printed names have their control characters escaped.
 */
#include "cli/cmd.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/slug.h"
#include "core/store/store.h"
#include "util/sbuf.h"
#include "util/utf8.h"

static int
cmd_forget_exec(struct cli_ctx *ctx, int argc, char **argv)
{
	const char	*store;
	struct sbuf	 out = SBUF_INIT;
	char		*slug;
	bool		 found;
	int		 rc = CMD_FAILED;

	if (*argv[0] == '\0') {
		err_set(&ctx->err, "empty label");
		return CMD_USAGE;
	}
	store = argc > 1 && *argv[1] != '\0' ? argv[1] : cli_default_store(ctx);
	slug = slug_make(argv[0], strlen(argv[0]));
	if (store_forget(ctx->store, store, slug, &found, &ctx->err) != 0)
		goto out;
	if (!found && cli_hashed_label(ctx, argv[0], slug, store))
		goto out;
	if (found)
		utf8_addf(&out, "[forgotten] %s :: %s\n", store, argv[0]);
	else
		utf8_addf(&out, "No memory labeled \"%s\" in \"%s\".\n",
		    argv[0], store);
	fputs(out.buf, stdout);
	rc = 0;
out:
	sbuf_release(&out);
	free(slug);
	return rc;
}

const struct cmd_entry cmd_forget_entry = {
	.name = "forget",
	.args = "<label> [store]",
	.min_args = 1,
	.max_args = 2,
	.reads = READS_PROJECT,
	.example = "thatch forget \"login flow\" global",
	.summary = "delete a memory",
	.flags = CMD_STORE,
	.exec = cmd_forget_exec,
};
