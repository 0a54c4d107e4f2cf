/*
 * mcp.c — the stdio MCP server: JSON-RPC 2.0, one message per line.
 *
 * Owns the protocol only: framing, method dispatch, the result envelope,
 * protocol-version negotiation, the one-shot setup warning and the poll
 * loop other host modules (the sideband) plug their descriptors into.
 * Tools come from the tool table (tools/tool.h); this file knows no tool
 * by name and no SQL.
 *  1. stdout carries only protocol: one compact JSON line per response,
 *     written whole before the next message is read. Diagnostics go
 *     through log_warn (stderr).
 *  2. Messages are served one at a time in arrival order; between two
 *     messages the watched descriptors get their turn, so a sideband
 *     request waits at most one tool call (hosts-hooks-cli §2.10).
 *  3. A message whose id is absent or null is a notification: it runs and
 *     is never answered, whatever happens (§2.3). id 0 is a request
 *     (host-contracts C16).
 *  4. Everything a request allocates is freed before the next line is
 *     read (STYLE §7.4; the valgrind test checks it).
 *  5. SIGTERM and SIGINT are blocked except inside the poll (plat_ppoll),
 *     so a signal never interrupts a tool call halfway: it ends the loop
 *     at the next wait.
 *  6. The idle task runs only after the deferred startup work (after the
 *     initialize response is written) and only when a poll of MCP_IDLE_MS
 *     found nothing to read and no complete line is buffered: a message
 *     waits at most one idle step.
 *
 * Deviations (host-contracts §4, C9): the protocol version is negotiated
 * instead of always "2024-11-05"; a batch (JSON array) gets one -32600
 * error instead of silence; an unknown tool is a -32602 error instead of
 * an isError result.
 */
#include "host/mcp.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "text/block.h"
#include "tools/budget/tool_cut.h"
#include "tools/budget/tool_offer.h"
#include "tools/tool.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/jsonx.h"
#include "util/log.h"
#include "util/os/clock.h"
#include "util/os/plat.h"
#include "util/path.h"
#include "util/sbuf.h"
#include "util/xmalloc.h"

/* JSON-RPC 2.0 error codes. */
enum {
	RPC_PARSE_ERROR = -32700,
	RPC_INVALID_REQUEST = -32600,
	RPC_METHOD_NOT_FOUND = -32601,
	RPC_INVALID_PARAMS = -32602,
};

struct deferred {
	void	(*fn)(void *);
	void	 *arg;
};

struct watch {
	int	  fd;
	void	(*ready)(void *, int);
	void	 *arg;
};

struct mcp_server {
	struct tool_ctx			*tools;
	int				 in_fd, out_fd;
	char				*warning;	/* owned; one-shot */
	char				*instructions;	/* owned */
	char				*(*notice)(void *);
	void				 *notice_arg;
	const struct mcp_prompt *const	*prompts;
	struct deferred			*deferred;	/* owned */
	size_t				 ndeferred;
	struct watch			*watches;	/* owned */
	size_t				 nwatches;
	struct sbuf			 in;		/* unread input */
	size_t				 in_off;	/* start of unread */
	bool				 skipping;	/* in an oversized line */
	bool				 initialized;	/* initialize came */
	bool				 started;	/* deferred work ran */
	bool				(*idle)(void *);	/* idle step */
	void				 *idle_arg;
	void				(*wrote)(void *);	/* after writes */
	void				 *wrote_arg;
	int64_t				 wake_ms;	/* mcp_wake_at */
	void				(*wake)(void *);
	void				 *wake_arg;
};

/* The versions we speak, newest first (host-contracts §4). */
static const char *const versions[] = {
	MCP_PROTOCOL_LATEST, "2025-06-18", "2025-03-26", "2024-11-05", NULL
};

/* ---- Setup detection ---------------------------------------------------- */

/* 0 absent, 1 broken, 2 installed. */
static int
check_file(const char *path, const char *start)
{
	struct sbuf	 sb = SBUF_INIT;
	const char	*s;
	int		 state = 0;

	if (fileio_read(path, &sb, NULL) == 0 &&
	    (s = strstr(sb.buf, start)) != NULL)
		state = strstr(s, TEXT_BLOCK_END) != NULL ? 2 : 1;
	sbuf_release(&sb);
	return state;
}

