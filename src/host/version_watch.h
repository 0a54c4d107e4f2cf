/* version_watch.h — notice a thatch upgraded under a running server (version_watch.c). */
#ifndef THATCH_HOST_VERSION_WATCH_H
#define THATCH_HOST_VERSION_WATCH_H

#include <stdint.h>

/* The first check, and the interval after it (engines-and-extras §B10). */
#define VERSION_WATCH_FIRST_MS		60000
#define VERSION_WATCH_INTERVAL_MS	600000

struct version_watch;

/*
 * Watch the executable this process runs, from now. host names what the
 * user must restart ("Claude Code", "Cursor", "opencode", or NULL for
 * "the host"), runner what runs thatch ("MCP server"); both are borrowed.
 * THATCH_VERSION_CHECK_MS, when set to a positive integer, replaces both
 * the first delay and the interval (tests); "0" turns the watch off, and
 * version_watch_new then returns NULL. Free with version_watch_free
 * (NULL is fine).
 */
struct version_watch *version_watch_new(const char *host,
	    const char *runner);
void	version_watch_free(struct version_watch *);

/*
 * Shaped for mcp_set_notice (arg is the watch; opencode's core calls it
 * on each user message): when a check is due, look
 * whether the executable on disk is still the one running, that is, not
 * deleted and not replaced by another file; the first time it is not,
 * return the warning (a new string) telling the agent to ask the user to
 * restart the host, naming the installed version when it can be run.
 * NULL otherwise, and always after the warning was given once.
 */
char	*version_watch_notice(void *arg);

#endif
