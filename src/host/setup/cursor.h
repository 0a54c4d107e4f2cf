/* cursor.h — Cursor's setup artifacts (cursor.c). */
#ifndef THATCH_HOST_CURSOR_H
#define THATCH_HOST_CURSOR_H

struct err;
struct setup_check;
struct setup_opts;
struct setup_report;

/*
 * Install thatch for Cursor (hosts-hooks-cli §3.1-§3.7): mcp.json,
 * AGENTS.md, hooks.json and skills/ under the project's .cursor/ (and
 * AGENTS.md at the project root), or under CURSOR_DIR for global scope.
 * Fills report. Returns 0, or -1 with err set.
 */
int	cursor_install(const struct setup_opts *, struct setup_report *,
	    struct err *);

/*
 * setup --remove for Cursor: take out exactly what cursor_install writes
 * for that scope, as claude_remove does for Claude Code. Returns 0, or -1
 * with err set.
 */
int	cursor_remove(const struct setup_opts *, struct setup_report *,
	    struct err *);

/* What of cursor_install's work is in place for o's scope, for doctor. */
void	cursor_check(const struct setup_opts *, struct setup_check *);

/* The files cursor_install writes for o's scope, into a zeroed report. */
void	cursor_paths(const struct setup_opts *, struct setup_report *);

#endif
