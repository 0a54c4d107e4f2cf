/*
 * tool_extraction.c — the extraction tools: get_extraction_payload and
 * extraction_done (store-and-tools §4.11-§4.12, hosts-hooks-cli §4.6).
 *
 * Both go through the host's glue (ctx->payload, ctx->drain), so this
 * file knows nothing of queue files; the MCP server wires the file-backed
 * queue in. Neither touches the database. Neither pretends: a queue that
 * cannot be read, or deleted on acknowledgement, is a tool error, so the
 * agent is never told "[acknowledged]" about records that stay queued.
 */
#include "tools/tool_rows.h"

#include "util/err.h"
#include "util/sbuf.h"

static int
get_extraction_payload(struct tool_ctx *ctx, const json_t *args,
    struct sbuf *out, struct err *err)
{
	const char	*sid = tool_arg_str(args, "session_id", "");
	int		 rc;

	if (ctx->payload == NULL) {
		sbuf_adds(out, "Payload retrieval is not available on this "
		    "host.");
		return 0;
	}
	if ((rc = ctx->payload(ctx, sid, out, err)) < 0)
		return err_wrap(err, "cannot read the queued interactions of "
		    "session '%s'", sid);
	if (rc == 0)
		sbuf_adds(out, "No queued tool interactions found for this "
		    "session.");
	return 0;
}

static int
extraction_done(struct tool_ctx *ctx, const json_t *args, struct sbuf *out,
    struct err *err)
{
	const char	*sid = tool_arg_str(args, "session_id", "");

	/* without an id the post-tool hook drains the caller's own queue */
	if (*sid != '\0' && ctx->drain != NULL && ctx->drain(ctx, sid,
	    err) != 0)
		return err_wrap(err, "the queued interactions of session '%s' "
		    "were not released and will be offered again", sid);
	sbuf_adds(out, "[acknowledged]");
	return 0;
}

static const struct tool_arg done_args[] = {
	{ "session_id", ARG_STRING, 0, "the parent's, from a sub-agent", 0, 0, NULL, NULL },
	{ .name = NULL }
};

static const struct tool_arg payload_args[] = {
	{ "session_id", ARG_STRING, ARG_REQUIRED, "from the nudge", 0, 0, NULL, NULL },
	{ .name = NULL }
};

const struct tool tool_extraction_done = {
	.name = "extraction_done",
	.family = "extraction",
	.title = "Acknowledge fact extraction",
	.description = "Say fact extraction is done (even if nothing was "
	    "saved).",
	.args = done_args,
	.flags = TOOL_MCP,
	.run = extraction_done,
};

const struct tool tool_get_extraction_payload = {
	.name = "get_extraction_payload",
	.family = "extraction",
	.title = "Fetch queued tool interactions",
	.description = "Fetch a session's queued tool calls for fact "
	    "extraction.",
	.args = payload_args,
	.flags = TOOL_MCP | TOOL_READONLY,
	.run = get_extraction_payload,
};
