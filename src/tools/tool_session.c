/*
 * tool_session.c — the session-archaeology tools session_search and
 * session_get (engines-and-extras B6, store-and-tools §4.17): what earlier
 * opencode sessions said and did, from opencode's database, read-only
 * (core/session/ocdb.c). Editor-only: they read the host's own storage, so they
 * are not listed over MCP.
 *  1. The database is opened per call and closed before returning: a
 *     session written a moment ago is seen, and nothing is held open.
 *  2. Output is capped at SESSION_TOOL_CAP characters with a note saying
 *     how much was left out (B6).
 */
#include "tools/tool_rows.h"

#include <stdlib.h>

#include "core/session/ocdb.h"
#include "tools/tool.h"
#include "util/err.h"
#include "util/path.h"
#include "util/sbuf.h"
#include "util/utf8.h"

#define SESSION_TOOL_CAP	20000

static int
open_db(struct tool_ctx *ctx, struct ocdb **db, struct err *err)
{
	char	*path = ocdb_path(ctx->paths->home);
	int	 rc = ocdb_open(path, db, err);

	free(path);
	return rc;
}

/* Invariant 2. */
static void
capped(struct sbuf *out, const struct sbuf *text, const char *hint)
{
	size_t	cut = utf8_js_cut(text->buf, text->len, SESSION_TOOL_CAP);

	sbuf_add(out, text->buf, cut);
	if (cut < text->len)
		sbuf_addf(out, "\n[truncated: %zu more characters; %s]\n",
		    utf8_js_len(text->buf + cut, text->len - cut), hint);
}

static int
session_search(struct tool_ctx *ctx, const json_t *args, struct sbuf *out,
    struct err *err)
{
	struct ocdb_query	 q;
	struct ocdb		*db;
	struct sbuf		 sb = SBUF_INIT;
	size_t			 n;
	int			 rc;

	q.text = tool_arg_str(args, "query", "");
	q.session = tool_arg_str(args, "session_id", NULL);
	q.limit = (size_t)tool_arg_int(args, "limit", 10);
	/* the caller's own session holds this very call: not a finding */
	q.exclude = q.session == NULL ? ctx->session : NULL;
	if (*q.text == '\0') {
		sbuf_adds(out, "Give a non-empty query.");
		return 0;
	}
	if (open_db(ctx, &db, err) != 0)
		return -1;
	sbuf_init(&sb);
	if ((rc = ocdb_search(db, &q, &sb, &n, err)) == 0) {
		if (n == 0)
			utf8_addf(out, "No session content matches \"%s\".",
			    q.text);
		else
			capped(out, &sb, "lower limit or name session_id");
	}
	sbuf_release(&sb);
	ocdb_close(db);
	return rc;
}

static int
session_get(struct tool_ctx *ctx, const json_t *args, struct sbuf *out,
    struct err *err)
{
	const char	*id = tool_arg_str(args, "session_id", "");
	struct ocdb	*db;
	struct sbuf	 sb = SBUF_INIT;
	json_t		*got = NULL;
	int		 rc;

	if (open_db(ctx, &db, err) != 0)
		return -1;
	if ((rc = ocdb_get(db, id, &got, err)) == 0) {
		if (got == NULL)
			utf8_addf(out, "No opencode session \"%s\".", id);
		else {
			sbuf_init(&sb);
			ocdb_render(got, (size_t)tool_arg_int(args,
			    "max_messages", 50), true, &sb);
			capped(out, &sb, "lower max_messages");
			sbuf_release(&sb);
		}
	}
	json_decref(got);
	ocdb_close(db);
	return rc;
}

static const struct tool_arg search_args[] = {
	{ .name = "query", .type = ARG_STRING, .flags = ARG_REQUIRED,
	  .description = "Text to find (case-insensitive substring) in what "
	    "earlier sessions said, ran and got back" },
	{ .name = "limit", .type = ARG_INTEGER, .flags = ARG_MIN | ARG_MAX,
	  .min = 1, .max = 200, .description = "Most hits to return "
	    "(default 10)" },
	{ .name = "session_id", .type = ARG_STRING,
	  .description = "Search only this session (ses_...)" },
	{ .name = NULL }
};

static const struct tool_arg get_args[] = {
	{ .name = "session_id", .type = ARG_STRING, .flags = ARG_REQUIRED,
	  .description = "The session to show (ses_..., from session_search)" },
	{ .name = "max_messages", .type = ARG_INTEGER, .flags = ARG_MIN |
	  ARG_MAX, .min = 1, .max = 1000,
	  .description = "Show only the last N messages (default 50)" },
	{ .name = NULL }
};

const struct tool tool_session_search = {
	.name = "session_search",
	.family = "session",
	.title = "Search earlier sessions",
	.description = "Search earlier opencode sessions on this machine (their "
	    "messages, tool calls and tool output) for a piece of text; each "
	    "hit names the session, message, role and time with a snippet. "
	    "Use it to find how something was done or decided before.",
	.args = search_args,
	.flags = TOOL_EDITOR | TOOL_READONLY | TOOL_UNCAPPED,
	.run = session_search,
};

const struct tool tool_session_get = {
	.name = "session_get",
	.family = "session",
	.title = "Show an earlier session",
	.description = "Show one earlier opencode session: its messages, with "
	    "text, tool calls and their output, and its sub-agent sessions.",
	.args = get_args,
	.flags = TOOL_EDITOR | TOOL_READONLY | TOOL_UNCAPPED,
	.run = session_get,
};
