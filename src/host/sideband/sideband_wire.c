/*
 * sideband_wire.c — what both ends of the sideband agree on: where the
 * sockets are, who may talk, and the lines that cross (hosts-hooks-cli
 * §6). The hook side (sideband_client.c) and the server side
 * (sideband.c) each keep their half of this file's contract and include
 * nothing of each other's; this file needs only util/.
 *
 * A hook process lives for milliseconds; loading the embedding model in
 * each one would cost more than the whole hook budget. An MCP server
 * already has the model warm, so it answers "embed this prompt and score
 * it" over a Unix socket. One request line, one response line, one
 * connection each. The methods are the rows of methods[] below; nothing
 * else spells their names.
 *
 * Where, and how several servers share it (deviation, §6.2
 * [superseded]). Not in the shared /tmp, where another local user could
 * bind the name first: every socket lives in path_private_dir
 * ($XDG_RUNTIME_DIR, else a verified <TMP_DIR>/thatch-<euid>, both 0700).
 * Every server binds its own socket there,
 *
 *     thatch-<first 16 hex of SHA-256(DB_PATH)>.<pid>.<8 random hex>.sock
 *
 * and a hook lists the directory for its database's prefix and asks the
 * first that accepts, oldest first: the longest-running server is the one
 * whose model is warm, while a just-started one (`claude mcp list`'s
 * health check) may still be loading it. Nothing is handed over, so any
 * number of servers start and stop in any order.
 *
 * Invariants (both ends):
 *  1. A name is bound once: the random part makes every server's name
 *     new, so no two sockets ever had the same path and removing a name
 *     can only ever remove the one socket that had it.
 *  2. A ".sock" name exists only for a listening socket: the server binds
 *     and listens under ".new" and renames it into place, and at exit
 *     removes its own file before it closes the listener. So a refused
 *     connect (ECONNREFUSED) on a ".sock" name proves its server is gone
 *     (killed); by 1 the file is nobody's, and the refused client removes
 *     it. Nothing else ever removes a ".sock": a live server's file stays
 *     from its start to its exit, so while one runs a hook finds it, and
 *     a stale file only costs the next hook one refused connect.
 *  3. No byte crosses to another user: both ends compare the peer's uid
 *     (plat_peer_uid: SO_PEERCRED, getpeereid; a system with neither
 *     refuses every peer) with their own euid, the client after connect
 *     and before it sends the prompt, the server before it reads a
 *     request.
 *     A socket of another uid is skipped, never removed.
 */
#include "host/sideband/sideband_wire.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "util/jsonx.h"
#include "util/log.h"
#include "util/os/plat.h"
#include "util/path.h"
#include "util/sha256.h"
#include "util/xmalloc.h"

/* The methods (§6.3): the name a request carries, the answer's field. */
static const struct {
	const char	*name;
	const char	*field;
} methods[SIDEBAND_WIRE_NMETHODS] = {
	[SIDEBAND_WIRE_MATCH] = { "match", "matches" },
	[SIDEBAND_WIRE_PREDICTIONS] = { "predictions", "predictions" },
	[SIDEBAND_WIRE_BEHAVIORS] = { "behaviors", "behaviors" },
};

void
sideband_wire_prefix(const struct paths *p,
    char prefix[SIDEBAND_WIRE_PREFIX_LEN])
{
	char	hex[SHA256_HEX_LEN];

	sha256_hex(p->db_path, strlen(p->db_path), hex);
	snprintf(prefix, SIDEBAND_WIRE_PREFIX_LEN, "thatch-%.16s.", hex);
}

bool
sideband_wire_is_sock(const char *name, const char *prefix)
{
	size_t	n = strlen(prefix);

	if (strncmp(name, prefix, n) != 0)
		return false;
	name += n;
	n = strspn(name, "0123456789");
	if (n == 0 || name[n] != '.')
		return false;
	name += n + 1;
	n = strspn(name, "0123456789abcdef");
	return n == 8 && strcmp(name + n, ".sock") == 0;
}

bool
sideband_wire_fits(const char *path)
{
	struct sockaddr_un	sun;

	return strlen(path) < sizeof(sun.sun_path);
}

void
sideband_wire_addr(struct sockaddr_un *sun, const char *path)
{
	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	memcpy(sun->sun_path, path, strlen(path) + 1);
}

