/*
 * opencode_events.c — the sessions' lives in the opencode core: each
 * session event a row of events[] (op "event"), and the extraction
 * children they drive (hosts-hooks-cli §9.2, §9.3): a top-level session's
 * reminder with its hygiene line, an idle session's buffer handed to a
 * new child (ops "spawned", "spawn_failed" for the plugin's part), an
 * idle child finished, a lost one's buffer requeued.
 *
 * The buffer, its claim and the child -> parent link are
 * core/session/extbuf.c's, on disk; what is kept here (the task
 * children, the children this process dispatched and whether they ran)
 * only decides timing, as opencode.c invariant 1 says.
 */
#include "host/opencode/opencode_int.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/digest.h"
#include "core/hygiene.h"
#include "core/hygiene_cache.h"
#include "core/repo.h"
#include "core/session/extbuf.h"
#include "core/session/ocdb.h"
#include "host/opencode/opencode_alerts.h"
#include "host/opencode/opencode_chat.h"
#include "host/opencode/opencode_watch.h"
#include "host/opencode/opencode_wrapup.h"
#include "text/nudge.h"
#include "text/text_opencode.h"
#include "util/err.h"
#include "util/jsonx.h"
#include "util/log.h"
#include "util/num.h"
#include "util/os/clock.h"
#include "util/path.h"
#include "util/sbuf.h"

/*
 * The hygiene line (§7.2) from the reminder's cache (docs/hosts-and-hooks.md
 * "the hygiene cache"): current facts cost no scan; a small store is
 * scanned here; a large one prints the last known facts and is refreshed
 * at the next quiet moment (refresh_hygiene), not in the request.
 */
static int
hygiene_line(struct opencode *oc, struct sbuf *out, struct err *err)
{
	const struct paths	*p = oc->tools->paths;
	struct hygiene_cache	 c;
	struct hygiene_facts	 f;
	int64_t			 now = clock_now(&oc->tools->clock);
	double			 sync_max = num_env("THATCH_HYGIENE_SYNC_MAX",
				    HYGIENE_CACHE_SYNC_MAX);
	const char		*repo = opencode_core_repo(oc);
	char			**live = NULL;
	size_t			 nlive = 0;
	bool			 behind = false;
	int			 rc = 0;

	hygiene_cache_init(&c, p->cache_home, p->db_path, repo);
	if (!hygiene_cache_current(&c, now, &f))
		rc = hygiene_cache_facts(&c, oc->tools->store, now,
		    sync_max > 0 ? (size_t)sync_max : 0, &f, &behind, err);
	if (rc == 0) {
		if (f.nbranches > 0)
			repo_branches(p->project_dir, NULL, &live, &nlive);
		hygiene_drift(oc->tools->store, repo, p->project_dir, &f, NULL);
		hygiene_format(&f, repo, (const char *const *)live, nlive,
		    out);
		repo_branches_free(live, nlive);
		hygiene_facts_release(&f);
	}
	oc->refresh_hygiene |= behind;
	hygiene_cache_release(&c);
	return rc;
}

/* The session-start reminder with the digest and hygiene line (§7.1, §7.2). */
static void
reminder(struct opencode *oc, const char *sid, json_t *actions)
{
	struct sbuf	 rep = SBUF_INIT, dig = SBUF_INIT, sb = SBUF_INIT;
	struct err	 err;
	json_t		*a;

	sbuf_init(&rep);
	sbuf_init(&dig);
	sbuf_init(&sb);
	if (hygiene_line(oc, &rep, &err) != 0) {
		opencode_core_report("hygiene", &err);
		sbuf_reset(&rep);
	}
	if (digest_session_start(oc->tools->store, opencode_core_repo(oc),
	    clock_now(&oc->tools->clock), &dig, &err) != 0) {
		opencode_core_report("digest", &err);
		sbuf_reset(&dig);
	}
	text_nudge_reminder_for(&sb, opencode_core_repo(oc), dig.len > 0 ?
	    dig.buf : NULL, rep.len > 0 ? rep.buf : NULL, TEXT_OPENCODE_PREFIX);
	a = opencode_core_act(actions, "prompt");
	json_object_set_new(a, "session", json_string(sid));
	json_object_set_new(a, "text", json_string(sb.buf));
	json_object_set_new(a, "noReply", json_true());
	sbuf_release(&rep);
	sbuf_release(&dig);
	sbuf_release(&sb);
}

