/*
 * cmd_hygiene.c — `thatch hygiene`: the hygiene report of the project
 * store (hosts-hooks-cli §1.3, §7.2), or exactly `Store is healthy.`
 * [deviation] a failure prints `[thatch hygiene] failed: …` and exits 1
 * where the original crashed.
 */
#include "cli/cmd.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "core/hygiene.h"
#include "core/repo.h"
#include "core/repo_cache.h"
#include "util/sbuf.h"

static bool
is_live(const char *branch, char **live, size_t nlive)
{
	size_t	i;

	for (i = 0; i < nlive; i++)
		if (strcmp(branch, live[i]) == 0)
			return true;
	return false;
}

/*
 * --json: {"store", "report" (the line, null when healthy),
 * "duplicate_pairs", "stale", "stale_before", "deleted_branches":
 * [{"branch", "memories"}] (null when the worktree's branches are unknown)}.
 */
static void
print_json(const char *repo, const struct hygiene_facts *f, char **live,
    size_t nlive, const struct sbuf *line)
{
	json_t	*doc = json_object(), *b, *arr;
	size_t	 i;

	arr = nlive > 0 ? json_array() : json_null();
	json_object_set_new(doc, "store", cli_json_str(repo));
	json_object_set_new(doc, "report", line->len > 0 ?
	    cli_json_str(line->buf) : json_null());
	json_object_set_new(doc, "duplicate_pairs",
	    json_integer((json_int_t)f->dups));
	json_object_set_new(doc, "stale", json_integer(f->stale));
	json_object_set_new(doc, "stale_before", json_string(f->cutoff));
	for (i = 0; nlive > 0 && i < f->nbranches; i++) {
		if (is_live(f->branches[i].name, live, nlive) ||
		    f->branches[i].nlive == 0)
			continue;
		b = json_object();
		json_object_set_new(b, "branch",
		    cli_json_str(f->branches[i].name));
		json_object_set_new(b, "memories",
		    json_integer(f->branches[i].nlive));
		json_array_append_new(arr, b);
	}
	json_object_set_new(doc, "deleted_branches", arr);
	cli_print_json(doc);
}

static int
cmd_hygiene_exec(struct cli_ctx *ctx, int argc, char **argv)
{
	struct repo_cache_sql	 cache;
	struct hygiene_facts	 f;
	struct sbuf		 out = SBUF_INIT;
	const char		*repo = cli_default_store(ctx);
	char			**live;
	size_t			 nlive;
	int			 rc;

	(void)argc;
	(void)argv;
	repo_cache_init(&cache, ctx->store, &ctx->clock);
	repo_branches(ctx->paths.project_dir, &cache.cache, &live, &nlive);
	rc = hygiene_scan(ctx->store, repo, clock_now(&ctx->clock), true, &f,
	    &ctx->err);
	if (rc == 0) {
		hygiene_format(&f, repo, (const char *const *)live, nlive,
		    &out);
		if (cli_flag(ctx, "--json"))
			print_json(repo, &f, live, nlive, &out);
		else
			puts(out.len > 0 ? out.buf : "Store is healthy.");
		hygiene_facts_release(&f);
	}
	sbuf_release(&out);
	repo_branches_free(live, nlive);
	return rc == 0 ? 0 : CMD_FAILED;
}

static const struct cmd_opt hygiene_opts[] = {
	{ "--json", NULL, "print one JSON object: the report and the counts "
	    "behind it" },
	{ NULL, NULL, NULL },
};

const struct cmd_entry cmd_hygiene_entry = {
	.name = "hygiene",
	.args = "",
	.max_args = 0,
	.env = "CLAUDE_PROJECT_DIR CURSOR_PROJECT_DIR",
	.opts = hygiene_opts,
	.example = "thatch hygiene",
	.summary = "report duplicate, stale and orphaned memories",
	.flags = CMD_STORE,
	.exec = cmd_hygiene_exec,
};
