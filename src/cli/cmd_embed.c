/*
 * cmd_embed.c — `thatch embed [--query] <text>`: the text's vector as one
 * JSON array, exactly as JSON.stringify(Array.from(vector)) prints it, for
 * debugging and for comparing with other implementations.
 */
#include "cli/cmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli/cli.h"
#include "embed/model.h"
#include "util/jsonx.h"

static int
cmd_embed_exec(struct cli_ctx *ctx, int argc, char **argv)
{
	struct model_opts	 o;
	struct model		*m = NULL;
	enum embed_kind		 kind = EMBED_PASSAGE;
	json_t			*arr = NULL;
	float			*v = NULL;
	char			*s;
	int			 i, rc = CMD_FAILED;

	(void)argc;
	if (cli_flag(ctx, "--query"))
		kind = EMBED_QUERY;
	model_opts_init(&o, &ctx->paths);
	if (model_open(&o, &m, &ctx->err) != 0)
		goto out;
	v = calloc((size_t)model_dim(m), sizeof(*v));
	if (model_embed(m, argv[0], strlen(argv[0]), kind, v, &ctx->err) != 0)
		goto out;
	arr = json_array();
	for (i = 0; i < model_dim(m); i++)
		json_array_append_new(arr, json_real(v[i]));
	s = jsonx_dump(arr, 0);
	puts(s);
	free(s);
	rc = 0;
out:
	json_decref(arr);
	free(v);
	model_close(m);
	model_opts_release(&o);
	return rc;
}

static const struct cmd_opt embed_opts[] = {
	{ "--query", NULL, "embed as a query (with the model's query prefix)" },
	{ NULL, NULL, NULL },
};

const struct cmd_entry cmd_embed_entry = {
	.name = "embed",
	.args = "<text>",
	.min_args = 1,
	.max_args = 1,
	.opts = embed_opts,
	.reads = READS_MODEL,
	.example = "thatch embed --query \"how are tokens issued\"",
	.summary = "print a text's embedding vector as JSON",
	.exec = cmd_embed_exec,
};
