/*
 * cmd_buffer_tool.c — `thatch buffer-tool`: Cursor's postToolUse (and
 * postToolUseFailure) hook. Queues the one call like buffer-batch does
 * (hosts-hooks-cli §4.3), then delivers the nudge flush-tools left for
 * this conversation, if any: Cursor's prompt hook cannot add context and
 * its postToolUse can (host-contracts C2). Prints nothing else.
 */
#include "cli/cmd.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/session/queue.h"
#include "host/hook.h"
#include "util/jsonx.h"
#include "util/log.h"
#include "util/sbuf.h"

/* Print the waiting nudge; an extraction nudge counts as delivered. */
static void
deliver(struct cli_ctx *ctx, const char *sid)
{
	struct sbuf	 text = SBUF_INIT;
	json_t		*q = NULL;
	bool		 extraction = false;
	struct err	 err;

	sbuf_init(&text);
	if (queue_pending_take(ctx->paths.queue_dir, sid, &text, &extraction,
	    &err) != 1)
		goto out;
	/* the call just made may have drained the queue the nudge is about */
	if (extraction && queue_peek(ctx->paths.queue_dir, sid, &q,
	    &err) == 0 && json_array_size(q) == 0)
		goto out;
	hook_emit(stdout, HOOK_CURSOR, NULL, text.buf);
	if (extraction && queue_missed_bump(ctx->paths.queue_dir, sid,
	    &err) != 0)
		log_warn("missed-nudge counter: %s", err.msg);
	log_debug("hook:flush", "buffer-tool delivered a %s nudge to %s",
	    extraction ? "extraction" : "context", sid);
out:
	json_decref(q);
	sbuf_release(&text);
}

static int
cmd_buffer_tool_exec(struct cli_ctx *ctx, int argc, char **argv)
{
	struct queue_call	 call;
	const char		*sid, *tool, *event;
	json_t			*in;
	bool			 failed;
	int			 rc = 0;

	(void)argc;
	(void)argv;
	if ((in = hook_read(STDIN_FILENO, &ctx->err)) == NULL)
		return CMD_FAILED;
	sid = hook_session(in);
	tool = jsonx_str(in, "tool_name");
	if (sid == NULL || *sid == '\0' || tool == NULL || *tool == '\0')
		goto out;
	event = jsonx_str(in, "hook_event_name");
	failed = (event != NULL && strcmp(event, "postToolUseFailure") == 0) ||
	    jsonx_get(in, "error_message") != NULL;
	call.tool = tool;
	call.args = jsonx_get(in, "tool_input");
	call.response = hook_tool_response(in);
	call.verdict = hook_verdict(tool, failed);
	if (queue_append(ctx->paths.queue_dir, sid, &call, 1, &ctx->err) != 0)
		rc = CMD_FAILED;
	log_debug("queue:append", "buffer-tool %s: %s", sid, tool);
	deliver(ctx, sid);
out:
	json_decref(in);
	return rc;
}

const struct cmd_entry cmd_buffer_tool_entry = {
	.name = "buffer-tool",
	.args = "",
	.max_args = 0,
	.env = "THATCH_QUEUE_DIR XDG_CACHE_HOME",
	.example = "echo "
	    "'{\"conversation_id\":\"c1\",\"tool_name\":\"Read\"}' | thatch "
	    "buffer-tool",
	.summary = "Cursor postToolUse hook: queue a tool call",
	.flags = CMD_HOOK,
	.exec = cmd_buffer_tool_exec,
};
