/*
 * sideband.c — the MCP server's end of the sideband: a socket of its own
 * in the private directory, answered from its tool context between stdio
 * messages, so that hooks borrow its warm model (hosts-hooks-cli §6).
 *
 * What crosses, where the socket lives and who may connect are
 * sideband_wire.c's; this file keeps the server's half of its invariants
 * (binds a new name, under ".new" then renamed; removes its own file
 * before it closes the listener; checks the peer's uid before it reads).
 * The methods are answered by the rows of methods[] below.
 *  1. The server never blocks its poll loop on a client: connections are
 *     non-blocking and read as bytes arrive; only the (small) answer is
 *     written, with a 2 s send timeout, and a vanished client is ignored
 *     (PLAT_MSG_NOSIGNAL).
 *  2. A server holds at most SIDEBAND_MAX_CLIENTS connections, each at
 *     most SIDEBAND_IDLE_MS without a full request line (a deadline of the
 *     MCP poll loop, mcp_wake_at, drops the late ones). A connection beyond the cap, or one
 *     that meets the descriptor limit (EMFILE), evicts the oldest; with
 *     none to evict the listener rests SIDEBAND_REST_MS. An idle flood
 *     costs descriptors, never CPU, and the next hook is still served.
 *  3. The server answers from the tool context only between stdio
 *     messages (mcp_watch), so the store and the model are never used
 *     concurrently (§2.10).
 */
#include "host/sideband/sideband.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "core/anchor/anchor.h"
#include "core/engine/behavior.h"
#include "core/engine/engine.h"
#include "core/engine/predict.h"
#include "core/store/store.h"
#include "host/mcp.h"
#include "host/sideband/sideband_wire.h"
#include "tools/tool.h"
#include "tools/tool_memory.h"
#include "util/os/clock.h"
#include "util/os/plat.h"
#include "util/err.h"
#include "util/jsonx.h"
#include "util/log.h"
#include "util/num.h"
#include "util/path.h"
#include "util/sbuf.h"
#include "util/xmalloc.h"

/* Invariant 2. A prompt's requests arrive within milliseconds of the
 * connect, and the client waits SIDEBAND_WIRE_TIMEOUT_MS at most. */
#define SIDEBAND_MAX_CLIENTS	64
#define SIDEBAND_IDLE_MS	(SIDEBAND_WIRE_TIMEOUT_MS + 1000)
#define SIDEBAND_REST_MS	250

struct client {
	int		fd;
	int64_t		deadline;	/* dropped then, answered or not */
	struct sbuf	in;
};

struct sideband {
	struct mcp_server	*mcp;
	char			*path;		/* owned */
	int			 fd;		/* the listener */
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
answer_match(struct tool_ctx *ctx, const struct engine *eng,
    const struct store_query *q, double threshold, json_t *out,
    struct err *err)
{
	struct store_hits	 hits = { NULL, 0 };
	struct anchor_check	*ck;
	struct sbuf		 drift = SBUF_INIT;
	json_t			*m;
	size_t			 i;

