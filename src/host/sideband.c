/*
 * sideband.c — the Unix sockets that lend the MCP servers' warm model to
 * hooks.
 *
 * A hook process lives for milliseconds; loading the embedding model in
 * each one would cost more than the whole hook budget. An MCP server
 * already has the model warm, so it answers "embed this prompt and score
 * it" over a Unix socket (hosts-hooks-cli §6). One request line, one
 * response line, one connection each.
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
 * Invariants:
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
 *     (SO_PEERCRED) with their own euid, the client after connect and
 *     before it sends the prompt, the server before it reads a request.
 *     A socket of another uid is skipped, never removed.
 *  4. The server never blocks its poll loop on a client: connections are
 *     non-blocking and read as bytes arrive; only the (small) answer is
 *     written, with a 2 s send timeout, and a vanished client is ignored
 *     (MSG_NOSIGNAL).
 *  5. A server holds at most SIDEBAND_MAX_CLIENTS connections, each at
 *     most SIDEBAND_IDLE_MS without a full request line (a timerfd in the
 *     poll loop drops the late ones). A connection beyond the cap, or one
 *     that meets the descriptor limit (EMFILE), evicts the oldest; with
 *     none to evict the listener rests SIDEBAND_REST_MS. An idle flood
 *     costs descriptors, never CPU, and the next hook is still served.
 *  6. Everything the client does is bounded by one deadline shared by all
 *     requests of a call.
 *  7. The server answers from the tool context only between stdio
 *     messages (mcp_watch), so the store and the model are never used
 *     concurrently (§2.10).
 */
#define _GNU_SOURCE		/* accept4, SO_PEERCRED's struct ucred */
#include "host/sideband.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <unistd.h>

#include "core/engine/behavior.h"
#include "core/engine/engine.h"
#include "core/engine/predict.h"
#include "core/store/store.h"
#include "host/mcp.h"
#include "tools/tool.h"
#include "tools/tool_memory.h"
#include "util/os/clock.h"
#include "util/err.h"
#include "util/jsonx.h"
#include "util/log.h"
#include "util/num.h"
#include "util/path.h"
#include "util/sbuf.h"
#include "util/sha256.h"
#include "util/xmalloc.h"

/* A request line longer than this is not a prompt; the connection drops. */
#define SIDEBAND_MAX_LINE	(1u << 20)
/* Invariant 5. A prompt's requests arrive within milliseconds of the
 * connect, and the client waits SIDEBAND_TIMEOUT_MS at most. */
#define SIDEBAND_MAX_CLIENTS	64
#define SIDEBAND_IDLE_MS	(SIDEBAND_TIMEOUT_MS + 1000)
#define SIDEBAND_REST_MS	250
/* "thatch-" + 16 hex + "." and a NUL */
#define SIDEBAND_PREFIX_LEN	25

static void
name_prefix(const struct paths *p, char prefix[SIDEBAND_PREFIX_LEN])
{
	char	hex[SHA256_HEX_LEN];

	sha256_hex(p->db_path, strlen(p->db_path), hex);
	snprintf(prefix, SIDEBAND_PREFIX_LEN, "thatch-%.16s.", hex);
}

/* <prefix><pid>.<8 hex>.sock, what sideband_open names its socket. */
static bool
is_sock_name(const char *name, const char *prefix)
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

static bool
fits_sun_path(const char *path)
{
	struct sockaddr_un	sun;

	return strlen(path) < sizeof(sun.sun_path);
}

static void
fill_addr(struct sockaddr_un *sun, const char *path)
{
	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	memcpy(sun->sun_path, path, strlen(path) + 1);
}

/* Invariant 3: the process at the other end runs as our user. */
static bool
peer_is_us(int fd)
{
	struct ucred	cr;
	socklen_t	len = sizeof(cr);

	return getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) == 0 &&
	    len == sizeof(cr) && cr.uid == geteuid();
}