/* An extraction child went idle: drain, toast, forget, delete (§9.3). */
static void
finish_child(struct opencode *oc, const char *child, const char *parent,
    json_t *actions)
{
	struct sbuf	 sb = SBUF_INIT;
	struct err	 err;
	int		 m[3] = { 0, 0, 0 }, n, wrote;

	if ((n = extbuf_finish(oc->dir, parent, m, &err)) < 0)
		opencode_core_report("finish", &err);
	if (extbuf_drop(oc->dir, child, &err) != 0)
		opencode_core_report("finish", &err);
	log_debug("opencode:child", "%s of %s idle: %d drained, %d/%d/%d",
	    child, parent, n, m[0], m[1], m[2]);
	sbuf_init(&sb);
	wrote = text_opencode_toast_metrics(&sb, m);
	opencode_core_act_toast(actions, sb.buf, wrote ? "success" : "info",
	    wrote ? 4000 : 0);
	sbuf_release(&sb);
	opencode_core_act_session(actions, "delete", child);
	opencode_core_ids_del(&oc->dispatched, child);
	opencode_core_ids_del(&oc->ran, child);
}

/* A session became idle (§9.2 session.status, §9.3). */
static void
idle(struct opencode *oc, const char *sid, json_t *actions)
{
	struct extbuf_state	 st;
	struct err		 err;
	char			*parent = extbuf_parent(oc->dir, sid);
	int			 r;

	if (parent != NULL) {
		/* opencode.c invariant 1: a child this core never
		 * dispatched is finished */
		if (!opencode_core_ids_has(&oc->dispatched, sid) ||
		    opencode_core_ids_has(&oc->ran, sid))
			finish_child(oc, sid, parent, actions);
		free(parent);
		return;
	}
	if (opencode_core_ids_has(&oc->tasks, sid) ||
	    opencode_core_ids_has(&oc->compacting, sid))
		return;
	if (extbuf_reap(oc->dir, sid, clock_now(&oc->tools->clock), &err) < 0)
		opencode_core_report("reap", &err);
	if ((r = extbuf_begin(oc->dir, sid, clock_now(&oc->tools->clock),
	    &err)) < 0)
		opencode_core_report("extract", &err);
	if (r != 1 || extbuf_state(oc->dir, sid, &st, &err) != 0)
		return;
	log_debug("opencode:extract", "%s: %zu pending", sid, st.pending);
	json_object_set_new(opencode_core_act(actions, "spawn"), "parent",
	    json_string(sid));
	json_object_set_new(json_array_get(actions, json_array_size(actions) -
	    1), "title", json_string(TEXT_OPENCODE_CHILD));
	extbuf_state_release(&st);
}

/* A child errored or was deleted: what it held goes back (§9.3). */
static void
child_lost(struct opencode *oc, const char *sid)
{
	struct err	 err;
	char		*parent = extbuf_parent(oc->dir, sid);

	if (parent != NULL && extbuf_requeue(oc->dir, parent, &err) < 0)
		opencode_core_report("requeue", &err);
	free(parent);
	opencode_core_ids_del(&oc->dispatched, sid);
	opencode_core_ids_del(&oc->ran, sid);
}

static const char *
event_session(const json_t *props)
{
	const json_t	*info = json_object_get(props, "info");

	if (jsonx_str(props, "sessionID") != NULL)
		return jsonx_str(props, "sessionID");
	return jsonx_str(info, "id");
}

