/*
 * cmd_mv.c — `thatch mv <label> <store>`: move a memory to another store
 * through the memory_move tool (issue 15), every field kept. The memory
 * is looked up in --from, else the project's store; a memory that is not
 * there, or a target that already has one with the label, fails with the
 * tool's text and moves nothing.
 */
#include "cli/cmd.h"

#include <string.h>

#include "cli/cli.h"
#include "util/sbuf.h"

static int
cmd_mv_exec(struct cli_ctx *ctx, int argc, char **argv)
{
	struct sbuf	 out = SBUF_INIT;
	json_t		*args = json_object();
	int		 rc = CMD_FAILED;

	(void)argc;
	if (cli_json_set(ctx, args, "label", argv[0]) == 0 &&
	    cli_json_set(ctx, args, "to", argv[1]) == 0 &&
	    cli_json_set(ctx, args, "store", cli_opt(ctx, "--from")) == 0 &&
	    (rc = cli_tool(ctx, "memory_move", args, &out)) == 0)
		cli_print_text(&out);
	json_decref(args);
	sbuf_release(&out);
	return rc;
}

static const struct cmd_opt mv_opts[] = {
	{ "--from", "<store>", "the store the memory is in (default: the "
	    "project's)" },
	{ NULL, NULL, NULL },
};

const struct cmd_entry cmd_mv_entry = {
	.name = "mv",
	.args = "<label> <store>",
	.min_args = 2,
	.max_args = 2,
	.opts = mv_opts,
	.reads = READS_PROJECT,
	.example = "thatch mv \"editor preference\" global",
	.summary = "move a memory to another store",
	.flags = CMD_STORE,
	.exec = cmd_mv_exec,
};
