/*
 * cmd_reembed.c — `thatch reembed [store|all] [--all]`: compute again,
 * with the model in effect, the vectors of every memory, matcher and item
 * stored in another embedding space (another dimension or model tag), so
 * that switching THATCH_MODEL loses nothing (issue 19, seed invariant 4).
 *
 *  1. Scope: no argument or `all` → every store (the model is the whole
 *     database's); a name → that store, which must exist. --all
 *     re-embeds every row, in the space in effect or not.
 *  2. The store does the walk and the writes (store_reembed): short
 *     transactions under the usual busy timeout, so that running servers
 *     keep answering, and a killed run leaves each row wholly old or
 *     wholly new; running it again finishes the job and then does nothing.
 *  3. A progress bar on stderr only when it is a terminal; stdout gets one
 *     line saying what was done.
 */
#include "cli/cmd.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/store/store.h"
#include "tools/tool.h"
#include "util/progress.h"
#include "util/sbuf.h"
#include "util/utf8.h"

/* Rows per read-embed-write round: texts per write transaction. */
#define REEMBED_BATCH	32

struct run {
	struct model	*model;
	bool		 bar;
	int		 shown;		/* percent drawn, -1: none yet */
	double		 t0;
};

static double
seconds(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int
embed(void *arg, const char *const *texts, size_t n, float *out,
    struct err *err)
{
	struct run	*r = arg;

	return model_embed_batch(r->model, texts, n, EMBED_PASSAGE, out, err);
}

static void
progress(void *arg, long long done, long long total)
{
	struct run	*r = arg;
	char		 detail[64];
	int		 pct = (int)(done * 100 / total);

	if (!r->bar || pct == r->shown)
		return;
	r->shown = pct;
	snprintf(detail, sizeof(detail), "%lld/%lld rows, %.0f s", done,
	    total, seconds() - r->t0);
	progress_draw("re-embedding", pct, detail);
}

static int
cmd_reembed_exec(struct cli_ctx *ctx, int argc, char **argv)
{
	struct tool_ctx		 tools;
	struct store_reembed	 r;
	struct run		 run = { NULL, false, -1, 0 };
	struct sbuf		 line = SBUF_INIT;
	char			 now[CLOCK_ISO_LEN];
	long long		 done;
	bool			 found;
	int			 rc = CMD_FAILED;

	memset(&r, 0, sizeof(r));
	if (argc == 1 && strcmp(argv[0], "all") != 0) {
		r.store = argv[0];
		if (store_has_store(ctx->store, r.store, &found,
		    &ctx->err) != 0)
			return CMD_FAILED;
		if (!found) {
			err_set(&ctx->err, "no store named \"%s\"", r.store);
			return CMD_FAILED;
		}
	}
	tool_ctx_init(&tools, ctx->store, cli_default_store(ctx), &ctx->paths);
	tools.clock = ctx->clock;
	if ((run.model = tool_model(&tools, &ctx->err)) == NULL)
		goto out;
	r.space.dim = model_dim(run.model);
	r.space.tag = model_tag(run.model);
	r.rows = cli_flag(ctx, "--all") ? STORE_ROWS_ALL : STORE_ROWS_OTHER;
	r.batch = REEMBED_BATCH;
	r.embed = embed;
	r.progress = progress;
	r.arg = &run;
	r.now = clock_iso(clock_now(&ctx->clock), now);
	run.bar = isatty(STDERR_FILENO);
	run.t0 = seconds();
	rc = store_reembed(ctx->store, &r, &done, &ctx->err) == 0 ? 0 :
	    CMD_FAILED;
	if (run.shown >= 0)
		fputc('\n', stderr);
	if (rc == 0 && done == 0)
		utf8_addf(&line, "Nothing to re-embed: every row is in the "
		    "space of %s (%d dimensions).\n", r.space.tag, r.space.dim);
	else if (rc == 0) {
		sbuf_addf(&line, "Re-embedded %lld row(s) in %.1f s", done,
		    seconds() - run.t0);
		utf8_addf(&line, " with %s (%d dimensions).\n", r.space.tag,
		    r.space.dim);
	}
	if (rc == 0)
		fputs(line.buf, stdout);
out:
	sbuf_release(&line);
	tool_ctx_release(&tools);
	return rc;
}

static const struct cmd_opt reembed_opts[] = {
	{ "--all", NULL, "re-embed every row, not only those of another "
	  "model or dimension" },
	{ NULL, NULL, NULL },
};

const struct cmd_entry cmd_reembed_entry = {
	.name = "reembed",
	.args = "[store|all]",
	.min_args = 0,
	.max_args = 1,
	.opts = reembed_opts,
	.reads = READS_PROJECT | READS_MODEL,
	.example = "THATCH_MODEL=BAAI/bge-base-en-v1.5 thatch reembed",
	.summary = "embed again the memories stored by another model",
	.flags = CMD_STORE,
	.exec = cmd_reembed_exec,
};
