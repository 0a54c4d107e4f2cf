/*
 * opencode.c — the core behind opencode's thatch plugin: one request per
 * hook or session event, one answer saying what the plugin applies
 * (hosts-hooks-cli §9, docs/opencode.md).
 *
 * The plugin forwards and applies; every decision is made here, from the
 * same tables and texts the MCP path uses: the tool table (tools run
 * here, so opencode's thatch_<tool> calls share this process's warm
 * model), the nudges and engines, the extraction buffer on disk.
 *  1. State that matters survives this process: the buffer, the claim,
 *     the snapshot, the child -> parent link and the metrics are in
 *     core/extbuf files. What lives only here (compacting marks, task
 *     children, the children this process dispatched and whether they
 *     have run) is rebuilt from events or only delays work: a restarted
 *     core finalises an extraction child at its next idle.
 *  2. Every request is answered, whatever happens; a failing step adds
 *     nothing, says "[thatch] <op>: <why>" on stderr and in the debug log,
 *     and the other steps still run (§9.2: "each error-isolated").
 *  3. Actions are data ({"do": …}); the plugin knows nothing of when or
 *     why. The list: system, part, context, toast, prompt, spawn, delete.
 *     Chat (opencode_chat.c) adds nothing to it: its wake prompts and
 *     echoes are prompts, its poller the plugin's "tick" timer.
 *  4. Slow work waits for a quiet moment (nothing to read for IDLE_MS):
 *     the model's warm-up and the hygiene cache's refresh.
 */
#include "host/opencode/opencode.h"

#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/engine/behavior.h"
#include "core/session/chat.h"
#include "core/engine/engine.h"
#include "core/session/extbuf.h"
#include "core/hygiene.h"
#include "core/hygiene_cache.h"
#include "core/session/ocdb.h"
#include "core/engine/predict.h"
#include "core/session/queue.h"
#include "core/repo.h"
#include "core/store/store.h"
#include "host/hook.h"
#include "host/opencode/opencode_alerts.h"
#include "host/opencode/opencode_watch.h"
#include "host/opencode/opencode_wrapup.h"
#include "host/opencode/opencode_chat.h"
#include "host/setup/setup.h"
#include "text/nudge.h"
#include "text/text_opencode.h"
#include "tools/tool.h"
#include "tools/tool_memory.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/jsonx.h"
#include "util/log.h"
#include "util/num.h"
#include "util/path.h"
#include "util/sbuf.h"
#include "util/utf8.h"
#include "util/xmalloc.h"

/* How long the plugin must be quiet before a warm-up step runs. */
#define IDLE_MS		75

/* A small set of session ids (a handful per process). */
struct idset {
	char	**v;
	size_t	  n;
};

struct opencode {
	struct tool_ctx	  ctx;		/* first: the glue finds the core */
	struct tool_ctx	 *tools;	/* &ctx */
	const char	*(*repo_fn)(void *);
	void		 *repo_arg;
	char		 *dir;		/* the extbuf directory */
	const char	 *caller;	/* session of the running tool call */
	struct idset	  compacting, tasks, dispatched, ran;
	struct opencode_chat *chat;	/* owned; opencode_chat.c */
	int		  warm;		/* next warm-up step, -1 done */
	bool		  refresh_hygiene;	/* the cache is behind */
	struct opencode_alerts *alerts;		/* owned (B3) */
	struct opencode_wrapups *wrapups;	/* owned (B8) */
	struct opencode_watch *watch;		/* owned (B7) */
};

/* ---- small helpers ----------------------------------------------------- */

static bool
idset_has(const struct idset *s, const char *id)
{
	size_t	i;

	for (i = 0; id != NULL && i < s->n; i++)
		if (strcmp(s->v[i], id) == 0)
			return true;
	return false;
}

static void
idset_add(struct idset *s, const char *id)
{
	if (id == NULL || idset_has(s, id))
		return;
	s->v = xreallocarray(s->v, s->n + 1, sizeof(*s->v));
	s->v[s->n++] = xstrdup(id);
}

static void
idset_del(struct idset *s, const char *id)
{
	size_t	i;

	for (i = 0; id != NULL && i < s->n; i++)
		if (strcmp(s->v[i], id) == 0) {
			free(s->v[i]);
			s->v[i] = s->v[--s->n];
			return;
		}
}

static void
idset_free(struct idset *s)
{
	while (s->n > 0)
		free(s->v[--s->n]);
	free(s->v);
}

/* Monotonic milliseconds with a fraction, for the timing debug lines. */
static double
now_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static const char *
repo(struct opencode *oc)
{
	if (oc->tools->default_store == NULL)
		oc->tools->default_store = oc->repo_fn(oc->repo_arg);
	return oc->tools->default_store;
}

/* Invariant 2: one line on stderr, one in the debug log. */
static void
report(const char *op, const struct err *err)
{
	log_warn("%s: %s", op, err->msg);
	log_debug("opencode:error", "%s: %s", op, err->msg);
}

