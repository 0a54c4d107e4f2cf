/*
 * tool_memory.c — the memory tools: remember, recall, list, show, forget and
 * store_list (store-and-tools §4.3-§4.8), and thatch's memory_move.
 *
 * Handlers turn validated arguments into store calls and format the text
 * the agent reads; the store does the SQL, the model the vectors.
 *  1. The passage embedded for a memory is "# <label>\n\n<content>" and is
 *     also what is stored as content (§4.3 step 2); queries are embedded
 *     as EMBED_QUERY (the BGE prefix, §7).
 *  2. Refusals (exists, archived, not found, no matches) are text with
 *     rc 0 and ctx->refused set for the writes; only store or model
 *     failures return -1.
 *  3. Output literals ([saved], [forgotten], " :: ", "-----", the meta
 *     fields) are byte-for-byte the original's (§0.3).
 *  4. Only memory_recall stamps recall telemetry (§5.3), and only as a
 *     side effect: the hits are the answer, so a stamp that fails (the
 *     database locked, the disk full) costs one "[thatch] recall not
 *     recorded" line after them, never the hits.
 */
#include "tools/tool_memory.h"

#include <stdlib.h>
#include <string.h>

#include "core/anchor/anchor.h"
#include "core/config.h"
#include "core/slug.h"
#include "core/store/store.h"
#include "text/fence.h"
#include "tools/budget/tool_cut.h"
#include "tools/budget/tool_fold.h"
#include "tools/budget/tool_list.h"
#include "tools/tool_rows.h"
#include "util/err.h"
#include "util/log.h"
#include "util/num.h"
#include "util/path.h"
#include "util/sbuf.h"
#include "util/xmalloc.h"

#define SIMILAR_THRESHOLD	0.85	/* §5.4 */
#define SIMILAR_LIMIT		3

static char *
label_slug(const char *label)
{
	return slug_make(label, strlen(label));
}

/*
 * After a memory was saved: record the anchors argument for it; without
 * the argument, an overwrite records the memory's anchors again against
 * the code as it is now (the agent rewrote it knowing the code).
 */
static int
remember_anchors(struct tool_ctx *ctx, const json_t *args,
    const char *store, const char *slug, const char *now, struct err *err)
{
	const json_t	 *arr = json_object_get(args, "anchors");
	const char	**specs;
	size_t		  i, n;
	int		  rc;

	if (arr == NULL)
		return tool_arg_bool(args, "overwrite") == 1 ?
		    anchor_record(ctx->store, store, slug, NULL, 0,
		    ctx->paths->project_dir, now, err) : 0;
	n = json_array_size(arr);
	specs = xcalloc(n > 0 ? n : 1, sizeof(*specs));
	for (i = 0; i < n; i++)
		specs[i] = json_string_value(json_array_get(arr, i));
	rc = anchor_record(ctx->store, store, slug, specs, n,
	    ctx->paths->project_dir, now, err);
	free(specs);
	return rc;
}

/* Whether every anchor given is a path inside the repository (checked
 * before anything is written). */
static int
check_anchors(const json_t *args, struct err *err)
{
	json_t	*v;
	size_t	 i;
	char	*path, *symbol;

	json_array_foreach(json_object_get(args, "anchors"), i, v) {
		if (anchor_parse(json_string_value(v), &path, &symbol,
		    err) != 0)
			return -1;
		free(path);
		free(symbol);
	}
	return 0;
}

/* The write-time near-duplicate warning of §4.3 step 8. */
static void
add_similar(struct sbuf *out, const struct store_hits *sim)
{
	char	num[NUM_BUFSZ];
	size_t	i;

	sbuf_adds(out, "\n\n\u26a0 This memory is semantically close to "
	    "existing memories:\n");
	for (i = 0; i < sim->n; i++)
		sbuf_addf(out, "  - \"%s\" (similarity %s)\n",
		    sim->v[i].e.label,
		    num_js(num_round3(sim->v[i].score), num));
	sbuf_adds(out, "\nReview them with memory_show, then either merge "
	    "them (memory_remember with overwrite: true on one, "
	    "memory_forget on the other) or record that they are distinct "
	    "with dedup_mark_checked.");
}