/* ---- client ------------------------------------------------------------ */

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
	char		 prefix[SIDEBAND_PREFIX_LEN], *dir, *path;
	DIR		*d = NULL;
	size_t		 n = 0;

	*out = NULL;
	if ((dir = path_private_dir(p, false, &err)) == NULL) {
		log_debug("sideband:client", "no socket directory: %s",
		    err.msg);
		return 0;
	}
	name_prefix(p, prefix);
	if ((d = opendir(dir)) != NULL) {
		while ((e = readdir(d)) != NULL) {
			if (!is_sock_name(e->d_name, prefix))
				continue;
			path = path_join(dir, e->d_name);
			if (!fits_sun_path(path) || lstat(path, &st) != 0 ||
			    !S_ISSOCK(st.st_mode) || st.st_uid != geteuid()) {
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
sideband_up(const struct paths *p)
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
static enum sideband_state
probe_one(const char *path, int timeout_ms)
{
	struct sockaddr_un	 sun;
	struct timeval		 tv = { timeout_ms / 1000,
				    (timeout_ms % 1000) * 1000 };
	static const char	 ping[] = "{\"method\":\"ping\"}\n";
	struct sbuf		 in = SBUF_INIT;
	enum sideband_state	 state = SIDEBAND_SILENT;
	char			 buf[512];
	json_t			*v;
	ssize_t			 n;
	int			 fd;

	fill_addr(&sun, path);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
	    0)) < 0)
		return SIDEBAND_SILENT;
	sbuf_init(&in);
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) != 0) {
		state = errno == ECONNREFUSED ? SIDEBAND_STALE :
		    SIDEBAND_SILENT;
		goto out;
	}
	if (!peer_is_us(fd) || fcntl(fd, F_SETFL, 0) != 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) != 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) != 0 ||
	    send(fd, ping, sizeof(ping) - 1, MSG_NOSIGNAL) !=
	    (ssize_t)sizeof(ping) - 1)
		goto out;
	while (memchr(in.buf, '\n', in.len) == NULL && in.len < sizeof(buf) &&
	    (n = recv(fd, buf, sizeof(buf), 0)) > 0)
		sbuf_add(&in, buf, (size_t)n);
	if ((v = jsonx_parse(in.buf, in.len, "answer", NULL)) != NULL &&
	    json_is_object(v))
		state = SIDEBAND_ANSWERS;
	json_decref(v);
out:
	sbuf_release(&in);
	close(fd);
	return state;
}