static json_t *
action(json_t *actions, const char *what)
{
	json_t	*a = json_pack("{s:s}", "do", what);

	json_array_append_new(actions, a);
	return a;
}

static void
act_text(json_t *actions, const char *what, const char *text)
{
	json_object_set_new(action(actions, what), "text", json_string(text));
}

static void
act_toast(json_t *actions, const char *text, const char *variant, int ms)
{
	json_t	*a = action(actions, "toast");

	json_object_set_new(a, "message", json_string(text));
	json_object_set_new(a, "variant", json_string(variant));
	if (ms > 0)
		json_object_set_new(a, "duration", json_integer(ms));
}

static void
act_session(json_t *actions, const char *what, const char *session)
{
	json_object_set_new(action(actions, what), "session",
	    json_string(session));
}

/* ---- the extraction glue of the tool context --------------------------- */

/*
 * The payload (§4.7 shape) of buffered records: what queue_payload makes
 * of the MCP queue, from extbuf's records.
 */
static char *
payload_text(const json_t *recs, const char *project)
{
	json_t		*list = json_array(), *o, *it;
	const char	*tool, *text;
	char		*summary, *head, *s;
	size_t		 i, len, cut;

	json_array_foreach(recs, i, it) {
		tool = jsonx_str(it, "tool") ? jsonx_str(it, "tool") : "";
		text = jsonx_str(it, "output") ? jsonx_str(it, "output") : "";
		len = strlen(text);
		cut = utf8_js_cut(text, len, QUEUE_OUTPUT_MAX);
		head = xstrndup(text, cut);
		summary = queue_summary(tool, jsonx_get(it, "args"));
		o = json_pack("{s:s,s:s,s:s,s:s+}", "tool", tool, "title",
		    jsonx_str(it, "title") ? jsonx_str(it, "title") : "", "args",
		    summary, "output", head, cut < len ? "..." : "");
		json_array_append_new(list, o);
		free(summary);
		free(head);
	}
	o = json_pack("{s:o,s:s,s:s}", "interactions", list, "projectStore",
	    project, "globalStore", "global");
	s = jsonx_dump(o, 0);
	json_decref(o);
	return s;
}

static struct opencode *
core_of(struct tool_ctx *ctx)
{
	/* the glue is wired into the core's own context only */
	return (struct opencode *)(void *)ctx;
}

static int
payload_of(struct tool_ctx *ctx, const char *sid, struct sbuf *out,
    struct err *err)
{
	struct opencode	*oc = core_of(ctx);
	json_t		*recs = NULL;
	char		*s;
	int		 n;

	if ((n = extbuf_claim(oc->dir, sid, &recs, err)) > 0) {
		s = payload_text(recs, repo(oc));
		sbuf_adds(out, s);
		free(s);
	}
	log_debug("opencode:claim", "%s by %s: %d", sid, oc->caller ?
	    oc->caller : "?", n);
	json_decref(recs);
	return n > 0 ? 1 : n;
}

/*
 * extraction_done or a memory write for session sid by the caller: the
 * caller's extraction child completes its claimed delivery; anyone else
 * consumes sid's own pending entries (seed 000, "Parent-child session
 * drain").
 */
static int
settle(struct opencode *oc, const char *sid, int metric, struct err *err)
{
	char		*parent = extbuf_parent(oc->dir, oc->caller ?
			    oc->caller : "");
	int		 n;

	if (parent != NULL && (sid == NULL || strcmp(parent, sid) == 0))
		n = extbuf_complete(oc->dir, parent, metric, err);
	else
		n = extbuf_consume(oc->dir, sid != NULL ? sid :
		    oc->caller, err);
	log_debug("opencode:drain", "%s (caller %s): %d", parent ? parent :
	    sid ? sid : "?", oc->caller ? oc->caller : "?", n);
	free(parent);
	return n < 0 ? -1 : 0;
}

/* A memory write's settle is best-effort: the write itself succeeded. */
static void
settle_after_write(struct opencode *oc, int metric)
{
	struct err	err;

	if (settle(oc, NULL, metric, &err) != 0)
		report("drain", &err);
}

static int
drain_of(struct tool_ctx *ctx, const char *sid, struct err *err)
{
	return settle(core_of(ctx), sid, -1, err);
}

/* ---- requests ---------------------------------------------------------- */

typedef int	(*op_fn)(struct opencode *, const json_t *req, json_t *res,
		    json_t *actions, struct err *);

