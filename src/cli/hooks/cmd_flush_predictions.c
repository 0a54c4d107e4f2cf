/*
 * cmd_flush_predictions.c — `thatch flush-predictions [--json]`: only the
 * decision-model block of flush-tools' second tier (hosts-hooks-cli §5.7),
 * for testing and for hosts that want nothing else. Not installed as a
 * hook; it never looks at the queue, recall or behaviors. With --json an
 * empty result is {"additional_context":""}; malformed input prints
 * nothing at all.
 */
#include "cli/cmd.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "host/hook.h"
#include "util/jsonx.h"
#include "util/path.h"
#include "util/sbuf.h"
#include "util/utf8.h"

static int
cmd_flush_predictions_exec(struct cli_ctx *ctx, int argc, char **argv)
{
	struct sbuf	 out = SBUF_INIT;
	const json_t	*prompt;
	const char	*text;
	json_t		*in;
	bool		 json = cli_flag(ctx, "--json");

	(void)argc;
	(void)argv;
	if ((in = hook_read(STDIN_FILENO, &ctx->err)) == NULL)
		return CMD_FAILED;
	paths_host_cwd(&ctx->paths, jsonx_str(in, "cwd"));	/* issue 30 */
	sbuf_init(&out);
	prompt = hook_prompt(in);
	text = json_string_value(prompt);
	if (text != NULL && utf8_js_len(text, json_string_length(prompt)) >=
	    HOOK_MIN_PROMPT && hook_sideband_up(&ctx->paths)) {
		hook_related(&ctx->paths, cli_default_store(ctx), text,
		    HOOK_PREDICTIONS, &out);
	}
	if (out.len > 0 || json)
		hook_emit(stdout, json ? HOOK_CURSOR : HOOK_PLAIN, NULL,
		    out.buf);
	sbuf_release(&out);
	json_decref(in);
	return 0;
}

static const struct cmd_opt flush_predictions_opts[] = {
	{ "--json", NULL, "print the Cursor hook's JSON instead of plain text" },
	{ NULL, NULL, NULL },
};

const struct cmd_entry cmd_flush_predictions_entry = {
	.name = "flush-predictions",
	.args = "",
	.max_args = 0,
	.opts = flush_predictions_opts,
	.env = "THATCH_PREDICTION_THRESHOLD",
	.reads = READS_PROJECT,
	.example = "echo '{\"session_id\":\"s1\",\"prompt\":\"hi\"}' | "
	    "thatch flush-predictions",
	.summary = "print the decision-model block for a prompt",
	.flags = CMD_HOOK,
	.exec = cmd_flush_predictions_exec,
};
