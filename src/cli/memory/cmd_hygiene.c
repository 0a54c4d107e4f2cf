/*
 * cmd_hygiene.c — `thatch hygiene`: the hygiene report of the project
 * store (hosts-hooks-cli §1.3, §7.2), or exactly `Store is healthy.`
 * [deviation] a failure prints `[thatch hygiene] failed: …` and exits 1
 * where the original crashed. --list (issue 15) adds the memories behind
 * each signal, from core's hygiene_list, which the store_hygiene tool
 * prints too.
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
 * "duplicate_pairs", "stale", "stale_before", "drifted", "deleted_branches":
 * [{"branch", "memories"}] (null when the worktree's branches are unknown)}.
 */
static json_t *
str_or_null(const char *s)
{
	return s != NULL ? cli_json_str(s) : json_null();
}

static json_t *
memories_json(const struct hygiene_memories *ms, bool branch)
{
	json_t	*arr = json_array(), *o;
	size_t	 i;

	for (i = 0; i < ms->n; i++) {
		o = json_object();
		json_object_set_new(o, "label", cli_json_str(ms->v[i].label));
		if (branch)
			json_object_set_new(o, "branch",
			    str_or_null(ms->v[i].branch));
		else {
			json_object_set_new(o, "updated_at",
			    str_or_null(ms->v[i].updated_at));
			json_object_set_new(o, "last_recalled_at",
			    str_or_null(ms->v[i].last_recalled_at));
		}
		json_array_append_new(arr, o);
	}
	return arr;
}

static json_t *
drifts_json(const struct anchor_drifts *ds)
{
	json_t	*arr = json_array();
	size_t	 i;

	for (i = 0; i < ds->n; i++)
		json_array_append_new(arr, json_pack("{s:o, s:o, s:o, s:o}",
		    "label", cli_json_str(ds->v[i].label),
		    "branch", str_or_null(ds->v[i].branch),
		    "files", cli_json_str(ds->v[i].files),
		    "commits", str_or_null(ds->v[i].commits)));
	return arr;
}

/* --list --json: "duplicates": [{"label_a", "label_b", "similarity"}],
 * "stale_memories": [{"label", "updated_at", "last_recalled_at"}],
 * "orphaned_memories": [{"label", "branch"}], "drifted_memories":
 * [{"label", "branch", "files", "commits"}]. */
static void
add_list_json(json_t *doc, const struct hygiene_list *l)
{
	const struct dedup_pair	*p;
	json_t			*dups = json_array();
	size_t			 i;

	for (i = 0; i < l->dups.npairs; i++) {
		p = &l->dups.pairs[i];
		json_array_append_new(dups, json_pack("{s:o, s:o, s:f}",
		    "label_a", cli_json_str(l->dups.m.labels[p->a]),
		    "label_b", cli_json_str(l->dups.m.labels[p->b]),
		    "similarity", p->score));
	}
	json_object_set_new(doc, "duplicates", dups);
	json_object_set_new(doc, "stale_memories",
	    memories_json(&l->stale, false));
	json_object_set_new(doc, "orphaned_memories",
	    memories_json(&l->orphaned, true));
	json_object_set_new(doc, "drifted_memories", drifts_json(&l->drifted));
}

static void
print_json(const char *repo, const struct hygiene_facts *f, char **live,
    size_t nlive, const struct sbuf *line, const struct hygiene_list *l)
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
	json_object_set_new(doc, "drifted", json_integer((json_int_t)
	    f->drifted));
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
	if (l != NULL)
		add_list_json(doc, l);
	cli_print_json(doc);
}

static int
cmd_hygiene_exec(struct cli_ctx *ctx, int argc, char **argv)
{
	struct repo_cache_sql	 cache;
	struct hygiene_list	 l;
	struct sbuf		 out = SBUF_INIT;
	const char		*repo = cli_default_store(ctx);
	char			**live;
	size_t			 nlive;
	bool			 list = cli_flag(ctx, "--list");
	int			 rc;

	(void)argc;
	(void)argv;
	repo_cache_init(&cache, ctx->store, &ctx->clock);
	repo_branches(ctx->paths.project_dir, &cache.cache, &live, &nlive);
	/* without --list only the counts: a store of near-identical
	 * memories has n²/2 pairs */
	memset(&l, 0, sizeof(l));
	rc = list ? hygiene_list(ctx->store, repo, (const char *const *)live,
	    nlive, clock_now(&ctx->clock), &l, &ctx->err) :
	    hygiene_scan(ctx->store, repo, clock_now(&ctx->clock), true,
	    &l.facts, &ctx->err);
	if (rc == 0) {
		hygiene_drift(ctx->store, repo, ctx->paths.project_dir,
		    &l.facts, list ? &l.drifted : NULL);
		hygiene_format(&l.facts, repo, (const char *const *)live,
		    nlive, &out);
		if (cli_flag(ctx, "--json"))
			print_json(repo, &l.facts, live, nlive, &out,
			    list ? &l : NULL);
		else if (out.len == 0)
			puts("Store is healthy.");
		else {
			sbuf_adds(&out, list ? "\n\n" : "\n");
			if (list)
				hygiene_list_format(&l, &out);
			fputs(out.buf, stdout);
		}
		hygiene_list_release(&l);
	}
	sbuf_release(&out);
	repo_branches_free(live, nlive);
	return rc == 0 ? 0 : CMD_FAILED;
}

static const struct cmd_opt hygiene_opts[] = {
	{ "--list", NULL, "name the memories behind each signal: duplicate "
	    "pairs with their similarity, stale memories with their last "
	    "update and recall, memories of deleted branches with the branch, "
	    "memories whose code changed with the files and commits since" },
	{ "--json", NULL, "print one JSON object: the report and the counts "
	    "behind it (with --list, the memories too)" },
	{ NULL, NULL, NULL },
};

const struct cmd_entry cmd_hygiene_entry = {
	.name = "hygiene",
	.args = "",
	.max_args = 0,
	.reads = READS_PROJECT,
	.opts = hygiene_opts,
	.example = "thatch hygiene --list",
	.summary = "report duplicate, stale, orphaned and drifted memories",
	.flags = CMD_STORE,
	.exec = cmd_hygiene_exec,
};
