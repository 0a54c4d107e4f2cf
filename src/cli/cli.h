/* cli.h — what every subcommand is handed (cli.c). */
#ifndef THATCH_CLI_CLI_H
#define THATCH_CLI_CLI_H

#include "util/clock.h"
#include "util/err.h"
#include "util/path.h"

struct store;

/*
 * The context of one CLI invocation: resolved paths, the lazily opened
 * store, the clock and the error a failing command leaves for the
 * dispatcher to print. Built by main(), released after exec returns.
 */
struct cli_ctx {
	const char	*name;		/* the subcommand as typed */
	struct paths	 paths;
	struct clock	 clock;
	struct store	*store;		/* owned; opened for CMD_STORE */
	struct err	 err;
};

void	cli_ctx_init(struct cli_ctx *, const char *name);
void	cli_ctx_release(struct cli_ctx *);

/* Open ctx->store if not yet open. Returns 0, or -1 with ctx->err set. */
int	cli_open_store(struct cli_ctx *);

#endif