static int
memory_remember(struct tool_ctx *ctx, const json_t *args, struct sbuf *out,
    struct err *err)
{
	const char		*store = tool_target_store(ctx, args);
	const char		*label = tool_arg_str(args, "label", "");
	const char		*content = tool_arg_str(args, "content", "");
	struct sbuf		 text = SBUF_INIT;
	struct store_hits	 sim = { NULL, 0 };
	struct store_query	 q;
	struct store_write	 w;
	enum store_write_result	 res;
	char			 now[CLOCK_ISO_LEN], *slug = NULL;
	float			*vec;
	int			 dim, rc = -1;

	if (check_anchors(args, err) != 0) {
		sbuf_adds(out, err->msg);
		ctx->refused = true;
		return 0;
	}
	sbuf_addf(&text, "# %s\n\n%s", label, content);
	if ((vec = tool_embed(ctx, text.buf, EMBED_PASSAGE, &dim, err)) == NULL)
		goto out;
	slug = label_slug(label);
	memset(&q, 0, sizeof(q));
	q.stores = &store;
	q.nstores = 1;
	q.vec = vec;
	q.dim = dim;
	q.limit = SIMILAR_LIMIT;
	q.exclude_slug = slug;
	q.min_score = SIMILAR_THRESHOLD;
	q.rank_round3 = true;
	if (store_search(ctx->store, &q, &sim, err) != 0)
		goto out;
	memset(&w, 0, sizeof(w));
	w.store = store;
	w.slug = slug;
	w.label = label;
	w.content = text.buf;
	w.vec = vec;
	w.dim = dim;
	w.model = model_tag(ctx->model);
	w.branch = tool_arg_str(args, "branch", NULL);
	w.confidence = (int)tool_arg_int(args, "confidence", 0);
	w.archived = tool_arg_bool(args, "archived");
	w.overwrite = tool_arg_bool(args, "overwrite") == 1;
	w.now = clock_iso(clock_now(&ctx->clock), now);
	/* issue 31: the provenance follows the write (not atomic with it:
	 * store_remember owns its transaction) */
	if (store_remember(ctx->store, &w, &res, err) != 0 ||
	    (res == STORE_SAVED && store_origin_set(ctx->store, store, slug,
	    ctx->cli ? STORE_ORIGIN_CLI : STORE_ORIGIN_AGENT, NULL, NULL,
	    err) != 0))
		goto out;
	rc = 0;
	ctx->refused = res != STORE_SAVED;
	switch (res) {
	case STORE_EXISTS:
		sbuf_addf(out, "A memory labeled \"%s\" already exists in "
		    "store \"%s\". Pass overwrite: true to replace it.", label,
		    store);
		break;
	case STORE_ARCHIVED:
		sbuf_addf(out, "\"%s\" is archived. Pass archived: true to "
		    "keep it archived, or archived: false to unarchive it.",
		    label);
		break;
	case STORE_SAVED:
		sbuf_addf(out, "[saved] %s :: %s", store, label);
		if (sim.n > 0)
			add_similar(out, &sim);
		if (remember_anchors(ctx, args, store, slug, now, err) != 0)
			sbuf_addf(out, "\n\n[thatch] anchors not recorded: %s",
			    err->msg);
		break;
	}
out:
	store_hits_release(&sim);
	sbuf_release(&text);
	free(slug);
	free(vec);
	return rc;
}

/* " [from … via …]" for a memory that is not the user's own (issue 31). */
static void
add_origin(struct store *st, const struct store_entry *e, struct sbuf *out)
{
	size_t	at = out->len;

	sbuf_addc(out, ' ');
	if (!store_origin_lookup_tag(st, e->store, e->slug, out))
		sbuf_setlen(out, at);
}

