/*
 * cmd_setup.c — `thatch setup --claude [--cursor] [--opencode] [--global]`:
 * install the MCP server entry, instruction block, hooks and skills for
 * Claude Code and/or Cursor (hosts-hooks-cli §1.3, §3), and the plugin
 * entry and skills for opencode (docs/opencode.md), then say what was
 * written. Claude Code first, opencode last. Re-running replaces only
 * thatch's own parts. A damaged instruction block is reported on stderr
 * and left alone; the rest of the install still happens.
 */
#include "cli/cmd.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "host/claude.h"
#include "host/cursor.h"
#include "host/opencode_setup.h"
#include "host/setup.h"

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
	printf("  %-15s%s (%d files: %d written, %d unchanged)\n", label, dir,
	    written + unchanged, written, unchanged);
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
	if (r->dropped_mcp)
		printf("The old \"thatch\" MCP server entry was removed: the "
		    "plugin provides the\nsame thatch_* tools.\n\n");
	puts("Restart opencode to load thatch.");
}

static int
cmd_setup_exec(struct cli_ctx *ctx, int argc, char **argv)
{
	struct setup_report	 r;
	struct setup_opts	 o = { &ctx->paths, NULL, false };
	struct opencode_report	 oc;
	bool			 claude, cursor, opencode;
	int			 rc = CMD_FAILED;

	(void)argc;
	(void)argv;
	claude = cli_flag(ctx, "--claude");
	cursor = cli_flag(ctx, "--cursor");
	opencode = cli_flag(ctx, "--opencode");
	o.global = cli_flag(ctx, "--global");
	if (!claude && !cursor && !opencode) {
		err_set(&ctx->err, "choose a host with --claude, --cursor "
		    "and/or --opencode");
		return CMD_USAGE;
	}
	memset(&r, 0, sizeof(r));
	if ((o.self = setup_self(&ctx->err)) == NULL)
		return CMD_FAILED;
	if (claude) {
		if (claude_install(&o, &r, &ctx->err) != 0)
			goto out;
		report("Claude Code", &o, &r);
		if (o.global)
			printf("Register the MCP server for every project "
			    "with:\n  claude mcp add --scope user thatch -- "
			    "%s mcp\n\n", o.self);
		else
			printf("The project server in .mcp.json is approved in "
			    "%s; Claude Code starts it\nonce you trust this "
			    "folder on the next interactive launch (claude -p "
			    "never asks).\n\n", r.approval);
		puts("Restart Claude Code to load thatch.");
		setup_report_release(&r);
	}
	if (cursor) {
		if (cursor_install(&o, &r, &ctx->err) != 0)
			goto out;
		putchar('\n');
		report("Cursor", &o, &r);
		puts("Restart Cursor to load thatch.");
		setup_report_release(&r);
	}
	if (opencode) {
		if (claude || cursor)
			putchar('\n');
		rc = opencode_install(&o, &oc, &ctx->err);
		if (rc == 0)
			report_opencode(&o, &oc);
		opencode_report_release(&oc);
		if (rc != 0) {
			rc = CMD_FAILED;
			goto out;
		}
	}
	rc = 0;
out:
	if (rc != 0)
		setup_report_release(&r);
	free((char *)o.self);
	return rc;
}

static const struct cmd_opt setup_opts[] = {
	{ "--claude", NULL, "install for Claude Code" },
	{ "--cursor", NULL, "install for Cursor" },
	{ "--opencode", NULL, "install for opencode" },
	{ "--global", NULL, "install for every project (user config), not "
	    "this one" },
	{ NULL, NULL, NULL },
};

const struct cmd_entry cmd_setup_entry = {
	.name = "setup",
	.args = "",
	.max_args = 0,
	.opts = setup_opts,
	.env = "PATH CLAUDE_PROJECT_DIR CURSOR_PROJECT_DIR CLAUDE_CONFIG_DIR "
	    "CURSOR_CONFIG_DIR XDG_CONFIG_HOME",
	.example = "thatch setup --claude --global",
	.summary = "install thatch for Claude Code, Cursor and/or opencode",
	.exec = cmd_setup_exec,
};
