/*
 * cmd.c — the command machinery: find a row of a command table, print the
 * usage text and one command's help from the rows, and run a command with
 * the shared work its flags ask for (open the store, keep hooks at exit 0)
 * so that handlers stay thin.
 *
 * The table is an argument, never a global: main.c owns cmd_table[] and
 * hands it to cmd_main, which leaves it in cli_ctx for `thatch help`. So
 * nothing here knows which commands exist, and no command file calls back
 * into main.c.
 *
 * Exit statuses: 0 success (and -h/--help); 1 a command failed
 * ("[thatch <cmd>] failed: <reason>" on stderr); 2 a usage mistake (one
 * line naming it, then the command's synopsis, on stderr). Hooks always
 * exit 0, usage mistakes included (cmd.h).
 */
#include "cli/cmd.h"

#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "util/log.h"
#include "util/os/plat.h"

const struct cmd_entry *
cmd_find(const struct cmd_entry *const *table, const char *name)
{
	const struct cmd_entry *const	*e;
	size_t				 i;

	for (e = table; *e != NULL; e++) {
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
cmd_usage(const struct cmd_entry *const *table, FILE *fp)
{
	const struct cmd_entry *const	*e;

	fputs("USAGE: thatch <command> [options] [arguments]\n\n", fp);
	for (e = table; *e != NULL; e++)
		usage_line(fp, *e);
	fputs("\nStores default to the repository detected from the git remote "
	    "of the project\ndirectory; \"global\" is the store shared by every "
	    "project; \"all\" (search only)\ncovers the project store and global. "
	    "`thatch help <command>` shows one\ncommand's options, environment "
	    "and an example; `--` ends the options.\n", fp);
}

/* "thatch list [--json] [store]": the row's options, then its arguments. */
void
cmd_synopsis(FILE *fp, const struct cmd_entry *e)
{
	const struct cmd_opt	*o;

	fprintf(fp, "usage: thatch %s", e->name);
	for (o = e->opts; o != NULL && o->name != NULL; o++)
		fprintf(fp, " [%s%s%s]", o->name, o->arg ? " " : "",
		    o->arg ? o->arg : "");
	fprintf(fp, "%s%s\n", *e->args ? " " : "", e->args);
}

void
cmd_help_print(FILE *fp, const struct cmd_entry *e)
{
	const struct cmd_opt	*o;
	char			 name[64];

	cmd_synopsis(fp, e);
	fprintf(fp, "\n  %s\n\noptions:\n", e->summary);
	for (o = e->opts; o != NULL && o->name != NULL; o++) {
		snprintf(name, sizeof(name), "%s%s%s", o->name,
		    o->arg ? " " : "", o->arg ? o->arg : "");
		fprintf(fp, "  %-22s %s\n", name, o->help);
	}
	fprintf(fp, "  %-22s %s\n  %-22s %s\n", "-h, --help",
	    "show this help", "--", "end of options: what follows is an "
	    "argument");
	fputs("\nenvironment: THATCH_DB_PATH THATCH_DEBUG", fp);
	if (e->reads & READS_PROJECT)
		fputs(" CLAUDE_PROJECT_DIR CURSOR_PROJECT_DIR", fp);
	if (e->reads & READS_MODEL)
		fputs(" THATCH_MODEL HF_HOME HF_ENDPOINT HF_TOKEN "
		    "THATCH_THREADS XDG_CACHE_HOME", fp);
	fprintf(fp, "%s%s\n", e->env ? " " : "", e->env ? e->env : "");
	fprintf(fp, "\nexample:\n  %s\n", e->example);
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
cmd_main(const struct cmd_entry *const *table, int argc, char **argv)
{
	const struct cmd_entry	*e;
	struct cli_ctx		 ctx;
	int			 rc;

	plat_set_argv0(argv[0]);	/* the executable's path, off Linux */
	if (argc < 2) {
		fputs("thatch: missing command\n", stderr);
		cmd_usage(table, stderr);
		return 2;
	}
	e = cmd_find(table, argv[1]);
	if (e == NULL) {
		fprintf(stderr, "thatch: unknown command '%s'\n", argv[1]);
		cmd_usage(table, stderr);
		return 2;
	}
	cli_ctx_init(&ctx, argv[1]);
	ctx.table = table;
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
