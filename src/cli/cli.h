/* cli.h — what every subcommand is handed (cli.c). */
#ifndef THATCH_CLI_CLI_H
#define THATCH_CLI_CLI_H

#include <stdbool.h>

#include <jansson.h>

#include "util/os/clock.h"
#include "util/err.h"
#include "util/path.h"
#include "cli/cmd.h"

struct store;
struct store_entry;

/*
 * The context of one CLI invocation: resolved paths, the lazily opened
 * store, the clock and the error a failing command leaves for the
 * dispatcher to print. Built by cmd_main(), released after exec returns.
 */
struct cli_ctx {
	const char	*name;		/* the subcommand as typed */
	const struct cmd_entry *const *table;	/* every command (cmd_main) */
	const struct cmd_entry *cmd;	/* its row; set by cli_parse */
	const char	*optval[CMD_MAXOPTS];	/* per cmd->opts; "" a flag */
	char		**args;		/* owned array; the positionals */
	struct paths	 paths;
	struct clock	 clock;
	struct store	*store;		/* owned; opened for CMD_STORE */
	char		*repo;		/* owned; REPO, once detected */
	struct err	 err;
};

void	cli_ctx_init(struct cli_ctx *, const char *name);
void	cli_ctx_release(struct cli_ctx *);

/*
 * Parse argv (after the subcommand name) against e's row: options before
 * `--` anywhere among the positionals, `--opt=value` or `--opt value`,
 * -h/--help anywhere before `--`. On success pargc and pargv are the
 * positionals (borrowed for the life of ctx) and options are read with
 * cli_opt. Returns 0, 1 when help was asked for, or CMD_USAGE with ctx->err
 * naming the unknown option, the missing value or the surplus argument.
 */
int	cli_parse(struct cli_ctx *, const struct cmd_entry *e, int argc,
	    char **argv, int *pargc, char ***pargv);

/* The value of option `name` of the command (a flag's is ""), or NULL. */
const char *cli_opt(const struct cli_ctx *, const char *name);
#define cli_flag(ctx, name)	(cli_opt((ctx), (name)) != NULL)

/* Open ctx->store if not yet open. Returns 0, or -1 with ctx->err set. */
int	cli_open_store(struct cli_ctx *);

/*
 * REPO (hosts-hooks-cli §0.5, store-and-tools §2.3): the raw identity of
 * paths.project_dir, "unknown" when none, detected once per process with
 * the repo_paths cache of the opened store (the store is opened first when
 * it can be; without it detection runs uncached). Never fails. Borrowed
 * for the life of ctx. Use this where "unknown" must stay visible (recall
 * searches [REPO, global]).
 */
const char *cli_repo(struct cli_ctx *);

/*
 * The default store of store-scoped commands: cli_repo mapped "unknown" ->
 * "global" (§2.6). Borrowed for the life of ctx.
 */
const char *cli_default_store(struct cli_ctx *);

/*
 * For show/forget of a label that matched nothing: if the label has no
 * letter or digit (its slug is the hash fallback, store-and-tools §3.1
 * step 7) the user almost certainly mistyped it, so set ctx->err to say so
 * and return 1 (the command then fails, issue 3); else return 0.
 */
int	cli_hashed_label(struct cli_ctx *, const char *label, const char *slug,
	    const char *store);

struct sbuf;

/*
 * Call the tool `name` the way the MCP server does — tool_validate, then
 * its handler — on ctx's store with the project store as the default, so
 * that the CLI and the agent can never disagree (issue 15). args is
 * borrowed (NULL for {}). Returns 0 with the tool's text appended to out;
 * CMD_USAGE with ctx->err naming the invalid arguments; CMD_FAILED with
 * ctx->err holding the tool's refusal text (nothing was done) or its
 * failure.
 */
int	cli_tool(struct cli_ctx *, const char *name, const json_t *args,
	    struct sbuf *out);

/* A memory's stored content without its "# <label>\n\n" heading
 * (hosts-hooks-cli §1.3): what show prints and edit edits. Borrowed. */
const char *cli_memory_body(const char *content);

/*
 * Read all of fd into sb (replacing what it held) without its trailing
 * newlines, as `git commit -F` does: what an editor or `echo` adds is not
 * content. Returns 0, or -1 with ctx->err set.
 */
int	cli_read_text(struct cli_ctx *, int fd, const char *what,
	    struct sbuf *sb);

/*
 * A JSON string of the n bytes at s for a tool argument, or NULL with
 * ctx->err saying that `what` is not UTF-8 (a NUL is left to the tool's
 * validation to refuse).
 */
json_t	*cli_json_arg(struct cli_ctx *, const char *what, const char *s,
	    size_t n);

/* obj[key] = v as cli_json_arg makes it; nothing when v is NULL.
 * Returns 0, or -1 with ctx->err set. */
int	cli_json_set(struct cli_ctx *, json_t *obj, const char *key,
	    const char *v);

/* Print a tool's text on stdout with a newline, control characters but
 * newlines and tabs escaped. */
void	cli_print_text(const struct sbuf *);

/*
 * --json output (README "Scripting"): one memory as an object — store,
 * slug, label, branch, confidence (null when unset), archived, created_at,
 * updated_at, last_recalled_at, recall_count, plus content when asked —
 * and printing one document with a newline (then json_decref'ing it).
 */
json_t	*cli_json_str(const char *);
json_t	*cli_entry_json(const struct store_entry *, bool content);
/* The same with "anchors" (anchor_json: each anchor's spec, blob, head,
 * recorded_at and its state judged in the project) when it has any, and
 * "origin" ({kind, source, commit}: where it came from) when known. */
json_t	*cli_memory_json(struct cli_ctx *, const struct store_entry *,
	    bool content);
void	 cli_print_json(json_t *);

#endif
