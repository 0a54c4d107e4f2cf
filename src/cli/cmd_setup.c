/*
 * cmd_setup.c — `thatch setup [--remove] --claude [--cursor] [--opencode]
 * [--global]`: install the MCP server entry, instruction block, hooks and
 * skills for Claude Code and/or Cursor (hosts-hooks-cli §1.3, §3), and the
 * plugin entry and skills for opencode (docs/opencode.md), then say what
 * was written; with --remove take exactly that out again and say what
 * became of each file. The hosts are the rows of setup_host_table
 * (host/setup/setup_host.c), run in its order, Claude Code first,
 * opencode last: what each writes is its row's, the summary this file's.
 * Re-running replaces only thatch's own parts. A damaged instruction
 * block is reported on stderr and left alone; the rest still happens.
 *
 * Project scope from a subdirectory of a git work tree goes to the top of
 * the tree (setup_project_top), where Claude Code finds .mcp.json and
 * CLAUDE.md from any folder below, Cursor opens the workspace and opencode
 * finds opencode.json (host-contracts §1.1, §2.1, §3.1); the summary says
 * so, and that Claude Code's .claude/settings.json is read only in the
 * folder it starts in. A CLAUDE_PROJECT_DIR/CURSOR_PROJECT_DIR names the
 * folder exactly and is kept. A project whose .claude or .cursor is the
 * host's user folder (setup run in the home folder) is refused: the
 * hooks would land in the user settings and run in every project.
 */
#include "cli/cmd.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "host/setup/setup.h"
#include "host/setup/setup_host.h"
#include "host/setup/setup_undo.h"
#include "util/sbuf.h"

/* "  <label>" padded so that every value starts at column 17 (§1.3). */
static void
line(const char *label, const char *value)
{
	printf("  %-15s%s\n", label, value);
}

/* A folder of files setup keeps in step: how many it wrote or left. */
static void
files(const char *label, const char *dir, int written, int unchanged)
{
	printf("  %-15s%s (%d file%s: %d written, %d unchanged)\n", label,
	    dir, written + unchanged, written + unchanged == 1 ? "" : "s",
	    written, unchanged);
}

static void
report(const char *host, const struct setup_opts *o,
    const struct setup_report *r)
{
	printf("thatch setup complete for %s (%s).\n\n", host,
	    o->global ? "global" : "project-local");
	if (r->mcp_config != NULL)
		line("MCP config:", r->mcp_config);
	line("Instructions:", r->instructions);
	line("Hooks:", r->hooks);
	files("Skills:", r->skills_dir, r->skills_written,
	    r->skills_unchanged);
	if (r->commands_dir != NULL)
		files("Commands:", r->commands_dir, r->commands_written,
		    r->commands_unchanged);
	putchar('\n');
	if (r->broken)
		fprintf(stderr, "[thatch setup] %s has the start of the thatch "
		    "block but not its end marker; it was left untouched. "
		    "Delete the damaged block by hand and run setup again.\n",
		    r->instructions);
}

/* opencode's summary (docs/opencode.md "Setup"). */
static void
report_opencode(const struct setup_opts *o, const struct opencode_report *r)
{
	printf("thatch setup complete for opencode (%s).\n\n", o->global ?
	    "global" : "project-local");
	line("Config:", r->config);
	line("Plugin:", r->plugin);
	files("Skills:", r->skills_dir, r->skills_written,
	    r->skills_unchanged);
	files("Commands:", r->commands_dir, r->commands_written,
	    r->commands_unchanged);
	putchar('\n');
}

/* What --remove did to one file (enum setup_undo), as the summary says it. */
static const char *const undone[] = {
	"nothing of thatch's there",
	"thatch's part removed",
	"deleted: nothing else was in it",
	"left alone: its thatch block has no end marker",
};

static void
undo_line(const char *label, const char *path, enum setup_undo u)
{
	printf("  %-15s%s (%s)\n", label, path, undone[u]);
}

static void
removed_files(const char *label, const char *dir, int n)
{
	printf("  %-15s%s (%d file%s removed)\n", label, dir, n,
	    n == 1 ? "" : "s");
}

static void
report_removed(const char *host, const struct setup_opts *o,
    const struct setup_report *r)
{
	printf("thatch removed from %s (%s).\n\n", host, o->global ?
	    "global" : "project-local");
	if (r->mcp_config != NULL)
		undo_line("MCP config:", r->mcp_config, r->undo_mcp);
	undo_line("Instructions:", r->instructions, r->undo_instructions);
	undo_line("Hooks:", r->hooks, r->undo_hooks);
	removed_files("Skills:", r->skills_dir, r->skills_removed);
	if (r->commands_dir != NULL)
		removed_files("Commands:", r->commands_dir,
		    r->commands_removed);
	if (r->approval != NULL)
		undo_line("Approval:", r->approval, r->undo_approval);
	putchar('\n');
	if (r->undo_instructions == SETUP_UNDO_BROKEN)
		fprintf(stderr, "[thatch setup] %s has the start of the thatch "
		    "block but not its end marker; it was left untouched. "
		    "Delete the damaged block by hand.\n", r->instructions);
}

static void
report_opencode_removed(const struct setup_opts *o,
    const struct opencode_report *r)
{
	printf("thatch removed from opencode (%s).\n\n", o->global ?
	    "global" : "project-local");
	undo_line("Config:", r->config, r->undo_config);
	if (r->shared_kept) {
		printf("  %-15s%s (kept: the %s setup uses them)\n", "Skills:",
		    r->skills_dir, o->global ? "project's" : "global");
		printf("  %-15s%s (kept: the %s setup uses them)\n",
		    "Commands:", r->commands_dir, o->global ? "project's" :
		    "global");
	} else {
		removed_files("Skills:", r->skills_dir, r->skills_removed);
		removed_files("Commands:", r->commands_dir,
		    r->commands_removed);
	}
	putchar('\n');
}