	(void)eng;
	if (tool_nudge_matches(ctx, q, threshold, &hits, err) != 0) {
		store_hits_release(&hits);
		return -1;
	}
	ck = hits.n > 0 && ctx->paths != NULL ? anchor_check_open(ctx->store,
	    ctx->paths->project_dir) : NULL;
	for (i = 0; i < hits.n; i++) {
		m = json_object();
		json_object_set_new(m, "label",
		    json_string(hits.v[i].e.label));
		json_object_set_new(m, "score",
		    json_real(num_round3(hits.v[i].score)));
		json_object_set_new(m, "store",
		    json_string(hits.v[i].e.store));
		sbuf_reset(&drift);
		anchor_marks(ck, &hits.v[i].e, &drift);
		if (drift.len > 0)
			json_object_set_new(m, "drift", json_string(drift.buf));
		sbuf_reset(&drift);	/* issue 31: whose it is */
		if (store_origin_lookup_tag(ctx->store, hits.v[i].e.store,
		    hits.v[i].e.slug, &drift))
			json_object_set_new(m, "from", json_string(drift.buf));
		json_array_append_new(out, m);
	}
	anchor_check_close(ck);
	sbuf_release(&drift);
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

/* How each method of the wire is answered. */
static const struct {
	int			(*run)(struct tool_ctx *, const struct engine *,
				    const struct store_query *, double,
				    json_t *out, struct err *);
	const struct engine	*eng;
} methods[SIDEBAND_WIRE_NMETHODS] = {
	[SIDEBAND_WIRE_MATCH] = { answer_match, NULL },
	[SIDEBAND_WIRE_PREDICTIONS] = { answer_engine, &predict_engine },
	[SIDEBAND_WIRE_BEHAVIORS] = { answer_engine, &behavior_engine },
};

/* One request line to one response object (§6.3). */
static json_t *
answer(struct sideband *sb, const char *line, size_t len)
{
	struct sideband_wire_request	 r;
	struct store_query		 q;
	struct err			 err = { "" };
	json_t				*res, *items = NULL;
	int				 rc = -1;

	memset(&r, 0, sizeof(r));
	if ((res = sideband_wire_request_read(line, len, &r)) != NULL)
		return res;
	memset(&q, 0, sizeof(q));
	q.stores = r.stores;
	q.nstores = r.nstores;
	q.limit = r.limit;
	q.min_score = -2;
	q.text = r.text;
	if ((q.vec = embed_memo(sb, r.text, &q.dim, &err)) != NULL) {
		items = json_array();
		rc = methods[r.method].run(mcp_tool_ctx(sb->mcp),
		    methods[r.method].eng, &q, r.threshold, items, &err);
	}
	if (rc != 0) {
		json_decref(items);
		res = sideband_wire_refusal(err.msg);
	} else
		res = sideband_wire_answer(r.method, items);
	log_debug("sideband:server", "%s: %s",
	    sideband_wire_method_name(r.method), rc == 0 ? "ok" : err.msg);
	sideband_wire_request_release(&r);
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

static void	on_timer(void *);

/* Wake for the next deadline or the end of a rest; disarm without. */
static void
timer_arm(struct sideband *sb)
{
	int64_t	next = sb->rest_until;
	size_t	i;

	for (i = 0; i < sb->nclients; i++)
		if (next == 0 || sb->clients[i].deadline < next)
			next = sb->clients[i].deadline;
	mcp_wake_at(sb->mcp, next, next != 0 ? on_timer : NULL, sb);
}

static void
client_answer(struct sideband *sb, struct client *c, size_t len)
{
	struct timeval	 tv = { SIDEBAND_WIRE_TIMEOUT_MS / 1000, 0 };
	json_t		*res = answer(sb, c->in.buf, len);
	char		*s = jsonx_dump(res, 0);
	char		*line = xasprintf("%s\n", s);
	size_t		 off = 0;
	ssize_t		 n;

	/* invariant 1: the answer is small; bound the write, not the loop */
	fcntl(c->fd, F_SETFL, fcntl(c->fd, F_GETFL) & ~O_NONBLOCK);
	setsockopt(c->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	while (off < strlen(line)) {
		n = send(c->fd, line + off, strlen(line) - off,
		    PLAT_MSG_NOSIGNAL);
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
	if (n <= 0 || c->in.len + (size_t)n > SIDEBAND_WIRE_MAX_LINE) {
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

/* Invariant 2: drop the late, and end a rest. */
static void
on_timer(void *arg)
{
	struct sideband	*sb = arg;
	int64_t		 now = clock_mono_ms();
	size_t		 i;

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
 * listener that stays readable (invariant 2).
 */
static void
on_listen(void *arg, int fd)
{
	struct sideband	*sb = arg;
	int		 cfd, i;

	for (i = 0; i < SIDEBAND_MAX_CLIENTS; i++) {
		cfd = plat_accept(fd);
		if (cfd >= 0) {
			if (sideband_wire_peer_ok(cfd))	/* wire invariant 3 */
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
 * (sideband_wire.c invariant 2). Returns 0, or -1 with err set and
 * nothing left behind.
 */
static int
listen_at(int fd, const char *base, char **path, struct err *err)
{
	struct sockaddr_un	 sun;
	char			*tmp = xasprintf("%s.new", base);
	mode_t			 old;
	int			 rc;

	*path = xasprintf("%s.sock", base);
	if (!sideband_wire_fits(*path) || !sideband_wire_fits(tmp)) {
		/* §6.1: unavailable, never truncated */
		rc = err_set(err, "socket path '%s' is too long", *path);
		goto out;
	}
	sideband_wire_addr(&sun, tmp);
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
	char		 prefix[SIDEBAND_WIRE_PREFIX_LEN];
	char		*dir = NULL, *base = NULL;
	uint32_t	 nonce;
	int		 rc = -1;

	sb = xcalloc(1, sizeof(*sb));
	sb->mcp = mcp;
	sb->fd = -1;
	if ((dir = path_private_dir(paths, true, err)) == NULL)
		goto out;
	/* wire invariant 1: a name nobody had; the kernel's CSPRNG never
	 * cuts 4 bytes short */
	if (plat_random(&nonce, sizeof(nonce)) != 0) {
		err_errno(err, "cannot name the socket");
		goto out;
	}
	sideband_wire_prefix(paths, prefix);
	base = xasprintf("%s/%s%ld.%08lx", dir, prefix, (long)getpid(),
	    (unsigned long)nonce);
	if ((sb->fd = plat_unix_socket()) < 0) {
		err_errno(err, "cannot create the socket");
		goto out;
	}
	if (listen_at(sb->fd, base, &sb->path, err) != 0)
		goto out;
	sb->clients = xcalloc(SIDEBAND_MAX_CLIENTS, sizeof(*sb->clients));
	mcp_watch(mcp, sb->fd, on_listen, sb);
	log_debug("sideband:server", "listening on %s", sb->path);
	*out = sb;
	rc = 0;
out:
	if (rc != 0) {
		if (sb->fd >= 0)
			close(sb->fd);
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
	mcp_wake_at(sb->mcp, 0, NULL, NULL);
	/* wire invariant 2: before the listener closes */
	unlink(sb->path);
	close(sb->fd);
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