static void
add_recall_hit(struct store *st, struct sbuf *out, const struct store_hit *h,
    struct anchor_check *ck, size_t cut)
{
	const struct store_entry	*e = &h->e;
	char				 num[NUM_BUFSZ];

	/* issue 31: stored fields are fenced, never spliced into the frame */
	sbuf_adds(out, "[store:");
	text_fence_field(out, e->store);
	if (e->branch != NULL && *e->branch != '\0') {
		sbuf_adds(out, " branch:");
		text_fence_field(out, e->branch);
	}
	if (e->confidence != 0)
		sbuf_addf(out, " confidence:%d", e->confidence);
	if (e->archived)
		sbuf_adds(out, " archived:true");
	if (e->updated_at != NULL) {
		sbuf_adds(out, " updated:");
		text_fence_field(out, e->updated_at);
	}
	sbuf_addf(out, "] [score:%s]%s", num_fixed(h->score, 3, num),
	    h->lexical_only ? " [lexical]" : "");
	add_origin(st, e, out);
	anchor_marks(ck, e, out);
	sbuf_adds(out, "\n");
	tool_cut_content(out, e->content ? e->content : "", e->label,
	    e->store, cut);
}

/*
 * How many bytes each shown hit's content may take (tool_cut_share), in
 * the order they are shown: the hits folded into a better one show none.
 */
static size_t *
recall_shares(const struct store_hits *hits, const size_t *into,
    const struct config_recall *cfg)
{
	size_t	*len = xcalloc(hits->n + 1, sizeof(*len));
	size_t	*share = xcalloc(hits->n + 1, sizeof(*share));
	size_t	 i, n = 0;

	for (i = 0; i < hits->n; i++)
		if (into[i] == TOOL_FOLD_NONE)
			len[n++] = hits->v[i].e.content != NULL ?
			    strlen(hits->v[i].e.content) : 0;
	tool_cut_share(len, n, cfg->cut > 0 ? (size_t)cfg->cut :
	    TOOL_RECALL_CUT, cfg->budget > 0 ? (size_t)cfg->budget :
	    TOOL_RECALL_BUDGET, share);
	free(len);
	return share;
}

/*
 * The hits, best first, each near-duplicate of a better one folded into a
 * line under it (tool_fold.c), their contents within the recall's budget.
 * Without the hits' vectors nothing is folded: the recall itself must not
 * fail for it.
 */
static void
add_recall_hits(struct tool_ctx *ctx, struct store_hits *hits,
    struct sbuf *out, const struct config_recall *cfg)
{
	struct anchor_check	*ck;
	struct err		 err;
	size_t			*into = xcalloc(hits->n, sizeof(*into)), i, k;
	size_t			*share, shown = 0;

	for (i = 0; i < hits->n; i++)
		into[i] = TOOL_FOLD_NONE;
	/* the search embedded the query, so the model is loaded */
	if (ctx->model != NULL) {
		if (store_hits_vectors(ctx->store, hits, &err) == 0)
			tool_fold_hits(hits, model_tag(ctx->model),
			    model_dim(ctx->model), into);
		else
			log_debug("search:fold", "%s", err.msg);
	}
	share = recall_shares(hits, into, cfg);
	ck = anchor_check_open(ctx->store, ctx->paths->project_dir);
	for (i = 0; i < hits->n; i++) {
		if (into[i] != TOOL_FOLD_NONE)
			continue;
		if (shown > 0)
			sbuf_adds(out, "\n\n-----\n\n");
		add_recall_hit(ctx->store, out, &hits->v[i], ck,
		    share[shown++]);
		for (k = i + 1; k < hits->n; k++)
			if (into[k] == i)
				tool_fold_line(out, &hits->v[k]);
	}
	anchor_check_close(ck);
	free(share);
	free(into);
}

/* What a search does beside the model's work (tool_embed_while): its
 * lexical ranking, and in a cold process the vector file's mapping. */
struct lexical_job {
	struct store			*st;
	const struct store_query	*q;
	struct store_lexical		*l;
};

