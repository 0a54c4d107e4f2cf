/*
 * cmd_model.c — `thatch model pull [id]` fetches the embedding model now
 * (instead of on first use); `thatch model info` shows which model is in
 * effect and where it lives, without downloading anything, and how many
 * rows of the database were embedded in another space (store_space.c).
 */
#include "cli/cmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/store/store.h"
#include "embed/model.h"
#include "util/err.h"
#include "util/xmalloc.h"

static void
print_info(const struct model *m)
{
	struct model_info	i;

	model_describe(m, &i);
	printf("model:      %s\n", i.tag);
	printf("folder:     %s\n", i.dir);
	printf("dimensions: %d\n", i.dim);
	printf("layers:     %d (%d heads)\n", i.layers, i.heads);
	printf("max tokens: %d\n", i.max_tokens);
	printf("dtype:      %s\n", i.dtype);
	printf("size:       %.1f MB\n", (double)i.bytes / 1e6);
	printf("threads:    %d\n", i.threads);
	printf("isa:        %s\n", i.isa);
}

/*
 * `model info`: the rows of the database (if there is one: info creates
 * nothing) stored in another embedding space than m's.
 */
static int
print_other_space(struct cli_ctx *ctx, const struct model *m)
{
	struct store_space_count	c;
	struct store_space		sp = { model_dim(m), model_tag(m) };

	if (access(ctx->paths.db_path, F_OK) != 0)
		return 0;
	if (cli_open_store(ctx) != 0 ||
	    store_count_other_space(ctx->store, NULL, &sp, &c, &ctx->err) != 0)
		return -1;
	if (c.memories + c.matchers + c.items == 0)
		printf("other space: none (every row is this model's)\n");
	else
		printf("other space: %lld memories, %lld matchers, %lld items; "
		    "run `thatch reembed`\n", c.memories, c.matchers, c.items);
	return 0;
}

static int
model_run(struct cli_ctx *ctx, const char *id, bool download)
{
	struct model_opts	 o;
	struct model		*m = NULL;
	int			 rc = CMD_FAILED;

	model_opts_init(&o, &ctx->paths);
	if (id != NULL) {
		free(o.id);
		o.id = xstrdup(id);
	}
	o.download = download;
	if (model_open(&o, &m, &ctx->err) == 0) {
		print_info(m);
		rc = download || print_other_space(ctx, m) == 0 ? 0 :
		    CMD_FAILED;
	}
	model_close(m);
	model_opts_release(&o);
	return rc;
}

static int
model_pull(struct cli_ctx *ctx, int argc, char **argv)
{
	if (argc > 1) {
		err_set(&ctx->err, "unexpected argument '%s'", argv[1]);
		return CMD_USAGE;
	}
	return model_run(ctx, argc == 1 ? argv[0] : NULL, true);
}

static int
model_info(struct cli_ctx *ctx, int argc, char **argv)
{
	if (argc != 0) {
		err_set(&ctx->err, "unexpected argument '%s'", argv[0]);
		return CMD_USAGE;
	}
	return model_run(ctx, NULL, false);
}

static const struct {
	const char	*name;
	int		(*exec)(struct cli_ctx *, int, char **);
} verbs[] = {
	{ "pull", model_pull },
	{ "info", model_info },
};

static int
cmd_model_exec(struct cli_ctx *ctx, int argc, char **argv)
{
	size_t	i;

	for (i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++) {
		if (strcmp(argv[0], verbs[i].name) == 0)
			return verbs[i].exec(ctx, argc - 1, argv + 1);
	}
	err_set(&ctx->err, "unknown verb '%s' (pull or info)", argv[0]);
	return CMD_USAGE;
}

const struct cmd_entry cmd_model_entry = {
	.name = "model",
	.args = "pull [id] | info",
	.min_args = 1,
	.max_args = 2,
	.reads = READS_MODEL,
	.example = "thatch model pull Xenova/bge-small-en-v1.5",
	.summary = "download the embedding model / show the one in use",
	.exec = cmd_model_exec,
};
