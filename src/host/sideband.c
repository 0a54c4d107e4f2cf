/*
 * sideband.c — the Unix socket that lends the MCP server's warm model to
 * hooks.
 *
 * A hook process lives for milliseconds; loading the embedding model in
 * each one would cost more than the whole hook budget. The MCP server
 * already has the model warm, so it answers "embed this prompt and score
 * it" over a socket whose path both sides derive from DB_PATH
 * (hosts-hooks-cli §6). One request line, one response line, one
 * connection each.
 *
 * Invariants:
 *  1. The server never blocks its poll loop on a client: connections are
 *     non-blocking and read as bytes arrive; only the (small) answer is
 *     written with a 2 s send timeout, and a vanished client is ignored
 *     (MSG_NOSIGNAL).
 *  2. The client removes the socket file only when nobody listens on it
 *     (ECONNREFUSED, ENOENT); a timeout or an error answer leaves a live
 *     server's path alone.
 *  3. Everything the client does is bounded by one deadline shared by all
 *     requests of a call.
 *  4. The server answers from the tool context only between stdio
 *     messages (mcp_watch), so the store and the model are never used
 *     concurrently (§2.10).
 */
#include "host/sideband.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>


#include "core/behavior.h"
#include "core/engine.h"
#include "core/predict.h"
#include "core/store.h"
#include "host/mcp.h"
#include "tools/tool.h"
#include "util/clock.h"
#include "util/err.h"
#include "util/sha256.h"
#include "util/jsonx.h"
#include "util/log.h"
#include "util/num.h"
#include "util/path.h"
#include "util/sbuf.h"
#include "util/xmalloc.h"

/* A request line longer than this is not a prompt; the connection drops. */
#define SIDEBAND_MAX_LINE	(1u << 20)

char *
sideband_path(const struct paths *p)
{
	struct sockaddr_un	 sun;
	char			 hex[SHA256_HEX_LEN], name[40], *path;

	sha256_hex(p->db_path, strlen(p->db_path), hex);
	snprintf(name, sizeof(name), "thatch-%.16s.sock", hex);
	path = path_join(p->tmp_dir, name);
	if (strlen(path) >= sizeof(sun.sun_path)) {
		free(path);	/* §6.1: unavailable, never truncated */
		return NULL;
	}
	return path;
}

static int
set_nonblock(int fd)
{
	int	fl = fcntl(fd, F_GETFL);

	return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

static void
fill_addr(struct sockaddr_un *sun, const char *path)
{
	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	memcpy(sun->sun_path, path, strlen(path) + 1);
}

/* ---- client ------------------------------------------------------------ */

struct conn {
	int		fd;
	struct sbuf	out;	/* request bytes not yet sent */
	size_t		sent;
	struct sbuf	in;	/* answer bytes so far */
	bool		done;
};

static char *
request_line(const struct sideband_ask *a)
{
	json_t	*o = json_object(), *st = json_array();
	char	*s, *line;
	size_t	 i;

	for (i = 0; i < a->nstores; i++)
		json_array_append_new(st, json_string(a->stores[i]));
	json_object_set_new(o, "method", json_string(a->method));
	json_object_set_new(o, "text", json_string(a->text));
	json_object_set_new(o, "stores", st);
	json_object_set_new(o, "threshold", json_real(a->threshold));
	json_object_set_new(o, "limit", json_integer(a->limit));
	s = jsonx_dump(o, 0);
	line = xasprintf("%s\n", s);
	free(s);
	json_decref(o);
	return line;
}

/* Connect one request; false when there is nothing to wait for. */
static bool
conn_start(struct conn *c, const char *path, const struct sideband_ask *a)
{
	struct sockaddr_un	 sun;
	char			*line;

	fill_addr(&sun, path);
	if ((c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0 ||
	    set_nonblock(c->fd) != 0)
		return false;
	if (connect(c->fd, (struct sockaddr *)&sun, sizeof(sun)) != 0 &&
	    errno != EINPROGRESS && errno != EAGAIN) {
		if (errno == ECONNREFUSED || errno == ENOENT) {
			/* invariant 2: a crashed server's leftover */
			if (unlink(path) == 0)
				log_debug("sideband:client", "removed stale "
				    "socket %s", path);
		} else
			log_debug("sideband:client", "connect %s: %s", path,
			    strerror(errno));
		return false;
	}
	line = request_line(a);
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
		    MSG_NOSIGNAL);
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
		    c->in.len > SIDEBAND_MAX_LINE)
			return true;
	}
	return false;
}