void
mcp_setup_detect(const struct paths *p, struct mcp_setup *out)
{
	const char	*start, *file;
	char		*path[2];
	int		 i, state;

	memset(out, 0, sizeof(*out));
	if (path_env("CURSOR_PROJECT_DIR") != NULL)
		out->host = MCP_HOST_CURSOR;
	else if (path_env("CLAUDE_PROJECT_DIR") != NULL)
		out->host = MCP_HOST_CLAUDE;
	else
		return;
	start = out->host == MCP_HOST_CURSOR ? TEXT_BLOCK_START_CURSOR :
	    TEXT_BLOCK_START_CLAUDE;
	file = out->host == MCP_HOST_CURSOR ? "AGENTS.md" : "CLAUDE.md";
	path[0] = path_join(p->project_dir, file);
	path[1] = path_join(out->host == MCP_HOST_CURSOR ? p->cursor_dir :
	    p->claude_dir, file);
	out->outcome = MCP_SETUP_NOT_INSTALLED;
	for (i = 0; i < 2; i++) {
		if ((state = check_file(path[i], start)) == 0)
			continue;
		out->outcome = state == 2 ? MCP_SETUP_INSTALLED :
		    MCP_SETUP_BROKEN;
		out->global = i == 1;
		out->file = path[i];
		path[i] = NULL;
		break;
	}
	free(path[0]);
	free(path[1]);
}

void
mcp_setup_release(struct mcp_setup *s)
{
	free(s->file);
	memset(s, 0, sizeof(*s));
}

char *
mcp_setup_warning(const struct mcp_setup *s)
{
	const char	*host, *flag, *file;

	host = s->host == MCP_HOST_CURSOR ? "Cursor" : "Claude Code";
	flag = s->host == MCP_HOST_CURSOR ? "--cursor" : "--claude";
	file = s->host == MCP_HOST_CURSOR ? "AGENTS.md" : "CLAUDE.md";
	switch (s->outcome) {
	case MCP_SETUP_NOT_INSTALLED:
		return xasprintf("thatch is running as an MCP server but has "
		    "not been set up for %s: its usage instructions are "
		    "missing from %s. Tell the user to run `thatch setup %s`.",
		    host, file, flag);
	case MCP_SETUP_BROKEN:
		return xasprintf("the thatch instructions block in %s is "
		    "damaged: its start marker is there but the end marker "
		    "is missing, usually after an external edit. Tell the "
		    "user to run `thatch setup %s%s`; if that does not help, "
		    "to delete the damaged block by hand and run setup again.",
		    s->file, flag, s->global ? " --global" : "");
	default:
		return NULL;
	}
}

/* ---- Server lifecycle --------------------------------------------------- */

struct mcp_server *
mcp_new(struct tool_ctx *tools, int in_fd, int out_fd)
{
	struct mcp_server	*s;

	s = xcalloc(1, sizeof(*s));
	s->tools = tools;
	s->in_fd = in_fd;
	s->out_fd = out_fd;
	sbuf_init(&s->in);
	return s;
}

void
mcp_free(struct mcp_server *s)
{
	if (s == NULL)
		return;
	free(s->warning);
	free(s->instructions);
	free(s->deferred);
	free(s->watches);
	sbuf_release(&s->in);
	free(s);
}

struct tool_ctx *
mcp_tool_ctx(struct mcp_server *s)
{
	return s->tools;
}

void
mcp_set_warning(struct mcp_server *s, const char *warning)
{
	free(s->warning);
	s->warning = warning ? xstrdup(warning) : NULL;
}

void
mcp_set_instructions(struct mcp_server *s, const char *text)
{
	free(s->instructions);
	s->instructions = text ? xstrdup(text) : NULL;
}

void
mcp_set_notice(struct mcp_server *s, char *(*fn)(void *), void *arg)
{
	s->notice = fn;
	s->notice_arg = arg;
}

void
mcp_set_prompts(struct mcp_server *s, const struct mcp_prompt *const *p)
{
	s->prompts = p;
}

