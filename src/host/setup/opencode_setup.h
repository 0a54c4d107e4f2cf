/* opencode_setup.h — what `thatch setup --opencode` writes (opencode_setup.c). */
#ifndef THATCH_HOST_OPENCODE_SETUP_H
#define THATCH_HOST_OPENCODE_SETUP_H

#include <stdbool.h>

#include "host/setup/setup.h"

struct err;
struct setup_check;

/* The plugin module's file name, installed under $PREFIX/share/thatch/. */
#define OPENCODE_PLUGIN_FILE	"thatch.js"

/* What the install did, for the summary; strings owned. */
struct opencode_report {
	char	*config;	/* the opencode.json written */
	char	*plugin;	/* the module its plugin entry names */
	char	*skills_dir;
	int	 skills_written, skills_unchanged;
	char	*commands_dir;	/* the /thatch/<action> command files */
	int	 commands_written, commands_unchanged;
	bool	 dropped_mcp;	/* an old mcp.thatch entry was removed */
	/* --remove: what became of config, and how many files went */
	enum setup_undo	 undo_config;
	int	 skills_removed, commands_removed;
	bool	 shared_kept;	/* the other scope still uses them */
};

void	opencode_report_release(struct opencode_report *);

/*
 * Install thatch for opencode (docs/opencode.md "Setup"): the plugin
 * entry ["file://<module>", {"thatch": <program>}] in the project's
 * opencode.json (global: CONFIG_HOME/opencode/), replacing an earlier
 * thatch entry and keeping everything else; the shared and opencode-only
 * skills in CONFIG_HOME/opencode/skills, the /thatch/<action> commands
 * in CONFIG_HOME/opencode/command/thatch (actions.c). Nothing is written under the
 * project's .opencode/ (host-contracts §3.3: every config folder costs an
 * npm install at each start). A config with comments (JSONC) is refused
 * untouched, with the line to add by hand; one that does not parse even
 * as JSONC is kept as .bak and replaced. Returns 0, or -1 with err set.
 */
int	opencode_install(const struct setup_opts *, struct opencode_report *,
	    struct err *);

/*
 * setup --remove for opencode: thatch's plugin entries leave the scope's
 * config (deleted when nothing else is left in it), and the skills and
 * commands leave CONFIG_HOME/opencode unless the other scope's config
 * (global for a project, this project for global) still has thatch's
 * plugin (shared_kept). Other projects cannot be seen from here: their
 * plugin's next start puts the skills and commands back. A JSONC config that
 * still names thatch is refused, untouched, with what to remove by hand.
 * Returns 0, or -1 with err set.
 */
int	opencode_remove(const struct setup_opts *, struct opencode_report *,
	    struct err *);

/*
 * What of opencode_install's work is in place for o's scope: a thatch
 * plugin entry, whose module and program exist. For doctor.
 */
void	opencode_check(const struct setup_opts *, struct setup_check *);

#endif
