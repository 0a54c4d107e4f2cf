/* sideband_client.h — the hook's end of the sideband (sideband_client.c). */
#ifndef THATCH_HOST_SIDEBAND_CLIENT_H
#define THATCH_HOST_SIDEBAND_CLIENT_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "host/sideband/sideband_wire.h"

struct paths;

/*
 * True when a server of this database may be listening: the private
 * directory (path_private_dir, not created) holds a socket named for
 * DB_PATH and owned by us. No connect; a cheap test before the work a
 * request needs.
 */
bool	sideband_client_up(const struct paths *);

/*
 * What `thatch doctor` finds of this database's servers, changing
 * nothing (a stale socket is counted, not removed as sideband_client_ask
 * would): each socket of ours either answers a line within timeout_ms,
 * refuses (its server was killed: stale), or neither.
 */
enum sideband_client_state {
	SIDEBAND_CLIENT_ANSWERS,
	SIDEBAND_CLIENT_STALE,
	SIDEBAND_CLIENT_SILENT,
	SIDEBAND_CLIENT_NSTATES
};

struct sideband_client_probe {
	int	count[SIDEBAND_CLIENT_NSTATES];
};

void	sideband_client_probe(const struct paths *,
	    struct sideband_client_probe *, int timeout_ms);

/*
 * One request of the protocol (§6.3) and its answer: result is set by
 * sideband_client_ask to the answer's items (a new reference), or NULL
 * for every failure: no server, stale socket, timeout, ok:false,
 * garbage. NULL is "skip this part", never an error.
 */
struct sideband_client_ask {
	struct sideband_wire_request	 req;	/* borrowed strings */
	json_t				*result;
};

/*
 * Send every request on its own connection at once to the oldest server
 * of this database that accepts and runs as our user, and wait for all
 * the answers until timeout_ms has passed in total, so three requests
 * cost one round trip (§5.1). A socket that refuses (ECONNREFUSED: its
 * server was killed) is removed; a slow, busy or foreign one is not.
 */
void	sideband_client_ask(const struct paths *, struct sideband_client_ask *,
	    size_t n, int timeout_ms);

#endif
