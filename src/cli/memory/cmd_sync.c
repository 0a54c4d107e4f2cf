/*
 * cmd_sync.c — `thatch sync [store]`: share a project store through the
 * project's git remote (docs/sync.md); --status shows what would move,
 * --auto turns the MCP server's background sync on or off, --private and
 * --share mark one memory as never sent or shareable again, --review
 * lists what a teammate sent that sync held for review, and --accept or
 * --reject decides it (issue 31).
 *
 * The merge and git are core/sync/sync.c's; this file parses, supplies the
 * model for incoming memories (loaded only when one needs a vector) and
 * prints. With --background (the MCP server's own child) every line goes
 * to stderr, which the server points at DB_DIR/sync.log, stamped.
 *
 * One sync of a database at a time: a round holds DB_DIR/sync.lock
 * (flock), and a second one (a server's last queued run beside its
 * running one, the user's beside the server's) waits for it; two at once
 * raced on fast-import's ref and one failed.
 */
#include "cli/cmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/slug.h"
#include "core/store/store.h"
#include "core/sync/sync.h"
#include "core/sync/sync_held.h"
#include "embed/model.h"
#include "util/fileio.h"
#include "util/path.h"
#include "util/sbuf.h"
#include "util/utf8.h"
#include "util/xmalloc.h"

/* The model, opened when the first memory needs a vector. */
struct lazy_model {
	struct model_opts	 o;
	struct model		*m;	/* owned */
};

static int
open_model(void *arg, struct store_space *sp, struct err *err)
{
	struct lazy_model	*lm = arg;

	if (lm->m == NULL && model_open(&lm->o, &lm->m, err) != 0)
		return -1;
	sp->dim = model_dim(lm->m);
	sp->tag = model_tag(lm->m);
	return 0;
}

static int
embed_passages(void *arg, const char *const *texts, size_t n, float *out,
    struct err *err)
{
	struct lazy_model	*lm = arg;

	return model_embed_batch(lm->m, texts, n, EMBED_PASSAGE, out, err);
}

/* --private / --share <label>: one row of thatch_sync_private. */
static int
mark(struct cli_ctx *ctx, const char *store, const char *label, bool priv)
{
	struct sbuf	 out = SBUF_INIT;
	char		*slug = slug_make(label, strlen(label));
	int		 rc = CMD_FAILED;

	if (sync_private_set(ctx->store, store, slug, priv, &ctx->err) == 0) {
		utf8_addf(&out, "[%s] %s :: %s\n", priv ? "private" : "shared",
		    store, label);
		fputs(out.buf, stdout);
		rc = 0;
	}
	sbuf_release(&out);
	free(slug);
	return rc;
}

static int
set_auto(struct cli_ctx *ctx, const char *store, const char *remote,
    const char *v)
{
	bool	on = strcmp(v, "on") == 0;

	if (!on && strcmp(v, "off") != 0) {
		err_set(&ctx->err, "--auto takes on or off, not '%s'", v);
		return CMD_USAGE;
	}
	if (on && strcmp(store, "global") == 0) {
		err_set(&ctx->err, "the global store never syncs");
		return CMD_FAILED;
	}
	if (sync_auto_set(ctx->store, store, remote, on, &ctx->err) != 0)
		return CMD_FAILED;
	printf("[auto %s] %s with %s\n", on ? "on" : "off", store, remote);
	return 0;
}

/* Each line of lines, as prefix + line + suffix, control characters
 * escaped (labels are the user's). */
static void
add_lines(struct sbuf *out, const char *prefix, const char *lines,
    const char *suffix)
{
	const char	*s, *e;
	char		*line;

	for (s = lines; *s != '\0'; s = e + 1) {
		if ((e = strchr(s, '\n')) == NULL)
			e = s + strlen(s);
		line = xstrndup(s, (size_t)(e - s));
		utf8_addf(out, "%s%s%s\n", prefix, line, suffix);
		free(line);
		if (*e == '\0')
			break;
	}
}

/* The line for memories left without a vector, if any. */
static void
add_unembedded(struct sbuf *out, const char *pre,
    const struct sync_report *rep)
{
	if (rep->unembedded == 0)
		return;
	sbuf_addf(out, "%s%zu memor%s no vector yet (", pre, rep->unembedded,
	    rep->unembedded == 1 ? "y has" : "ies have");
	utf8_addf(out, "%s): recall finds them by their words until the next "
	    "sync embeds them\n", rep->embed_err.buf);
}