static int
lexical_job_run(void *arg, struct err *err)
{
	struct lexical_job	*j = arg;
	struct err		 ignored;

	if (store_lexical_rank(j->st, j->q, &j->l, err) != 0)
		return -1;
	if (store_search_preload(j->st, &ignored) != 0)
		log_debug("search:recall", "vector file not preloaded: %s",
		    ignored.msg);
	return 0;
}

int
tool_memory_search(struct tool_ctx *ctx, const char *query,
    struct store_query *q, struct store_hits *hits, struct err *err)
{
	struct lexical_job	 job = { ctx->store, q, NULL };
	char			 now[CLOCK_ISO_LEN];
	float			*vec = NULL;
	int			 dim, rc = -1;

	q->text = query;
	q->vec = NULL;
	/* the ranking needs no vector, the model no store */
	if ((vec = tool_embed_while(ctx, query, EMBED_QUERY, &dim,
	    lexical_job_run, &job, err)) == NULL)
		goto out;
	q->vec = vec;
	q->dim = dim;
	if (store_search_ranked(ctx->store, q, job.l, hits, err) != 0)
		goto out;
	log_debug("search:recall", "%zu store(s), %zu hit(s)", q->nstores,
	    hits->n);
	rc = hits->n > 0 && store_stamp_recall(ctx->store, hits,
	    clock_iso(clock_now(&ctx->clock), now), err) != 0;
out:
	q->vec = NULL;
	store_lexical_free(job.l);
	free(vec);
	return rc;
}

int
tool_nudge_matches(struct tool_ctx *ctx, const struct store_query *q,
    double threshold, struct store_hits *hits, struct err *err)
{
	struct store_query	hq = *q;
	size_t			i, n = 0;

	/* read past the fused rows the threshold drops */
	hq.limit = q->limit > TOOL_NUDGE_READ ? q->limit : TOOL_NUDGE_READ;
	if (store_search(ctx->store, &hq, hits, err) != 0)
		return -1;
	for (i = 0; i < hits->n; i++) {
		if (n < (size_t)q->limit && (hits->v[i].score >= threshold ||
		    hits->v[i].lexical == STORE_LEX_IDENT))
			hits->v[n++] = hits->v[i];
		else
			store_entry_release(&hits->v[i].e);
	}
	hits->n = n;
	return 0;
}

void
tool_space_notice(struct tool_ctx *ctx, const struct store_query *q,
    struct sbuf *out)
{
	struct store_space_count	 c;
	struct store_space		 sp;
	struct err			 err;
	long long			 n = 0;
	size_t				 i;

	if (ctx->space_checked || ctx->model == NULL)
		return;
	ctx->space_checked = true;
	sp.dim = model_dim(ctx->model);
	sp.tag = model_tag(ctx->model);
	for (i = 0; i < q->nstores; i++) {
		if (i == 1 && strcmp(q->stores[0], q->stores[1]) == 0)
			break;
		if (store_count_other_space(ctx->store, q->stores[i], &sp, &c,
		    &err) != 0) {
			log_debug("search:space", "%s", err.msg);
			return;
		}
		n += c.memories;
	}
	if (n > 0)
		sbuf_addf(out, "[thatch] %lld memor%s here %s embedded by "
		    "another model than %s, so search by meaning cannot rank "
		    "%s: run `thatch reembed` to embed %s again.", n,
		    n == 1 ? "y" : "ies", n == 1 ? "was" : "were", sp.tag,
		    n == 1 ? "it" : "them", n == 1 ? "it" : "them");
}

static int
memory_recall(struct tool_ctx *ctx, const json_t *args, struct sbuf *out,
    struct err *err)
{
	const char		*store = tool_arg_str(args, "store", "");
	const char		*stores[2];
	struct store_hits	 hits = { NULL, 0 };
	struct store_query	 q;
	struct sbuf		 notice;
	struct config		 cfg;
	int			 rc = -1, found;

