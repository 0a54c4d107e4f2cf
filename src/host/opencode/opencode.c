/*
 * opencode.c — the core behind opencode's thatch plugin: one request per
 * hook or session event, one answer saying what the plugin applies
 * (hosts-hooks-cli §9, docs/opencode.md).
 *
 * The plugin forwards and applies; every decision is made in the core
 * (this file and the files below it, opencode_int.h), from the
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
 *     and the other steps still run (§9.2: "each error-isolated"). A line
 *     that is no request (over OPENCODE_LINE_MAX, not JSON, not an object)
 *     is answered too: an error under the id its head names, else null
 *     (opencode_line.c), so the plugin never waits on it.
 *  3. Actions are data ({"do": …}); the plugin knows nothing of when or
 *     why. The list: system, part, context, toast, prompt, spawn, delete.
 *     Chat (opencode_chat.c) adds nothing to it: its wake prompts and
 *     echoes are prompts, its poller the plugin's "tick" timer.
 *  4. Slow work waits for a quiet moment (nothing to read for IDLE_MS):
 *     the model's warm-up and the hygiene cache's refresh.
 *
 * This file is the core's entry: its making and unmaking, the ops[]
 * table every request goes through, and the loop. The requests are
 * answered by subject, below it: what the model is told
 * (opencode_context.c), the sessions' lives and the extraction children
 * (opencode_events.c), the tools and the extraction glue
 * (opencode_tools.c), all over opencode_core.c's shared helpers; chat,
 * alerts, wrap-ups and watchers are modules of their own
 * (opencode_chat.c, opencode_alerts.c, opencode_wrapup.c,
 * opencode_watch.c).
 */
#include "host/opencode/opencode.h"

#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/hygiene_cache.h"
#include "host/opencode/opencode_alerts.h"
#include "host/opencode/opencode_chat.h"
#include "host/opencode/opencode_int.h"
#include "host/opencode/opencode_line.h"
#include "host/opencode/opencode_watch.h"
#include "host/opencode/opencode_wrapup.h"
#include "host/version_watch.h"
#include "tools/tool.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/jsonx.h"
#include "util/log.h"
#include "util/path.h"
#include "util/xmalloc.h"

/* How long the plugin must be quiet before a warm-up step runs. */
#define IDLE_MS		75

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

/* The requests of the plugin (docs/opencode.md), by "op". */
static const struct {
	const char	*name;
	opencode_op_fn	*fn;
} ops[] = {
	{ "init", opencode_tools_init },
	{ "system", opencode_context_system },
	{ "message", opencode_context_message },
	{ "after", opencode_tools_after },
	{ "tool", opencode_tools_call },
	{ "event", opencode_events_on },
	{ "compacting", opencode_context_compacting },
	{ "autocontinue", opencode_context_autocontinue },
	{ "spawned", opencode_events_spawned },
	{ "spawn_failed", opencode_events_spawn_failed },
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
	double		 t0 = opencode_core_now_ms();
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
		opencode_core_report(op ? op : "request", &err);
		json_object_set_new(res, "error", json_string(err.msg));
	}
	json_object_set_new(res, "actions", actions);
	log_debug("opencode:time", "%s: %.3f ms", op ? op : "?",
	    opencode_core_now_ms() - t0);
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
	oc->ctx.payload = opencode_tools_payload;
	oc->ctx.drain = opencode_tools_drain;
	oc->tools = &oc->ctx;
	oc->repo_fn = repo_fn;
	oc->repo_arg = arg;
	oc->dir = path_join(paths->queue_dir, "opencode");
	oc->alerts = opencode_alerts_new();
	oc->wrapups = opencode_wrapups_new();
	oc->watch = opencode_watch_new(&oc->ctx);
	oc->chat = opencode_chat_new(st, &oc->ctx.clock);
	/* B10: an upgrade under a running core; dispose ends the process,
	 * and the watch with it */
	oc->version = version_watch_new("opencode", "opencode plugin");
	opencode_wrapups_before_exit(oc->wrapups, leave_chat, oc->chat);
	return oc;
}

