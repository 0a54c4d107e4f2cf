/*
 * cmd_buffer_batch.c — `thatch buffer-batch`: Claude Code's PostToolBatch
 * hook. Appends the batch's tool calls to the session's extraction queue
 * (hosts-hooks-cli §4.3) and prints nothing, ever: Claude shows plain
 * stdout of tool events to nobody (host-contracts C8).
 */
#include "cli/cmd.h"

#include <stdlib.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/session/queue.h"
#include "host/hook.h"
#include "util/jsonx.h"
#include "util/log.h"
#include "util/xmalloc.h"

static int
cmd_buffer_batch_exec(struct cli_ctx *ctx, int argc, char **argv)
{
	struct queue_call	*calls = NULL;
	const json_t		*list, *c;
	const char		*sid, *tool;
	json_t			*in;
	size_t			 i, n = 0;
	int			 rc = 0;

	(void)argc;
	(void)argv;
	if ((in = hook_read(STDIN_FILENO, &ctx->err)) == NULL)
		return CMD_FAILED;
	sid = jsonx_str(in, "session_id");
	list = jsonx_get(in, "tool_calls");
	if (sid == NULL || *sid == '\0' || !json_is_array(list))
		goto out;
	calls = xcalloc(json_array_size(list) + 1, sizeof(*calls));
	json_array_foreach(list, i, c) {
		/* deviation (§4.2): a call without a name is skipped alone */
		if ((tool = jsonx_str(c, "tool_name")) == NULL)
			continue;
		calls[n].tool = tool;
		calls[n].args = jsonx_get(c, "tool_input");
		calls[n].response = jsonx_get(c, "tool_response");
		/* host-contracts C7: a failed call's response is a string */
		calls[n].verdict = hook_verdict(tool,
		    json_is_string(calls[n].response));
		n++;
	}
	if (queue_append(ctx->paths.queue_dir, sid, calls, n, &ctx->err) != 0)
		rc = CMD_FAILED;
	log_debug("queue:append", "buffer-batch %s: %zu calls%s", sid, n,
	    rc == 0 ? "" : " (failed)");
out:
	free(calls);
	json_decref(in);
	return rc;
}

const struct cmd_entry cmd_buffer_batch_entry = {
	.name = "buffer-batch",
	.args = "",
	.max_args = 0,
	.env = "THATCH_QUEUE_DIR XDG_CACHE_HOME",
	.example = "echo '{\"session_id\":\"s1\",\"tool_calls\":[]}' | "
	    "thatch buffer-batch",
	.summary = "Claude Code PostToolBatch hook: queue tool calls",
	.flags = CMD_HOOK,
	.exec = cmd_buffer_batch_exec,
};