void
sideband_probe(const struct paths *p, struct sideband_probe *out,
    int timeout_ms)
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

	fill_addr(&sun, c->path);
	c->skip = true;
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
	    0)) < 0)
		return -1;
	/* AF_UNIX connects at once: 0, or EAGAIN when the backlog is full */
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == 0) {
		if (peer_is_us(fd)) {
			c->skip = false;
			return fd;
		}
		log_debug("sideband:client", "%s: not our user's; skipped",
		    c->path);
	} else if (errno == ECONNREFUSED) {
		if (unlink(c->path) == 0)	/* invariant 2 */
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

/* Connect one request to the first server that accepts; false when
 * there is nothing to wait for. */
static bool
conn_start(struct conn *c, struct cand *cand, size_t ncand,
    const struct sideband_ask *a)
{
	char	*line;
	size_t	 i;

	for (i = 0; i < ncand && c->fd < 0; i++)
		if (!cand[i].skip)
			c->fd = dial(&cand[i]);
	if (c->fd < 0)
		return false;
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
sideband_ask(const struct paths *p, struct sideband_ask *asks, size_t n,
    int timeout_ms)
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
		if (conn_start(&c[i], cand, ncand, &asks[i]))
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
	cands_free(cand, ncand);
	free(c);
	free(pfd);
}

/* ---- server ------------------------------------------------------------ */

struct client {
	int		fd;
	int64_t		deadline;	/* dropped then, answered or not */
	struct sbuf	in;
};

struct sideband {
	struct mcp_server	*mcp;
	char			*path;		/* owned */
	int			 fd;		/* the listener */
	int			 timer;		/* timerfd: deadlines, rest */
	int64_t			 rest_until;	/* listener unwatched, or 0 */
	struct client		*clients;	/* owned: MAX_CLIENTS slots */
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

/* match (§6.3): the recall nudge's matches (tool_nudge_matches). */
static int
answer_match(struct tool_ctx *ctx, const struct store_query *q,
    double threshold, json_t *out, struct err *err)
{
	struct store_hits	 hits = { NULL, 0 };
	json_t			*m;
	size_t			 i;

	if (tool_nudge_matches(ctx, q, threshold, &hits, err) != 0) {
		store_hits_release(&hits);
		return -1;
	}
	for (i = 0; i < hits.n; i++) {
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
	q.text = text;
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

/* The client accepted first (every deadline is accept + IDLE_MS). */
static size_t
client_oldest(const struct sideband *sb)
{
	size_t	i, old = 0;

	for (i = 1; i < sb->nclients; i++)
		if (sb->clients[i].deadline < sb->clients[old].deadline)
			old = i;
	return old;
}

/* Wake for the next deadline or the end of a rest; disarm without. */
static void
timer_arm(struct sideband *sb)
{
	struct itimerspec	its;
	int64_t			next = sb->rest_until, left;
	size_t			i;

	memset(&its, 0, sizeof(its));
	for (i = 0; i < sb->nclients; i++)
		if (next == 0 || sb->clients[i].deadline < next)
			next = sb->clients[i].deadline;
	if (next != 0) {
		left = next - clock_mono_ms();
		if (left < 1)
			left = 1;
		its.it_value.tv_sec = left / 1000;
		its.it_value.tv_nsec = (left % 1000) * 1000000L;
	}
	timerfd_settime(sb->timer, 0, &its, NULL);
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

	/* invariant 4: the answer is small; bound the write, not the loop */
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

static void on_listen(void *, int);

/* Invariant 5: drop the late, and end a rest. */
static void
on_timer(void *arg, int fd)
{
	struct sideband	*sb = arg;
	uint64_t	 ticks;
	int64_t		 now = clock_mono_ms();
	size_t		 i;

	if (read(fd, &ticks, sizeof(ticks)) < 0 && errno != EAGAIN)
		log_debug("sideband:server", "timer: %s", strerror(errno));
	for (i = sb->nclients; i-- > 0; )
		if (sb->clients[i].deadline <= now) {
			log_debug("sideband:server", "dropped an idle client");
			client_drop(sb, i);
		}
	if (sb->rest_until != 0 && sb->rest_until <= now) {
		sb->rest_until = 0;
		mcp_watch(sb->mcp, sb->fd, on_listen, sb);
	}
	timer_arm(sb);
}

static void
client_add(struct sideband *sb, int fd)
{
	struct client	*c;

	if (sb->nclients == SIDEBAND_MAX_CLIENTS)
		client_drop(sb, client_oldest(sb));
	c = &sb->clients[sb->nclients++];
	c->fd = fd;
	c->deadline = clock_mono_ms() + SIDEBAND_IDLE_MS;
	sbuf_init(&c->in);
	mcp_watch(sb->mcp, fd, on_client, sb);
}

/*
 * Accept what is pending, a bounded number at a time so a flood cannot
 * hold stdio off. Out of descriptors, make room by evicting the oldest
 * client; with none of ours to evict, rest instead of spinning on a
 * listener that stays readable (invariant 5).
 */
static void
on_listen(void *arg, int fd)
{
	struct sideband	*sb = arg;
	int		 cfd, i;

	for (i = 0; i < SIDEBAND_MAX_CLIENTS; i++) {
		cfd = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (cfd >= 0) {
			if (peer_is_us(cfd))	/* invariant 3 */
				client_add(sb, cfd);
			else
				close(cfd);
		} else if ((errno == EMFILE || errno == ENFILE) &&
		    sb->nclients > 0)
			client_drop(sb, client_oldest(sb));
		else if (errno == EMFILE || errno == ENFILE ||
		    errno == ENOBUFS || errno == ENOMEM) {
			log_debug("sideband:server", "accept: %s; resting",
			    strerror(errno));
			mcp_unwatch(sb->mcp, fd);
			sb->rest_until = clock_mono_ms() + SIDEBAND_REST_MS;
			break;
		} else if (errno != ECONNABORTED && errno != EINTR)
			break;		/* EAGAIN: nothing more pending */
	}
	timer_arm(sb);
}

/*
 * Bind and listen under a ".new" name, then rename it into place
 * (invariant 2). Returns 0, or -1 with err set and nothing left behind.
 */
static int
listen_at(int fd, const char *base, char **path, struct err *err)
{
	struct sockaddr_un	 sun;
	char			*tmp = xasprintf("%s.new", base);
	mode_t			 old;
	int			 rc;

	*path = xasprintf("%s.sock", base);
	if (!fits_sun_path(*path) || !fits_sun_path(tmp)) {
		/* §6.1: unavailable, never truncated */
		rc = err_set(err, "socket path '%s' is too long", *path);
		goto out;
	}
	fill_addr(&sun, tmp);
	old = umask(0177);	/* deviation (§6.2): the socket is 0600 */
	rc = bind(fd, (struct sockaddr *)&sun, sizeof(sun));
	umask(old);
	if (rc != 0) {
		rc = err_errno(err, "cannot bind '%s'", tmp);
		goto out;
	}
	if (listen(fd, SIDEBAND_MAX_CLIENTS) != 0 || rename(tmp, *path) != 0) {
		rc = err_errno(err, "cannot listen on '%s'", *path);
		unlink(tmp);
	}
out:
	if (rc != 0) {
		free(*path);
		*path = NULL;
	}
	free(tmp);
	return rc;
}

int
sideband_open(struct mcp_server *mcp, const struct paths *paths,
    struct sideband **out, struct err *err)
{
	struct sideband	*sb;
	char		 prefix[SIDEBAND_PREFIX_LEN], *dir = NULL, *base = NULL;
	uint32_t	 nonce;
	int		 rc = -1;

	sb = xcalloc(1, sizeof(*sb));
	sb->mcp = mcp;
	sb->fd = sb->timer = -1;
	if ((dir = path_private_dir(paths, true, err)) == NULL)
		goto out;
	/* invariant 1: a name nobody had; the kernel's CSPRNG never cuts
	 * 4 bytes short */
	if (getrandom(&nonce, sizeof(nonce), 0) != (ssize_t)sizeof(nonce)) {
		err_errno(err, "cannot name the socket");
		goto out;
	}
	name_prefix(paths, prefix);
	base = xasprintf("%s/%s%ld.%08lx", dir, prefix, (long)getpid(),
	    (unsigned long)nonce);
	if ((sb->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC |
	    SOCK_NONBLOCK, 0)) < 0 || (sb->timer = timerfd_create(
	    CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC)) < 0) {
		err_errno(err, "cannot create the socket");
		goto out;
	}
	if (listen_at(sb->fd, base, &sb->path, err) != 0)
		goto out;
	sb->clients = xcalloc(SIDEBAND_MAX_CLIENTS, sizeof(*sb->clients));
	mcp_watch(mcp, sb->fd, on_listen, sb);
	mcp_watch(mcp, sb->timer, on_timer, sb);
	log_debug("sideband:server", "listening on %s", sb->path);
	*out = sb;
	rc = 0;
out:
	if (rc != 0) {
		if (sb->fd >= 0)
			close(sb->fd);
		if (sb->timer >= 0)
			close(sb->timer);
		free(sb);
	}
	free(base);
	free(dir);
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
	mcp_unwatch(sb->mcp, sb->timer);
	unlink(sb->path);	/* invariant 2: before the listener closes */
	close(sb->fd);
	close(sb->timer);
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
