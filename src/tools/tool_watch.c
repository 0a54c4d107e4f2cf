/*
 * tool_watch.c — the watcher tools (engines-and-extras B7, store-and-tools
 * §4.17): watch_create (a pull request), watch_branch_create,
 * watch_command_create, watch_list, watch_cancel. Editor-only: they need
 * a host that knows which session calls and can wake it (ctx->watch and
 * ctx->session, set by the opencode core); elsewhere they say so.
 */
#include "tools/tool_rows.h"

#include "core/session/watch.h"
#include "tools/tool.h"
#include "util/path.h"
#include "util/sbuf.h"

static bool
hosted(struct tool_ctx *ctx, struct sbuf *out)
{
	if (ctx->watch != NULL && ctx->session != NULL)
		return true;
	sbuf_adds(out, "Watchers need the opencode plugin: this host cannot "
	    "wake a session.");
	return false;
}

static int
watch_create(struct tool_ctx *ctx, const json_t *args, struct sbuf *out,
    struct err *err)
{
	(void)err;
	if (hosted(ctx, out))
		watchers_add_pr(ctx->watch, ctx->session, tool_arg_str(args,
		    "repo", ""), tool_arg_int(args, "number", 0), out);
	return 0;
}

static int
watch_branch_create(struct tool_ctx *ctx, const json_t *args,
    struct sbuf *out, struct err *err)
{
	(void)err;
	if (hosted(ctx, out))
		watchers_add_branch(ctx->watch, ctx->session, tool_arg_str(args,
		    "repo", ""), tool_arg_str(args, "branch", ""), out);
	return 0;
}

static int
watch_command_create(struct tool_ctx *ctx, const json_t *args,
    struct sbuf *out, struct err *err)
{
	(void)err;
	if (hosted(ctx, out))
		watchers_add_command(ctx->watch, ctx->session, tool_arg_str(args,
		    "command", ""), tool_arg_str(args, "until", NULL),
		    tool_arg_str(args, "label", NULL), ctx->paths->project_dir,
		    out);
	return 0;
}

static int
watch_list(struct tool_ctx *ctx, const json_t *args, struct sbuf *out,
    struct err *err)
{
	(void)args;
	(void)err;
	if (hosted(ctx, out))
		watchers_list(ctx->watch, ctx->session, out);
	return 0;
}

static int
watch_cancel(struct tool_ctx *ctx, const json_t *args, struct sbuf *out,
    struct err *err)
{
	(void)err;
	if (hosted(ctx, out))
		watchers_cancel(ctx->watch, ctx->session, tool_arg_str(args,
		    "id", ""), out);
	return 0;
}

static const struct tool_arg pr_args[] = {
	{ .name = "repo", .type = ARG_STRING, .flags = ARG_REQUIRED,
	  .description = "The repository, owner/repo" },
	{ .name = "number", .type = ARG_INTEGER, .flags = ARG_REQUIRED |
	  ARG_MIN, .min = 1, .description = "The pull request's number" },
	{ .name = NULL }
};

static const struct tool_arg branch_args[] = {
	{ .name = "repo", .type = ARG_STRING, .flags = ARG_REQUIRED,
	  .description = "The repository, owner/repo" },
	{ .name = "branch", .type = ARG_STRING, .flags = ARG_REQUIRED,
	  .description = "The branch to watch" },
	{ .name = NULL }
};

static const char *const untils[] = { "success", "failure", "change", NULL };

static const struct tool_arg command_args[] = {
	{ .name = "command", .type = ARG_STRING, .flags = ARG_REQUIRED,
	  .description = "A bash command run in this project at every poll; "
	    "only its exit status counts (its output is never read)" },
	{ .name = "until", .type = ARG_STRING, .choices = untils,
	  .description = "success (default): tell me once it exits 0; "
	    "failure: once it fails; change: at every change of outcome" },
	{ .name = "label", .type = ARG_STRING,
	  .description = "Name shown instead of the command in notifications" },
	{ .name = NULL }
};

static const struct tool_arg no_args[] = {
	{ .name = NULL }
};

static const struct tool_arg cancel_args[] = {
	{ .name = "id", .type = ARG_STRING, .flags = ARG_REQUIRED,
	  .description = "The watcher, as watch_list names it (w3)" },
	{ .name = NULL }
};

#define WAKE	" When it changes you get a message at your next idle " \
	"moment with the new status (never the PR's or CI's texts)."

const struct tool tool_watch_create = {
	.name = "watch_create",
	.family = "watchers",
	.title = "Watch a pull request",
	.description = "Watch a GitHub pull request (through gh): new "
	    "commits, finished checks, reviews, comments, merge or close."
	    WAKE,
	.args = pr_args,
	.flags = TOOL_EDITOR,
	.run = watch_create,
};

const struct tool tool_watch_branch_create = {
	.name = "watch_branch_create",
	.family = "watchers",
	.title = "Watch a branch",
	.description = "Watch a GitHub branch (through gh) for new commits or "
	    "its deletion." WAKE,
	.args = branch_args,
	.flags = TOOL_EDITOR,
	.run = watch_branch_create,
};

const struct tool tool_watch_command_create = {
	.name = "watch_command_create",
	.family = "watchers",
	.title = "Watch a shell condition",
	.description = "Watch a local condition: a bash command run at every "
	    "poll whose exit status is the condition (a build that finishes, "
	    "a file that appears, a port that opens)." WAKE,
	.args = command_args,
	.flags = TOOL_EDITOR,
	.run = watch_command_create,
};

const struct tool tool_watch_list = {
	.name = "watch_list",
	.family = "watchers",
	.title = "List watchers",
	.description = "List this session's watchers with the last status "
	    "each saw.",
	.args = no_args,
	.flags = TOOL_EDITOR | TOOL_READONLY,
	.run = watch_list,
};

const struct tool tool_watch_cancel = {
	.name = "watch_cancel",
	.family = "watchers",
	.title = "Cancel a watcher",
	.description = "Stop one of this session's watchers.",
	.args = cancel_args,
	.flags = TOOL_EDITOR,
	.run = watch_cancel,
};