/* The method's array from an answer line, or NULL (§6.4). */
static json_t *
parse_answer(const char *method, const struct sbuf *in)
{
	const char	*nl = memchr(in->buf, '\n', in->len);
	const char	*field;
	json_t		*v, *arr = NULL;

	if (nl == NULL)
		return NULL;
	if ((v = jsonx_parse(in->buf, (size_t)(nl - in->buf), "answer",
	    NULL)) == NULL)
		return NULL;
	field = strcmp(method, "match") == 0 ? "matches" : method;
	if (json_is_true(json_object_get(v, "ok")) &&
	    json_is_array(json_object_get(v, field)))
		arr = json_incref(json_object_get(v, field));
	json_decref(v);
	return arr;
}

void
sideband_ask(const char *path, struct sideband_ask *asks, size_t n,
    int timeout_ms)
{
	struct conn	*c = xcalloc(n, sizeof(*c));
	struct pollfd	*pfd = xcalloc(n, sizeof(*pfd));
	int64_t		 deadline = clock_mono_ms() + timeout_ms, left;
	size_t		 i, open = 0;

	for (i = 0; i < n; i++) {
		asks[i].result = NULL;
		sbuf_init(&c[i].out);
		sbuf_init(&c[i].in);
		c[i].fd = -1;
		if (path != NULL && conn_start(&c[i], path, &asks[i]))
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
				asks[i].result = parse_answer(asks[i].method,
				    &c[i].in);
			}
		}
	}
	for (i = 0; i < n; i++) {
		if (!c[i].done)
			log_debug("sideband:client", "%s timed out",
			    asks[i].method);
		if (c[i].fd >= 0)
			close(c[i].fd);
		sbuf_release(&c[i].out);
		sbuf_release(&c[i].in);
	}
	free(c);
	free(pfd);
}

/* ---- server ------------------------------------------------------------ */

struct client {
	int		fd;
	struct sbuf	in;
};

struct sideband {
	struct mcp_server	*mcp;
	char			*path;		/* owned */
	int			 fd;
	struct client		*clients;	/* owned */
	size_t			 nclients;
	char			*memo_text;	/* owned: the last query ... */
	float			*memo_vec;	/* owned: ... and its vector */
	int			 memo_dim;
};

/*
 * The query vector of text. The three requests of one prompt carry the
 * same text, so the last one is kept: one forward pass per prompt, not
 * three.
 */
static const float *
embed_memo(struct sideband *sb, const char *text, int *dim, struct err *err)
{
	float	*v;

	if (sb->memo_text != NULL && strcmp(sb->memo_text, text) == 0) {
		*dim = sb->memo_dim;
		return sb->memo_vec;
	}
	v = tool_embed(mcp_tool_ctx(sb->mcp), text, EMBED_QUERY, dim, err);
	if (v == NULL)
		return NULL;
	free(sb->memo_text);
	free(sb->memo_vec);
	sb->memo_text = xstrdup(text);
	sb->memo_vec = v;
	sb->memo_dim = *dim;
	return v;
}

/* match (§6.3): limit first, then the unrounded threshold. */
static int
answer_match(struct tool_ctx *ctx, const struct store_query *q,
    double threshold, json_t *out, struct err *err)
{
	struct store_hits	 hits = { NULL, 0 };
	json_t			*m;
	size_t			 i;

	if (store_search(ctx->store, q, &hits, err) != 0)
		return -1;
	for (i = 0; i < hits.n; i++) {
		if (!(hits.v[i].score >= threshold))
			continue;
		m = json_object();
		json_object_set_new(m, "label",
		    json_string(hits.v[i].e.label));
		json_object_set_new(m, "score",
		    json_real(num_round3(hits.v[i].score)));
		json_object_set_new(m, "store",
		    json_string(hits.v[i].e.store));
		json_array_append_new(out, m);
	}
	store_hits_release(&hits);
	return 0;
}

/* predictions / behaviors: the engine's own auto-fire scoring. */
static int
answer_engine(struct tool_ctx *ctx, const struct engine *eng,
    const struct store_query *q, double threshold, json_t *out,
    struct err *err)
{
	struct engine_hits	 hits = { NULL, 0 };
	json_t			*m;
	size_t			 i;

