/*
 * sideband_client.c — the hook's end of the sideband: find this
 * database's MCP servers and ask one of them, all requests at once
 * (hosts-hooks-cli §5.1, §6.4); and, for doctor, see which answer.
 *
 * It runs in a hook, which lives for milliseconds and must never load the
 * model: it needs only util/ and the wire format (sideband_wire.c, whose
 * invariants it keeps: it removes a ".sock" only when its connect is
 * refused, and sends nothing before the peer proves to be our user).
 *  1. Everything it does is bounded by one deadline shared by all
 *     requests of a call.
 *  2. Every failure is an absent answer, never an error: the hook goes on
 *     without that part.
 */
#include "host/sideband/sideband_client.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "util/os/clock.h"
#include "util/os/plat.h"
#include "util/err.h"
#include "util/jsonx.h"
#include "util/log.h"
#include "util/path.h"
#include "util/sbuf.h"
#include "util/xmalloc.h"

/* One server socket a hook may ask. */
struct cand {
	char		*path;	/* owned */
	struct timespec	 bound;	/* its mtime: when the server bound it */
	bool		 skip;	/* refused, foreign or failed: not again */
};

static int
cand_cmp(const void *a, const void *b)
{
	const struct cand	*x = a, *y = b;

	if (x->bound.tv_sec != y->bound.tv_sec)
		return x->bound.tv_sec < y->bound.tv_sec ? -1 : 1;
	if (x->bound.tv_nsec != y->bound.tv_nsec)
		return x->bound.tv_nsec < y->bound.tv_nsec ? -1 : 1;
	return strcmp(x->path, y->path);
}

static void
cands_free(struct cand *c, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		free(c[i].path);
	free(c);
}

/* The sockets of this database in the private directory, oldest first. */
static size_t
cands_list(const struct paths *p, struct cand **out)
{
	struct err	 err;
	struct stat	 st;
	struct dirent	*e;
	struct cand	*c = NULL;
	char		 prefix[SIDEBAND_WIRE_PREFIX_LEN], *dir, *path;
	DIR		*d = NULL;
	size_t		 n = 0;

	*out = NULL;
	if ((dir = path_private_dir(p, false, &err)) == NULL) {
		log_debug("sideband:client", "no socket directory: %s",
		    err.msg);
		return 0;
	}
	sideband_wire_prefix(p, prefix);
	if ((d = opendir(dir)) != NULL) {
		while ((e = readdir(d)) != NULL) {
			if (!sideband_wire_is_sock(e->d_name, prefix))
				continue;
			path = path_join(dir, e->d_name);
			if (!sideband_wire_fits(path) ||
			    lstat(path, &st) != 0 || !S_ISSOCK(st.st_mode) ||
			    st.st_uid != geteuid()) {
				free(path);
				continue;
			}
			c = xreallocarray(c, n + 1, sizeof(*c));
			c[n++] = (struct cand){ path, st.st_mtim, false };
		}
		closedir(d);
	}
	free(dir);
	if (n > 1)
		qsort(c, n, sizeof(*c), cand_cmp);
	*out = c;
	return n;
}

bool
sideband_client_up(const struct paths *p)
{
	struct cand	*c;
	size_t		 n = cands_list(p, &c);

	cands_free(c, n);
	return n > 0;
}

/*
 * Whether the server at path answers a line within timeout_ms: a request
 * of no known method gets {"ok":false,...} back (§10.4), which proves it
 * reads and answers without making it do any work.
 */
static enum sideband_client_state
probe_one(const char *path, int timeout_ms)
{
	struct sockaddr_un		 sun;
	struct timeval			 tv = { timeout_ms / 1000,
					    (timeout_ms % 1000) * 1000 };
	static const char		 ping[] = "{\"method\":\"ping\"}\n";
	struct sbuf			 in = SBUF_INIT;
	enum sideband_client_state	 state = SIDEBAND_CLIENT_SILENT;
	char				 buf[512];
	json_t				*v;
	ssize_t				 n;
	int				 fd;

	sideband_wire_addr(&sun, path);
	if ((fd = plat_unix_socket()) < 0)
		return SIDEBAND_CLIENT_SILENT;
	sbuf_init(&in);
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) != 0) {
		state = errno == ECONNREFUSED ? SIDEBAND_CLIENT_STALE :
		    SIDEBAND_CLIENT_SILENT;
		goto out;
	}
	if (!sideband_wire_peer_ok(fd) || fcntl(fd, F_SETFL, 0) != 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) != 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) != 0 ||
	    send(fd, ping, sizeof(ping) - 1, PLAT_MSG_NOSIGNAL) !=
	    (ssize_t)sizeof(ping) - 1)
		goto out;
	while (memchr(in.buf, '\n', in.len) == NULL && in.len < sizeof(buf) &&
	    (n = recv(fd, buf, sizeof(buf), 0)) > 0)
		sbuf_add(&in, buf, (size_t)n);
	if ((v = jsonx_parse(in.buf, in.len, "answer", NULL)) != NULL &&
	    json_is_object(v))
		state = SIDEBAND_CLIENT_ANSWERS;
	json_decref(v);
