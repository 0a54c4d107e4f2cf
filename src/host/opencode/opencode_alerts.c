/*
 * opencode_alerts.c — what opencode's events mean to the alert state
 * machine (core/session/alerts.c, engines-and-extras B3), and the delivery.
 *
 *  1. A child session (a task sub-agent, an extraction child) never says
 *     DONE or ERROR; its pauses are its root's. Parents are learnt from
 *     session.created (info.parentID) and, for sessions created before
 *     this process, from opencode's database (core/session/ocdb.c), once each.
 *  2. The label is the session's chat name when it is in the chat
 *     directory, else its title from opencode's database (cut to 40
 *     characters), else the first 8 characters of its id (B3).
 *  3. Delivery never blocks the plugin: notify_send runs on a thread of
 *     its own with its own copies (speech is awaited, B2), and
 *     opencode_alerts_free waits for those still running, so the alert
 *     of a last idle is sent even when opencode exits right after it
 *     (the core outlives it that long; opencode does not wait for it).
 *     The config is read at the alert, so a changed mode counts at once.
 */
#include "host/opencode/opencode_alerts.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/session/alerts.h"
#include "core/session/chat.h"
#include "core/config.h"
#include "core/notify.h"
#include "core/session/ocdb.h"
#include "tools/tool.h"
#include "util/err.h"
#include "util/jsonx.h"
#include "util/log.h"
#include "util/path.h"
#include "util/sbuf.h"
#include "util/utf8.h"
#include "util/xmalloc.h"

#define LABEL_MAX	40
#define ROOT_DEPTH	8

struct link {
	char	*sid, *parent;		/* owned; parent NULL: top level */
};

struct opencode_alerts {
	struct alerts	*sm;		/* owned */
	struct link	*links;		/* owned */
	size_t		 nlinks;
	pthread_mutex_t	 lock;		/* guards running */
	pthread_cond_t	 idle;		/* running fell to 0 */
	int		 running;	/* delivery threads not yet done */
};

struct opencode_alerts *
opencode_alerts_new(void)
{
	struct opencode_alerts	*a = xcalloc(1, sizeof(*a));

	a->sm = alerts_new();
	pthread_mutex_init(&a->lock, NULL);
	pthread_cond_init(&a->idle, NULL);
	return a;
}

void
opencode_alerts_free(struct opencode_alerts *a)
{
	if (a == NULL)
		return;
	pthread_mutex_lock(&a->lock);
	while (a->running > 0)
		pthread_cond_wait(&a->idle, &a->lock);
	pthread_mutex_unlock(&a->lock);
	pthread_mutex_destroy(&a->lock);
	pthread_cond_destroy(&a->idle);
	while (a->nlinks > 0) {
		free(a->links[--a->nlinks].sid);
		free(a->links[a->nlinks].parent);
	}
	free(a->links);
	alerts_free(a->sm);
	free(a);
}

static void
link_add(struct opencode_alerts *a, const char *sid, const char *parent)
{
	a->links = xreallocarray(a->links, a->nlinks + 1, sizeof(*a->links));
	a->links[a->nlinks].sid = xstrdup(sid);
	a->links[a->nlinks++].parent = parent ? xstrdup(parent) : NULL;
}

/* opencode's row of sid, when its database can be read. */
static bool
lookup(struct tool_ctx *ctx, const char *sid, struct ocdb_session *s)
{
	struct err	err;

	if (ocdb_find(ctx->paths->home, sid, s, &err))
		return true;
	if (err.msg[0] != '\0')
		log_debug("alerts:decide", "%s: %s", sid, err.msg);
	return false;
}

/* Invariant 1: sid's parent, or NULL (borrowed from a's links). */
static const char *
parent_of(struct opencode_alerts *a, struct tool_ctx *ctx, const char *sid)
{
	struct ocdb_session	s;
	size_t			i;

	for (i = 0; i < a->nlinks; i++)
		if (strcmp(a->links[i].sid, sid) == 0)
			return a->links[i].parent;
	if (lookup(ctx, sid, &s)) {
		link_add(a, sid, s.parent_id);
		ocdb_session_release(&s);
	} else
		link_add(a, sid, NULL);
	return a->links[a->nlinks - 1].parent;
}

static const char *
root_of(struct opencode_alerts *a, struct tool_ctx *ctx, const char *sid)
{
	const char	*p;
	int		 depth;

	for (depth = 0; depth < ROOT_DEPTH &&
	    (p = parent_of(a, ctx, sid)) != NULL; depth++)
		sid = p;
	return sid;
}

/* Invariant 2. */
static void
label(struct tool_ctx *ctx, const char *sid, struct sbuf *out)
{
	struct ocdb_session	s;
	struct chat_peer	p;
	struct err		err;
	bool			found = false;

	if (chat_get(ctx->store, sid, 0, 0, &p, &found, &err) != 0)
		log_debug("alerts:decide", "%s: %s", sid, err.msg);
	if (found) {
		sbuf_adds(out, p.name);
		chat_peer_release(&p);
		return;
	}
	if (lookup(ctx, sid, &s) && *s.title != '\0') {
		sbuf_add(out, s.title, utf8_js_cut(s.title, strlen(s.title),
		    LABEL_MAX));
		ocdb_session_release(&s);
		return;
	}
	sbuf_add(out, sid, strlen(sid) < 8 ? strlen(sid) : 8);
}

