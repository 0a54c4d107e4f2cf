/* setup_check.h — what doctor finds of a host's setup (setup_check.c). */
#ifndef THATCH_HOST_SETUP_CHECK_H
#define THATCH_HOST_SETUP_CHECK_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "util/sbuf.h"

/*
 * One host's setup in one scope, as found: how many of the pieces a
 * complete setup has (the block, each hook, the MCP entry...) are there,
 * and what is wrong, in words ("; " between problems). found == 0 means
 * thatch is not set up there, which is no problem; found == expected
 * with no problems is a healthy setup; anything else needs setup re-run,
 * unless fix names another remedy.
 */
struct setup_check {
	int		 found, expected;
	struct sbuf	 problems;
	char		*fix;	/* owned; the remedy, if not setup */
};

void	setup_check_init(struct setup_check *);
void	setup_check_release(struct setup_check *);

/* Add one problem (printf format). */
void	setup_check_problem(struct setup_check *, const char *, ...)
	    __attribute__((format(printf, 2, 3)));

/* The instruction block in path: present (one piece) and whole. */
void	setup_check_block(struct setup_check *, const char *path,
	    const char *start, const char *end);

/*
 * Each of n events {event, args} has a thatch hook (one piece each) in
 * the hooks file at path, whose program exists and can run. nested: an
 * event holds Claude Code's groups of hooks, else Cursor's flat entries.
 */
void	setup_check_hooks(struct setup_check *, const char *path,
	    const char *const (*events)[2], size_t n, bool nested);

/*
 * mcpServers.thatch in the config at path (one piece), whose command
 * exists and can run.
 */
void	setup_check_mcp(struct setup_check *, const char *path);

/*
 * The program command starts (shell: a hook's command line, whose first
 * shell word, unquoted, it is; else command is the program itself, as in
 * an MCP entry) exists and is executable, else a problem naming what
 * runs it. A bare name is looked up in PATH, as the host would.
 */
void	setup_check_program(struct setup_check *, const char *command,
	    bool shell, const char *what);

/* The JSON object in path, or NULL when missing or not an object. */
json_t	*setup_check_load(const char *path);

#endif
