/* sideband.h — the MCP server lends its model to hooks (sideband.c). */
#ifndef THATCH_HOST_SIDEBAND_H
#define THATCH_HOST_SIDEBAND_H

#include <stddef.h>

struct err;
struct mcp_server;
struct paths;

/* The server's end, living in the MCP server's poll loop. Opaque. */
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
