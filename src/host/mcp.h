/* mcp.h — the stdio MCP server: JSON-RPC 2.0 over stdin/stdout (mcp.c). */
#ifndef THATCH_HOST_MCP_H
#define THATCH_HOST_MCP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

struct err;
struct paths;
struct sbuf;
struct tool_ctx;

/* The protocol version answered to a client that asks for none we know. */
#define MCP_PROTOCOL_LATEST	"2025-11-25"
/* Longest accepted message line; longer ones get -32600 and are skipped. */
#define MCP_MAX_LINE		(16u << 20)

/* ---- Host and setup detection (hosts-hooks-cli §2.6) ------------------ */

enum mcp_host {
	MCP_HOST_NONE,		/* neither project variable: no checks */
	MCP_HOST_CLAUDE,	/* CLAUDE_PROJECT_DIR */
	MCP_HOST_CURSOR,	/* CURSOR_PROJECT_DIR (checked first) */
};

enum mcp_setup_outcome {
	MCP_SETUP_SKIPPED,	/* no host detected */
	MCP_SETUP_INSTALLED,
	MCP_SETUP_NOT_INSTALLED,
	MCP_SETUP_BROKEN,	/* start marker without end marker */
};

/*
 * What setup detection found. global tells which file decided (the local
 * PROJECT_DIR one or the host's user-level one); file is that file (NULL
 * for not-installed and skipped). The hosts engineer's auto-refresh
 * (§2.7) runs the installer for host and scope when outcome is
 * MCP_SETUP_INSTALLED. Release with mcp_setup_release.
 */
struct mcp_setup {
	enum mcp_host		 host;
	enum mcp_setup_outcome	 outcome;
	bool			 global;
	char			*file;		/* owned */
};

/* Detect the host from the environment and look for the instruction
 * block's markers in its instructions files. Never fails: unreadable
 * files count as absent. */
void	mcp_setup_detect(const struct paths *, struct mcp_setup *);
void	mcp_setup_release(struct mcp_setup *);

/* The one-line warning for a not-installed or broken setup (new string),
 * or NULL when there is nothing to warn about. */
char	*mcp_setup_warning(const struct mcp_setup *);

/* ---- The server ------------------------------------------------------- */

/* One MCP server on a pair of file descriptors. Opaque. */
struct mcp_server;

/*
 * An MCP prompt (hosts-hooks-cli §3.10): listed by prompts/list, rendered
 * by prompts/get. render returns the text of the single user message (a
 * new string) for the string arguments given (an object, maybe empty).
 */
struct mcp_prompt_arg {
	const char	*name;
	const char	*description;
	bool		 required;
};

struct mcp_prompt {
	const char			*name;
	const char			*description;
	const struct mcp_prompt_arg	*args;	/* { NULL } terminated */
	char				*(*render)(const struct mcp_prompt *,
					    const json_t *args);
};

/*
 * A server reading newline-delimited JSON-RPC from in_fd and writing one
 * compact line per response to out_fd. tools is borrowed for the server's
 * life; handlers run with it (store, model, default store, extraction
 * glue ctx->payload / ctx->drain, which the hosts engineer wires in before
 * mcp_run).
 */
struct mcp_server *mcp_new(struct tool_ctx *tools, int in_fd, int out_fd);
void	mcp_free(struct mcp_server *);

/* The tool context, for modules answering other clients between stdio
 * messages (the sideband, hosts-hooks-cli §6). Borrowed. */
struct tool_ctx *mcp_tool_ctx(struct mcp_server *);

/*
 * Arm the one-shot setup warning (§2.6): it is sent in the initialize
 * instructions and prepended as "[thatch] <warning>\n\n" to the first
 * tools/call result. The string is copied.
 */
void	mcp_set_warning(struct mcp_server *, const char *warning);

/*
 * The initialize instructions (host-contracts §1.6: Claude Code's tool
 * search reads them to decide which tools to load). A setup warning, when
 * armed, comes first. Copied.
 */
void	mcp_set_instructions(struct mcp_server *, const char *text);

/*
 * A source of notices for tool results: before each tools/call result is
 * sent, fn(arg) may return a new string, which is prepended as
 * "[thatch] <notice>\n\n" (the version warning, engines-and-extras §B10);
 * NULL for nothing. Called once per call, so fn decides how often to say
 * something.
 */
void	mcp_set_notice(struct mcp_server *, char *(*fn)(void *), void *arg);

/* The prompts prompts/list and prompts/get serve; NULL-terminated array,
 * borrowed for the server's life. None until this is called. */
void	mcp_set_prompts(struct mcp_server *, const struct mcp_prompt *const *);

/*
 * Run fn(arg) once, after the initialize response has been written (or
 * before the first message when a client skips initialize): the place for
 * startup work that must not delay the handshake (host-contracts C3) —
 * store detection, the auto-refresh of the host setup (§2.7), seeding.
 * Deferred functions run in the order they were added.
 */
void	mcp_after_initialize(struct mcp_server *, void (*fn)(void *),
	    void *arg);

/* How long the server must have been idle before an idle step runs. */
#define MCP_IDLE_MS		75

/*
 * Background work for idle time, such as loading the model before the
 * first call needs it: once the deferred startup work has run (so never
 * before initialize is answered), step(arg) is called whenever MCP_IDLE_MS
 * pass with no stdin line and no watched descriptor ready. It runs in the
 * server's thread, so a message arriving meanwhile waits for it to return:
 * keep each step short. step returns true to be called again at the next
 * idle tick, false when it is done. One task; a second call replaces it.
 */
void	mcp_when_idle(struct mcp_server *, bool (*step)(void *), void *arg);

/*
 * Call fn(arg) after each tools/call of a tool not marked TOOL_READONLY
 * that succeeded (the background sync pushes after writes). One
 * callback; a second call replaces it.
 */
void	mcp_after_write(struct mcp_server *, void (*fn)(void *), void *arg);

/*
 * Watch fd for readability in the server's poll loop: ready(arg, fd) is
 * called between stdio messages, in the server's thread, so it may use the
 * tool context (one thread; hosts-hooks-cli §2.10). ready must not block
 * for long; it may call mcp_unwatch on its own fd. Watching an fd twice
 * replaces the first registration.
 */
void	mcp_watch(struct mcp_server *, int fd, void (*ready)(void *, int),
	    void *arg);
void	mcp_unwatch(struct mcp_server *, int fd);

/*
 * Call wake(arg) between stdio messages once the monotonic clock
 * (clock_mono_ms) reaches at_ms: the poll loop's one deadline, which
 * replaces a timer descriptor on every system. A later call replaces it;
 * wake NULL disarms. The callback is disarmed before it runs (it may
 * arm again).
 */
void	mcp_wake_at(struct mcp_server *, int64_t at_ms, void (*wake)(void *),
	    void *arg);

/*
 * Serve until end of input (the normal end, 0), SIGTERM or SIGINT (also 0),
 * or a write error on out_fd (-1 with err set). Lines are trimmed; empty
 * lines are ignored; a final line without '\n' at end of input is served.
 */
int	mcp_run(struct mcp_server *, struct err *);

/*
 * Handle one message line and append the response line (with its '\n') to
 * out, or nothing for notifications. What mcp_run does per line; exposed
 * for unit tests.
 */
void	mcp_handle(struct mcp_server *, const char *line, size_t len,
	    struct sbuf *out);

#endif
