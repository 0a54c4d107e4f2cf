/*
 * cmd_show.c — `thatch show <label> [store]`: one memory in full
 * (hosts-hooks-cli §1.3), found by slug, so any spelling with the same slug
 * finds it. An unknown label prints the not-found line and exits 0.
 *
 * deviation (issue 3): a missing or empty label is a usage error, exit 2;
 * a label with no letter or digit (hash-fallback slug, store-and-tools
 * §3.1 step 7) that matches nothing fails with one line saying why, since
 * the user almost certainly mistyped it.
 *
 * Control characters are escaped (utf8_escape): in the content all but
 * newlines and tabs, elsewhere all of them.
 */
#include "cli/cmd.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/anchor/anchor.h"
#include "core/slug.h"
#include "core/store/store.h"
#include "util/sbuf.h"
#include "util/utf8.h"

/* For a memory not the user's own, the origin line: "origin: sync from
 * <mail> at <commit>" and the like. */
static void
add_origin(struct sbuf *out, const struct store_origin *o)
{
	static const char *const how[] = {
		[STORE_ORIGIN_IMPORT] = " of", [STORE_ORIGIN_SYNC] = " from",
	};
	const char	*prep = (size_t)o->kind < sizeof(how) / sizeof(how[0]) &&
			    how[o->kind] != NULL ? how[o->kind] : "";

	if (!store_origin_foreign(o))
		return;		/* the user's own need no naming */
	utf8_addf(out, "origin: %s", store_origin_kind_name(o->kind));
	if (o->source != NULL)
		utf8_addf(out, "%s %s", prep, o->source);
	if (o->ref != NULL)
		utf8_addf(out, " at %s", o->ref);
	sbuf_addc(out, '\n');
}

static int
cmd_show_exec(struct cli_ctx *ctx, int argc, char **argv)
{
	struct store_entry	 e;
	struct store_origin	 o = { STORE_ORIGIN_NONE, NULL, NULL };
	struct sbuf		 out = SBUF_INIT;
	const char		*store;
	char			*slug;
	bool			 found;
	int			 rc = CMD_FAILED;

	if (*argv[0] == '\0') {
		err_set(&ctx->err, "empty label");
		return CMD_USAGE;
	}
	store = argc > 1 && *argv[1] != '\0' ? argv[1] : cli_default_store(ctx);
	slug = slug_make(argv[0], strlen(argv[0]));
	if (store_get(ctx->store, store, slug, &e, &found, &ctx->err) != 0)
		goto out;
	if (!found && cli_hashed_label(ctx, argv[0], slug, store))
		goto out;
	if (found && store_origin_get(ctx->store, e.store, e.slug, &o,
	    &ctx->err) != 0) {
		store_entry_release(&e);
		goto out;
	}
	if (cli_flag(ctx, "--json")) {
		cli_print_json(found ? cli_memory_json(ctx, &e, true) : json_null());
		if (found)
			store_entry_release(&e);
	} else if (!found)
		utf8_addf(&out, "No memory labeled \"%s\" in \"%s\".\n",
		    argv[0], store);
	else {
		utf8_addf(&out, "[%s] %s%s\n", e.store, e.label,
		    e.archived ? " (archived)" : "");
		if (e.branch != NULL && *e.branch != '\0')
			utf8_addf(&out, "branch: %s\n", e.branch);
		if (e.confidence != 0)
			utf8_addf(&out, "confidence: %d\n", e.confidence);
		utf8_addf(&out, "created: %s  updated: %s\n", e.created_at,
		    e.updated_at);
		add_origin(&out, &o);
		sbuf_addc(&out, '\n');
		utf8_escape(&out, cli_memory_body(e.content), UTF8_ESC_TEXT);
		anchor_show(ctx->store, ctx->paths.project_dir, e.store,
		    e.slug, &out);
		sbuf_addc(&out, '\n');
		store_entry_release(&e);
	}
	if (out.len > 0)
		fputs(out.buf, stdout);
	rc = 0;
out:
	store_origin_release(&o);
	sbuf_release(&out);
	free(slug);
	return rc;
}

static const struct cmd_opt show_opts[] = {
	{ "--json", NULL, "print the memory as one JSON object, with its "
	    "content (null when none)" },
	{ NULL, NULL, NULL },
};

const struct cmd_entry cmd_show_entry = {
	.name = "show",
	.args = "<label> [store]",
	.min_args = 1,
	.max_args = 2,
	.reads = READS_PROJECT,
	.opts = show_opts,
	.example = "thatch show \"login flow\"",
	.summary = "print one memory in full",
	.flags = CMD_STORE,
	.exec = cmd_show_exec,
};