	if (engine_score_nudge(ctx->store, eng, q->stores, q->nstores, q->vec,
	    q->dim, threshold, &hits, err) != 0)
		return -1;
	for (i = 0; i < hits.n && (int)i < q->limit; i++) {
		m = json_object();
		json_object_set_new(m, "confidence",
		    json_real(hits.v[i].confidence));
		json_object_set_new(m, "evidence_count",
		    json_integer(hits.v[i].evidence));
		json_object_set_new(m, "matcher_description",
		    json_string(hits.v[i].matcher_description));
		json_object_set_new(m, "statement",
		    json_string(hits.v[i].statement));
		json_array_append_new(out, m);
	}
	engine_hits_release(&hits);
	return 0;
}

/* One request line to one response object (§6.3). */
static json_t *
answer(struct sideband *sb, const char *line, size_t len)
{
	struct tool_ctx		*ctx = mcp_tool_ctx(sb->mcp);
	struct store_query	 q;
	struct err		 err = { "" };
	const char		*method, *text, **stores = NULL;
	const json_t		*st, *th;
	json_t			*req, *res = json_object(), *arr = NULL;
	double			 threshold;
	size_t			 i;
	int			 rc = -1;

	if ((req = jsonx_parse(line, len, "request", NULL)) == NULL ||
	    !json_is_object(req)) {
		json_object_set_new(res, "ok", json_false());
		json_object_set_new(res, "error", json_string("Invalid JSON"));
		goto out;
	}
	method = jsonx_str(req, "method");
	if (method == NULL || (strcmp(method, "match") != 0 &&
	    strcmp(method, "predictions") != 0 &&
	    strcmp(method, "behaviors") != 0)) {
		json_object_set_new(res, "ok", json_false());
		json_object_set_new(res, "error", json_pack("s+", "Unknown "
		    "method: ", method != NULL ? method : "undefined"));
		goto out;
	}
	text = jsonx_str(req, "text") != NULL ? jsonx_str(req, "text") : "";
	st = jsonx_get(req, "stores");
	stores = xcalloc(json_array_size(st) + 1, sizeof(*stores));
	memset(&q, 0, sizeof(q));
	for (i = 0; i < json_array_size(st); i++)
		if (json_is_string(json_array_get(st, i)))
			stores[q.nstores++] =
			    json_string_value(json_array_get(st, i));
	q.stores = stores;
	q.limit = (int)json_integer_value(jsonx_get(req, "limit"));
	q.min_score = -2;
	/* §6.3: null compares as 0; absent (or garbage) matches nothing */
	th = json_object_get(req, "threshold");
	threshold = json_is_null(th) ? 0 : json_is_number(th) ?
	    json_number_value(th) : 2;
	if ((q.vec = embed_memo(sb, text, &q.dim, &err)) != NULL) {
		arr = json_array();
		if (strcmp(method, "match") == 0)
			rc = answer_match(ctx, &q, threshold, arr, &err);
		else
			rc = answer_engine(ctx, strcmp(method, "predictions") ==
			    0 ? &predict_engine : &behavior_engine, &q,
			    threshold, arr, &err);
	}
	if (rc != 0) {
		json_object_set_new(res, "ok", json_false());
		json_object_set_new(res, "error", json_string(err.msg));
		json_decref(arr);
	} else {
		json_object_set_new(res, "ok", json_true());
		json_object_set_new(res, strcmp(method, "match") == 0 ?
		    "matches" : method, arr);
	}
	log_debug("sideband:server", "%s: %s", method, rc == 0 ? "ok" :
	    err.msg);
out:
	free(stores);
	json_decref(req);
	return res;
}

static void
client_drop(struct sideband *sb, size_t i)
{
	mcp_unwatch(sb->mcp, sb->clients[i].fd);
	close(sb->clients[i].fd);
	sbuf_release(&sb->clients[i].in);
	sb->clients[i] = sb->clients[--sb->nclients];
}

