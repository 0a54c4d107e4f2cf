/* sideband.h — lends the MCP server's model to hooks (sideband.c). */
#ifndef THATCH_HOST_SIDEBAND_H
#define THATCH_HOST_SIDEBAND_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

struct err;
struct mcp_server;
struct paths;

/* The client's budget for connect, write and read together (§6.4). */
#define SIDEBAND_TIMEOUT_MS	2000

/*
 * True when a server of this database may be listening: the private
 * directory (path_private_dir, not created) holds a socket named for
 * DB_PATH and owned by us. No connect; a cheap test before the work a
 * request needs.
 */
bool	sideband_up(const struct paths *);

/*
 * What `thatch doctor` finds of this database's servers, changing
 * nothing (a stale socket is counted, not removed as sideband_ask
 * would): each socket of ours either answers a line within timeout_ms,
 * refuses (its server was killed: stale), or neither.
 */
enum sideband_state {
	SIDEBAND_ANSWERS,
	SIDEBAND_STALE,
	SIDEBAND_SILENT,
	SIDEBAND_NSTATES
};

struct sideband_probe {
	int	count[SIDEBAND_NSTATES];
};

void	sideband_probe(const struct paths *, struct sideband_probe *,
	    int timeout_ms);

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
 * Send every request on its own connection at once to the oldest server
 * of this database that accepts and runs as our user, and wait for all
 * the answers until timeout_ms has passed in total, so three requests
 * cost one round trip (§5.1). A socket that refuses (ECONNREFUSED: its
 * server was killed) is removed; a slow, busy or foreign one is not.
 */
void	sideband_ask(const struct paths *, struct sideband_ask *, size_t n,
	    int timeout_ms);

/* The server side, living in the MCP server's poll loop. Opaque. */
struct sideband;

/*
 * Listen on a socket of this server's own (mode 0600) in the private
 * directory, made when missing, and answer requests between the server's
 * stdio messages with its tool context. Returns 0 and *out, or -1 with err
 * set (the directory is not private, the path would not fit sun_path):
 * the caller logs it and runs without a sideband.
 */
int	sideband_open(struct mcp_server *, const struct paths *,
	    struct sideband **out, struct err *);

/* Remove this server's socket file and stop listening; accepts NULL.
 * Other servers' sockets are never touched. */
void	sideband_close(struct sideband *);

/*
 * The answer to one request line of len bytes (no newline), as a client
 * would read it, without the socket: compact JSON, a new string. For the
 * fuzz harness (tests/fuzz/fuzz_sideband.c).
 */
char	*sideband_answer_line(struct sideband *, const char *line, size_t len);

#endif
