/*
 * cmd_search.c — `thatch search <query> [store|all]`: recall from the
 * command line (hosts-hooks-cli §1.3), one line per hit.
 *
 * Loads the model in-process (no sideband) and stamps recall telemetry:
 * a search by the user counts as a use (store-and-tools §5.3). A stamp
 * that fails (database locked) is one "[thatch] recall not recorded" line
 * on stderr; the hits are still printed and the exit status is 0.
 *  1. Scope: no store → the project store alone; `all` → the project
 *     store and global; any other name → that store, which must exist
 *     (an empty name is not checked, as in the original).
 *  2. Labels, stores and branches are printed with their control
 *     characters escaped (utf8_escape).
 *  3. Mistakes a user makes typing (too many words, a store that does not
 *     exist) print an `error:` line to stderr and exit 1 with stdout
 *     empty.
 *  4. Memories of the searched stores embedded by another model are
 *     counted and, if any, named in one stderr line with the fix
 *     (`thatch reembed`, tool_space_notice).
 */
#include "cli/cmd.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "core/anchor/anchor.h"
#include "core/store/store.h"
#include "tools/tool.h"
#include "tools/tool_memory.h"
#include "util/num.h"
#include "util/sbuf.h"
#include "util/utf8.h"

#define SEARCH_LIMIT	10

static int
add_name(const char *name, void *arg)
{
	struct sbuf	*sb = arg;

	utf8_addf(sb, "%s%s", sb->len ? ", " : "", name);
	return 0;
}

/* A query typed unquoted: a usage error that shows the quoted command. */
static int
too_many(struct cli_ctx *ctx, int argc, char **argv)
{
	struct sbuf	q = SBUF_INIT;
	int		i;

	for (i = 0; i < argc; i++)
		utf8_addf(&q, "%s%s", i ? " " : "", argv[i]);
	err_set(&ctx->err, "unexpected argument '%s'; quote multi-word "
	    "queries: thatch search \"%s\"", argv[2], q.buf);
	sbuf_release(&q);
	return CMD_USAGE;
}

/* 0 when store exists, 1 after telling the user it does not, or -1. */
static int
check_store(struct cli_ctx *ctx, const char *store)
{
	struct sbuf	names = SBUF_INIT;
	bool		found;

	if (store_has_store(ctx->store, store, &found, &ctx->err) != 0)
		return -1;
	if (found)
		return 0;
	if (store_list_stores(ctx->store, add_name, &names, &ctx->err) != 0) {
		sbuf_release(&names);
		return -1;
	}
	err_set(&ctx->err, "no store named \"%s\" (if it is part of the "
	    "query, quote the whole query); stores: %s", store, names.buf);
	sbuf_release(&names);
	return -1;
}

static void
print_hit(const struct store_hit *h, struct anchor_check *ck,
    struct sbuf *line)
{
	char	num[NUM_BUFSZ];

	sbuf_reset(line);
	utf8_addf(line, "[score:%s] %s[%s", num_fixed(h->score, 3, num),
	    h->lexical_only ? "[lexical] " : "", h->e.store);
	if (h->e.branch != NULL && *h->e.branch != '\0')
		utf8_addf(line, " branch:%s", h->e.branch);
	if (h->e.confidence != 0)
		utf8_addf(line, " c:%d", h->e.confidence);
	utf8_addf(line, "] %s", h->e.label);
	anchor_marks(ck, &h->e, line);
	sbuf_addc(line, '\n');
	fputs(line->buf, stdout);
}

/* {"stores": [...], "hits": [{memory..., "anchors"?, "score": s}, ...]},
 * best first. */
static void
print_json(struct cli_ctx *ctx, const struct store_query *q,
    const struct store_hits *hits)
{
	json_t	*doc = json_object(), *arr = json_array(), *o;
	size_t	 i;

	for (i = 0; i < q->nstores; i++)
		json_array_append_new(arr, cli_json_str(q->stores[i]));
	json_object_set_new(doc, "stores", arr);
	arr = json_array();
	for (i = 0; i < hits->n; i++) {
		o = cli_memory_json(ctx, &hits->v[i].e, false);
		json_object_set_new(o, "score", json_real(hits->v[i].score));
		json_array_append_new(arr, o);
	}
	json_object_set_new(doc, "hits", arr);
	cli_print_json(doc);
}