static void
client_answer(struct sideband *sb, struct client *c, size_t len)
{
	struct timeval	 tv = { SIDEBAND_TIMEOUT_MS / 1000, 0 };
	json_t		*res = answer(sb, c->in.buf, len);
	char		*s = jsonx_dump(res, 0);
	char		*line = xasprintf("%s\n", s);
	size_t		 off = 0;
	ssize_t		 n;

	/* invariant 1: the answer is small; bound the write, not the loop */
	fcntl(c->fd, F_SETFL, fcntl(c->fd, F_GETFL) & ~O_NONBLOCK);
	setsockopt(c->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	while (off < strlen(line)) {
		n = send(c->fd, line + off, strlen(line) - off, MSG_NOSIGNAL);
		if (n <= 0 && errno != EINTR)
			break;	/* the client left: nothing to do (§10.4) */
		if (n > 0)
			off += (size_t)n;
	}
	free(line);
	free(s);
	json_decref(res);
}

static void
on_client(void *arg, int fd)
{
	struct sideband	*sb = arg;
	struct client	*c = NULL;
	char		 buf[8192], *nl;
	ssize_t		 n;
	size_t		 i;

	for (i = 0; i < sb->nclients; i++)
		if (sb->clients[i].fd == fd)
			c = &sb->clients[i];
	if (c == NULL)
		return;
	n = recv(fd, buf, sizeof(buf), 0);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0 || c->in.len + (size_t)n > SIDEBAND_MAX_LINE) {
		client_drop(sb, (size_t)(c - sb->clients));
		return;
	}
	sbuf_add(&c->in, buf, (size_t)n);
	if ((nl = memchr(c->in.buf, '\n', c->in.len)) == NULL)
		return;
	client_answer(sb, c, (size_t)(nl - c->in.buf));
	client_drop(sb, (size_t)(c - sb->clients));
}

static void
on_listen(void *arg, int fd)
{
	struct sideband	*sb = arg;
	int		 cfd;

	while ((cfd = accept(fd, NULL, NULL)) >= 0) {
		if (set_nonblock(cfd) != 0 ||
		    fcntl(cfd, F_SETFD, FD_CLOEXEC) != 0) {
			close(cfd);
			continue;
		}
		sb->clients = xreallocarray(sb->clients, sb->nclients + 1,
		    sizeof(*sb->clients));
		sb->clients[sb->nclients].fd = cfd;
		sbuf_init(&sb->clients[sb->nclients].in);
		sb->nclients++;
		mcp_watch(sb->mcp, cfd, on_client, sb);
	}
}

int
sideband_open(struct mcp_server *mcp, const struct paths *paths,
    struct sideband **out, struct err *err)
{
	struct sideband		*sb;
	struct sockaddr_un	 sun;
	mode_t			 old;
	int			 rc = -1;

	sb = xcalloc(1, sizeof(*sb));
	sb->mcp = mcp;
	sb->fd = -1;
	if ((sb->path = sideband_path(paths)) == NULL) {
		err_set(err, "socket path under '%s' is too long",
		    paths->tmp_dir);
		goto out;
	}
	fill_addr(&sun, sb->path);
	if (unlink(sb->path) != 0 && errno != ENOENT) {
		err_errno(err, "cannot remove '%s'", sb->path);
		goto out;
	}
	if ((sb->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC |
	    SOCK_NONBLOCK, 0)) < 0) {
		err_errno(err, "socket");
		goto out;
	}
	old = umask(0177);	/* deviation (§6.2): the socket is 0600 */
	rc = bind(sb->fd, (struct sockaddr *)&sun, sizeof(sun));
	umask(old);
	if (rc != 0 || listen(sb->fd, 16) != 0) {
		rc = err_errno(err, "cannot listen on '%s'", sb->path);
		goto out;
	}
	mcp_watch(mcp, sb->fd, on_listen, sb);
	log_debug("sideband:server", "listening on %s", sb->path);
	*out = sb;
out:
	if (rc != 0) {
		if (sb->fd >= 0)
			close(sb->fd);
		free(sb->path);
		free(sb);
	}
	return rc;
}

void
sideband_close(struct sideband *sb)
{
	if (sb == NULL)
		return;
	while (sb->nclients > 0)
		client_drop(sb, 0);
	mcp_unwatch(sb->mcp, sb->fd);
	close(sb->fd);
	unlink(sb->path);
	free(sb->clients);
	free(sb->path);
	free(sb->memo_text);
	free(sb->memo_vec);
	free(sb);
}

char *
sideband_answer_line(struct sideband *sb, const char *line, size_t len)
{
	json_t	*res = answer(sb, line, len);
	char	*s = jsonx_dump(res, 0);

	json_decref(res);
	return s;
}
