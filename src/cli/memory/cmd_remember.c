/*
 * cmd_remember.c — `thatch remember <label> [content | -]`: save a memory
 * from the shell through the memory_remember tool, the handler the MCP
 * server runs, so that a memory saved here is byte for byte one an agent
 * would have saved (issue 15).
 *
 * The content is the second argument; `-`, or no second argument while
 * stdin is not a terminal, reads it from stdin (trailing newlines
 * dropped). The tool's refusals (exists, archived) fail with its text;
 * a blank label is refused by the tool's validation.
 */
#include "cli/cmd.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "util/sbuf.h"

/* --confidence as the integer the tool validates (1-10 is its rule). */
static int
set_confidence(struct cli_ctx *ctx, json_t *args)
{
	const char	*v = cli_opt(ctx, "--confidence");
	char		*end;
	long		 n;

	if (v == NULL)
		return 0;
	errno = 0;
	n = strtol(v, &end, 10);
	if (*v == '\0' || *end != '\0' || errno != 0) {
		err_set(&ctx->err, "--confidence wants a whole number from "
		    "1 to 10, not '%s'", v);
		return CMD_USAGE;
	}
	json_object_set_new(args, "confidence", json_integer(n));
	return 0;
}

/* --anchor a.c,b.c#sym as the tool's anchors array. */
static void
set_anchors(struct cli_ctx *ctx, json_t *args)
{
	const char	*v = cli_opt(ctx, "--anchor"), *comma;
	json_t		*arr;

	if (v == NULL)
		return;
	arr = json_array();
	for (; *v != '\0'; v = *comma ? comma + 1 : comma) {
		comma = v + strcspn(v, ",");
		if (comma > v)
			json_array_append_new(arr, json_stringn(v,
			    (size_t)(comma - v)));
	}
	json_object_set_new(args, "anchors", arr);
}

/* The memory_remember arguments of the options and label. */
static int
build_args(struct cli_ctx *ctx, const char *label, json_t *args)
{
	if (cli_json_set(ctx, args, "label", label) != 0 ||
	    cli_json_set(ctx, args, "store", cli_opt(ctx, "--store")) != 0 ||
	    cli_json_set(ctx, args, "branch", cli_opt(ctx, "--branch")) != 0)
		return CMD_FAILED;
	if (cli_flag(ctx, "--overwrite"))
		json_object_set_new(args, "overwrite", json_true());
	if (cli_flag(ctx, "--archived") && cli_flag(ctx, "--unarchive")) {
		err_set(&ctx->err, "--archived and --unarchive contradict "
		    "each other");
		return CMD_USAGE;
	}
	if (cli_flag(ctx, "--archived") || cli_flag(ctx, "--unarchive"))
		json_object_set_new(args, "archived",
		    json_boolean(cli_flag(ctx, "--archived")));
	set_anchors(ctx, args);
	return set_confidence(ctx, args);
}

static int
cmd_remember_exec(struct cli_ctx *ctx, int argc, char **argv)
{
	struct sbuf	 content = SBUF_INIT, out = SBUF_INIT;
	json_t		*args = json_object(), *j;
	int		 rc;

	if ((rc = build_args(ctx, argv[0], args)) != 0)
		goto out;
	rc = CMD_FAILED;
	if (argc > 1 && strcmp(argv[1], "-") != 0)
		sbuf_adds(&content, argv[1]);
	else if (argc == 1 && isatty(STDIN_FILENO)) {
		err_set(&ctx->err, "missing content (give it as an argument, "
		    "or `-` to read it from stdin)");
		rc = CMD_USAGE;
		goto out;
	} else if (cli_read_text(ctx, STDIN_FILENO, "the content from stdin",
	    &content) != 0)
		goto out;
	if ((j = cli_json_arg(ctx, "the content", content.buf,
	    content.len)) == NULL)
		goto out;
	json_object_set_new(args, "content", j);
	if ((rc = cli_tool(ctx, "memory_remember", args, &out)) == 0)
		cli_print_text(&out);
out:
	json_decref(args);
	sbuf_release(&content);
	sbuf_release(&out);
	return rc;
}

static const struct cmd_opt remember_opts[] = {
	{ "--store", "<store>", "save into this store (default: the "
	    "project's; \"global\" for every project)" },
	{ "--branch", "<branch>", "scope the memory to this git branch" },
	{ "--confidence", "<n>", "how sure you are, 1 (a guess) to 10 "
	    "(verified)" },
	{ "--overwrite", NULL, "replace the memory with the same label "
	    "(keeps its dates, recalls, branch and confidence unless given)" },
	{ "--archived", NULL, "save it archived (hidden from recall); needed "
	    "to overwrite an archived memory and keep it archived" },
	{ "--unarchive", NULL, "with --overwrite: unarchive an archived "
	    "memory" },
	{ "--anchor", "<path,...>", "the files it describes, relative to "
	    "the repository (path, path#symbol, path:L10-L20); recall marks "
	    "it when they change" },
	{ NULL, NULL, NULL },
};

const struct cmd_entry cmd_remember_entry = {
	.name = "remember",
	.args = "<label> [content | -]",
	.min_args = 1,
	.max_args = 2,
	.opts = remember_opts,
	.reads = READS_PROJECT | READS_MODEL,
	.example = "git log -1 --format=%B | thatch remember \"release "
	    "steps\" -",
	.summary = "save a memory (content from stdin with -)",
	.flags = CMD_STORE,
	.exec = cmd_remember_exec,
};
