/*
 * cmd_queue.c — `thatch queue [session]`: what waits for fact extraction
 * (hosts-hooks-cli §4): per session its id, the number of queued tool
 * calls, the missed-nudge count and each call's tool and title, oldest
 * first (issue 15).
 *
 * Only reads: queue_peek and queue_missed take no lock and rewrite
 * nothing, so looking never drains a queue or moves a counter — that
 * stays the agent's extraction_done.
 */
#include "cli/cmd.h"

#include <stdio.h>

#include "cli/cli.h"
#include "core/session/queue.h"
#include "util/sbuf.h"
#include "util/utf8.h"

/* One session's block; the id shown is the one its records carry. */
static int
show_session(struct cli_ctx *ctx, const char *sid, struct sbuf *out)
{
	const char	*dir = ctx->paths.queue_dir, *shown;
	json_t		*recs, *r;
	size_t		 i;
	int		 missed;

	if (queue_peek(dir, sid, &recs, &ctx->err) != 0)
		return -1;
	missed = queue_missed(dir, sid);
	if (json_array_size(recs) == 0 && missed == 0) {
		json_decref(recs);
		return 0;
	}
	shown = json_string_value(json_object_get(json_array_get(recs, 0),
	    "sessionID"));
	if (out->len > 0)
		sbuf_addc(out, '\n');
	utf8_addf(out, "%s: ", shown ? shown : sid);
	sbuf_addf(out, "%zu queued, %d missed nudge%s\n",
	    json_array_size(recs), missed, missed == 1 ? "" : "s");
	json_array_foreach(recs, i, r)
		utf8_addf(out, "  %s  %s\n", json_string_value(
		    json_object_get(r, "tool")), json_string_value(
		    json_object_get(r, "title")));
	json_decref(recs);
	return 0;
}

static int
cmd_queue_exec(struct cli_ctx *ctx, int argc, char **argv)
{
	struct sbuf	  out = SBUF_INIT;
	char		**ids = NULL;
	size_t		  n = 0, i;
	int		  rc = CMD_FAILED;

	if (argc > 0) {
		if (show_session(ctx, argv[0], &out) != 0)
			goto out;
	} else if (queue_sessions(ctx->paths.queue_dir, &ids, &n,
	    &ctx->err) != 0)
		goto out;
	for (i = 0; i < n; i++)
		if (show_session(ctx, ids[i], &out) != 0)
			goto out;
	if (out.len == 0 && argc > 0)
		utf8_addf(&out, "Nothing queued for session %s.\n", argv[0]);
	else if (out.len == 0)
		sbuf_adds(&out, "Nothing queued for extraction.\n");
	fputs(out.buf, stdout);
	rc = 0;
out:
	queue_sessions_free(ids, n);
	sbuf_release(&out);
	return rc;
}

const struct cmd_entry cmd_queue_entry = {
	.name = "queue",
	.args = "[session]",
	.max_args = 1,
	.env = "THATCH_QUEUE_DIR XDG_CACHE_HOME",
	.example = "thatch queue",
	.summary = "show what waits for fact extraction (drains nothing)",
	.exec = cmd_queue_exec,
};