/* init: the tools, named, described and shaped as over MCP. */
static int
op_init(struct opencode *oc, const json_t *req, json_t *res,
    json_t *actions, struct err *err)
{
	const struct tool *const	*t;
	json_t				*list = json_array();
	char				*dir;
	int				 w, u;

	(void)req;
	(void)actions;
	for (t = tool_table; *t != NULL; t++) {
		if (!((*t)->flags & TOOL_OPENCODE))
			continue;
		json_array_append_new(list, json_pack("{s:s+,s:s,s:o}",
		    "name", TEXT_OPENCODE_PREFIX, (*t)->name, "description",
		    (*t)->description, "schema", tool_schema(*t)));
	}
	json_object_set_new(res, "tools", list);
	json_object_set_new(res, "tick_ms", json_integer(
	    opencode_chat_tick_ms(oc->chat)));
	/* §9.6: the skills are repaired at every plugin start */
	dir = path_join(oc->tools->paths->config_home, "opencode/skills");
	if (setup_skills_for(dir, true, &w, &u, err) != 0)
		report("skills", err);
	free(dir);
	/* and the /thatch commands, wrap-ups included (§9.6) */
	dir = path_join(oc->tools->paths->config_home,
	    "opencode/command/thatch");
	if (setup_commands(dir, TEXT_HOST_OPENCODE, &w, &u, err) != 0)
		report("commands", err);
	free(dir);
	return 0;
}

static int
op_system(struct opencode *oc, const json_t *req, json_t *res,
    json_t *actions, struct err *err)
{
	const struct tool *const	*t;
	const char			*names[64];
	struct sbuf			 sb = SBUF_INIT;
	size_t				 n = 0;

	(void)req;
	(void)res;
	(void)err;
	for (t = tool_table; *t != NULL && n + 1 < 64; t++)
		if ((*t)->flags & TOOL_OPENCODE)
			names[n++] = (*t)->name;
	names[n] = NULL;
	sbuf_init(&sb);
	text_opencode_system(&sb, repo(oc), names);
	act_text(actions, "system", sb.buf);
	sbuf_release(&sb);
	return 0;
}

static int
op_compacting(struct opencode *oc, const json_t *req, json_t *res,
    json_t *actions, struct err *err)
{
	struct sbuf	sb = SBUF_INIT;

	(void)res;
	(void)err;
	idset_add(&oc->compacting, jsonx_str(req, "sessionID"));
	sbuf_init(&sb);
	text_opencode_compaction(&sb, repo(oc));
	act_text(actions, "context", sb.buf);
	sbuf_release(&sb);
	return 0;
}

static int
op_autocontinue(struct opencode *oc, const json_t *req, json_t *res,
    json_t *actions, struct err *err)
{
	(void)res;
	(void)actions;
	(void)err;
	idset_del(&oc->compacting, jsonx_str(req, "sessionID"));
	return 0;
}

/* The user's text: the non-synthetic text parts, joined by "\n". */
static void
user_text(const json_t *parts, struct sbuf *out)
{
	const json_t	*p;
	size_t		 i;

	json_array_foreach(parts, i, p) {
		if (jsonx_str(p, "type") == NULL ||
		    strcmp(jsonx_str(p, "type"), "text") != 0 ||
		    json_is_true(json_object_get(p, "synthetic")) ||
		    jsonx_str(p, "text") == NULL)
			continue;
		if (out->len > 0)
			sbuf_addc(out, '\n');
		sbuf_adds(out, jsonx_str(p, "text"));
	}
}

static bool
has_part(const json_t *parts, const char *type)
{
	const json_t	*p;
	size_t		 i;

	json_array_foreach(parts, i, p)
		if (jsonx_str(p, "type") != NULL &&
		    strcmp(jsonx_str(p, "type"), type) == 0)
			return true;
	return false;
}

/*
 * The recall nudge (§9.2 step 1): [repo, global], 5, 0.55, no stamps;
 * the prompt's text fused with its vector as for every host, so that a
 * prompt naming a stored identifier is nudged under the threshold too
 * (tool_nudge_matches).
 */
static int
nudge_recall(struct opencode *oc, const char *text, const float *vec,
    int dim, json_t *actions, struct err *err)
{
	const char		*stores[2] = { repo(oc), "global" };
	const char		*labels[2] = { "", "" };
	struct store_hits	 hits = { NULL, 0 };
	struct store_query	 q;
	struct sbuf		 sb = SBUF_INIT;
	double			 th = num_env("THATCH_RECALL_THRESHOLD", 0.55);
	size_t			 n;

	memset(&q, 0, sizeof(q));
	q.stores = stores;
	q.nstores = 2;
	q.vec = vec;
	q.dim = dim;
	q.limit = 5;
	q.min_score = -2;
	q.text = text;
	if (tool_nudge_matches(oc->tools, &q, th, &hits, err) != 0) {
		store_hits_release(&hits);
		return -1;
	}
	for (n = 0; n < hits.n && n < 2; n++)
		labels[n] = hits.v[n].e.label;
	n = hits.n;
	if (n > 0) {
		sbuf_init(&sb);
		text_nudge_recall_for(&sb, n, labels, TEXT_OPENCODE_PREFIX);
		act_text(actions, "part", sb.buf);
		sbuf_reset(&sb);
		text_opencode_toast(&sb, TEXT_TOAST_RECALL, n);
		act_toast(actions, sb.buf, "info", 3000);
		sbuf_release(&sb);
	}
	store_hits_release(&hits);
	return 0;
}