/* Whether two paths name one folder (as written when either is missing). */
static bool
same_folder(const char *a, const char *b)
{
	char	ra[PATH_MAX], rb[PATH_MAX];

	if (realpath(a, ra) != NULL && realpath(b, rb) != NULL)
		return strcmp(ra, rb) == 0;
	return strcmp(a, b) == 0;
}

/*
 * Whether the project's host folder is the host's user folder (setup run
 * in the home folder): a project install there would put its hooks in the
 * user settings, so every project would run them while only this folder
 * had the server. Removal stays allowed, to undo such an install.
 */
static int
refuse_user_folder(const struct setup_host *h, const struct setup_opts *o,
    struct err *err)
{
	const char	*user = h->user_dir(o->paths);
	char		*dot = path_join(o->paths->project_dir, h->dot);
	bool		 same = same_folder(dot, user);

	free(dot);
	if (!same)
		return 0;
	return err_set(err, "%s is %s's user folder, so a project setup here "
	    "would run its hooks in every project: run `thatch setup %s "
	    "--global`, or run setup in a project folder",
	    o->paths->project_dir, h->name, h->flag);
}

/* After a successful run: the summary, the host's advice, the restart. */
static void
say_done(const struct setup_host *h, const struct setup_opts *o, bool remove,
    const struct setup_host_report *r)
{
	struct sbuf	advice = SBUF_INIT;

	if (h->install_plugin != NULL)
		(remove ? report_opencode_removed : report_opencode)(o,
		    &r->plugin);
	else
		(remove ? report_removed : report)(h->name, o, &r->files);
	sbuf_init(&advice);
	if (h->advice != NULL)
		h->advice(o, r, remove, &advice);
	fputs(advice.buf, stdout);
	sbuf_release(&advice);
	if (!remove)
		printf("Restart %s to load thatch.\n", h->name);
}

/* Install or remove one row of setup_host_table; 0 or CMD_FAILED. */
static int
run_host(const struct setup_host *h, const struct setup_opts *o, bool remove,
    struct err *err)
{
	struct setup_host_report	r;
	int				rc;

	if (h->dot != NULL && !o->global && !remove &&
	    refuse_user_folder(h, o, err) != 0)
		return CMD_FAILED;
	rc = setup_host_run(h, o, remove, &r, err);
	if (rc == 0)
		say_done(h, o, remove, &r);
	setup_host_report_release(&r);
	return rc == 0 ? 0 : CMD_FAILED;
}

/* Why project scope is not the folder setup ran in (setup_project_top). */
static void
say_top(const char *from, const char *top, bool remove)
{
	printf("%s is inside the git repository %s:\n%s thatch at its top "
	    "level, where the hosts look for project files\nfrom any folder "
	    "in it. Claude Code reads .claude/settings.json only in the\n"
	    "folder it is started in, so start it at the top (or set "
	    "CLAUDE_PROJECT_DIR\nto the folder to set up instead).\n\n",
	    from, top, remove ? "Removing" : "Installing");
}

static int
cmd_setup_exec(struct cli_ctx *ctx, int argc, char **argv)
{
	struct setup_opts	 o = { &ctx->paths, NULL, false };
	bool			 remove, any = false, shown = false;
	char			*from = NULL;
	size_t			 i;
	int			 rc = 0;

	(void)argc;
	(void)argv;
	remove = cli_flag(ctx, "--remove");
	o.global = cli_flag(ctx, "--global");
	for (i = 0; i < setup_host_count; i++)
		any = any || cli_flag(ctx, setup_host_table[i].flag);
	if (!any) {
		err_set(&ctx->err, "choose a host with --claude, --cursor "
		    "and/or --opencode");
		return CMD_USAGE;
	}
	if (!o.global && (from = setup_project_top(&ctx->paths)) != NULL)
		say_top(from, ctx->paths.project_dir, remove);
	free(from);
	if ((o.self = setup_self(&ctx->err)) == NULL)
		return CMD_FAILED;
	for (i = 0; i < setup_host_count && rc == 0; i++) {
		if (!cli_flag(ctx, setup_host_table[i].flag))
			continue;
		/* an empty line between hosts, and §1.3's before Cursor's */
		if (shown || setup_host_table[i].blank_first)
			putchar('\n');
		rc = run_host(&setup_host_table[i], &o, remove, &ctx->err);
		shown = true;
	}
	if (remove)
		setup_undo_done(&o);
	free((char *)o.self);
	return rc;
}

static const struct cmd_opt setup_opts[] = {
	{ "--claude", NULL, "install for Claude Code" },
	{ "--cursor", NULL, "install for Cursor" },
	{ "--opencode", NULL, "install for opencode" },
	{ "--global", NULL, "install for every project (user config), not "
	    "this one" },
	{ "--remove", NULL, "remove what setup wrote for these hosts and "
	    "scope, and nothing else" },
	{ NULL, NULL, NULL },
};

const struct cmd_entry cmd_setup_entry = {
	.name = "setup",
	.args = "",
	.max_args = 0,
	.opts = setup_opts,
	.env = "PATH CLAUDE_CONFIG_DIR CURSOR_CONFIG_DIR XDG_CONFIG_HOME",
	.reads = READS_PROJECT,
	.example = "thatch setup --remove --claude --global",
	.summary = "install or remove thatch for Claude Code, Cursor, opencode",
	.exec = cmd_setup_exec,
};