/* --review: one held memory, every field escaped (a teammate wrote it). */
static int
print_held(const struct sync_held *h, void *arg)
{
	struct sbuf	*out = arg;

	sbuf_addf(out, "[held %lld] ", h->id);
	utf8_addf(out, "%s\n  from %s", h->e.label, h->author != NULL ?
	    h->author : "an unknown author");
	if (h->ref != NULL)	/* a commit id, as git log wrote it */
		sbuf_addf(out, " at %.12s", h->ref);
	utf8_addf(out, ": %s\n", h->reason);
	if (h->e.branch != NULL)
		utf8_addf(out, "  branch: %s\n", h->e.branch);
	add_lines(out, "  | ", cli_memory_body(h->e.content), "");
	return 0;
}

static int
list_held(struct cli_ctx *ctx, const char *store)
{
	struct sbuf	out = SBUF_INIT;

	if (sync_held_walk(ctx->store, store, print_held, &out,
	    &ctx->err) != 0) {
		sbuf_release(&out);
		return CMD_FAILED;
	}
	if (out.len == 0)
		utf8_addf(&out, "Nothing of %s is held for review.\n", store);
	else
		sbuf_adds(&out, "Accept with `thatch sync --accept <id|all>`, "
		    "reject with `thatch sync --reject <id|all>`.\n");
	fputs(out.buf, stdout);
	sbuf_release(&out);
	return 0;
}

/*
 * --accept / --reject <id|all>: decide held memories; accepted ones get
 * their vectors as a sync's would.
 */
static int
decide_held(struct cli_ctx *ctx, const struct sync_opts *o, const char *v,
    bool accept)
{
	struct sync_report	 rep;
	long long		 id = 0;
	size_t			 n;
	char			*end;

	if (strcmp(v, "all") != 0 && ((id = strtoll(v, &end, 10)) <= 0 ||
	    *end != '\0')) {
		err_set(&ctx->err, "--%s takes a held memory's number or all, "
		    "not '%s'", accept ? "accept" : "reject", v);
		return CMD_USAGE;
	}
	if (sync_held_decide(ctx->store, o->store, id, accept, &n,
	    &ctx->err) != 0)
		return CMD_FAILED;
	if (n == 0) {
		err_set(&ctx->err, "no memory of %s held for review is %s "
		    "(thatch sync --review lists them)", o->store, v);
		return CMD_FAILED;
	}
	printf("[%s] %zu memor%s of %s\n", accept ? "accepted" : "rejected",
	    n, n == 1 ? "y" : "ies", o->store);
	if (!accept)
		return 0;
	sync_report_init(&rep);
	sync_embed_missing(ctx->store, o, &rep);
	add_unembedded(&rep.plan, "", &rep);
	if (rep.plan.len > 0)
		fputs(rep.plan.buf, stdout);
	sync_report_release(&rep);
	return 0;
}

/* --review, --accept, --reject. */
static int
review(struct cli_ctx *ctx, const struct sync_opts *o)
{
	const char	*v;

	if ((v = cli_opt(ctx, "--accept")) != NULL)
		return decide_held(ctx, o, v, true);
	if ((v = cli_opt(ctx, "--reject")) != NULL)
		return decide_held(ctx, o, v, false);
	return list_held(ctx, o->store);
}

static void
print_report(FILE *fp, const struct sync_opts *o,
    const struct sync_report *rep, const char *stamp)
{
	struct sbuf	 out = SBUF_INIT, pre = SBUF_INIT;

	sbuf_addf(&pre, "%s[thatch sync] ", stamp);
	utf8_addf(&out, "%s[%s] %s with %s: ", stamp, o->status ? "status" :
	    "synced", o->store, o->remote);
	if (o->status)
		sbuf_addf(&out, "%zu to send, %zu to receive\n", rep->sent,
		    rep->received);
	else if (rep->sent + rep->received == 0)
		sbuf_adds(&out, "up to date\n");
	else
		sbuf_addf(&out, "%zu sent, %zu received\n", rep->sent,
		    rep->received);
	if (o->status)
		add_lines(&out, "  ", rep->plan.buf, "");
	if (rep->archived > 0)
		sbuf_addf(&out, "%s%zu edited on both sides: the later edit "
		    "won, the other is kept archived\n", pre.buf,
		    rep->archived);
	add_lines(&out, pre.buf, rep->notes.buf, "");
	add_lines(&out, pre.buf, rep->secrets.buf,
	    " (thatch sync --force sends it)");
	add_unembedded(&out, pre.buf, rep);
	fputs(out.buf, fp);
	sbuf_release(&out);
	sbuf_release(&pre);
}