/* The prediction or behavior block (§9.2 steps 2 and 3). */
static int
nudge_engine(struct opencode *oc, const struct engine *eng, const char *env,
    enum text_opencode_toast toast, const float *vec, int dim,
    json_t *actions, struct err *err)
{
	const char		*stores[2] = { repo(oc), "global" };
	struct engine_hits	 hits = { NULL, 0 };
	struct sbuf		 sb = SBUF_INIT;

	if (engine_score_nudge(oc->tools->store, eng, stores, 2, vec, dim,
	    num_env(env, ENGINE_THRESHOLD), &hits, err) != 0)
		return -1;
	if (hits.n > 0) {
		sbuf_init(&sb);
		engine_render_nudge(eng, hits.v, hits.n, &sb);
		act_text(actions, "part", sb.buf);
		sbuf_reset(&sb);
		text_opencode_toast(&sb, toast, hits.n);
		act_toast(actions, sb.buf, "info", 3000);
		sbuf_release(&sb);
	}
	engine_hits_release(&hits);
	return 0;
}

/*
 * chat.message (§9.2): skipped for the compaction summary (a compacting
 * session whose message is not one failed to compact: its mark goes) and
 * for task-dispatched children; otherwise one embedding of the user's
 * text feeds three independent nudges.
 */
static int
op_message(struct opencode *oc, const json_t *req, json_t *res,
    json_t *actions, struct err *err)
{
	const char	*sid = jsonx_str(req, "sessionID");
	const json_t	*parts = json_object_get(req, "parts");
	struct sbuf	 text = SBUF_INIT;
	float		*vec;
	double		 t0, t1;
	int		 dim, rc = 0;

	(void)res;
	if (idset_has(&oc->compacting, sid)) {
		if (has_part(parts, "compaction"))
			return 0;
		idset_del(&oc->compacting, sid);
	}
	if (idset_has(&oc->tasks, sid))
		return 0;
	sbuf_init(&text);
	user_text(parts, &text);
	/* B5: a chat transcript echo is read by no model turn */
	if (utf8_js_len(text.buf, text.len) < HOOK_MIN_PROMPT ||
	    chat_is_echo(text.buf))
		goto out;
	t0 = now_ms();
	if ((vec = tool_embed(oc->tools, text.buf, EMBED_QUERY, &dim,
	    err)) == NULL) {
		rc = -1;
		goto out;
	}
	t1 = now_ms();
	if (nudge_recall(oc, text.buf, vec, dim, actions, err) != 0)
		report("recall", err);
	if (nudge_engine(oc, &predict_engine, "THATCH_PREDICTION_THRESHOLD",
	    TEXT_TOAST_PREDICTIONS, vec, dim, actions, err) != 0)
		report("predictions", err);
	if (nudge_engine(oc, &behavior_engine, "THATCH_BEHAVIOR_THRESHOLD",
	    TEXT_TOAST_BEHAVIORS, vec, dim, actions, err) != 0)
		report("behaviors", err);
	/* bench/b700 reads this line: the nudges' cost beyond the embedding */
	log_debug("opencode:time", "message: embed %.3f ms, nudges %.3f ms",
	    t1 - t0, now_ms() - t1);
	free(vec);
out:
	sbuf_release(&text);
	return rc;
}

/*
 * What the model saw of a tool's result: a native tool's output string,
 * else an MCP result's text blocks (host-contracts C15), else the JSON.
 * Cut just past QUEUE_OUTPUT_MAX, so the payload still knows it was cut.
 */
static char *
tool_output(const json_t *out)
{
	const json_t	*c, *b;
	struct sbuf	 sb = SBUF_INIT;
	char		*j;
	size_t		 i;

	sbuf_init(&sb);
	if (jsonx_str(out, "output") != NULL)
		sbuf_adds(&sb, jsonx_str(out, "output"));
	else if (json_is_array(c = json_object_get(out, "content"))) {
		json_array_foreach(c, i, b)
			if (jsonx_str(b, "text") != NULL) {
				if (sb.len > 0)
					sbuf_addc(&sb, '\n');
				sbuf_adds(&sb, jsonx_str(b, "text"));
			}
	} else if (out != NULL && !json_is_null(out)) {
		j = jsonx_dump(out, 0);
		sbuf_adds(&sb, j);
		free(j);
	}
	sbuf_setlen(&sb, utf8_js_cut(sb.buf, sb.len, QUEUE_OUTPUT_MAX + 1));
	return sbuf_detach(&sb, NULL);
}