	/* config.json's recall {limit, cut, budget}; an argument still wins */
	tool_config_read(ctx, &cfg);
	memset(&q, 0, sizeof(q));
	q.stores = stores;
	if (*store != '\0') {
		stores[0] = store;
		q.nstores = 1;
	} else {
		/* §2.6: recall does not map "unknown" to global */
		stores[0] = ctx->default_store ? ctx->default_store : "unknown";
		stores[1] = "global";
		q.nstores = 2;
	}
	q.branch = tool_arg_str(args, "branch", NULL);
	q.limit = (int)tool_arg_int(args, "limit", cfg.recall.limit > 0 ?
	    cfg.recall.limit : TOOL_RECALL_LIMIT);
	q.include_archived = tool_arg_bool(args, "includeArchived") == 1;
	q.min_score = -2;
	if (store_mode_parse(tool_arg_str(args, "mode", "hybrid"), &q.mode) !=
	    0) {
		err_set(err, "mode must be hybrid, vector or lexical");
		goto out;
	}
	if ((found = tool_memory_search(ctx, tool_arg_str(args, "query", ""),
	    &q, &hits, err)) < 0)
		goto out;
	if (hits.n == 0)
		sbuf_adds(out, "No matching memories found.");
	else
		add_recall_hits(ctx, &hits, out, &cfg.recall);
	if (found == 1)
		sbuf_addf(out, "\n\n[thatch] %s", err->msg);
	sbuf_init(&notice);
	tool_space_notice(ctx, &q, &notice);
	if (notice.len > 0)
		sbuf_addf(out, "\n\n%s", notice.buf);
	sbuf_release(&notice);
	rc = 0;
out:
	config_release(&cfg);
	store_hits_release(&hits);
	return rc;
}

static int
memory_list(struct tool_ctx *ctx, const json_t *args, struct sbuf *out,
    struct err *err)
{
	const char		*store = tool_target_store(ctx, args);
	struct tool_list_walk	 w = { out, 0, 0 };
	bool			 paged;

	if (tool_memory_list_page(ctx, args, store, out, &paged, err) != 0)
		return -1;
	if (paged)
		return 0;
	if (store_list_lines(ctx->store, store, tool_memory_list_line, &w,
	    err) != 0)
		return -1;
	if (w.n == 0)
		sbuf_addf(out, "No memories in \"%s\".", store);
	return 0;
}

static void
add_not_found(struct sbuf *out, const char *label, const char *store)
{
	sbuf_addf(out, "No memory labeled \"%s\" in store \"%s\".", label,
	    store);
}

static int
memory_show(struct tool_ctx *ctx, const json_t *args, struct sbuf *out,
    struct err *err)
{
	const char		*store = tool_target_store(ctx, args);
	const char		*label = tool_arg_str(args, "label", "");
	struct store_entry	 e;
	char			*slug = label_slug(label);
	bool			 found;
	int			 rc;

	memset(&e, 0, sizeof(e));
	rc = store_get(ctx->store, store, slug, &e, &found, err);
	free(slug);
	if (rc != 0)
		return -1;
	if (!found) {
		add_not_found(out, label, store);
		return 0;
	}
	sbuf_addc(out, '[');
	text_fence_field(out, e.store);
	sbuf_addc(out, ']');
	if (e.branch != NULL && *e.branch != '\0') {
		sbuf_adds(out, " branch:");
		text_fence_field(out, e.branch);
	}
	if (e.confidence != 0)
		sbuf_addf(out, " confidence:%d", e.confidence);
	if (e.archived)
		sbuf_adds(out, " archived:true");
	sbuf_adds(out, " created:");
	text_fence_field(out, e.created_at);
	sbuf_adds(out, " updated:");
	text_fence_field(out, e.updated_at);
	add_origin(ctx->store, &e, out);
	sbuf_adds(out, "\n\n");
	text_fence_body(out, e.content);
	anchor_show(ctx->store, ctx->paths->project_dir, store, e.slug,
	    out);
	store_entry_release(&e);
	return 0;
}

