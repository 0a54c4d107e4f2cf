/*
 * cmd_list.c — `thatch list [store]`: one line per memory, ordered by label
 * (hosts-hooks-cli §1.3). A store with no memories, or none at all, prints
 * the not-found line and exits 0; the store is not created. Names and
 * labels are printed with their control characters escaped (utf8_escape).
 */
#include "cli/cmd.h"

#include <stdbool.h>
#include <stdio.h>

#include "cli/cli.h"
#include "core/store/store.h"
#include "util/sbuf.h"
#include "util/utf8.h"

struct list_walk {
	struct sbuf	 line;
	bool		 any;
	json_t		*json;	/* --json: the array being built */
};

static int
print_entry(const struct store_entry *e, void *arg)
{
	struct list_walk	*w = arg;

	w->any = true;
	if (w->json != NULL)
		return json_array_append_new(w->json, cli_entry_json(e, false));
	sbuf_reset(&w->line);
	utf8_addf(&w->line, "[%s] %s", e->store, e->label);
	if (e->branch != NULL && *e->branch != '\0')
		utf8_addf(&w->line, " (branch:%s)", e->branch);
	if (e->confidence != 0)
		utf8_addf(&w->line, " (c:%d)", e->confidence);
	utf8_addf(&w->line, " (%s)%s\n", e->updated_at, e->archived ?
	    " (archived)" : "");
	fputs(w->line.buf, stdout);
	return 0;
}

static int
cmd_list_exec(struct cli_ctx *ctx, int argc, char **argv)
{
	struct list_walk	 w = { SBUF_INIT, false, NULL };
	const char		*store;
	int			 rc;

	store = argc > 0 && *argv[0] != '\0' ? argv[0] : cli_default_store(ctx);
	if (cli_flag(ctx, "--json"))
		w.json = json_array();
	rc = (w.json != NULL ? store_list : store_list_lines)(ctx->store,
	    store, print_entry, &w, &ctx->err);
	if (w.json != NULL) {
		if (rc == 0)
			cli_print_json(w.json);
		else
			json_decref(w.json);
	} else if (rc == 0 && !w.any) {
		utf8_addf(&w.line, "No memories in \"%s\".\n", store);
		fputs(w.line.buf, stdout);
	}
	sbuf_release(&w.line);
	return rc == 0 ? 0 : CMD_FAILED;
}

static const struct cmd_opt list_opts[] = {
	{ "--json", NULL, "print one JSON array of the memories (no content)" },
	{ NULL, NULL, NULL },
};

const struct cmd_entry cmd_list_entry = {
	.name = "list",
	.args = "[store]",
	.max_args = 1,
	.reads = READS_PROJECT,
	.opts = list_opts,
	.example = "thatch list global",
	.summary = "list the memories of a store",
	.flags = CMD_STORE,
	.exec = cmd_list_exec,
};