void
mcp_after_initialize(struct mcp_server *s, void (*fn)(void *), void *arg)
{
	s->deferred = xreallocarray(s->deferred, s->ndeferred + 1,
	    sizeof(*s->deferred));
	s->deferred[s->ndeferred++] = (struct deferred){ fn, arg };
}

/* Run the deferred startup work, once. */
static void
run_deferred(struct mcp_server *s)
{
	size_t	i, n = s->ndeferred;

	s->ndeferred = 0;
	s->started = true;
	for (i = 0; i < n; i++)
		s->deferred[i].fn(s->deferred[i].arg);
}

void
mcp_after_write(struct mcp_server *s, void (*fn)(void *), void *arg)
{
	s->wrote = fn;
	s->wrote_arg = arg;
}

void
mcp_when_idle(struct mcp_server *s, bool (*step)(void *), void *arg)
{
	s->idle = step;
	s->idle_arg = arg;
}

void
mcp_watch(struct mcp_server *s, int fd, void (*ready)(void *, int), void *arg)
{
	size_t	i;

	for (i = 0; i < s->nwatches && s->watches[i].fd != fd; i++)
		;
	if (i == s->nwatches)
		s->watches = xreallocarray(s->watches, ++s->nwatches,
		    sizeof(*s->watches));
	s->watches[i] = (struct watch){ fd, ready, arg };
}

void
mcp_unwatch(struct mcp_server *s, int fd)
{
	size_t	i;

	for (i = 0; i < s->nwatches; i++) {
		if (s->watches[i].fd != fd)
			continue;
		s->watches[i] = s->watches[--s->nwatches];
		return;
	}
}

void
mcp_wake_at(struct mcp_server *s, int64_t at_ms, void (*wake)(void *),
    void *arg)
{
	s->wake_ms = at_ms;
	s->wake = wake;
	s->wake_arg = arg;
}

/*
 * The poll's timeout: none with more lines buffered, else the sooner of
 * the idle wait (when waiting) and the wake deadline; NULL waits for
 * input alone. *idle_first says the idle wait is the one that ends it.
 */
static struct timespec *
poll_timeout(const struct mcp_server *s, bool more, bool waiting,
    struct timespec *ts, bool *idle_first)
{
	int64_t	ms = -1, left;

	*idle_first = false;
	if (more)
		ms = 0;
	else if (waiting) {
		ms = MCP_IDLE_MS;
		*idle_first = true;
	}
	if (!more && s->wake != NULL) {
		left = s->wake_ms - clock_mono_ms();
		left = left < 0 ? 0 : left;
		if (ms < 0 || left < ms) {
			ms = left;
			*idle_first = false;
		}
	}
	if (ms < 0)
		return NULL;
	ts->tv_sec = (time_t)(ms / 1000);
	ts->tv_nsec = (long)(ms % 1000) * 1000000L;
	return ts;
}

/* Run the wake callback if its deadline has come. */
static void
wake_due(struct mcp_server *s)
{
	void	(*wake)(void *) = s->wake;

	if (wake == NULL || clock_mono_ms() < s->wake_ms)
		return;
	s->wake = NULL;
	wake(s->wake_arg);
}

/* ---- Responses ---------------------------------------------------------- */

/* One response line: {"jsonrpc","id",<member>:<value>}; value is taken. */
static void
reply(struct sbuf *out, const json_t *id, const char *member, json_t *value)
{
	json_t	*msg = json_object();

	json_object_set_new(msg, "jsonrpc", json_string("2.0"));
	json_object_set(msg, "id", id ? (json_t *)id : json_null());
	json_object_set_new(msg, member, value);
	jsonx_dump_sbuf(out, msg, 0);
	sbuf_addc(out, '\n');
	json_decref(msg);
}

static void
respond(struct sbuf *out, const json_t *id, json_t *result)
{
	reply(out, id, "result", result);
}

static void
respond_error(struct sbuf *out, const json_t *id, int code, const char *text)
{
	reply(out, id, "error", json_pack("{s:i,s:s}", "code", code,
	    "message", text));
}

