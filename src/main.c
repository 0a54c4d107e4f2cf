/*
 * main.c — argv to the command table.
 *
 * One row per subcommand, in usage order (STYLE §2); the usage text, `help`
 * and the unknown-command message are all generated from cmd_table[], so a
 * new subcommand is one file and one row here. The dispatcher does the
 * shared work the flags ask for (open the store, keep hooks at exit 0) so
 * that handlers stay thin.
 *
 * Exit statuses: 0 success; 1 a command failed ("[thatch <cmd>] failed:
 * <reason>" on stderr); 2 a usage mistake (one line plus the usage text on
 * stderr). Hooks always exit 0.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cmd.h"
#include "util/log.h"

const struct cmd_entry *const cmd_table[] = {
	&cmd_version_entry,
	&cmd_help_entry,
	&cmd_stores_entry,
	&cmd_list_entry,
	&cmd_show_entry,
	&cmd_forget_entry,
	&cmd_search_entry,
	&cmd_mcp_entry,
	&cmd_opencode_entry,
	&cmd_reminder_entry,
	&cmd_hygiene_entry,
	&cmd_prime_entry,
	&cmd_buffer_batch_entry,
	&cmd_buffer_tool_entry,
	&cmd_flush_tools_entry,
	&cmd_flush_predictions_entry,
	&cmd_setup_entry,
	&cmd_tools_entry,
	&cmd_embed_entry,
	&cmd_model_entry,
	NULL
};

const struct cmd_entry *
cmd_find(const char *name)
{
	const struct cmd_entry *const	*e;

	for (e = cmd_table; *e != NULL; e++) {
		if (strcmp((*e)->name, name) == 0 ||
		    ((*e)->alias != NULL && strcmp((*e)->alias, name) == 0))
			return *e;
	}
	return NULL;
}

void
cmd_usage(FILE *fp)
{
	const struct cmd_entry *const	*e;
	char				 synopsis[128];

	fputs("USAGE: thatch <command> [arguments]\n\n", fp);
	for (e = cmd_table; *e != NULL; e++) {
		snprintf(synopsis, sizeof(synopsis), "%s%s%s%s%s",
		    (*e)->name, (*e)->alias ? ", " : "",
		    (*e)->alias ? (*e)->alias : "", *(*e)->usage ? " " : "",
		    (*e)->usage);
		fprintf(fp, "  %-38s %s\n", synopsis, (*e)->summary);
	}
	fputs("\nStores default to the repository detected from the git remote "
	    "of the project\ndirectory; \"global\" is the store shared by every "
	    "project; \"all\" (search only)\ncovers the project store and global. "
	    "`thatch help <command>` shows one\ncommand.\n", fp);
}

static int
run(const struct cmd_entry *e, struct cli_ctx *ctx, int argc, char **argv)
{
	int	rc;

	if ((e->flags & CMD_STORE) && cli_open_store(ctx) != 0)
		rc = CMD_FAILED;
	else
		rc = e->exec(ctx, argc, argv);
	if (rc == CMD_USAGE) {
		if (ctx->err.msg[0] != '\0')
			fprintf(stderr, "thatch %s: %s\n", e->name,
			    ctx->err.msg);
		else
			fprintf(stderr, "thatch %s: missing or invalid "
			    "arguments (usage: thatch %s %s)\n", e->name,
			    e->name, e->usage);
		cmd_usage(stderr);
		rc = 2;
	} else if (rc == CMD_FAILED) {
		fprintf(stderr, "[thatch %s] failed: %s\n", e->name,
		    ctx->err.msg);
		if (e->flags & CMD_HOOK)
			log_debug("hook:error", "%s: %s", e->name,
			    ctx->err.msg);
		rc = 1;
	}
	if (e->flags & CMD_HOOK)
		rc = 0;
	return rc;
}

int
main(int argc, char **argv)
{
	const struct cmd_entry	*e;
	struct cli_ctx		 ctx;
	int			 rc;

	if (argc < 2) {
		fputs("thatch: missing command\n", stderr);
		cmd_usage(stderr);
		return 2;
	}
	e = cmd_find(argv[1]);
	if (e == NULL) {
		fprintf(stderr, "thatch: unknown command '%s'\n", argv[1]);
		cmd_usage(stderr);
		return 2;
	}
	cli_ctx_init(&ctx, argv[1]);
	log_open(ctx.paths.db_dir);
	rc = run(e, &ctx, argc - 2, argv + 2);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		/* git's run_builtin does the same: a lost write is a failure */
		fprintf(stderr, "[thatch %s] failed: cannot write output\n",
		    e->name);
		if (!(e->flags & CMD_HOOK))
			rc = 1;
	}
	log_close();
	cli_ctx_release(&ctx);
	return rc;
}
