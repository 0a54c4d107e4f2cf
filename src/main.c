/*
 * main.c — argv to the command table.
 *
 * One row per subcommand, in usage order (STYLE §2); the usage text, `help`
 * and the unknown-command message are all generated from cmd_table[], so a
 * new subcommand is one file and one row here. The dispatcher does the
 * shared work the flags ask for (open the store, keep hooks at exit 0) so
 * that handlers stay thin.
 *
 * Exit statuses: 0 success (and -h/--help); 1 a command failed
 * ("[thatch <cmd>] failed: <reason>" on stderr); 2 a usage mistake (one
 * line naming it, then the command's synopsis, on stderr). Hooks always
 * exit 0, usage mistakes included (cmd.h).
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
	&cmd_remember_entry,
	&cmd_edit_entry,
	&cmd_mv_entry,
	&cmd_forget_entry,
	&cmd_search_entry,
	&cmd_export_entry,
	&cmd_import_entry,
	&cmd_mcp_entry,
	&cmd_opencode_entry,
	&cmd_reminder_entry,
	&cmd_hygiene_entry,
	&cmd_queue_entry,
	&cmd_prime_entry,
	&cmd_buffer_batch_entry,
	&cmd_buffer_tool_entry,
	&cmd_flush_tools_entry,
	&cmd_flush_predictions_entry,
	&cmd_setup_entry,
	&cmd_doctor_entry,
	&cmd_tools_entry,
	&cmd_embed_entry,
	&cmd_model_entry,
	&cmd_session_entry,
	&cmd_chat_entry,
	&cmd_sync_entry,
	&cmd_reembed_entry,
	NULL
};

const struct cmd_entry *
cmd_find(const char *name)
{
	const struct cmd_entry *const	*e;
	size_t				 i;

	for (e = cmd_table; *e != NULL; e++) {
		if (strcmp((*e)->name, name) == 0)
			return *e;
		for (i = 0; i < 2 && (*e)->alias[i] != NULL; i++)
			if (strcmp((*e)->alias[i], name) == 0)
				return *e;
	}
	return NULL;
}

/* The command's names and arguments, as the usage text lists them. */
static void
usage_line(FILE *fp, const struct cmd_entry *e)
{
	char	synopsis[128];
	size_t	i, n;

	n = (size_t)snprintf(synopsis, sizeof(synopsis), "%s", e->name);
	for (i = 0; i < 2 && e->alias[i] != NULL && n < sizeof(synopsis); i++)
		n += (size_t)snprintf(synopsis + n, sizeof(synopsis) - n,
		    ", %s", e->alias[i]);
	if (*e->args && n < sizeof(synopsis))
		snprintf(synopsis + n, sizeof(synopsis) - n, " %s", e->args);
	fprintf(fp, "  %-38s %s\n", synopsis, e->summary);
}

void
cmd_usage(FILE *fp)
{
	const struct cmd_entry *const	*e;

	fputs("USAGE: thatch <command> [options] [arguments]\n\n", fp);
	for (e = cmd_table; *e != NULL; e++)
		usage_line(fp, *e);
	fputs("\nStores default to the repository detected from the git remote "
	    "of the project\ndirectory; \"global\" is the store shared by every "
	    "project; \"all\" (search only)\ncovers the project store and global. "
	    "`thatch help <command>` shows one\ncommand's options, environment "
	    "and an example; `--` ends the options.\n", fp);
}

static int
run(const struct cmd_entry *e, struct cli_ctx *ctx, int argc, char **argv)
{
	int	rc;

	if ((rc = cli_parse(ctx, e, argc, argv, &argc, &argv)) == 1) {
		cmd_help_print(stdout, e);
		return 0;
	}
	if (rc == 0 && (e->flags & CMD_STORE) && cli_open_store(ctx) != 0)
		rc = CMD_FAILED;
	else if (rc == 0)
		rc = e->exec(ctx, argc, argv);
	if (rc == CMD_USAGE) {
		fprintf(stderr, "thatch %s: %s\n", e->name, ctx->err.msg[0] ?
		    ctx->err.msg : "missing or invalid arguments");
		cmd_synopsis(stderr, e);
		fprintf(stderr, "Run 'thatch help %s' for its options.\n",
		    e->name);
		rc = 2;
	} else if (rc == CMD_FAILED) {
		fprintf(stderr, "[thatch %s] failed: %s\n", e->name,
		    ctx->err.msg);
		rc = 1;
	}
	if (e->flags & CMD_HOOK) {
		if (rc != 0)
			log_debug("hook:error", "%s: %s", e->name,
			    ctx->err.msg);
		rc = 0;
	}
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
