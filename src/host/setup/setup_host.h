/* setup_host.h — the table of hosts setup knows (setup_host.c). */
#ifndef THATCH_HOST_SETUP_HOST_H
#define THATCH_HOST_SETUP_HOST_H

#include <stdbool.h>
#include <stddef.h>

#include "host/mcp.h"
#include "host/setup/opencode_setup.h"
#include "host/setup/setup.h"

struct err;
struct paths;
struct sbuf;
struct setup_check;

/*
 * What one host's install or removal did. A host with files of its own
 * (Claude Code, Cursor) fills files; opencode, whose setup is a plugin
 * entry, fills plugin. Strings owned; zero it before a run.
 */
struct setup_host_report {
	struct setup_report	files;
	struct opencode_report	plugin;
};

void	setup_host_report_release(struct setup_host_report *);

/*
 * One host: how the user names it, where its folders are, and what
 * installs, removes and checks it. Exactly one of the pairs install /
 * remove (files) and install_plugin / remove_plugin (plugin) is set.
 */
struct setup_host {
	const char	*name;		/* "Claude Code": summaries, doctor */
	const char	*flag;		/* "--claude" */
	/* its folder in a project (".claude") and its user folder, which a
	 * project's must not be (cmd_setup.c); NULL: no such folder */
	const char	*dot;
	const char	*(*user_dir)(const struct paths *);
	enum mcp_host	 mcp;		/* as MCP host detection names it */
	bool		 blank_first;	/* §1.3: its summary opens with an
					   empty line even when it is first */
	int		(*install)(const struct setup_opts *,
			    struct setup_report *, struct err *);
	int		(*remove)(const struct setup_opts *,
			    struct setup_report *, struct err *);
	int		(*install_plugin)(const struct setup_opts *,
			    struct opencode_report *, struct err *);
	int		(*remove_plugin)(const struct setup_opts *,
			    struct opencode_report *, struct err *);
	/* for doctor: what of the install is in place for o's scope */
	void		(*check)(const struct setup_opts *,
			    struct setup_check *);
	/*
	 * What the user must still do after a successful run (register a
	 * server, restart the host...), appended to out, or nothing.
	 */
	void		(*advice)(const struct setup_opts *,
			    const struct setup_host_report *, bool removed,
			    struct sbuf *out);
};

/* Every host, in the order setup runs them and doctor lists them. */
extern const struct setup_host	setup_host_table[];
extern const size_t		setup_host_count;

/* The row of the host MCP detection found, or NULL (MCP_HOST_NONE). */
const struct setup_host	*setup_host_find(enum mcp_host);

/*
 * Install (or with remove take out) h for o's scope into a zeroed r.
 * Returns 0, or -1 with err set and whatever was done left in place.
 */
int	setup_host_run(const struct setup_host *h, const struct setup_opts *o,
	    bool remove, struct setup_host_report *r, struct err *);

/*
 * The MCP server's auto-refresh (hosts-hooks-cli §2.7), shaped for
 * mcp_after_initialize: when detection found thatch installed, re-run
 * that host's installer for that scope, silently, writing only what
 * differs; a failure is logged and ignored. arg is a struct
 * setup_host_refresh.
 */
struct setup_host_refresh {
	const struct mcp_setup	*setup;
	const struct paths	*paths;
};

void	setup_host_refresh(void *arg);

#endif
