/* setup.h — the writers every host's setup is built from (setup.c). */
#ifndef THATCH_HOST_SETUP_H
#define THATCH_HOST_SETUP_H

#include <stdbool.h>

#include <jansson.h>

#include "text/actions.h"

struct err;
struct paths;
struct text_block_host;

/* Under CONFIG_HOME: the user's files as they were before setup. */
#define SETUP_ORIGINALS	"thatch/setup"

/* Seconds a host waits for a thatch hook (host-contracts C11). */
#define SETUP_HOOK_TIMEOUT	30

/*
 * What `setup --remove` did to one file: found nothing of thatch's in it
 * (or no file), took thatch's part out, deleted it because nothing else
 * was left, or left a damaged block alone.
 */
enum setup_undo {
	SETUP_UNDO_NONE,
	SETUP_UNDO_EDITED,
	SETUP_UNDO_DELETED,
	SETUP_UNDO_BROKEN,
};

/* What one host's install (or removal) did, for the summary; strings owned. */
struct setup_report {
	char	*mcp_config;	/* NULL: none written (Claude global) */
	char	*instructions;
	bool	 broken;	/* the block's end marker is missing */
	char	*hooks;
	char	*skills_dir;
	int	 skills_written, skills_unchanged;
	char	*approval;	/* Claude: settings.local.json, or NULL */
	char	*commands_dir;	/* Claude: commands/thatch, or NULL */
	int	 commands_written, commands_unchanged;
	/* --remove: what became of each file above, and how many went */
	enum setup_undo	 undo_mcp, undo_instructions, undo_hooks;
	enum setup_undo	 undo_approval;
	int	 skills_removed, commands_removed;
};

void	setup_report_release(struct setup_report *);

/* What every installer needs. Borrowed. */
struct setup_opts {
	const struct paths	*paths;
	const char		*self;	/* setup_self() */
	bool			 global;
};

/*
 * The executable baked into hooks and MCP entries (hosts-hooks-cli §0.6):
 * the first `thatch` on PATH as found (not resolved, so a shim keeps
 * working), else the absolute path of this process; single-quoted when it
 * holds anything a shell would split or expand (deviation §0.6). New
 * string, or NULL with err set.
 */
char	*setup_self(struct err *);

/* "<self> <args>", the command line of one hook. New string. */
char	*setup_command(const struct setup_opts *, const char *args);

/*
 * Load a JSON config file for merging (§3.7): a missing file gives an
 * empty object; a file that does not parse, or whose value is not an
 * object, is copied to <path>.bak (a stderr note says so) and replaced by
 * an empty object. Returns a new reference, or NULL with err set when the
 * file cannot be read at all.
 */
json_t	*setup_json_load(const char *path, struct err *);

/*
 * Copy path to <path>.bak (0600) and say so on stderr (§3.7). Whatever is
 * at <path>.bak, a symbolic link too, is replaced, never followed.
 */
int	setup_backup(const char *path, struct err *);

/*
 * Refuse an install before its first write when one of the report's
 * files is a symbolic link that cannot be followed, or is not a regular
 * file (fileio_resolve says which, and why).
 */
int	setup_preflight(const struct setup_report *, struct err *);

/*
 * Write v to path pretty-printed (two spaces, trailing newline, UTF-8
 * raw), atomically, and only when the bytes differ from what is there.
 * Like every file setup writes, through fileio_rewrite: a symbolic link is
 * written through, the mode and owner of an existing file are kept.
 */
int	setup_json_save(const struct setup_opts *, const char *path,
	    const json_t *v, struct err *);

/*
 * One host's hooks file (§3.6): for each row of events ({event, args}),
 * merge(hooks, event, "<self> <args>") replaces thatch's entries of that
 * event in the file's "hooks" object and returns false when a value it
 * found could not be kept (the file is then saved as <path>.bak before it
 * is written). versioned sets a falsy or missing top-level "version" to 1
 * (Cursor). Other keys and events are kept.
 */
int	setup_hooks(const struct setup_opts *, const char *path,
	    const char *const (*events)[2], size_t n, bool versioned,
	    bool (*merge)(json_t *hooks, const char *event, const char *cmd),
	    struct err *);

/*
 * Set mcpServers.thatch in the MCP config at path to the stdio entry
 * {type, command: o->self, args:["mcp"]} (§3.2), keeping every other
 * server and key.
 */
int	setup_mcp_entry(const struct setup_opts *, const char *path,
	    struct err *);

/*
 * Put block (start marker ... end marker) into the instructions file at
 * path (§3.5): create the file, append after a blank line, or replace the
 * existing block in place, leaving the text around it byte for byte. A
 * start marker without an end marker after it is left alone and *broken
 * set. Unchanged content is not rewritten.
 */
int	setup_block(const struct setup_opts *, const char *path,
	    const char *block, const char *start, const char *end,
	    bool *broken, struct err *);

/*
 * setup_block with the instruction block for host h, whose tool list is
 * the tool table's MCP tools.
 */
int	setup_instructions(const struct setup_opts *, const char *path,
	    const struct text_block_host *h, bool *broken, struct err *);

/*
 * Install the shared skills into dir (§8.3): remove thatch-* entries that
 * are no longer shipped (symbolic links unlinked, never followed), then
 * write each SKILL.md whose bytes differ. Other entries are never
 * touched. Counts what was written and what was already current.
 */
int	setup_skills(const char *dir, int *written, int *unchanged,
	    struct err *);
/* The same for one host's set: opencode adds its own skills (§8.2). */
int	setup_skills_for(const char *dir, bool opencode, int *written,
	    int *unchanged, struct err *);

/*
 * Install the /thatch action command files of host (engines-and-extras
 * §B8) into dir, the thatch/ folder of the host's commands directory:
 * <dir>/<action>.md for every action of the registry (text/actions.h),
 * written only when the bytes differ; any other *.md in dir, file or
 * link, is removed (dir is thatch's alone: nothing outside it is
 * touched). Claude Code: <.claude or CLAUDE_DIR>/commands/thatch;
 * opencode: $XDG_CONFIG_HOME/opencode/command/thatch.
 */
int	setup_commands(const char *dir, enum text_host, int *written,
	    int *unchanged, struct err *);

/*
 * Write data to path unless it already holds exactly that (*changed says
 * which), through fileio_rewrite (invariant 4). Every file setup writes,
 * and setup --remove rewrites, goes through here. With keep (the user's
 * files, not skills or commands) the file's bytes before setup first
 * changes it are kept for --remove (invariant 6).
 */
int	setup_write(const struct setup_opts *keep, const char *path,
	    const char *data, size_t len, bool *changed, struct err *);

/*
 * Where the bytes path held before setup first changed it are kept
 * (setup.c invariant 6). New string.
 */
char	*setup_original(const struct setup_opts *, const char *path);

/*
 * §8.3 stale cleanup in the skills folder dir: thatch-* directories and
 * links that no longer ship (opencode: its own set counts too) are
 * removed, a link unlinked and never followed; regular files and other
 * names are left alone.
 */
void	setup_skills_stale(const char *dir, bool opencode);

/*
 * Where project scope writes when PROJECT_DIR came from the working
 * directory (neither CLAUDE_PROJECT_DIR nor CURSOR_PROJECT_DIR is set)
 * and that is below the top of a git work tree: the top, which is where
 * every host looks for project files from any of its subdirectories
 * (host-contracts §1.1, §2.1, §3.1). p->project_dir is replaced by it and
 * the directory run from is returned (new string) for the caller to say
 * so; NULL when nothing changed.
 */
char	*setup_project_top(struct paths *p);

#endif