struct job {
	struct opencode_alerts	*owner;
	struct notify_spawner	 spawner;
	struct config		 cfg;		/* owned */
	char			*text;		/* owned */
};

static void *
deliver(void *arg)
{
	struct job		*j = arg;
	struct notify_msg	 m = { j->text, "thatch", NULL, NULL, NULL };
	struct sbuf		 out = SBUF_INIT;

	sbuf_init(&out);
	notify_send(&j->spawner, &j->cfg, &m, &out);
	log_debug("alerts:decide", "%s: %s", j->text, out.buf);
	sbuf_release(&out);
	config_release(&j->cfg);
	free(j->text);
	pthread_mutex_lock(&j->owner->lock);
	if (--j->owner->running == 0)
		pthread_cond_signal(&j->owner->idle);
	pthread_mutex_unlock(&j->owner->lock);
	free(j);
	return NULL;
}

/* Invariant 3. */
static void
send_alert(struct opencode_alerts *a, struct tool_ctx *ctx,
    enum alert_kind k, const char *sid)
{
	struct sbuf	 sb = SBUF_INIT, lab = SBUF_INIT, warning = SBUF_INIT;
	struct job	*j;
	pthread_t	 t;
	pthread_attr_t	 attr;
	char		*path;

	if (k == ALERT_NONE)
		return;
	j = xcalloc(1, sizeof(*j));
	j->owner = a;
	j->spawner = ctx->notify;
	path = path_join(ctx->paths->db_dir, "config.json");
	sbuf_init(&warning);
	config_load(path, &j->cfg, &warning);
	if (warning.len > 0)
		log_debug("alerts:decide", "%s", warning.buf);
	sbuf_release(&warning);
	free(path);
	sbuf_init(&lab);
	sbuf_init(&sb);
	label(ctx, sid, &lab);
	alerts_text(k, lab.buf, &sb);
	sbuf_release(&lab);
	j->text = sbuf_detach(&sb, NULL);
	pthread_mutex_lock(&a->lock);
	a->running++;
	pthread_mutex_unlock(&a->lock);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&t, &attr, deliver, j) != 0) {
		log_debug("alerts:decide", "no thread for \"%s\"", j->text);
		deliver(j);
	}
	pthread_attr_destroy(&attr);
}

static const char *
request_id(const json_t *props)
{
	const char	*id = jsonx_str(props, "requestID");

	return id != NULL ? id : jsonx_str(props, "id");
}

static bool
aborted(const json_t *props)
{
	const char	*name = jsonx_str(json_object_get(props, "error"),
			    "name");

	return name != NULL && strcmp(name, "MessageAbortedError") == 0;
}

static bool
is(const char *type, const char *what)
{
	return strcmp(type, what) == 0;
}

void
opencode_alerts_event(struct opencode_alerts *a, struct tool_ctx *ctx,
    const char *type, const json_t *props)
{
	const json_t	*info = json_object_get(props, "info");
	const char	*sid = jsonx_str(props, "sessionID"), *status, *id;
	enum alert_kind	 k = ALERT_NONE;

	if (is(type, "session.created") && jsonx_str(info, "id") != NULL) {
		if (parent_of(a, ctx, jsonx_str(info, "id")) == NULL &&
		    jsonx_str(info, "parentID") != NULL) {
			free(a->links[a->nlinks - 1].parent);
			a->links[a->nlinks - 1].parent = xstrdup(jsonx_str(
			    info, "parentID"));
		}
		return;
	}
	if (sid == NULL && (sid = jsonx_str(info, "id")) == NULL)
		return;
	if (is(type, "session.deleted")) {
		alerts_forget(a->sm, sid);
		return;
	}
	id = request_id(props);
	if ((is(type, "permission.asked") || is(type, "question.asked")) &&
	    id != NULL) {
		sid = root_of(a, ctx, sid);
		send_alert(a, ctx, alerts_request(a->sm, sid, id), sid);
		return;
	}
	if ((is(type, "permission.replied") || is(type, "question.replied") ||
	    is(type, "question.rejected")) && id != NULL) {
		alerts_replied(a->sm, root_of(a, ctx, sid), id);
		return;
	}
	if (parent_of(a, ctx, sid) != NULL)
		return;		/* invariant 1 */
	status = jsonx_str(json_object_get(props, "status"), "type");
	if (is(type, "session.status") && status != NULL)
		k = alerts_status(a->sm, sid, !is(status, "idle"));
	else if (is(type, "session.idle"))
		k = alerts_status(a->sm, sid, false);
	else if (is(type, "session.error"))
		k = alerts_error(a->sm, sid, aborted(props));
	send_alert(a, ctx, k, sid);
}

void
opencode_alerts_quiet(struct opencode_alerts *a, const char *sid)
{
	alerts_quiet(a->sm, sid);
}