/* tool.execute.after (§9.2): buffer everything but thatch's and meta-tools. */
static int
op_after(struct opencode *oc, const json_t *req, json_t *res,
    json_t *actions, struct err *err)
{
	const char	*tool = jsonx_str(req, "tool");
	const char	*sid = jsonx_str(req, "sessionID");
	const json_t	*args = json_object_get(req, "args");
	json_t		*rec;
	char		*title, *out;
	int		 rc;

	(void)res;
	/* B5: a chat call's transcript echo, built when it ran (op_tool) */
	if (tool != NULL && strncmp(tool, TEXT_OPENCODE_PREFIX "chat_",
	    strlen(TEXT_OPENCODE_PREFIX "chat_")) == 0)
		opencode_chat_echo_pop(oc->chat, sid, actions);
	/* thatch's own calls settle in op_tool, where their outcome is known */
	if (tool == NULL || sid == NULL || hook_verdict(tool, false) !=
	    QUEUE_KEEP)
		return 0;
	if (!json_is_object(args))
		args = NULL;
	title = queue_title(tool, args);
	out = tool_output(json_object_get(req, "output"));
	rec = json_pack("{s:s,s:s,s:O?,s:s,s:s}", "tool", tool, "sessionID",
	    sid, "args", args, "title", title, "output", out);
	if (json_object_get(rec, "args") == NULL || json_is_null(
	    json_object_get(rec, "args")))
		json_object_set_new(rec, "args", json_object());
	rc = extbuf_push(oc->dir, sid, rec, err);
	log_debug("opencode:buffer", "%s %s: %s", sid, tool, rc == 0 ? "ok" :
	    err->msg);
	json_decref(rec);
	free(title);
	free(out);
	return rc;
}

/*
 * A thatch_<tool> call: validated and run as tools/call does (mcp.c),
 * then the lifecycle step its success implies (§9.2 tool.execute.after):
 * a memory write settles the buffer and counts a metric for an
 * extraction child; extraction_done without an id settles the caller's.
 */
static int
op_tool(struct opencode *oc, const json_t *req, json_t *res,
    json_t *actions, struct err *err)
{
	const char		*name = jsonx_str(req, "name");
	const json_t		*args = json_object_get(req, "args");
	const struct tool	*t = NULL;
	struct sbuf		 text = SBUF_INIT, echo = SBUF_INIT;
	struct err		 terr = { "" };
	bool			 failed, chat;

	(void)actions;
	if (name != NULL && strncmp(name, TEXT_OPENCODE_PREFIX,
	    strlen(TEXT_OPENCODE_PREFIX)) == 0)
		t = tool_find(name + strlen(TEXT_OPENCODE_PREFIX));
	if (t == NULL || !(t->flags & TOOL_OPENCODE)) {
		err_set(err, "Unknown tool: %s", name ? name : "undefined");
		return -1;
	}
	if (json_is_null(args))
		args = NULL;
	repo(oc);
	oc->caller = oc->tools->session = jsonx_str(req, "sessionID");
	sbuf_init(&text);
	sbuf_init(&echo);
	/* the chat tools act as the calling session (store-and-tools §4.16) */
	chat = strcmp(t->family, "chat") == 0 && oc->caller != NULL;
	oc->ctx.session = oc->caller;
	oc->ctx.echo = chat ? &echo : NULL;
	if (tool_validate(t, args, &text) != 0)
		failed = true;
	else if (t->run(oc->tools, args, &text, &terr) != 0) {
		sbuf_reset(&text);
		sbuf_addf(&text, "Tool error: %s", terr.msg);
		failed = true;
	} else
		failed = false;
	if (!failed && strcmp(t->name, "memory_remember") == 0 &&
	    strncmp(text.buf, "[saved]", 7) == 0)
		settle_after_write(oc, tool_arg_bool(args, "overwrite") == 1 ?
		    EXTBUF_UPDATED : EXTBUF_NEW);
	else if (!failed && strcmp(t->name, "memory_forget") == 0 &&
	    strncmp(text.buf, "[forgotten]", 11) == 0)
		settle_after_write(oc, EXTBUF_DELETED);
	else if (!failed && strcmp(t->name, "extraction_done") == 0 &&
	    *tool_arg_str(args, "session_id", "") == '\0' &&
	    settle(oc, NULL, -1, &terr) != 0) {
		/* never "[acknowledged]" for a buffer that stays claimed */
		sbuf_reset(&text);
		sbuf_addf(&text, "Tool error: the buffered interactions were "
		    "not released and will be offered again: %s", terr.msg);
		failed = true;
	}
	if (chat && !failed) {
		opencode_chat_host(oc->chat, oc->caller);
		opencode_chat_echo_push(oc->chat, oc->caller, echo.buf);
	}
	oc->ctx.session = NULL;
	oc->ctx.echo = NULL;
	sbuf_release(&echo);
	oc->caller = NULL;
	log_debug("opencode:call", "%s -> %s", t->name, failed ? "error" :
	    "ok");
	json_object_set_new(res, "output", json_string(text.buf));
	json_object_set_new(res, "failed", json_boolean(failed));
	sbuf_release(&text);
	return 0;
}

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
	char			**live = NULL;
	size_t			 nlive = 0;
	bool			 behind = false;
	int			 rc = 0;

	hygiene_cache_init(&c, p->cache_home, p->db_path, repo(oc));
	if (!hygiene_cache_current(&c, now, &f))
		rc = hygiene_cache_facts(&c, oc->tools->store, now, sync_max > 0 ?
		    (size_t)sync_max : 0, &f, &behind, err);
	if (rc == 0) {
		if (f.nbranches > 0)
			repo_branches(p->project_dir, NULL, &live, &nlive);
		hygiene_format(&f, repo(oc), (const char *const *)live, nlive,
		    out);
		repo_branches_free(live, nlive);
		hygiene_facts_release(&f);
	}
	oc->refresh_hygiene |= behind;
	hygiene_cache_release(&c);
	return rc;
}