/*
 * A session status for chat (B5): a session first seen through its status
 * was resumed (-s / -c) and is registered then, unless it is a child,
 * named from its title in opencode's database (B5 "Choose the base").
 */
static void
status_to_chat(struct opencode *oc, const char *sid, const char *status,
    json_t *actions)
{
	struct ocdb_session	 s;
	struct err		 err;
	char			*parent;
	bool			 row = false;

	if (status == NULL)
		return;
	if (!opencode_chat_known(oc->chat, sid) && !(row = ocdb_find(
	    oc->tools->paths->home, sid, &s, &err)) && err.msg[0] != '\0')
		log_debug("chat:startup", "%s: no title: %s", sid, err.msg);
	parent = extbuf_parent(oc->dir, sid);
	opencode_chat_seen(oc->chat, sid, row ? s.title : NULL,
	    opencode_core_repo(oc), parent != NULL ||
	    opencode_core_ids_has(&oc->tasks, sid) ||
	    opencode_core_ids_has(&oc->dispatched, sid) ||
	    (row && s.parent_id != NULL));
	free(parent);
	if (row)
		ocdb_session_release(&s);
	opencode_chat_status(oc->chat, sid, strcmp(status, "idle") == 0,
	    actions);
}

/* One session event's handler; sid is the session it is about. */
typedef void	event_fn(struct opencode *, const char *sid,
		    const json_t *props, json_t *actions);

/*
 * session.created: chat sees it; a top-level session gets the reminder,
 * and a child that is no extraction child of ours is a task's.
 */
static void
on_created(struct opencode *oc, const char *sid, const json_t *props,
    json_t *actions)
{
	const json_t	*info = json_object_get(props, "info");

	opencode_chat_seen(oc->chat, sid, jsonx_str(info, "title"),
	    opencode_core_repo(oc), jsonx_str(info, "parentID") != NULL);
	if (jsonx_str(info, "parentID") == NULL)
		reminder(oc, sid, actions);
	else if (jsonx_str(info, "title") == NULL || strcmp(jsonx_str(
	    info, "title"), TEXT_OPENCODE_CHILD) != 0)
		opencode_core_ids_add(&oc->tasks, sid);
}

/* session.status: a dispatched child ran once busy; idle is idle. */
static void
on_status(struct opencode *oc, const char *sid, const json_t *props,
    json_t *actions)
{
	const char	*status = jsonx_str(json_object_get(props, "status"),
			    "type");

	if (status != NULL && strcmp(status, "busy") == 0 &&
	    opencode_core_ids_has(&oc->dispatched, sid))
		opencode_core_ids_add(&oc->ran, sid);
	else if (status != NULL && strcmp(status, "idle") == 0)
		idle(oc, sid, actions);
	status_to_chat(oc, sid, status, actions);
}

/* session.idle, the older spelling of an idle status. */
static void
on_idle(struct opencode *oc, const char *sid, const json_t *props,
    json_t *actions)
{
	(void)props;
	idle(oc, sid, actions);
	status_to_chat(oc, sid, "idle", actions);
}

static void
on_error(struct opencode *oc, const char *sid, const json_t *props,
    json_t *actions)
{
	(void)props;
	(void)actions;
	child_lost(oc, sid);
}

/* session.deleted: what it held and every mark of it go. */
static void
on_deleted(struct opencode *oc, const char *sid, const json_t *props,
    json_t *actions)
{
	struct err	err;

	(void)props;
	(void)actions;
	child_lost(oc, sid);
	if (extbuf_drop(oc->dir, sid, &err) != 0)
		opencode_core_report("deleted", &err);
	opencode_core_ids_del(&oc->compacting, sid);
	opencode_core_ids_del(&oc->tasks, sid);
	opencode_chat_deleted(oc->chat, sid);
}

static void
on_compacted(struct opencode *oc, const char *sid, const json_t *props,
    json_t *actions)
{
	(void)props;
	(void)actions;
	opencode_core_ids_del(&oc->compacting, sid);
}