bool
sideband_wire_peer_ok(int fd)
{
	static bool	said;
	uid_t		uid;

	if (plat_peer_uid(fd, &uid) == 0)
		return uid == geteuid();
	if (errno == ENOSYS && !said) {
		/* refuse rather than serve unchecked (invariant 3) */
		log_warn("sideband: this system cannot tell a socket peer's "
		    "user; the sideband stays closed");
		said = true;
	}
	return false;
}

const char *
sideband_wire_method_name(enum sideband_wire_method m)
{
	return methods[m].name;
}

char *
sideband_wire_request_line(const struct sideband_wire_request *r)
{
	json_t	*o = json_object(), *st = json_array();
	char	*s, *line;
	size_t	 i;

	for (i = 0; i < r->nstores; i++)
		json_array_append_new(st, json_string(r->stores[i]));
	json_object_set_new(o, "method", json_string(methods[r->method].name));
	json_object_set_new(o, "text", json_string(r->text));
	json_object_set_new(o, "stores", st);
	json_object_set_new(o, "threshold", json_real(r->threshold));
	json_object_set_new(o, "limit", json_integer(r->limit));
	s = jsonx_dump(o, 0);
	line = xasprintf("%s\n", s);
	free(s);
	json_decref(o);
	return line;
}

/* The row named name, or SIDEBAND_WIRE_NMETHODS. */
static enum sideband_wire_method
method_find(const char *name)
{
	size_t	m;

	for (m = 0; name != NULL && m < SIDEBAND_WIRE_NMETHODS; m++)
		if (strcmp(methods[m].name, name) == 0)
			break;
	return name == NULL ? SIDEBAND_WIRE_NMETHODS :
	    (enum sideband_wire_method)m;
}

/* {"ok":false,"error":why}, taking the reference to why. */
static json_t *
refusal(json_t *why)
{
	json_t	*res = json_object();

	json_object_set_new(res, "ok", json_false());
	json_object_set_new(res, "error", why);
	return res;
}

json_t *
sideband_wire_request_read(const char *line, size_t len,
    struct sideband_wire_request *r)
{
	const char	*name;
	const json_t	*st, *th;
	json_t		*why;
	size_t		 i;

	r->doc = jsonx_parse(line, len, "request", NULL);
	if (!json_is_object(r->doc)) {
		sideband_wire_request_release(r);
		return refusal(json_string("Invalid JSON"));
	}
	name = jsonx_str(r->doc, "method");
	if ((r->method = method_find(name)) == SIDEBAND_WIRE_NMETHODS) {
		/* the name whole, however long: not through a struct err */
		why = json_pack("s+", "Unknown method: ", name != NULL ? name :
		    "undefined");
		sideband_wire_request_release(r);
		return refusal(why);
	}
	r->text = jsonx_str(r->doc, "text") != NULL ? jsonx_str(r->doc,
	    "text") : "";
	st = jsonx_get(r->doc, "stores");
	r->own = xcalloc(json_array_size(st) + 1, sizeof(*r->own));
	for (i = 0; i < json_array_size(st); i++)
		if (json_is_string(json_array_get(st, i)))
			r->own[r->nstores++] =
			    json_string_value(json_array_get(st, i));
	r->stores = r->own;
	r->limit = (int)json_integer_value(jsonx_get(r->doc, "limit"));
	/* §6.3: null compares as 0; absent (or garbage) matches nothing */
	th = json_object_get(r->doc, "threshold");
	r->threshold = json_is_null(th) ? 0 : json_is_number(th) ?
	    json_number_value(th) : 2;
	return NULL;
}

void
sideband_wire_request_release(struct sideband_wire_request *r)
{
	json_decref(r->doc);
	free(r->own);
	memset(r, 0, sizeof(*r));
}

json_t *
sideband_wire_answer(enum sideband_wire_method m, json_t *items)
{
	json_t	*res = json_object();

	json_object_set_new(res, "ok", json_true());
	json_object_set_new(res, methods[m].field, items);
	return res;
}

json_t *
sideband_wire_refusal(const char *why)
{
	return refusal(json_string(why));
}

json_t *
sideband_wire_items(enum sideband_wire_method m, const char *buf, size_t len)
{
	const char	*nl = memchr(buf, '\n', len);
	json_t		*v, *items = NULL;

	if (nl == NULL)
		return NULL;
	if ((v = jsonx_parse(buf, (size_t)(nl - buf), "answer", NULL)) ==
	    NULL)
		return NULL;
	if (json_is_true(json_object_get(v, "ok")) &&
	    json_is_array(json_object_get(v, methods[m].field)))
		items = json_incref(json_object_get(v, methods[m].field));
	json_decref(v);
	return items;
}
