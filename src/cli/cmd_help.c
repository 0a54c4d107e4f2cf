/*
 * cmd_help.c — `thatch help [command]`, `thatch --help`/`-h` and every
 * command's -h: the usage text generated from cmd_table[], or one command's
 * synopsis, options, environment and example from its row (cmd.h), so the
 * help shown is exactly what cli_parse accepts. Help goes to stdout when
 * asked for; usage after a mistake goes to stderr (main.c).
 */
#include "cli/cmd.h"

#include <stdio.h>

#include "cli/cli.h"

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
cmd_help_exec(struct cli_ctx *ctx, int argc, char **argv)
{
	const struct cmd_entry	*e;

	if (argc < 1) {
		cmd_usage(stdout);
		return 0;
	}
	e = cmd_find(argv[0]);
	if (e == NULL) {
		err_set(&ctx->err, "unknown command '%s'", argv[0]);
		return CMD_USAGE;
	}
	cmd_help_print(stdout, e);
	return 0;
}

const struct cmd_entry cmd_help_entry = {
	.name = "help",
	.alias = { "--help", "-h" },
	.args = "[command]",
	.max_args = 1,
	.example = "thatch help search",
	.summary = "show this help, or one command's",
	.exec = cmd_help_exec,
};