static int
cmd_sync_exec(struct cli_ctx *ctx, int argc, char **argv)
{
	struct lazy_model	 lm = { { 0 }, NULL };
	struct sync_opts	 o;
	struct sync_report	 rep;
	const char		*v, *remote = cli_opt(ctx, "--remote");
	bool			 bg = cli_flag(ctx, "--background");
	char			 now[CLOCK_ISO_LEN], stamp[CLOCK_ISO_LEN + 1];
	char			*lock_path;
	int			 rc = CMD_FAILED, lock;

	memset(&o, 0, sizeof(o));
	o.store = argc > 0 && *argv[0] != '\0' ? argv[0] :
	    cli_default_store(ctx);
	o.remote = remote != NULL && *remote != '\0' ? remote : "origin";
	if ((v = cli_opt(ctx, "--auto")) != NULL)
		return set_auto(ctx, o.store, o.remote, v);
	if ((v = cli_opt(ctx, "--private")) != NULL)
		return mark(ctx, o.store, v, true);
	if ((v = cli_opt(ctx, "--share")) != NULL)
		return mark(ctx, o.store, v, false);
	o.dir = ctx->paths.project_dir;
	lock_path = path_join(ctx->paths.db_dir, "sync.lock");
	if ((lock = fileio_lock_file(lock_path, &ctx->err)) < 0) {
		free(lock_path);
		return CMD_FAILED;
	}
	free(lock_path);
	o.now = clock_iso(clock_now(&ctx->clock), now);
	o.status = cli_flag(ctx, "--status");
	o.force = cli_flag(ctx, "--force");
	model_opts_init(&lm.o, &ctx->paths);
	lm.o.progress = !bg;
	o.embedder.open = open_model;
	o.embedder.embed = embed_passages;
	o.embedder.arg = &lm;
	if (cli_flag(ctx, "--review") || cli_opt(ctx, "--accept") != NULL ||
	    cli_opt(ctx, "--reject") != NULL) {
		rc = review(ctx, &o);
		goto out;
	}
	stamp[0] = '\0';
	if (bg)
		snprintf(stamp, sizeof(stamp), "%s ", now);
	sync_report_init(&rep);
	if (sync_run(ctx->store, &o, &rep, &ctx->err) == 0) {
		print_report(bg ? stderr : stdout, &o, &rep, stamp);
		rc = 0;
	} else if (bg)
		fprintf(stderr, "%s", stamp);	/* the failure line follows */
	sync_report_release(&rep);
out:
	model_close(lm.m);
	model_opts_release(&lm.o);
	close(lock);
	return rc;
}

static const struct cmd_opt sync_opts[] = {
	{ "--remote", "<remote>", "the git remote to sync with (default origin)" },
	{ "--status", NULL, "show what would be sent and received; change nothing" },
	{ "--force", NULL, "also send memories that look like secrets" },
	{ "--auto", "<on|off>", "sync in the background of the MCP server" },
	{ "--private", "<label>", "never send this memory" },
	{ "--share", "<label>", "let a private memory be sent again" },
	{ "--review", NULL, "list what teammates sent that is held for review" },
	{ "--accept", "<id|all>", "let a held memory in (see --review)" },
	{ "--reject", "<id|all>", "keep a held memory out for good" },
	{ "--background", NULL, "log instead of printing (the MCP server's)" },
	{ NULL, NULL, NULL },
};

const struct cmd_entry cmd_sync_entry = {
	.name = "sync",
	.args = "[store]",
	.max_args = 1,
	.opts = sync_opts,
	.reads = READS_PROJECT | READS_MODEL,
	.example = "thatch sync --status",
	.summary = "share the project's memories through its git remote",
	.flags = CMD_STORE,
	.exec = cmd_sync_exec,
};
