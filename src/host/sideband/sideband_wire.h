/* sideband_wire.h — what crosses the sideband socket (sideband_wire.c). */
#ifndef THATCH_HOST_SIDEBAND_WIRE_H
#define THATCH_HOST_SIDEBAND_WIRE_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

struct paths;
struct sockaddr_un;

/* The client's budget for connect, write and read together (§6.4). */
#define SIDEBAND_WIRE_TIMEOUT_MS	2000
/* A line longer than this is not a request (nor an answer): dropped. */
#define SIDEBAND_WIRE_MAX_LINE		(1u << 20)
/* "thatch-" + 16 hex + "." and a NUL */
#define SIDEBAND_WIRE_PREFIX_LEN	25

/* ---- Where the sockets are ------------------------------------------- */

/* The name prefix of this database's sockets: thatch-<16 hex>. */
void	sideband_wire_prefix(const struct paths *,
	    char prefix[SIDEBAND_WIRE_PREFIX_LEN]);

/* Whether name is <prefix><pid>.<8 hex>.sock, a server's socket. */
bool	sideband_wire_is_sock(const char *name, const char *prefix);

/* Whether path fits a sockaddr_un (§6.1: never truncated), and the
 * address of one that does. */
bool	sideband_wire_fits(const char *path);
void	sideband_wire_addr(struct sockaddr_un *, const char *path);

/* Invariant 3: the process at the other end of fd runs as our user. */
bool	sideband_wire_peer_ok(int fd);

/* ---- What is said ---------------------------------------------------- */

/* The methods of the protocol (§6.3), in sideband_wire.c's table. */
enum sideband_wire_method {
	SIDEBAND_WIRE_MATCH,
	SIDEBAND_WIRE_PREDICTIONS,
	SIDEBAND_WIRE_BEHAVIORS,
	SIDEBAND_WIRE_NMETHODS
};

/* The method's name on the wire ("match"). */
const char	*sideband_wire_method_name(enum sideband_wire_method);

/*
 * One request. The client fills the first six fields and has it written;
 * sideband_wire_request_read fills them from a line, borrowing from doc
 * and own, which sideband_wire_request_release frees.
 */
struct sideband_wire_request {
	enum sideband_wire_method	 method;
	const char			*text;
	const char *const		*stores;
	size_t				 nstores;
	double				 threshold;
	int				 limit;
	json_t				*doc;	/* read: the parsed line */
	const char			**own;	/* read: stores' array */
};

/* The request line, newline included. New string. */
char	*sideband_wire_request_line(const struct sideband_wire_request *);

/*
 * Read a request line of len bytes (no newline) into a zeroed r (§6.3):
 * text absent is "", stores keep their strings only, limit absent is 0,
 * threshold null is 0 and absent (or not a number) 2, which nothing
 * reaches. Returns NULL, or the answer refusing the line ("Invalid JSON",
 * "Unknown method: <name>"; a new reference) with nothing held in r.
 */
json_t	*sideband_wire_request_read(const char *line, size_t len,
	    struct sideband_wire_request *r);
void	sideband_wire_request_release(struct sideband_wire_request *);

/*
 * The answer objects: {"ok":true,"<field>":items} (the method's field:
 * "matches" for match, else its name; the reference to items is taken),
 * or {"ok":false,"error":why}. New references.
 */
json_t	*sideband_wire_answer(enum sideband_wire_method, json_t *items);
json_t	*sideband_wire_refusal(const char *why);

/*
 * The items of the answer to a request of method m, from the first line
 * of buf (len bytes read so far): a new reference, or NULL when there is
 * no whole line, it is not JSON, ok is not true, or the field is not an
 * array (§6.4).
 */
json_t	*sideband_wire_items(enum sideband_wire_method m, const char *buf,
	    size_t len);

#endif