/* The session-start reminder with the hygiene line (§7.1, §7.2). */
static void
reminder(struct opencode *oc, const char *sid, json_t *actions)
{
	struct sbuf	 rep = SBUF_INIT, sb = SBUF_INIT;
	struct err	 err;
	json_t		*a;

	sbuf_init(&rep);
	sbuf_init(&sb);
	if (hygiene_line(oc, &rep, &err) != 0) {
		report("hygiene", &err);
		sbuf_reset(&rep);
	}
	text_nudge_reminder_for(&sb, repo(oc), rep.len > 0 ? rep.buf : NULL,
	    TEXT_OPENCODE_PREFIX);
	a = action(actions, "prompt");
	json_object_set_new(a, "session", json_string(sid));
	json_object_set_new(a, "text", json_string(sb.buf));
	json_object_set_new(a, "noReply", json_true());
	sbuf_release(&rep);
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
		report("finish", &err);
	if (extbuf_drop(oc->dir, child, &err) != 0)
		report("finish", &err);
	log_debug("opencode:child", "%s of %s idle: %d drained, %d/%d/%d",
	    child, parent, n, m[0], m[1], m[2]);
	sbuf_init(&sb);
	wrote = text_opencode_toast_metrics(&sb, m);
	act_toast(actions, sb.buf, wrote ? "success" : "info",
	    wrote ? 4000 : 0);
	sbuf_release(&sb);
	act_session(actions, "delete", child);
	idset_del(&oc->dispatched, child);
	idset_del(&oc->ran, child);
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
		/* invariant 1: a child this core never dispatched is finished */
		if (!idset_has(&oc->dispatched, sid) ||
		    idset_has(&oc->ran, sid))
			finish_child(oc, sid, parent, actions);
		free(parent);
		return;
	}
	if (idset_has(&oc->tasks, sid) || idset_has(&oc->compacting, sid))
		return;
	if (extbuf_reap(oc->dir, sid, clock_now(&oc->tools->clock), &err) < 0)
		report("reap", &err);
	if ((r = extbuf_begin(oc->dir, sid, clock_now(&oc->tools->clock),
	    &err)) < 0)
		report("extract", &err);
	if (r != 1 || extbuf_state(oc->dir, sid, &st, &err) != 0)
		return;
	log_debug("opencode:extract", "%s: %zu pending", sid, st.pending);
	json_object_set_new(action(actions, "spawn"), "parent",
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
		report("requeue", &err);
	free(parent);
	idset_del(&oc->dispatched, sid);
	idset_del(&oc->ran, sid);
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
	opencode_chat_seen(oc->chat, sid, row ? s.title : NULL, repo(oc),
	    parent != NULL || idset_has(&oc->tasks, sid) ||
	    idset_has(&oc->dispatched, sid) || (row && s.parent_id != NULL));
	free(parent);
	if (row)
		ocdb_session_release(&s);
	opencode_chat_status(oc->chat, sid, strcmp(status, "idle") == 0,
	    actions);
}

static int
op_event(struct opencode *oc, const json_t *req, json_t *res,
    json_t *actions, struct err *err)
{
	const json_t	*ev = json_object_get(req, "event");
	const json_t	*props = json_object_get(ev, "properties");
	const json_t	*info = json_object_get(props, "info");
	const char	*type = jsonx_str(ev, "type"), *sid, *status;

	(void)res;
	(void)err;
	if (type == NULL || (sid = event_session(props)) == NULL)
		return 0;
	log_debug("opencode:event", "%s %s", type, sid);
	/* a wrap-up resolves first: an exit's idle is not "done" (B3) */
	if (opencode_wrapups_event(oc->wrapups, oc->tools, type, props,
	    actions) == WRAPUP_EXIT)
		opencode_alerts_quiet(oc->alerts, sid);
	opencode_alerts_event(oc->alerts, oc->tools, type, props);
	opencode_watch_event(oc->watch, type, props, actions);
	if (strcmp(type, "session.created") == 0) {
		opencode_chat_seen(oc->chat, sid, jsonx_str(info, "title"),
		    repo(oc), jsonx_str(info, "parentID") != NULL);
		if (jsonx_str(info, "parentID") == NULL)
			reminder(oc, sid, actions);
		else if (jsonx_str(info, "title") == NULL || strcmp(jsonx_str(
		    info, "title"), TEXT_OPENCODE_CHILD) != 0)
			idset_add(&oc->tasks, sid);
	} else if (strcmp(type, "session.status") == 0) {
		status = jsonx_str(json_object_get(props, "status"), "type");
		if (status != NULL && strcmp(status, "busy") == 0 &&
		    idset_has(&oc->dispatched, sid))
			idset_add(&oc->ran, sid);
		else if (status != NULL && strcmp(status, "idle") == 0)
			idle(oc, sid, actions);
		status_to_chat(oc, sid, status, actions);
	} else if (strcmp(type, "session.idle") == 0) {
		idle(oc, sid, actions);
		status_to_chat(oc, sid, "idle", actions);
	}
	else if (strcmp(type, "session.error") == 0)
		child_lost(oc, sid);
	else if (strcmp(type, "session.deleted") == 0) {
		child_lost(oc, sid);
		if (extbuf_drop(oc->dir, sid, err) != 0)
			report("deleted", err);
		idset_del(&oc->compacting, sid);
		idset_del(&oc->tasks, sid);
		opencode_chat_deleted(oc->chat, sid);
	} else if (strcmp(type, "session.compacted") == 0)
		idset_del(&oc->compacting, sid);
	return 0;
}