/* {"isError":..,"content":[{"type":"text","text":..}]} (§4.1 key order) */
static json_t *
text_result(bool is_error, const char *text)
{
	json_t	*r = json_object(), *c = json_object(), *a = json_array();

	json_object_set_new(c, "type", json_string("text"));
	json_object_set_new(c, "text", json_string(text));
	json_array_append_new(a, c);
	json_object_set_new(r, "isError", json_boolean(is_error));
	json_object_set_new(r, "content", a);
	return r;
}

/* ---- Methods ------------------------------------------------------------ */

/*
 * A method handler returns the result (new reference), or NULL after
 * filling *code and why for a JSON-RPC error.
 */
struct method {
	const char	*name;
	json_t		*(*fn)(struct mcp_server *, const json_t *params,
			    int *code, struct sbuf *why);
};

static json_t *
m_initialize(struct mcp_server *s, const json_t *params, int *code,
    struct sbuf *why)
{
	const char *const	*v;
	const char		*asked = jsonx_str(params, "protocolVersion");
	const char		*answer = MCP_PROTOCOL_LATEST;
	json_t			*r, *caps, *info;

	(void)s;
	(void)code;
	(void)why;
	for (v = versions; asked != NULL && *v != NULL; v++)
		if (strcmp(*v, asked) == 0)
			answer = *v;
	caps = json_pack("{s:{s:b},s:{s:b}}", "tools", "listChanged", 0,
	    "prompts", "listChanged", 0);
	info = json_pack("{s:s,s:s}", "name", "thatch", "version",
	    THATCH_VERSION);
	r = json_object();
	json_object_set_new(r, "protocolVersion", json_string(answer));
	json_object_set_new(r, "capabilities", caps);
	json_object_set_new(r, "serverInfo", info);
	/* host-contracts C10: hosts that read instructions see it at once */
	if (s->warning != NULL)
		json_object_set_new(r, "instructions",
		    json_sprintf("[thatch] %s%s%s", s->warning,
		    s->instructions ? "\n\n" : "",
		    s->instructions ? s->instructions : ""));
	else if (s->instructions != NULL)
		json_object_set_new(r, "instructions",
		    json_string(s->instructions));
	return r;
}

static json_t *
m_ping(struct mcp_server *s, const json_t *params, int *code, struct sbuf *why)
{
	(void)s, (void)params, (void)code, (void)why;
	return json_object();
}

/*
 * host-contracts §1.6. MCP's defaults are readOnlyHint false and
 * destructiveHint true, so a read-only tool says so and a tool that
 * writes says whether it destroys; no key repeats a default, and the
 * title is sent once, here (issue 27: tools/list is read every session).
 */
static json_t *
annotations(const struct tool *t)
{
	json_t	*a = json_pack("{s:s}", "title", t->title);

	if (t->flags & TOOL_READONLY)
		json_object_set_new(a, "readOnlyHint", json_true());
	else
		json_object_set_new(a, "destructiveHint",
		    json_boolean(t->flags & TOOL_DESTRUCTIVE));
	return a;
}

static json_t *
m_tools_list(struct mcp_server *s, const json_t *params, int *code,
    struct sbuf *why)
{
	const struct tool *const	*t;
	json_t				*list = json_array();

	(void)s, (void)params, (void)code, (void)why;
	for (t = tool_table; *t != NULL; t++) {
		if (!tool_offered(s->tools, *t))
			continue;
		json_array_append_new(list, json_pack("{s:s,s:s,s:o,s:o}",
		    "name", (*t)->name, "description", (*t)->description,
		    "inputSchema", tool_schema(*t),
		    "annotations", annotations(*t)));
	}
	return json_pack("{s:o}", "tools", list);
}

/* Put "[thatch] <notice>" and a blank line before text. */
static void
prepend_notice(struct sbuf *text, const char *notice)
{
	struct sbuf	w = SBUF_INIT;

	sbuf_addf(&w, "[thatch] %s\n\n%s", notice, text->buf ? text->buf :
	    "");
	sbuf_release(text);
	*text = w;
}