out:
	sbuf_release(&in);
	close(fd);
	return state;
}

void
sideband_client_probe(const struct paths *p,
    struct sideband_client_probe *out, int timeout_ms)
{
	struct cand	*c;
	size_t		 i, n = cands_list(p, &c);

	memset(out, 0, sizeof(*out));
	for (i = 0; i < n; i++)
		out->count[probe_one(c[i].path, timeout_ms)]++;
	cands_free(c, n);
}

/* A connected socket to c's server, or -1 and c is skipped from now on. */
static int
dial(struct cand *c)
{
	struct sockaddr_un	sun;
	int			fd;

	sideband_wire_addr(&sun, c->path);
	c->skip = true;
	if ((fd = plat_unix_socket()) < 0)
		return -1;
	/* AF_UNIX connects at once: 0, or EAGAIN when the backlog is full */
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == 0) {
		if (sideband_wire_peer_ok(fd)) {
			c->skip = false;
			return fd;
		}
		log_debug("sideband:client", "%s: not our user's; skipped",
		    c->path);
	} else if (errno == ECONNREFUSED) {
		/* sideband_wire.c invariant 2 */
		if (unlink(c->path) == 0)
			log_debug("sideband:client", "removed stale socket %s",
			    c->path);
	} else
		log_debug("sideband:client", "connect %s: %s", c->path,
		    strerror(errno));
	close(fd);
	return -1;
}

struct conn {
	int		fd;
	struct sbuf	out;	/* request bytes not yet sent */
	size_t		sent;
	struct sbuf	in;	/* answer bytes so far */
	bool		done;
};

/* Connect one request to the first server that accepts; false when
 * there is nothing to wait for. */
static bool
conn_start(struct conn *c, struct cand *cand, size_t ncand,
    const struct sideband_wire_request *r)
{
	char	*line;
	size_t	 i;

	for (i = 0; i < ncand && c->fd < 0; i++)
		if (!cand[i].skip)
			c->fd = dial(&cand[i]);
	if (c->fd < 0)
		return false;
	line = sideband_wire_request_line(r);
	sbuf_adds(&c->out, line);
	free(line);
	return true;
}

/* Make progress on c after poll said revents; true once finished. */
static bool
conn_step(struct conn *c, short revents)
{
	char	buf[8192];
	ssize_t	n;

	if (c->sent < c->out.len && (revents & POLLOUT)) {
		n = send(c->fd, c->out.buf + c->sent, c->out.len - c->sent,
		    PLAT_MSG_NOSIGNAL);
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return true;
		if (n > 0)
			c->sent += (size_t)n;
	}
	if (revents & (POLLIN | POLLHUP | POLLERR)) {
		n = recv(c->fd, buf, sizeof(buf), 0);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return false;
		if (n <= 0)
			return true;	/* peer closed early or failed */
		sbuf_add(&c->in, buf, (size_t)n);
		if (memchr(c->in.buf, '\n', c->in.len) != NULL ||
		    c->in.len > SIDEBAND_WIRE_MAX_LINE)
			return true;
	}
	return false;
}

void
sideband_client_ask(const struct paths *p, struct sideband_client_ask *asks,
    size_t n, int timeout_ms)
{
	struct conn	*c = xcalloc(n, sizeof(*c));
	struct pollfd	*pfd = xcalloc(n, sizeof(*pfd));
	int64_t		 deadline = clock_mono_ms() + timeout_ms, left;
	struct cand	*cand;
	size_t		 i, open = 0, ncand = cands_list(p, &cand);

	for (i = 0; i < n; i++) {
		asks[i].result = NULL;
		sbuf_init(&c[i].out);
		sbuf_init(&c[i].in);
		c[i].fd = -1;
		if (conn_start(&c[i], cand, ncand, &asks[i].req))
			open++;
		else
			c[i].done = true;
	}
	while (open > 0 && (left = deadline - clock_mono_ms()) > 0) {
		for (i = 0; i < n; i++) {
			pfd[i].fd = c[i].done ? -1 : c[i].fd;
			pfd[i].events = POLLIN |
			    (c[i].sent < c[i].out.len ? POLLOUT : 0);
			pfd[i].revents = 0;
		}
		if (poll(pfd, n, (int)left) < 0 && errno != EINTR)
			break;
		for (i = 0; i < n; i++) {
			if (c[i].done || pfd[i].revents == 0)
				continue;
			if (conn_step(&c[i], pfd[i].revents)) {
				c[i].done = true;
				open--;
				asks[i].result = sideband_wire_items(
				    asks[i].req.method, c[i].in.buf,
				    c[i].in.len);
			}
		}
	}
	for (i = 0; i < n; i++) {
		if (!c[i].done)
			log_debug("sideband:client", "%s timed out",
			    sideband_wire_method_name(asks[i].req.method));
		if (c[i].fd >= 0)
			close(c[i].fd);
		sbuf_release(&c[i].out);
		sbuf_release(&c[i].in);
	}
	cands_free(cand, ncand);
	free(c);
	free(pfd);
}