/* The plugin created the child: accept, then prompt it (§9.3). */
static int
op_spawned(struct opencode *oc, const json_t *req, json_t *res,
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
	idset_add(&oc->dispatched, child);
	idset_del(&oc->tasks, child);
	sbuf_init(&sb);
	text_opencode_extract(&sb, parent, (size_t)n);
	a = action(actions, "prompt");
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
static int
op_spawn_failed(struct opencode *oc, const json_t *req, json_t *res,
    json_t *actions, struct err *err)
{
	const char	*parent = jsonx_str(req, "parent");
	const char	*child = jsonx_str(req, "child");

	(void)res;
	log_warn("extraction child of %s failed: %s", parent ? parent : "?",
	    jsonx_str(req, "error") ? jsonx_str(req, "error") : "unknown");
	if (parent != NULL && extbuf_requeue(oc->dir, parent, err) < 0)
		report("requeue", err);
	if (child != NULL) {
		idset_del(&oc->dispatched, child);
		act_session(actions, "delete", child);
	}
	return 0;
}

/* command.execute.before (§9.2): a wrap-up command marks its session. */
static int
op_command(struct opencode *oc, const json_t *req, json_t *res,
    json_t *actions, struct err *err)
{
	(void)res;
	(void)actions;
	(void)err;
	opencode_wrapups_command(oc->wrapups, jsonx_str(req, "command"),
	    jsonx_str(req, "sessionID"));
	return 0;
}

/* The plugin's timer (B5 "Tick"): heartbeats and wake prompts. */
static int
op_tick(struct opencode *oc, const json_t *req, json_t *res,
    json_t *actions, struct err *err)
{
	(void)req;
	(void)res;
	(void)err;
	opencode_chat_tick(oc->chat, actions);
	return 0;
}

/* A failure the plugin met (it has said it on stderr): the debug log. */
static int
op_log(struct opencode *oc, const json_t *req, json_t *res,
    json_t *actions, struct err *err)
{
	(void)oc;
	(void)res;
	(void)actions;
	(void)err;
	log_debug("opencode:error", "plugin: %s", jsonx_str(req, "text") ?
	    jsonx_str(req, "text") : "?");
	return 0;
}

static const struct {
	const char	*name;
	op_fn		 fn;
} ops[] = {
	{ "init", op_init },
	{ "system", op_system },
	{ "message", op_message },
	{ "after", op_after },
	{ "tool", op_tool },
	{ "event", op_event },
	{ "compacting", op_compacting },
	{ "autocontinue", op_autocontinue },
	{ "spawned", op_spawned },
	{ "spawn_failed", op_spawn_failed },
	{ "log", op_log },
	{ "command", op_command },
	{ "tick", op_tick },
};

json_t *
opencode_handle(struct opencode *oc, const json_t *req)
{
	const char	*op = jsonx_str(req, "op");
	json_t		*res = json_object(), *actions = json_array();
	struct err	 err = { "" };
	double		 t0 = now_ms();
	size_t		 i;
	int		 rc = -1;

	if (json_object_get(req, "id") != NULL)
		json_object_set(res, "id", json_object_get(req, "id"));
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (op != NULL && strcmp(ops[i].name, op) == 0)
			break;
	if (i == sizeof(ops) / sizeof(ops[0]))
		err_set(&err, "unknown op: %s", op ? op : "(none)");
	else
		rc = ops[i].fn(oc, req, res, actions, &err);
	if (rc != 0) {
		report(op ? op : "request", &err);
		json_object_set_new(res, "error", json_string(err.msg));
	}
	json_object_set_new(res, "actions", actions);
	log_debug("opencode:time", "%s: %.3f ms", op ? op : "?", now_ms() - t0);
	return res;
}

/* An exiting wrap-up takes its session out of the chat directory first
 * (engines-and-extras B8), as a deleted session leaves it. */
static void
leave_chat(void *chat, const char *sid)
{
	opencode_chat_deleted(chat, sid);
}

struct opencode *
opencode_new(struct store *st, const struct paths *paths, struct clock clock,
    const char *(*repo_fn)(void *), void *arg)
{
	struct opencode	*oc = xcalloc(1, sizeof(*oc));

	tool_ctx_init(&oc->ctx, st, NULL, paths);
	oc->ctx.clock = clock;
	oc->ctx.payload = payload_of;
	oc->ctx.drain = drain_of;
	oc->tools = &oc->ctx;
	oc->repo_fn = repo_fn;
	oc->repo_arg = arg;
	oc->dir = path_join(paths->queue_dir, "opencode");
	oc->alerts = opencode_alerts_new();
	oc->wrapups = opencode_wrapups_new();
	oc->watch = opencode_watch_new(&oc->ctx);
	oc->chat = opencode_chat_new(st, &oc->ctx.clock);
	opencode_wrapups_before_exit(oc->wrapups, leave_chat, oc->chat);
	return oc;
}

void
opencode_free(struct opencode *oc)
{
	if (oc == NULL)
		return;
	idset_free(&oc->compacting);
	idset_free(&oc->tasks);
	idset_free(&oc->dispatched);
	idset_free(&oc->ran);
	opencode_alerts_free(oc->alerts);
	opencode_wrapups_free(oc->wrapups);
	opencode_watch_free(oc->watch);
	opencode_chat_free(oc->chat);
	tool_ctx_release(&oc->ctx);
	free(oc->dir);
	free(oc);
}

/* ---- the loop ---------------------------------------------------------- */

static int
write_all(int fd, const char *p, size_t n, struct err *err)
{
	return fileio_write_fd(fd, p, n) == 0 ? 0 :
	    err_errno(err, "write to the plugin");
}

static int
serve_line(struct opencode *oc, const char *line, size_t len, int out,
    struct err *err)
{
	json_t	*req, *res;
	char	*text;
	int	 rc;

	if ((req = jsonx_parse(line, len, "request", NULL)) == NULL ||
	    !json_is_object(req)) {
		log_warn("ignored a request that is not a JSON object");
		json_decref(req);
		return 0;
	}
	res = opencode_handle(oc, req);
	text = jsonx_dump(res, 0);
	rc = opencode_watch_flush(oc->watch, out, err);	/* prompts first */
	if (rc == 0)
		rc = write_all(out, text, strlen(text), err);
	if (rc == 0)
		rc = write_all(out, "\n", 1, err);
	free(text);
	json_decref(res);
	json_decref(req);
	return rc;
}

/* The hygiene cache's refresh, off the request path (one process at a time). */
static void
hygiene_refresh(struct opencode *oc)
{
	const struct paths	*p = oc->tools->paths;
	struct hygiene_cache	 c;
	struct err		 err;
	int			 lock;

	oc->refresh_hygiene = false;
	hygiene_cache_init(&c, p->cache_home, p->db_path, repo(oc));
	if ((lock = hygiene_cache_lock(&c)) >= 0) {
		if (hygiene_cache_update(&c, oc->tools->store, clock_now(
		    &oc->tools->clock), &err) != 0)
			report("hygiene", &err);
		close(lock);
	}
	hygiene_cache_release(&c);
}

/* One warm-up step while the plugin is quiet (as the MCP server does). */
static void
warm_step(struct opencode *oc)
{
	struct err	err;
	int		r;

	repo(oc);
	r = tool_warm(oc->tools, oc->warm, &err);
	log_debug("opencode:warm", "step %d: %s", oc->warm, r < 0 ? err.msg :
	    "ok");
	if (r < 0)
		log_warn("warm-up stopped, the model will load on first use: "
		    "%s", err.msg);
	oc->warm = r == 1 ? oc->warm + 1 : -1;
}

int
opencode_run(struct opencode *oc, int in, int out, struct err *err)
{
	struct sbuf	 buf = SBUF_INIT;
	struct pollfd	 pfd = { in, POLLIN, 0 };
	const char	*warmup = path_env("THATCH_WARMUP");
	char		 chunk[65536], *nl;
	size_t		 len;
	ssize_t		 r;
	int		 rc = 0, started = 0;

	oc->warm = warmup != NULL && strcmp(warmup, "0") == 0 ? -1 : 0;
	sbuf_init(&buf);
	for (;;) {
		while ((nl = memchr(buf.buf, '\n', buf.len)) != NULL) {
			len = (size_t)(nl - buf.buf);
			if (len > 0 && (rc = serve_line(oc, buf.buf, len, out,
			    err)) != 0)
				goto out;
			started = 1;
			memmove(buf.buf, nl + 1, buf.len - len - 1);
			sbuf_setlen(&buf, buf.len - len - 1);
		}
		/* warm only once the plugin has spoken: init comes first */
		if (started && (oc->warm >= 0 || oc->refresh_hygiene) &&
		    poll(&pfd, 1, IDLE_MS) == 0) {
			if (oc->refresh_hygiene)
				hygiene_refresh(oc);
			else
				warm_step(oc);
			continue;
		}
		/* watchers poll while the plugin is quiet (B7) */
		if ((rc = opencode_watch_wait(oc->watch, in, out, err)) != 0)
			goto out;
		r = read(in, chunk, sizeof(chunk));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		sbuf_add(&buf, chunk, (size_t)r);
	}
	if (buf.len > 0)
		rc = serve_line(oc, buf.buf, buf.len, out, err);
out:
	sbuf_release(&buf);
	return rc;
}
