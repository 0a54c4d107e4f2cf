/*
 * cmd_flush_tools.c — `thatch flush-tools [--json]`: the per-prompt nudge
 * (Claude Code UserPromptSubmit; Cursor beforeSubmitPrompt with --json).
 *
 * Exactly one block per prompt, first tier that has something wins
 * (hosts-hooks-cli §5.1): the extraction nudge when tool calls are queued,
 * else what the sideband relates to the prompt (recall, predictions,
 * behaviors), else the write nudge. Any failure ends in the write nudge;
 * the exit status is always 0, since a failing prompt hook would cost the
 * user their prompt.
 *
 * Cursor cannot add context from this event (host-contracts C2): with
 * --json the block is left as the conversation's pending nudge, which
 * buffer-tool delivers with the next tool call, and the answer is
 * {"continue":true}. Counting an extraction nudge as missed then happens
 * on delivery, not here.
 */
#include "cli/cmd.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/session/queue.h"
#include "host/hook.h"
#include "text/nudge.h"
#include "util/jsonx.h"
#include "util/log.h"
#include "util/path.h"
#include "util/sbuf.h"
#include "util/utf8.h"
#include "util/xmalloc.h"

/* Tier 1 (§5.2): true when a nudge was written to out. */
static bool
tier_extract(struct cli_ctx *ctx, const char *sid, bool cursor,
    struct sbuf *out)
{
	json_t		*recs = NULL;
	struct err	 err;
	size_t		 n;
	int		 missed;

	if (sid == NULL || *sid == '\0')
		return false;
	if (queue_peek(ctx->paths.queue_dir, sid, &recs, &err) != 0) {
		/* §5.6: say why, and let the other tiers speak */
		fprintf(stderr, "[thatch flush-tools] failed: %s\n", err.msg);
		return false;
	}
	if ((n = json_array_size(recs)) == 0) {
		json_decref(recs);
		return false;
	}
	json_decref(recs);
	missed = queue_missed(ctx->paths.queue_dir, sid);
	/* host-contracts C13: Cursor's spelling of MCP tools is unverified */
	text_nudge_extract(out, n, missed, sid, cursor ? "" : "mcp__thatch__");
	/* deviation (§5.6): a counter failure costs escalation only */
	if (!cursor && queue_missed_bump(ctx->paths.queue_dir, sid, &err) != 0)
		log_warn("missed-nudge counter: %s", err.msg);
	log_debug("hook:flush", "extraction nudge: %zu queued, %d missed", n,
	    missed);
	return true;
}

/* Tier 2 (§5.3): true when the sideband related something. */
static bool
tier_related(struct cli_ctx *ctx, const json_t *in, struct sbuf *out)
{
	const json_t	*prompt = hook_prompt(in);
	const char	*text = json_string_value(prompt);
	char		*repo;
	int		 n;

	if (text == NULL || utf8_js_len(text, json_string_length(prompt)) <
	    HOOK_MIN_PROMPT || !hook_sideband_up(&ctx->paths))
		return false;
	/* REPO only here, tier 1 needs no git (§5.1); cached across prompts */
	if ((repo = hook_repo_get(&ctx->paths)) == NULL) {
		repo = xstrdup(cli_default_store(ctx));
		hook_repo_put(&ctx->paths, repo);
	}
	n = hook_related(&ctx->paths, repo, text, HOOK_RECALL |
	    HOOK_PREDICTIONS | HOOK_BEHAVIORS, out);
	free(repo);
	return n > 0;
}

static int
cmd_flush_tools_exec(struct cli_ctx *ctx, int argc, char **argv)
{
	struct sbuf	 out = SBUF_INIT;
	json_t		*in;
	const char	*sid;
	bool		 cursor = cli_flag(ctx, "--json"), extraction;
	int		 rc = 0;

	(void)argc;
	(void)argv;
	sbuf_init(&out);
	if ((in = hook_read(STDIN_FILENO, &ctx->err)) == NULL) {
		rc = CMD_FAILED;
		text_nudge_write(&out);
		goto emit;
	}
	if (!cursor && hook_in_cursor(in))
		goto out;	/* host-contracts C6: the --json twin speaks */
	paths_host_cwd(&ctx->paths, jsonx_str(in, "cwd"));	/* issue 30 */
	sid = hook_session(in);
	extraction = tier_extract(ctx, sid, cursor, &out);
	if (!extraction && !tier_related(ctx, in, &out))
		text_nudge_write(&out);
	if (cursor && sid != NULL && *sid != '\0' &&
	    queue_pending_put(ctx->paths.queue_dir, sid, out.buf, extraction,
	    &ctx->err) != 0)
		rc = CMD_FAILED;
emit:
	if (cursor)
		puts("{\"continue\":true}");
	else
		hook_emit(stdout, HOOK_PLAIN, NULL, out.buf);
out:
	json_decref(in);
	sbuf_release(&out);
	return rc;
}

static const struct cmd_opt flush_tools_opts[] = {
	{ "--json", NULL, "print the Cursor hook's JSON instead of plain text" },
	{ NULL, NULL, NULL },
};

const struct cmd_entry cmd_flush_tools_entry = {
	.name = "flush-tools",
	.args = "",
	.max_args = 0,
	.opts = flush_tools_opts,
	.env = "THATCH_RECALL_THRESHOLD THATCH_PREDICTION_THRESHOLD "
	    "THATCH_BEHAVIOR_THRESHOLD THATCH_QUEUE_DIR",
	.reads = READS_PROJECT,
	.example = "echo '{\"session_id\":\"s1\",\"prompt\":\"hi\"}' | "
	    "thatch flush-tools",
	.summary = "prompt hook: print one nudge block",
	.flags = CMD_HOOK,
	.exec = cmd_flush_tools_exec,
};