static json_t *
m_tools_call(struct mcp_server *s, const json_t *params, int *code,
    struct sbuf *why)
{
	const struct tool	*t;
	const char		*name = jsonx_str(params, "name");
	json_t			*args = json_object_get(params, "arguments");
	json_t			*r;
	struct sbuf		 text = SBUF_INIT;
	struct err		 err = { "" };
	char			*notice = NULL;
	bool			 failed;

	t = tool_find(name);
	if (t == NULL || !tool_offered(s->tools, t)) {
		*code = RPC_INVALID_PARAMS;
		sbuf_addf(why, "Unknown tool: %s", name ? name : "undefined");
		return NULL;
	}
	if (json_is_null(args))
		args = NULL;		/* missing arguments are {} (§4.1) */
	if (tool_validate(t, args, &text) != 0)
		failed = true;
	else if (t->run(s->tools, args, &text, &err) != 0) {
		sbuf_reset(&text);
		sbuf_addf(&text, "Tool error: %s", err.msg);
		failed = true;
	} else
		failed = false;
	if (!failed)
		tool_cap_answer(t, &text);
	log_debug("mcp:call", "%s -> %s", t->name, failed ? "error" : "ok");
	if (!failed && !(t->flags & TOOL_READONLY) && s->wrote != NULL)
		s->wrote(s->wrote_arg);
	if (s->notice != NULL && (notice = s->notice(s->notice_arg)) != NULL)
		prepend_notice(&text, notice);
	free(notice);
	if (s->warning != NULL) {
		/* §2.6: once per server lifetime, on the first answered call */
		prepend_notice(&text, s->warning);
		mcp_set_warning(s, NULL);
	}
	r = text_result(failed, text.buf);
	sbuf_release(&text);
	return r;
}

static json_t *
m_prompts_list(struct mcp_server *s, const json_t *params, int *code,
    struct sbuf *why)
{
	const struct mcp_prompt *const	*p;
	const struct mcp_prompt_arg	*a;
	json_t				*list = json_array(), *o, *args;

	(void)params, (void)code, (void)why;
	for (p = s->prompts; p != NULL && *p != NULL; p++) {
		o = json_pack("{s:s,s:s}", "name", (*p)->name,
		    "description", (*p)->description);
		args = json_array();
		for (a = (*p)->args; a != NULL && a->name != NULL; a++)
			json_array_append_new(args, json_pack("{s:s,s:s,s:b}",
			    "name", a->name, "description", a->description,
			    "required", a->required));
		if (json_array_size(args) > 0)
			json_object_set_new(o, "arguments", args);
		else
			json_decref(args);
		json_array_append_new(list, o);
	}
	return json_pack("{s:o}", "prompts", list);
}

static json_t *
m_prompts_get(struct mcp_server *s, const json_t *params, int *code,
    struct sbuf *why)
{
	const struct mcp_prompt *const	*p;
	const char			*name = jsonx_str(params, "name");
	json_t				*args = json_object_get(params,
					    "arguments"), *empty = NULL, *r;
	char				*text;

	for (p = s->prompts; p != NULL && *p != NULL; p++)
		if (name != NULL && strcmp((*p)->name, name) == 0)
			break;
	if (p == NULL || *p == NULL) {
		*code = RPC_INVALID_PARAMS;
		sbuf_addf(why, "Unknown prompt: %s", name ? name : "undefined");
		return NULL;
	}
	if (!json_is_object(args))
		args = empty = json_object();
	text = (*p)->render(*p, args);
	r = json_pack("{s:s,s:[{s:s,s:{s:s,s:s}}]}", "description",
	    (*p)->description, "messages", "role", "user", "content", "type",
	    "text", "text", text);
	free(text);
	json_decref(empty);
	return r;
}

static const struct method methods[] = {
	{ "initialize", m_initialize },
	{ "ping", m_ping },
	{ "tools/list", m_tools_list },
	{ "tools/call", m_tools_call },
	{ "prompts/list", m_prompts_list },
	{ "prompts/get", m_prompts_get },
	{ NULL, NULL }
};

/* ---- Dispatch ----------------------------------------------------------- */

static bool
id_valid(const json_t *id)
{
	return id == NULL || json_is_null(id) || json_is_string(id) ||
	    json_is_integer(id) || json_is_real(id);
}

