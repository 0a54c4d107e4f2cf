/*
 * setup_host.c — the one table of the hosts `thatch setup` knows: Claude
 * Code, Cursor and opencode, each a row naming its flag, its folders, its
 * installer, remover and doctor's check (claude.c, cursor.c,
 * opencode_setup.c), and what the user must still do after a run.
 *
 * The table sits above the host files, which sit above the toolkit they
 * share (setup.c, setup_undo.c, setup_check.c): nothing below calls back
 * up. `thatch setup` (cli/cmd_setup.c), `thatch doctor`
 * (cli/cmd_doctor.c) and the MCP server's auto-refresh read it, so a new
 * host is one row here.
 *  1. Rows are in the order setup runs the hosts and doctor lists them:
 *     Claude Code first, opencode last (hosts-hooks-cli §1.3).
 *  2. A row's advice is what the summary's list of files does not say:
 *     what the user must still do, or what else changed.
 */
#include "host/setup/setup_host.h"

#include <stdlib.h>
#include <string.h>

#include "host/setup/claude.h"
#include "host/setup/cursor.h"
#include "host/setup/opencode_setup.h"
#include "host/setup/setup.h"
#include "util/err.h"
#include "util/log.h"
#include "util/path.h"
#include "util/sbuf.h"

void
setup_host_report_release(struct setup_host_report *r)
{
	setup_report_release(&r->files);
	opencode_report_release(&r->plugin);
}

static const char *
claude_user_dir(const struct paths *p)
{
	return p->claude_dir;
}

static const char *
cursor_user_dir(const struct paths *p)
{
	return p->cursor_dir;
}

static void
claude_advice(const struct setup_opts *o, const struct setup_host_report *r,
    bool removed, struct sbuf *out)
{
	if (removed && o->global)
		sbuf_adds(out, "If you registered the MCP server for every "
		    "project, unregister it with:\n  claude mcp remove "
		    "--scope user thatch\n\n");
	else if (!removed && o->global)
		sbuf_addf(out, "Register the MCP server for every project "
		    "with:\n  claude mcp add --scope user thatch -- %s mcp\n\n",
		    o->self);
	else if (!removed)
		sbuf_addf(out, "The project server in .mcp.json is approved in "
		    "%s; Claude Code starts it\nonce you trust this folder on "
		    "the next interactive launch (claude -p never asks).\n\n",
		    r->files.approval);
}

static void
opencode_advice(const struct setup_opts *o, const struct setup_host_report *r,
    bool removed, struct sbuf *out)
{
	(void)o;
	if (!removed && r->plugin.dropped_mcp)
		sbuf_adds(out, "The old \"thatch\" MCP server entry was "
		    "removed: the plugin provides the\nsame thatch_* "
		    "tools.\n\n");
}

const struct setup_host setup_host_table[] = {
	{
		.name = "Claude Code",
		.flag = "--claude",
		.dot = ".claude",
		.user_dir = claude_user_dir,
		.mcp = MCP_HOST_CLAUDE,
		.install = claude_install,
		.remove = claude_remove,
		.check = claude_check,
		.advice = claude_advice,
	},
	{
		.name = "Cursor",
		.flag = "--cursor",
		.dot = ".cursor",
		.user_dir = cursor_user_dir,
		.mcp = MCP_HOST_CURSOR,
		.blank_first = true,
		.install = cursor_install,
		.remove = cursor_remove,
		.check = cursor_check,
	},
	{
		.name = "opencode",
		.flag = "--opencode",
		.mcp = MCP_HOST_NONE,	/* it runs no MCP server of thatch's */
		.install_plugin = opencode_install,
		.remove_plugin = opencode_remove,
		.check = opencode_check,
		.advice = opencode_advice,
	},
};

const size_t setup_host_count = sizeof(setup_host_table) /
    sizeof(setup_host_table[0]);

const struct setup_host *
setup_host_find(enum mcp_host mcp)
{
	size_t	i;

	for (i = 0; mcp != MCP_HOST_NONE && i < setup_host_count; i++)
		if (setup_host_table[i].mcp == mcp)
			return &setup_host_table[i];
	return NULL;
}

int
setup_host_run(const struct setup_host *h, const struct setup_opts *o,
    bool remove, struct setup_host_report *r, struct err *err)
{
	memset(r, 0, sizeof(*r));
	if (h->install != NULL)
		return (remove ? h->remove : h->install)(o, &r->files, err);
	return (remove ? h->remove_plugin : h->install_plugin)(o, &r->plugin,
	    err);
}

void
setup_host_refresh(void *arg)
{
	const struct setup_host_refresh	*r = arg;
	const struct setup_host		*h = setup_host_find(r->setup->host);
	struct setup_opts		 o = { r->paths, NULL, false };
	struct setup_host_report	 rep;
	struct err			 err;
	int				 rc;

	if (r->setup->outcome != MCP_SETUP_INSTALLED || h == NULL)
		return;
	o.global = r->setup->global;
	memset(&rep, 0, sizeof(rep));
	if ((o.self = setup_self(&err)) == NULL)
		rc = -1;
	else
		rc = setup_host_run(h, &o, false, &rep, &err);
	if (rc != 0)
		log_warn("auto-refresh of the %s setup failed: %s", h->name,
		    err.msg);
	/* detection finds only the hosts with files of their own */
	log_debug("mcp:setup", "auto-refresh: %d skills written",
	    rep.files.skills_written);
	setup_host_report_release(&rep);
	free((char *)o.self);
}