static int
cmd_search_exec(struct cli_ctx *ctx, int argc, char **argv)
{
	struct tool_ctx		 tools;
	struct store_hits	 hits = { NULL, 0 };
	struct sbuf		 line = SBUF_INIT;
	struct store_query	 q;
	struct anchor_check	*ck = NULL;
	const char		*stores[2];
	enum store_mode		 mode = STORE_HYBRID;
	size_t			 i;
	int			 rc;

	if (cli_opt(ctx, "--mode") != NULL &&
	    store_mode_parse(cli_opt(ctx, "--mode"), &mode) != 0) {
		err_set(&ctx->err, "--mode: '%s' is not hybrid, vector or "
		    "lexical", cli_opt(ctx, "--mode"));
		return CMD_USAGE;
	}
	if (*argv[0] == '\0') {
		err_set(&ctx->err, "empty query");
		return CMD_USAGE;
	}
	if (argc > 2)
		return too_many(ctx, argc, argv);
	memset(&q, 0, sizeof(q));
	q.stores = stores;
	q.limit = SEARCH_LIMIT;
	q.min_score = -2;
	q.mode = mode;
	stores[q.nstores++] = argc < 2 || strcmp(argv[1], "all") == 0 ?
	    cli_default_store(ctx) : argv[1];
	if (argc == 2 && strcmp(argv[1], "all") == 0)
		stores[q.nstores++] = "global";
	else if (argc == 2 && *argv[1] != '\0' &&
	    (rc = check_store(ctx, argv[1])) != 0)
		return CMD_FAILED;
	fputs("[thatch] loading the embedding model...\n", stderr);
	tool_ctx_init(&tools, ctx->store, cli_default_store(ctx), &ctx->paths);
	tools.clock = ctx->clock;
	rc = tool_memory_search(&tools, argv[0], &q, &hits, &ctx->err);
	if (rc == 1)
		fprintf(stderr, "[thatch] %s\n", ctx->err.msg);
	tool_space_notice(&tools, &q, &line);
	if (line.len > 0)
		fprintf(stderr, "%s\n", line.buf);
	sbuf_reset(&line);
	if (rc >= 0 && hits.n == 0 && !cli_flag(ctx, "--json")) {
		utf8_addf(&line, "No matches for \"%s\" in [", argv[0]);
		for (i = 0; i < q.nstores; i++)
			utf8_addf(&line, "%s%s", i ? ", " : "", stores[i]);
		utf8_addf(&line, "].\n");
		fputs(line.buf, stdout);
	}
	if (rc >= 0 && cli_flag(ctx, "--json"))
		print_json(ctx, &q, &hits);
	else if (rc >= 0 && hits.n > 0) {
		ck = anchor_check_open(ctx->store, ctx->paths.project_dir);
		for (i = 0; i < hits.n; i++)
			print_hit(&hits.v[i], ck, &line);
		anchor_check_close(ck);
	}
	sbuf_release(&line);
	store_hits_release(&hits);
	tool_ctx_release(&tools);
	return rc >= 0 ? 0 : CMD_FAILED;
}

static const struct cmd_opt search_opts[] = {
	{ "--mode", "MODE", "hybrid (default): meaning and exact words fused; "
	  "vector: meaning only; lexical: exact words only" },
	{ "--json", NULL, "print one JSON object: the stores searched and the hits" },
	{ NULL, NULL, NULL },
};

const struct cmd_entry cmd_search_entry = {
	.name = "search",
	.args = "<query> [store|all]",
	.min_args = 1,
	.max_args = CMD_ANY,
	.reads = READS_PROJECT | READS_MODEL,
	.opts = search_opts,
	.example = "thatch search \"how are tokens issued\" all",
	.summary = "search memories by meaning",
	.flags = CMD_STORE,
	.exec = cmd_search_exec,
};
