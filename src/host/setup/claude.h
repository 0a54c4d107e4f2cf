/* claude.h — Claude Code's setup artifacts (claude.c). */
#ifndef THATCH_HOST_CLAUDE_H
#define THATCH_HOST_CLAUDE_H

struct err;
struct setup_check;
struct setup_opts;
struct setup_report;

/*
 * Install thatch for Claude Code (hosts-hooks-cli §3.1-§3.7): project
 * scope writes .mcp.json, CLAUDE.md, .claude/settings.json,
 * .claude/skills/, the /thatch:<action> command files in
 * .claude/commands/thatch/ (engines-and-extras §B8) and pre-approves the
 * server in .claude/settings.local.json (host-contracts C5); global scope
 * writes CLAUDE_DIR's CLAUDE.md, settings.json, skills/ and
 * commands/thatch/ and no MCP file.
 * Fills report with what was written. Returns 0, or -1 with err set and
 * whatever was already written left in place.
 */
int	claude_install(const struct setup_opts *, struct setup_report *,
	    struct err *);

/*
 * setup --remove for Claude Code: take out exactly what claude_install
 * writes for that scope (the server entry and its approval, the block,
 * thatch's hooks, skills and command files), keeping everything else; a
 * file or folder left with nothing but what setup made is deleted. Fills
 * report (paths and undo_* outcomes). Returns 0, or -1 with err set.
 */
int	claude_remove(const struct setup_opts *, struct setup_report *,
	    struct err *);

/*
 * What of claude_install's work is in place for o's scope (the block, the
 * three hooks and their program, the MCP server: .mcp.json, or for global
 * scope the user-scope registration in .claude.json), for doctor.
 */
void	claude_check(const struct setup_opts *, struct setup_check *);

/* The files claude_install writes for o's scope, into a zeroed report. */
void	claude_paths(const struct setup_opts *, struct setup_report *);

#endif
