/*
 * opencode_context.c — what the opencode core adds to the model's
 * context: the system prompt (op "system"), the compaction context and
 * its mark (ops "compacting", "autocontinue"), and on a user's message
 * the three nudges, recall, predictions and behaviors, from one
 * embedding of its text (op "message"; hosts-hooks-cli §9.2), and once
 * per process the notice that thatch was upgraded under it (B10).
 *
 * The texts are text/'s and the scoring the tools' and engines', shared
 * with the MCP path: nothing here decides what a nudge says, only when it
 * is due. A session compacting or running a task gets no nudge.
 */
#include "host/opencode/opencode_int.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/anchor/anchor.h"
#include "core/engine/behavior.h"
#include "core/engine/engine.h"
#include "core/engine/predict.h"
#include "core/session/chat.h"
#include "core/store/store.h"
#include "host/hook.h"
#include "host/version_watch.h"
#include "text/nudge.h"
#include "text/text_opencode.h"
#include "tools/tool.h"
#include "tools/tool_memory.h"
#include "util/jsonx.h"
#include "util/log.h"
#include "util/num.h"
#include "util/path.h"
#include "util/sbuf.h"
#include "util/utf8.h"
#include "util/xmalloc.h"

int
opencode_context_system(struct opencode *oc, const json_t *req,
    json_t *res, json_t *actions, struct err *err)
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
	text_opencode_system(&sb, opencode_core_repo(oc), names);
	opencode_core_act_text(actions, "system", sb.buf);
	sbuf_release(&sb);
	return 0;
}

int
opencode_context_compacting(struct opencode *oc, const json_t *req,
    json_t *res, json_t *actions, struct err *err)
{
	struct sbuf	sb = SBUF_INIT;

	(void)res;
	(void)err;
	opencode_core_ids_add(&oc->compacting, jsonx_str(req, "sessionID"));
	sbuf_init(&sb);
	text_opencode_compaction(&sb, opencode_core_repo(oc));
	opencode_core_act_text(actions, "context", sb.buf);
	sbuf_release(&sb);
	return 0;
}

int
opencode_context_autocontinue(struct opencode *oc, const json_t *req,
    json_t *res, json_t *actions, struct err *err)
{
	(void)res;
	(void)actions;
	(void)err;
	opencode_core_ids_del(&oc->compacting, jsonx_str(req, "sessionID"));
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

/* text_nudge_drift for the named hits (the first two) whose code
 * drifted, and text_nudge_origin for those not the user's own (issue
 * 31). */
static void
drift_marks(struct opencode *oc, const struct store_hits *hits,
    struct sbuf *sb)
{
	struct anchor_check	*ck;
	struct sbuf		 marks = SBUF_INIT;
	size_t			 i;

	ck = anchor_check_open(oc->tools->store, oc->tools->paths->project_dir);
	for (i = 0; i < hits->n && i < 2; i++) {
		sbuf_reset(&marks);
		anchor_marks(ck, &hits->v[i].e, &marks);
		if (marks.len > 0)
			text_nudge_drift(sb, hits->v[i].e.label, marks.buf);
		sbuf_reset(&marks);
		if (store_origin_lookup_tag(oc->tools->store,
		    hits->v[i].e.store, hits->v[i].e.slug, &marks))
			text_nudge_origin(sb, hits->v[i].e.label, marks.buf);
	}
	anchor_check_close(ck);
	sbuf_release(&marks);
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
	const char		*stores[2] = { opencode_core_repo(oc),
				    "global" };
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
		drift_marks(oc, &hits, &sb);
		opencode_core_act_text(actions, "part", sb.buf);
		sbuf_reset(&sb);
		text_opencode_toast(&sb, TEXT_TOAST_RECALL, n);
		opencode_core_act_toast(actions, sb.buf, "info", 3000);
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
	const char		*stores[2] = { opencode_core_repo(oc),
				    "global" };
	struct engine_hits	 hits = { NULL, 0 };
	struct sbuf		 sb = SBUF_INIT;

	if (engine_score_nudge(oc->tools->store, eng, stores, 2, vec, dim,
	    num_env(env, ENGINE_THRESHOLD), &hits, err) != 0)
		return -1;
	if (hits.n > 0) {
		sbuf_init(&sb);
		engine_render_nudge(eng, hits.v, hits.n, &sb);
		opencode_core_act_text(actions, "part", sb.buf);
		sbuf_reset(&sb);
		text_opencode_toast(&sb, toast, hits.n);
		opencode_core_act_toast(actions, sb.buf, "info", 3000);
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
/*
 * B10: on a user's message, once a check is due and finds thatch replaced
 * on disk, the version watch's one-time notice as a synthetic part (the
 * model reads it in this turn and later ones) and a toast (the user).
 */
static void
version_notice(struct opencode *oc, json_t *actions)
{
	char	*notice = version_watch_notice(oc->version), *text;

	if (notice == NULL)
		return;
	text = xasprintf("[thatch] %s", notice);
	opencode_core_act_text(actions, "part", text);
	opencode_core_act_toast(actions, text, "warning", 0);
	free(text);
	free(notice);
}

int
opencode_context_message(struct opencode *oc, const json_t *req,
    json_t *res, json_t *actions, struct err *err)
{
	const char	*sid = jsonx_str(req, "sessionID");
	const json_t	*parts = json_object_get(req, "parts");
	struct sbuf	 text = SBUF_INIT;
	float		*vec;
	double		 t0, t1;
	int		 dim, rc = 0;

	(void)res;
	if (opencode_core_ids_has(&oc->compacting, sid)) {
		if (has_part(parts, "compaction"))
			return 0;
		opencode_core_ids_del(&oc->compacting, sid);
	}
	if (opencode_core_ids_has(&oc->tasks, sid))
		return 0;
	version_notice(oc, actions);
	sbuf_init(&text);
	user_text(parts, &text);
	/* B5: a chat transcript echo is read by no model turn */
	if (utf8_js_len(text.buf, text.len) < HOOK_MIN_PROMPT ||
	    chat_is_echo(text.buf))
		goto out;
	t0 = opencode_core_now_ms();
	if ((vec = tool_embed(oc->tools, text.buf, EMBED_QUERY, &dim,
	    err)) == NULL) {
		rc = -1;
		goto out;
	}
	t1 = opencode_core_now_ms();
	if (nudge_recall(oc, text.buf, vec, dim, actions, err) != 0)
		opencode_core_report("recall", err);
	if (nudge_engine(oc, &predict_engine, "THATCH_PREDICTION_THRESHOLD",
	    TEXT_TOAST_PREDICTIONS, vec, dim, actions, err) != 0)
		opencode_core_report("predictions", err);
	if (nudge_engine(oc, &behavior_engine, "THATCH_BEHAVIOR_THRESHOLD",
	    TEXT_TOAST_BEHAVIORS, vec, dim, actions, err) != 0)
		opencode_core_report("behaviors", err);
	/* bench/b700 reads this line: the nudges' cost beyond the embedding */
	log_debug("opencode:time", "message: embed %.3f ms, nudges %.3f ms",
	    t1 - t0, opencode_core_now_ms() - t1);
	free(vec);
out:
	sbuf_release(&text);
	return rc;
}
