/*
 * cli.c — what every subcommand is handed.
 *
 * The context is the only state a command sees (DESIGN principle 5):
 * environment-derived paths are computed once here, so every subcommand,
 * hook and the MCP server agree on the same DB path and socket.
 */
#include "cli/cli.h"

#include <stdlib.h>
#include <string.h>

#include "core/repo.h"
#include "core/repo_cache.h"
#include "core/slug.h"
#include "core/store.h"

void
cli_ctx_init(struct cli_ctx *ctx, const char *name)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->name = name;
	paths_init(&ctx->paths);
	ctx->clock = clock_system();
}

void
cli_ctx_release(struct cli_ctx *ctx)
{
	store_close(ctx->store);
	free(ctx->repo);
	paths_release(&ctx->paths);
	memset(ctx, 0, sizeof(*ctx));
}

int
cli_open_store(struct cli_ctx *ctx)
{
	if (ctx->store != NULL)
		return 0;
	return store_open(ctx->paths.db_path, &ctx->store, &ctx->err);
}

const char *
cli_repo(struct cli_ctx *ctx)
{
	struct repo_cache_sql	rc;
	struct err		saved = ctx->err;

	if (ctx->repo != NULL)
		return ctx->repo;
	if (cli_open_store(ctx) == 0) {
		repo_cache_init(&rc, ctx->store, &ctx->clock);
		ctx->repo = repo_detect(ctx->paths.project_dir, &rc.cache);
	} else {
		ctx->err = saved;	/* detection never fails */
		ctx->repo = repo_detect(ctx->paths.project_dir, NULL);
	}
	return ctx->repo;
}

const char *
cli_default_store(struct cli_ctx *ctx)
{
	return repo_store_name(cli_repo(ctx));
}

int
cli_hashed_label(struct cli_ctx *ctx, const char *label, const char *slug,
    const char *store)
{
	if (!slug_is_hashed(label, strlen(label)))
		return 0;
	err_set(&ctx->err, "label \"%s\" has no letter or digit, so it names "
	    "memory \"%s\", and store \"%s\" has none", label, slug, store);
	return 1;
}
