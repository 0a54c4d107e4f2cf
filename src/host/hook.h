/* hook.h — hook stdin and stdout for Claude Code and Cursor (hook.c). */
#ifndef THATCH_HOST_HOOK_H
#define THATCH_HOST_HOOK_H

#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

#include "core/session/queue.h"

struct err;
struct paths;
struct sbuf;
struct tool_ctx;

/* What a hook reads of stdin (hook.c invariant 3). */
#define HOOK_STRING_MAX	(64 << 10)	/* bytes kept of each JSON string */
#define HOOK_INPUT_MAX	(16 << 20)	/* bytes of JSON kept in all */
#define HOOK_STDIN_MAX	(256 << 20)	/* bytes read at most */

/*
 * Read fd to end of input and parse one JSON value (hosts-hooks-cli
 * §3.8), each string cut to its first HOOK_STRING_MAX bytes. A value that
 * is not an object reads as an empty object (every field absent, §10.2).
 * Returns a new reference, or NULL with err set for empty, malformed or
 * oversized input.
 */
json_t	*hook_read(int fd, struct err *);

/*
 * The session: the first present of conversation_id and session_id (the
 * same order in every hook, deviation §3.8). Borrowed; NULL when neither
 * is a string. May be "" (present but empty).
 */
const char	*hook_session(const json_t *);

/* The prompt: first present of prompt, message, text, user_input, input
 * (§3.8). Borrowed; may be any JSON type. */
const json_t	*hook_prompt(const json_t *);

/*
 * The tool result of a Cursor postToolUse / postToolUseFailure: Cursor's
 * tool_output first (host-contracts C4), then the original's chain, then
 * error_message. Borrowed; NULL when none is present.
 */
const json_t	*hook_tool_response(const json_t *);

/*
 * True when the hook runs inside Cursor: CURSOR_VERSION in the
 * environment or cursor_version on stdin (in may be NULL). Commands
 * installed in Claude form stay silent there (host-contracts C6), since
 * Cursor also runs Claude's hooks and would nudge twice.
 */
bool	hook_in_cursor(const json_t *in);

/*
 * What the queue does with a call to tool: thatch's own tools (tool-table
 * names, bare or after mcp__<server>__, MCP: or thatch_; host-contracts
 * C13) are skipped, and a successful memory_remember or extraction_done
 * drains; the meta-tools skill, task and agent are skipped (feedback-loop
 * guard, §4.3); everything else is kept. failed marks a call that ended
 * in an error (host-contracts C7).
 */
enum queue_verdict	hook_verdict(const char *tool, bool failed);

/*
 * How text reaches the model, per host and event (§3.9, host-contracts
 * §1.4, §2.3): plain text on Claude's prompt and session hooks,
 * {"additional_context":…} for Cursor, {"hookSpecificOutput":…} for a
 * Claude tool event.
 */
enum hook_form {
	HOOK_PLAIN,
	HOOK_CURSOR,
	HOOK_CLAUDE_EVENT,
};

/*
 * Wire the file-backed extraction queue into a tool context
 * (hosts-hooks-cli §2.8): payload peeks ctx->paths->queue_dir and builds
 * the payload with ctx->default_store as projectStore; drain deletes the
 * session's counter and queue. Both report an unreadable or undeletable
 * queue as an error.
 */
void	hook_wire_queue(struct tool_ctx *);

/* The parts of the prompt-aware tier (hosts-hooks-cli §5.3). */
enum hook_parts {
	HOOK_RECALL = 1 << 0,
	HOOK_PREDICTIONS = 1 << 1,
	HOOK_BEHAVIORS = 1 << 2,
};

/* The prompt's length floor for that tier, in UTF-16 units (§5.9). */
#define HOOK_MIN_PROMPT	10

/*
 * Whether a sideband socket file exists at all. Without one no server is
 * running, and the prompt-aware tier can be skipped before it costs a
 * store identity (git) lookup.
 */
bool	hook_sideband_up(const struct paths *);

/*
 * The project store for the prompt-aware tier without running git on
 * every prompt: get returns the store put for paths->project_dir while
 * the repository's .git/config is older than that answer (a new remote
 * rewrites it), as a new string, or NULL. put records one; failures are
 * ignored (the cache only saves time). Directories without .git/config
 * (no repository, linked worktrees) are never cached.
 */
char	*hook_repo_get(const struct paths *);
void	 hook_repo_put(const struct paths *, const char *store);

/*
 * Ask the MCP server's sideband, all parts at once, about prompt in the
 * stores repo and global, with the thresholds of the environment
 * (THATCH_*_THRESHOLD, §1.2), and append the parts that found something,
 * in the order recall, predictions, behaviors, separated by a blank line.
 * A part whose request failed in any way is left out. Returns the number
 * of parts appended.
 */
int	hook_related(const struct paths *, const char *repo,
	    const char *prompt, unsigned parts, struct sbuf *out);

/* Write text (without trailing newline) in form, then '\n'. event names
 * the firing event for HOOK_CLAUDE_EVENT. */
void	hook_emit(FILE *, enum hook_form, const char *event, const char *text);

#endif