static void
dispatch(struct mcp_server *s, const json_t *msg, struct sbuf *out)
{
	const struct method	*m;
	const char		*name = jsonx_str(msg, "method");
	json_t			*id = json_object_get(msg, "id");
	json_t			*params = json_object_get(msg, "params");
	json_t			*result;
	struct sbuf		 why = SBUF_INIT;
	bool			 notify;
	int			 code = 0;

	if (!id_valid(id)) {
		respond_error(out, NULL, RPC_INVALID_REQUEST,
		    "Invalid Request: id must be a string or a number");
		return;
	}
	notify = id == NULL || json_is_null(id);
	if (name == NULL) {
		/* a client's answer to a server request: we send none */
		if (!notify && json_object_get(msg, "result") == NULL &&
		    json_object_get(msg, "error") == NULL)
			respond_error(out, id, RPC_INVALID_REQUEST,
			    "Invalid Request: no method");
		return;
	}
	for (m = methods; m->name != NULL; m++)
		if (strcmp(m->name, name) == 0)
			break;
	/* deferred startup work runs after initialize, or before the rest */
	if (strcmp(name, "initialize") == 0)
		s->initialized = true;
	else
		run_deferred(s);
	if (m->name == NULL) {
		/* notifications (known or not) are never answered */
		if (!notify) {
			sbuf_addf(&why, "Method not found: %s", name);
			respond_error(out, id, RPC_METHOD_NOT_FOUND, why.buf);
		}
		goto out;
	}
	if (params != NULL && !json_is_object(params) &&
	    !json_is_null(params)) {
		if (!notify)
			respond_error(out, id, RPC_INVALID_PARAMS,
			    "Invalid params: params must be an object");
		goto out;
	}
	result = m->fn(s, json_is_object(params) ? params : NULL, &code, &why);
	if (notify)
		json_decref(result);
	else if (result != NULL)
		respond(out, id, result);
	else
		respond_error(out, id, code, why.buf);
out:
	sbuf_release(&why);
}

void
mcp_handle(struct mcp_server *s, const char *line, size_t len,
    struct sbuf *out)
{
	json_t		*msg;
	struct err	 err;

	while (len > 0 && strchr(" \t\r\n", line[len - 1]) != NULL)
		len--;
	while (len > 0 && strchr(" \t\r\n", *line) != NULL)
		line++, len--;
	if (len == 0)
		return;
	if ((msg = jsonx_parse(line, len, "message", &err)) == NULL) {
		respond_error(out, NULL, RPC_PARSE_ERROR, "Parse error");
		return;
	}
	if (json_is_array(msg))
		/* host-contracts C9: batches exist only in 2025-03-26 */
		respond_error(out, NULL, RPC_INVALID_REQUEST,
		    "Invalid Request: batches are not supported");
	else if (!json_is_object(msg))
		respond_error(out, NULL, RPC_INVALID_REQUEST,
		    "Invalid Request: not an object");
	else
		dispatch(s, msg, out);
	json_decref(msg);
}

/* ---- The loop ----------------------------------------------------------- */

static int
write_all(int fd, const char *p, size_t n, struct err *err)
{
	return fileio_write_fd(fd, p, n) == 0 ? 0 :
	    err_errno(err, "cannot write a response");
}

/*
 * The next complete line of input, or NULL. At eof the rest is a line.
 * An oversized line is answered with -32600 once its end arrives.
 */
static const char *
next_line(struct mcp_server *s, bool eof, size_t *len, struct sbuf *out)
{
	const char	*p = s->in.buf + s->in_off, *nl;
	size_t		 avail = s->in.len - s->in_off;

	nl = memchr(p, '\n', avail);
	if (nl == NULL && eof && avail > 0)
		nl = p + avail;
	if (nl == NULL) {
		if (avail > MCP_MAX_LINE) {
			s->skipping = true;
			s->in_off = s->in.len;
		}
		return NULL;
	}
	s->in_off += (size_t)(nl - p) + (nl < p + avail);
	if (s->skipping) {
		s->skipping = false;
		respond_error(out, NULL, RPC_INVALID_REQUEST,
		    "Invalid Request: message too long");
		return next_line(s, eof, len, out);
	}
	*len = (size_t)(nl - p);
	return p;
}