void
opencode_free(struct opencode *oc)
{
	if (oc == NULL)
		return;
	opencode_core_ids_free(&oc->compacting);
	opencode_core_ids_free(&oc->tasks);
	opencode_core_ids_free(&oc->dispatched);
	opencode_core_ids_free(&oc->ran);
	opencode_alerts_free(oc->alerts);
	opencode_wrapups_free(oc->wrapups);
	opencode_watch_free(oc->watch);
	opencode_chat_free(oc->chat);
	version_watch_free(oc->version);
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

/* Write res, the watchers' prompts first, as one line; frees res. */
static int
answer(struct opencode *oc, json_t *res, int out, struct err *err)
{
	char	*text = jsonx_dump(res, 0);
	int	 rc;

	rc = opencode_watch_flush(oc->watch, out, err);	/* prompts first */
	if (rc == 0)
		rc = write_all(out, text, strlen(text), err);
	if (rc == 0)
		rc = write_all(out, "\n", 1, err);
	free(text);
	json_decref(res);
	return rc;
}

/*
 * Invariant 2 for a line that is no request (over the cap, not JSON, not
 * an object): said on stderr, and answered with an error under the id
 * the line's head gives (opencode_line.c), else null, so that the plugin
 * stops waiting and no waiting request is taken for it.
 */
static int
refuse(struct opencode *oc, const struct opencode_line *line,
    const struct err *why, int out, struct err *err)
{
	json_t	*id = opencode_line_id(line->p, line->len);

	opencode_core_report("request", why);
	return answer(oc, json_pack("{s:o,s:s,s:[]}", "id", id ? id :
	    json_null(), "error", why->msg, "actions"), out, err);
}

static int
serve_line(struct opencode *oc, const struct opencode_line *line, int out,
    struct err *err)
{
	struct err	 why = { "" };
	json_t		*req = NULL;
	int		 rc;

	if (line->over > 0)
		err_set(&why, "the request is %zu bytes, over the %u-byte "
		    "cap", line->over, OPENCODE_LINE_MAX);
	else if ((req = jsonx_parse(line->p, line->len, "not JSON",
	    &why)) != NULL && !json_is_object(req))
		err_set(&why, "the request is not a JSON object");
	if (req == NULL || !json_is_object(req)) {
		json_decref(req);
		return refuse(oc, line, &why, out, err);
	}
	rc = answer(oc, opencode_handle(oc, req), out, err);
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
	hygiene_cache_init(&c, p->cache_home, p->db_path,
	    opencode_core_repo(oc));
	if ((lock = hygiene_cache_lock(&c)) >= 0) {
		if (hygiene_cache_update(&c, oc->tools->store, clock_now(
		    &oc->tools->clock), &err) != 0)
			opencode_core_report("hygiene", &err);
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

	opencode_core_repo(oc);
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
	struct opencode_lines	 lines;
	struct opencode_line	 line;
	struct pollfd		 pfd = { in, POLLIN, 0 };
	const char		*warmup = path_env("THATCH_WARMUP");
	char			 chunk[65536];
	ssize_t			 r;
	bool			 eof = false;
	int			 rc = 0, started = 0;

	oc->warm = warmup != NULL && strcmp(warmup, "0") == 0 ? -1 : 0;
	opencode_lines_init(&lines);
	for (;;) {
		while (opencode_lines_next(&lines, eof, &line)) {
			if ((line.len > 0 || line.over > 0) &&
			    (rc = serve_line(oc, &line, out, err)) != 0)
				goto out;
			started = 1;
		}
		if (eof)
			break;
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
			eof = true;
		else
			opencode_lines_add(&lines, chunk, (size_t)r);
	}
out:
	opencode_lines_release(&lines);
	return rc;
}