/* The session events the core acts on itself (§9.2, §9.3). */
static const struct {
	const char	*type;
	event_fn	*fn;
} events[] = {
	{ "session.created", on_created },
	{ "session.status", on_status },
	{ "session.idle", on_idle },
	{ "session.error", on_error },
	{ "session.deleted", on_deleted },
	{ "session.compacted", on_compacted },
};

/*
 * An event: the wrap-ups, alerts and watchers see every one (a wrap-up
 * first: an exit's idle is not "done", B3), then its row of events[].
 */
int
opencode_events_on(struct opencode *oc, const json_t *req, json_t *res,
    json_t *actions, struct err *err)
{
	const json_t	*ev = json_object_get(req, "event");
	const json_t	*props = json_object_get(ev, "properties");
	const char	*type = jsonx_str(ev, "type"), *sid;
	size_t		 i;

	(void)res;
	(void)err;
	if (type == NULL || (sid = event_session(props)) == NULL)
		return 0;
	log_debug("opencode:event", "%s %s", type, sid);
	if (opencode_wrapups_event(oc->wrapups, oc->tools, type, props,
	    actions) == WRAPUP_EXIT)
		opencode_alerts_quiet(oc->alerts, sid);
	opencode_alerts_event(oc->alerts, oc->tools, type, props);
	opencode_watch_event(oc->watch, type, props, actions);
	for (i = 0; i < sizeof(events) / sizeof(events[0]); i++)
		if (strcmp(events[i].type, type) == 0)
			events[i].fn(oc, sid, props, actions);
	return 0;
}

/* The plugin created the child: accept, then prompt it (§9.3). */
int
opencode_events_spawned(struct opencode *oc, const json_t *req, json_t *res,
    json_t *actions, struct err *err)
{
	const char	*parent = jsonx_str(req, "parent");
	const char	*child = jsonx_str(req, "child");
	const char	*bg = path_env("OPENCODE_EXPERIMENTAL_BACKGROUND_SUBAGENTS");
	struct sbuf	 sb = SBUF_INIT;
	json_t		*a;
	int		 n;

	(void)res;
	if (parent == NULL || child == NULL) {
		err_set(err, "spawned: parent and child are required");
		return -1;
	}
	if ((n = extbuf_accept(oc->dir, parent, child, clock_now(
	    &oc->tools->clock), err)) < 0)
		return -1;
	opencode_core_ids_add(&oc->dispatched, child);
	opencode_core_ids_del(&oc->tasks, child);
	sbuf_init(&sb);
	text_opencode_extract(&sb, parent, (size_t)n);
	a = opencode_core_act(actions, "prompt");
	json_object_set_new(a, "session", json_string(child));
	json_object_set_new(a, "parent", json_string(parent));
	json_object_set_new(a, "text", json_string(sb.buf));
	json_object_set_new(a, "async", json_boolean(bg != NULL &&
	    strcmp(bg, "true") == 0));
	json_object_set_new(a, "onError", json_string("spawn_failed"));
	sbuf_release(&sb);
	return 0;
}

/* Creating or prompting the child failed: requeue, delete it (§9.3). */
int
opencode_events_spawn_failed(struct opencode *oc, const json_t *req,
    json_t *res, json_t *actions, struct err *err)
{
	const char	*parent = jsonx_str(req, "parent");
	const char	*child = jsonx_str(req, "child");

	(void)res;
	log_warn("extraction child of %s failed: %s", parent ? parent : "?",
	    jsonx_str(req, "error") ? jsonx_str(req, "error") : "unknown");
	if (parent != NULL && extbuf_requeue(oc->dir, parent, err) < 0)
		opencode_core_report("requeue", err);
	if (child != NULL) {
		opencode_core_ids_del(&oc->dispatched, child);
		opencode_core_act_session(actions, "delete", child);
	}
	return 0;
}