/* Read what stdin has; returns 1 at end of input, 0, or -1. */
static int
fill(struct mcp_server *s, struct err *err)
{
	char	chunk[65536];
	ssize_t	n;

	if (s->in_off > 0 && s->in_off * 2 >= s->in.len) {
		memmove(s->in.buf, s->in.buf + s->in_off, s->in.len -
		    s->in_off);
		sbuf_setlen(&s->in, s->in.len - s->in_off);
		s->in_off = 0;
	}
	n = read(s->in_fd, chunk, sizeof(chunk));
	if (n < 0)
		return errno == EINTR || errno == EAGAIN ? 0 :
		    err_errno(err, "cannot read standard input");
	if (n == 0)
		return 1;
	sbuf_add(&s->in, chunk, (size_t)n);
	return 0;
}

static void
on_signal(int sig)
{
	(void)sig;	/* plat_ppoll returns EINTR; the loop ends there */
	plat_ppoll_wake();
}

/* Serve one buffered line, if any. Returns 1 if one was served. */
static int
serve_line(struct mcp_server *s, bool eof, struct err *err, int *rc)
{
	struct sbuf	 out = SBUF_INIT;
	const char	*line;
	size_t		 len;

	if ((line = next_line(s, eof, &len, &out)) != NULL)
		mcp_handle(s, line, len, &out);
	if (out.len > 0 && write_all(s->out_fd, out.buf, out.len, err) != 0)
		*rc = -1;
	sbuf_release(&out);
	if (s->initialized && *rc == 0)
		run_deferred(s);
	return line != NULL;
}

int
mcp_run(struct mcp_server *s, struct err *err)
{
	struct sigaction	 sa, old_term, old_int;
	sigset_t		 block, waitmask, oldmask;
	struct pollfd		*pfd = NULL;
	size_t			 i, n;
	struct timespec		 ts, *tsp;
	bool			 eof = false, more = false, waiting, idle;
	int			 rc = 0, r;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, &old_term);
	sigaction(SIGINT, &sa, &old_int);
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigprocmask(SIG_BLOCK, &block, &oldmask);
	waitmask = oldmask;
	sigdelset(&waitmask, SIGTERM);
	sigdelset(&waitmask, SIGINT);
	while (rc == 0 && !(eof && !more)) {
		n = s->nwatches + 1;
		pfd = xreallocarray(pfd, n, sizeof(*pfd));
		pfd[0] = (struct pollfd){ eof ? -1 : s->in_fd, POLLIN, 0 };
		for (i = 1; i < n; i++)
			pfd[i] = (struct pollfd){ s->watches[i - 1].fd,
			    POLLIN, 0 };
		waiting = !more && s->started && s->idle != NULL;
		tsp = poll_timeout(s, more, waiting, &ts, &idle);
		r = plat_ppoll(pfd, n, tsp, &waitmask);
		if (r < 0 && errno == EINTR)
			break;		/* SIGTERM / SIGINT: invariant 5 */
		if (r < 0) {
			rc = err_errno(err, "poll");
			break;
		}
		if (r == 0 && idle) {
			/* idle for MCP_IDLE_MS: invariant 6 */
			if (!s->idle(s->idle_arg))
				s->idle = NULL;
			continue;
		}
		if (!eof && (pfd[0].revents & (POLLIN | POLLHUP | POLLERR))) {
			if ((r = fill(s, err)) < 0)
				rc = -1;
			eof = r == 1;
		}
		more = rc == 0 && serve_line(s, eof, err, &rc);
		for (i = 1; rc == 0 && i < n; i++) {
			/* a callback may unwatch: look the fd up again */
			size_t	j;

			if (!(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			for (j = 0; j < s->nwatches; j++)
				if (s->watches[j].fd == pfd[i].fd)
					break;
			if (j < s->nwatches)
				s->watches[j].ready(s->watches[j].arg,
				    pfd[i].fd);
		}
		if (rc == 0)
			wake_due(s);
	}
	free(pfd);
	sigprocmask(SIG_SETMASK, &oldmask, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGINT, &old_int, NULL);
	return rc;
}
