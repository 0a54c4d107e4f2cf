/*
 * cmd_import.c — `thatch import FILE|DIR [--store S] [--on-conflict
 * skip|overwrite|newer] [--from FORMAT]`: records of an export, or what
 * another tool kept (the MCP memory server's graph, markdown notes,
 * CLAUDE.md), into the store (docs/export.md).
 *
 *  1. Each record is imported whole or not at all; a bad one is one
 *     "[thatch import] FILE:LINE: why" line on stderr and the import goes
 *     on. The last line on stdout is the summary, "imported N, skipped N,
 *     failed N"; the exit status is 1 when any record failed.
 *  2. Rows are embedded again unless their vectors carry the model in
 *     effect (THATCH_MODEL), so what is imported is found by recall.
 */
#include "cli/cmd.h"

#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "core/xfer/xfer.h"
#include "embed/model.h"
#include "util/sbuf.h"
#include "util/utf8.h"

static void
report(void *arg, const char *where, const char *why)
{
	struct sbuf	*line = arg;

	sbuf_reset(line);
	utf8_addf(line, "[thatch import] %s: %s\n", where, why);
	fputs(line->buf, stderr);
}

static int
cmd_import_exec(struct cli_ctx *ctx, int argc, char **argv)
{
	struct xfer_import	 imp;
	struct model_opts	 mo;
	struct sbuf		 line = SBUF_INIT;
	char			 now[CLOCK_ISO_LEN];
	enum xfer_from		 from = XFER_AUTO;
	const char		*v;
	int			 rc;

	(void)argc;
	memset(&imp, 0, sizeof(imp));
	if ((v = cli_opt(ctx, "--on-conflict")) != NULL &&
	    xfer_conflict_parse(v, &imp.conflict) != 0) {
		err_set(&ctx->err, "--on-conflict: '%s' is not skip, "
		    "overwrite or newer", v);
		return CMD_USAGE;
	}
	if ((v = cli_opt(ctx, "--from")) != NULL &&
	    xfer_from_parse(v, &from) != 0) {
		err_set(&ctx->err, "--from: '%s' is not thatch, mcp-memory, "
		    "markdown or claude", v);
		return CMD_USAGE;
	}
	if ((v = cli_opt(ctx, "--store")) != NULL && *v == '\0') {
		err_set(&ctx->err, "--store: empty store name");
		return CMD_USAGE;
	}
	imp.st = ctx->store;
	imp.store = v;
	imp.default_store = v != NULL ? v : cli_default_store(ctx);
	model_opts_init(&mo, &ctx->paths);
	imp.model_opts = &mo;
	imp.now = clock_iso(clock_now(&ctx->clock), now);
	sbuf_init(&line);
	imp.report = report;
	imp.report_arg = &line;
	rc = xfer_import_path(&imp, argv[0], from, &ctx->err);
	printf("imported %d, skipped %d, failed %d\n", imp.imported,
	    imp.skipped, imp.failed);
	fflush(stdout);	/* before the dispatcher's failure line */
	xfer_import_release(&imp);
	model_opts_release(&mo);
	sbuf_release(&line);
	if (rc != 0)
		return CMD_FAILED;
	return imp.failed > 0;
}

static const struct cmd_opt import_opts[] = {
	{ "--store", "STORE", "put everything in this store (default: "
	  "exported rows keep theirs; other tools' notes go to the "
	  "project's)" },
	{ "--on-conflict", "POLICY", "when a memory or row exists: skip "
	  "(default), overwrite, or newer (the later updated_at wins)" },
	{ "--from", "FORMAT", "thatch, mcp-memory, markdown or claude "
	  "(default: told from the file)" },
	{ NULL, NULL, NULL },
};

const struct cmd_entry cmd_import_entry = {
	.name = "import",
	.args = "<file|dir>",
	.min_args = 1,
	.max_args = 1,
	.opts = import_opts,
	.reads = READS_PROJECT | READS_MODEL,
	.example = "thatch import memories.jsonl --on-conflict newer",
	.summary = "read memories from an export or another tool",
	.flags = CMD_STORE,
	.exec = cmd_import_exec,
};