static int
memory_forget(struct tool_ctx *ctx, const json_t *args, struct sbuf *out,
    struct err *err)
{
	const char	*store = tool_target_store(ctx, args);
	const char	*label = tool_arg_str(args, "label", "");
	char		*slug = label_slug(label);
	bool		 found;
	int		 rc;

	rc = store_forget(ctx->store, store, slug, &found, err);
	free(slug);
	if (rc != 0)
		return -1;
	if (found)
		sbuf_addf(out, "[forgotten] %s :: %s", store, label);
	else
		add_not_found(out, label, store);
	return 0;
}

static int
memory_move(struct tool_ctx *ctx, const json_t *args, struct sbuf *out,
    struct err *err)
{
	const char		*from = tool_target_store(ctx, args);
	const char		*to = tool_arg_str(args, "to", "");
	const char		*label = tool_arg_str(args, "label", "");
	enum store_move_result	 res = STORE_MOVE_MISSING;
	char			*slug = label_slug(label);
	int			 rc = 0;

	if (strcmp(to, "unknown") == 0)
		to = "global";		/* §2.6, as every store argument */
	if (strcmp(from, to) == 0)
		sbuf_addf(out, "\"%s\" is already in store \"%s\"; nothing "
		    "moved.", label, to);
	else if ((rc = store_move(ctx->store, from, slug, to, &res, err)) != 0)
		res = STORE_MOVE_MISSING;
	else if (res == STORE_MOVED)
		sbuf_addf(out, "[moved] %s :: %s (from %s)", to, label, from);
	else if (res == STORE_MOVE_TAKEN)
		sbuf_addf(out, "A memory labeled \"%s\" already exists in "
		    "store \"%s\"; nothing moved. Merge the two (memory_show "
		    "both, memory_remember with overwrite: true, then "
		    "memory_forget) instead.", label, to);
	else
		add_not_found(out, label, from);
	ctx->refused = rc == 0 && res != STORE_MOVED;
	free(slug);
	return rc;
}

static int
add_store_line(const char *name, void *arg)
{
	struct sbuf	*out = arg;

	sbuf_addf(out, "%s- %s", out->len ? "\n" : "", name);
	return 0;
}

static int
list_stores(struct tool_ctx *ctx, const json_t *args, struct sbuf *out,
    struct err *err)
{
	size_t	start = out->len;

	(void)args;
	if (store_list_stores(ctx->store, add_store_line, out, err) != 0)
		return -1;
	if (out->len == start)
		sbuf_adds(out, "No stores.");
	return 0;
}

/* ---- Rows -------------------------------------------------------------- */

static const struct tool_arg remember_args[] = {
	{ .name = "label", .type = ARG_STRING,
	  .flags = ARG_REQUIRED | ARG_NONBLANK,
	  .description = "Short unique title" },
	{ .name = "content", .type = ARG_STRING, .flags = ARG_REQUIRED,
	  .description = "One self-contained fact, decision or preference" },
	TOOL_ARG_STORE,
	{ .name = "branch", .type = ARG_STRING,
	  .description = "Only for this git branch" },
	{ .name = "confidence", .type = ARG_INTEGER, .flags = ARG_MIN | ARG_MAX,
	  .min = 1, .max = 10,
	  .description = "1 (a guess) to 10 (verified)" },
	{ .name = "overwrite", .type = ARG_BOOLEAN,
	  .description = "Replace the memory with this label" },
	{ .name = "archived", .type = ARG_BOOLEAN,
	  .description = "Hide from recall (false: unhide); needed to "
	    "overwrite an archived memory" },
	{ .name = "anchors", .type = ARG_STRINGS,
	  .description = "Code it describes: \"src/a.c\", \"src/a.c#fn\", "
	    "\"src/a.c:L10-L20\"; recall flags the memory when it changes" },
	{ .name = NULL }
};

const struct tool tool_memory_remember = {
	.name = "memory_remember",
	.family = "memory",
	.title = "Save a memory",
	.description = "Save a memory for later sessions; warns about "
	    "similar ones.",
	.args = remember_args,
	.flags = TOOL_MCP,
	.run = memory_remember,
};

