/* sideband.h — lends the MCP server's model to hooks (sideband.c). */
#ifndef THATCH_HOST_SIDEBAND_H
#define THATCH_HOST_SIDEBAND_H

#include <stddef.h>

#include <jansson.h>

struct err;
struct mcp_server;
struct paths;

/* The client's budget for connect, write and read together (§6.4). */
#define SIDEBAND_TIMEOUT_MS	2000

/*
 * <TMP_DIR>/thatch-<first 16 hex of SHA-256(DB_PATH)>.sock (hosts-hooks-cli
 * §6.1), or NULL when it would not fit sun_path: the sideband is then
 * unavailable, never truncated. New string.
 */
char	*sideband_path(const struct paths *);

/*
 * One request of the protocol (§6.3). method is "match", "predictions" or
 * "behaviors"; result is set by sideband_ask to the answer's array (a new
 * reference), or NULL for every failure: no server, stale socket, timeout,
 * ok:false, garbage. NULL is "skip this part", never an error.
 */
struct sideband_ask {
	const char		*method;
	const char		*text;
	const char *const	*stores;
	size_t			 nstores;
	double			 threshold;
	int			 limit;
	json_t			*result;
};

/*
 * Send every request on its own connection at once and wait for all the
 * answers until timeout_ms has passed in total, so three requests cost
 * one round trip (§5.1). A socket file nobody listens on (ECONNREFUSED,
 * ENOENT) is removed; a slow or refusing server's is not.
 */
void	sideband_ask(const char *path, struct sideband_ask *, size_t n,
	    int timeout_ms);

/* The server side, living in the MCP server's poll loop. Opaque. */
struct sideband;

/*
 * Listen on sideband_path(paths) (the old file removed first, the new one
 * mode 0600) and answer requests between the server's stdio messages with
 * its tool context. Returns 0 and *out, or -1 with err set: the caller
 * logs it and runs without a sideband.
 */
int	sideband_open(struct mcp_server *, const struct paths *,
	    struct sideband **out, struct err *);

/* Stop listening and remove the socket file; accepts NULL. */
void	sideband_close(struct sideband *);

/*
 * The answer to one request line of len bytes (no newline), as a client
 * would read it, without the socket: compact JSON, a new string. For the
 * fuzz harness (tests/fuzz/fuzz_sideband.c).
 */
char	*sideband_answer_line(struct sideband *, const char *line, size_t len);

#endif
