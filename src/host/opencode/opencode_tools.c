/*
 * opencode_tools.c — the tools in the opencode core: the list the plugin
 * registers (op "init", which also repairs the skills and commands), a
 * thatch_<tool> call run as tools/call runs it (op "tool"), every other
 * tool's result buffered for extraction (op "after"), and the extraction
 * glue of the core's tool context: the payload and the drain over
 * core/session/extbuf.c's buffer (hosts-hooks-cli §9.2, §9.3).
 *
 * The tools run here, in this process, so opencode's calls share its warm
 * model; their table is tools/'s, so the names, descriptions, schemas and
 * validation are the MCP server's.
 *  1. A call's lifecycle step follows its outcome: a memory write settles
 *     the buffer and counts a metric for an extraction child;
 *     extraction_done without an id settles the caller's, and answers an
 *     error (never "[acknowledged]") when the buffer stays claimed.
 *  2. thatch's own calls and the meta-tools are never buffered
 *     (hook_verdict, as for the MCP hooks).
 */
#include "host/opencode/opencode_int.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/anchor/anchor.h"
#include "core/session/extbuf.h"
#include "core/session/queue.h"
#include "host/hook.h"
#include "host/opencode/opencode_chat.h"
#include "host/setup/setup.h"
#include "text/text_opencode.h"
#include "tools/budget/tool_cut.h"
#include "tools/tool.h"
#include "util/err.h"
#include "util/jsonx.h"
#include "util/log.h"
#include "util/path.h"
#include "util/sbuf.h"
#include "util/utf8.h"
#include "util/xmalloc.h"

/*
 * The payload (§4.7 shape) of buffered records: what queue_payload makes
 * of the MCP queue, from extbuf's records.
 */
static char *
payload_text(const json_t *recs, const char *project, const char *base)
{
	json_t		*list = json_array(), *o, *it, *files;
	const char	*tool, *text;
	char		*summary, *head, *s, *root = anchor_root(base);
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
		if ((files = queue_files(tool, jsonx_get(it, "args"), base,
		    root)) != NULL)
			json_object_set_new(o, "files", files);
		json_array_append_new(list, o);
		free(summary);
		free(head);
	}
	o = json_pack("{s:o,s:s,s:s}", "interactions", list, "projectStore",
	    project, "globalStore", "global");
	s = jsonx_dump(o, 0);
	json_decref(o);
	free(root);
	return s;
}

static struct opencode *
core_of(struct tool_ctx *ctx)
{
	/* the glue is wired into the core's own context only */
	return (struct opencode *)(void *)ctx;
}

int
opencode_tools_payload(struct tool_ctx *ctx, const char *sid, struct sbuf *out,
    struct err *err)
{
	struct opencode	*oc = core_of(ctx);
	json_t		*recs = NULL;
	char		*s;
	int		 n;

	if ((n = extbuf_claim(oc->dir, sid, &recs, err)) > 0) {
		s = payload_text(recs, opencode_core_repo(oc),
		    ctx->paths->project_dir);
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
		opencode_core_report("drain", &err);
}

int
opencode_tools_drain(struct tool_ctx *ctx, const char *sid, struct err *err)
{
	return settle(core_of(ctx), sid, -1, err);
}

/* init: the tools, named, described and shaped as over MCP. */
int
opencode_tools_init(struct opencode *oc, const json_t *req, json_t *res,
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
		opencode_core_report("skills", err);
	free(dir);
	/* and the /thatch commands, wrap-ups included (§9.6) */
	dir = path_join(oc->tools->paths->config_home,
	    "opencode/command/thatch");
	if (setup_commands(dir, TEXT_HOST_OPENCODE, &w, &u, err) != 0)
		opencode_core_report("commands", err);
	free(dir);
	return 0;
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
int
opencode_tools_after(struct opencode *oc, const json_t *req, json_t *res,
    json_t *actions, struct err *err)
{
	const char	*tool = jsonx_str(req, "tool");
	const char	*sid = jsonx_str(req, "sessionID");
	const json_t	*args = json_object_get(req, "args");
	json_t		*rec;
	char		*title, *out;
	int		 rc;

	(void)res;
	/* B5: a chat call's transcript echo, built when it ran (opencode_tools_call) */
	if (tool != NULL && strncmp(tool, TEXT_OPENCODE_PREFIX "chat_",
	    strlen(TEXT_OPENCODE_PREFIX "chat_")) == 0)
		opencode_chat_echo_pop(oc->chat, sid, actions);
	/* thatch's own calls settle in opencode_tools_call, where their
	 * outcome is known */
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
int
opencode_tools_call(struct opencode *oc, const json_t *req, json_t *res,
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
	opencode_core_repo(oc);
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
	if (!failed)
		tool_cap_answer(t, &text);
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