static const struct tool_arg recall_args[] = {
	{ .name = "query", .type = ARG_STRING, .flags = ARG_REQUIRED,
	  .description = "What you are looking for" },
	TOOL_ARG_STORES,
	{ .name = "branch", .type = ARG_STRING,
	  .description = "Also this branch's memories" },
	{ .name = "limit", .type = ARG_INTEGER, .flags = ARG_MIN | ARG_MAX,
	  .min = 1, .max = 20,
	  .description = "Default 10" },
	{ .name = "includeArchived", .type = ARG_BOOLEAN,
	  .description = "Also archived" },
	{ .name = "mode", .type = ARG_STRING,
	  .description = "hybrid (default), vector (meaning) or lexical "
	    "(exact words)" },
	{ .name = NULL }
};

const struct tool tool_memory_recall = {
	.name = "memory_recall",
	.family = "memory",
	.title = "Recall memories",
	.description = "Find memories by meaning and exact names, best "
	    "first, with content.",
	.args = recall_args,
	.flags = TOOL_MCP | TOOL_READONLY,
	.run = memory_recall,
};

static const struct tool_arg list_args[] = {
	TOOL_ARG_STORE,
	{ .name = "limit", .type = ARG_INTEGER, .flags = ARG_MIN | ARG_MAX,
	  .min = 1, .max = TOOL_LIST_MAX,
	  .description = "Default 50" },
	{ .name = "offset", .type = ARG_INTEGER, .flags = ARG_MIN, .min = 0,
	  .description = "Skip this many" },
	{ .name = "prefix", .type = ARG_STRING,
	  .description = "Label prefix" },
	{ .name = "branch", .type = ARG_STRING,
	  .description = "Only this branch's memories" },
	{ .name = NULL }
};

const struct tool tool_memory_list = {
	.name = "memory_list",
	.family = "memory",
	.title = "List memories",
	.description = "Page through a store's labels, newest first.",
	.args = list_args,
	.flags = TOOL_MCP | TOOL_READONLY,
	.run = memory_list,
};

static const struct tool_arg label_args[] = {
	{ .name = "label", .type = ARG_STRING, .flags = ARG_REQUIRED,
	  .description = "Its label" },
	TOOL_ARG_STORE,
	{ .name = NULL }
};

const struct tool tool_memory_show = {
	.name = "memory_show",
	.family = "memory",
	.title = "Show a memory",
	.description = "Show one memory in full, by label.",
	.args = label_args,
	.flags = TOOL_MCP | TOOL_READONLY | TOOL_UNCAPPED,
	.run = memory_show,
};

const struct tool tool_memory_forget = {
	.name = "memory_forget",
	.family = "memory",
	.title = "Forget a memory",
	.description = "Delete one memory, by label.",
	.args = label_args,
	.flags = TOOL_MCP | TOOL_DESTRUCTIVE,
	.run = memory_forget,
};

static const struct tool_arg move_args[] = {
	{ .name = "label", .type = ARG_STRING, .flags = ARG_REQUIRED,
	  .description = "Its label" },
	{ .name = "to", .type = ARG_STRING,
	  .flags = ARG_REQUIRED | ARG_NONBLANK,
	  .description = "Target store (\"global\": every project)" },
	TOOL_ARG_STORE,
	{ .name = NULL }
};

const struct tool tool_memory_move = {
	.name = "memory_move",
	.family = "memory",
	.title = "Move a memory",
	.description = "Move a memory to another store, history and all.",
	.args = move_args,
	.flags = TOOL_MCP,
	.run = memory_move,
};

static const struct tool_arg no_args[] = {
	{ .name = NULL }
};

const struct tool tool_store_list = {
	.name = "store_list",
	.family = "memory",
	.title = "List stores",
	.description = "List the stores and their sizes.",
	.args = no_args,
	.flags = TOOL_MCP | TOOL_READONLY,
	.run = list_stores,
};
