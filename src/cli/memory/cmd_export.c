/*
 * cmd_export.c — `thatch export [store|all] [--format jsonl|markdown]
 * [-o FILE|DIR] [--with-vectors]`: a store, or every store, as a file a
 * user can keep, diff and import elsewhere (docs/export.md).
 *
 *  1. The same store gives the same bytes (xfer_export's order; memdoc's
 *     rendering), so an export can be committed and diffed.
 *  2. What is written is the user's data: files 0600 and directories
 *     0700 (less the umask), each written whole or not at all (a
 *     temporary file renamed over it), so a failed export leaves no half
 *     file. Without -o the JSONL goes to stdout and the summary to
 *     stderr.
 *  3. A markdown export goes into a new or empty directory only: stale
 *     files of an earlier export would otherwise make it wrong.
 */
#include "cli/cmd.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "core/sync/memdoc.h"
#include "core/store/store.h"
#include "core/xfer/xfer.h"
#include "util/fileio.h"
#include "util/path.h"
#include "util/sbuf.h"
#include "util/utf8.h"

struct export_out {
	struct cli_ctx	*ctx;
	const char	*dir;		/* markdown: the directory, else NULL */
	struct sbuf	 jsonl;		/* JSONL, or the markdown's records */
	int		 records, memories;
};

/* One memory as DIR/<store>/<slug>.md. */
static int
write_memdoc(struct export_out *o, const json_t *rec)
{
	struct store_entry	 e;
	struct sbuf		 path = SBUF_INIT, doc = SBUF_INIT;
	int			 rc = -1;

	sbuf_init(&path);
	sbuf_init(&doc);
	if (xfer_record_entry(rec, &e, &o->ctx->err) != 0 ||
	    e.store == NULL || e.slug == NULL) {
		err_wrap(&o->ctx->err, "cannot write a memory as markdown");
		goto out;
	}
	sbuf_addf(&path, "%s/", o->dir);
	xfer_file_name(&path, e.store);
	if (path_mkdir_p(path.buf, 0700, &o->ctx->err) != 0)
		goto out;
	sbuf_addc(&path, '/');
	xfer_file_name(&path, e.slug);
	sbuf_adds(&path, ".md");
	memdoc_render(&e, &doc);
	/* no fsync per file: 10,000 of them took 48 s (bench/b900) */
	rc = fileio_replace(path.buf, doc.buf, doc.len, 0600, &o->ctx->err);
out:
	store_entry_release(&e);
	sbuf_release(&path);
	sbuf_release(&doc);
	return rc;
}

static int
add_record(const json_t *rec, void *arg)
{
	struct export_out	*o = arg;
	bool			 memory = strcmp(json_string_value(
	    json_object_get(rec, "type")), "memory") == 0;

	o->records++;
	o->memories += memory;
	if (o->dir != NULL && memory)
		return write_memdoc(o, rec);
	xfer_line(rec, &o->jsonl);
	return 0;
}

/* Invariant 3: dir is created, or is an empty directory. */
static int
fresh_dir(struct cli_ctx *ctx, const char *dir)
{
	DIR		*d;
	struct dirent	*de;
	bool		 empty = true;

	if ((d = opendir(dir)) == NULL) {
		if (errno != ENOENT)
			return err_errno(&ctx->err, "cannot open '%s'", dir);
		return path_mkdir_p(dir, 0700, &ctx->err);
	}
	while (empty && (de = readdir(d)) != NULL)
		empty = strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0;
	closedir(d);
	if (!empty)
		return err_set(&ctx->err, "'%s' is not empty: a markdown "
		    "export needs a new or empty directory", dir);
	return 0;
}

/* The store to export (NULL: all), or -1 when the named one is missing. */
static int
export_scope(struct cli_ctx *ctx, int argc, char **argv, const char **store)
{
	bool	found;

	*store = argc > 0 ? argv[0] : cli_default_store(ctx);
	if (strcmp(*store, "all") == 0) {
		*store = NULL;
		return 0;
	}
	if (store_has_store(ctx->store, *store, &found, &ctx->err) != 0)
		return -1;
	if (!found)
		return err_set(&ctx->err, "no store named \"%s\" (thatch "
		    "stores lists them)", *store);
	return 0;
}

static int
cmd_export_exec(struct cli_ctx *ctx, int argc, char **argv)
{
	struct export_out	 o = { ctx, NULL, SBUF_INIT, 0, 0 };
	const char		*format = cli_opt(ctx, "--format");
	const char		*out = cli_opt(ctx, "-o"), *store;
	struct sbuf		 path = SBUF_INIT, line = SBUF_INIT;
	int			 rc = CMD_FAILED;

	if (format != NULL && strcmp(format, "jsonl") != 0 &&
	    strcmp(format, "markdown") != 0) {
		err_set(&ctx->err, "--format: '%s' is not jsonl or markdown",
		    format);
		return CMD_USAGE;
	}
	if (format != NULL && strcmp(format, "markdown") == 0) {
		if (out == NULL || *out == '\0') {
			err_set(&ctx->err, "--format markdown writes a "
			    "directory: give it with -o DIR");
			return CMD_USAGE;
		}
		o.dir = out;
	}
	sbuf_init(&o.jsonl);
	sbuf_init(&path);
	sbuf_init(&line);
	if (export_scope(ctx, argc, argv, &store) != 0 ||
	    (o.dir != NULL && fresh_dir(ctx, o.dir) != 0))
		goto out;
	sbuf_adds(&o.jsonl, XFER_HEADER "\n");
	if (xfer_export(ctx->store, store, cli_flag(ctx, "--with-vectors"),
	    add_record, &o, &ctx->err) != 0)
		goto out;
	if (o.dir != NULL) {
		sbuf_addf(&path, "%s/records.jsonl", o.dir);
		if (fileio_write_atomic(path.buf, o.jsonl.buf, o.jsonl.len,
		    0600, &ctx->err) != 0)
			goto out;
	} else if (out != NULL && *out != '\0') {
		if (fileio_write_atomic(out, o.jsonl.buf, o.jsonl.len, 0600,
		    &ctx->err) != 0)
			goto out;
	} else if (fwrite(o.jsonl.buf, 1, o.jsonl.len, stdout) != o.jsonl.len
	    || fflush(stdout) != 0) {
		err_errno(&ctx->err, "cannot write the export");
		goto out;
	}
	utf8_addf(&line, "[thatch export] %s: ", store ? store : "all stores");
	fputs(line.buf, stderr);
	fprintf(stderr, "%d record%s, %d memor%s%s%s\n", o.records,
	    o.records == 1 ? "" : "s", o.memories, o.memories == 1 ? "y" :
	    "ies", out != NULL ? " -> " : "", out != NULL ? out : "");
	rc = 0;
out:
	sbuf_release(&o.jsonl);
	sbuf_release(&path);
	sbuf_release(&line);
	return rc;
}

static const struct cmd_opt export_opts[] = {
	{ "--format", "FORMAT", "jsonl (default): one record a line; "
	  "markdown: one file a memory, in the directory -o names" },
	{ "-o", "PATH", "write to this file (jsonl) or new directory "
	  "(markdown) instead of stdout" },
	{ "--with-vectors", NULL, "include the embeddings and their model, "
	  "so an import with the same model need not embed again" },
	{ NULL, NULL, NULL },
};

const struct cmd_entry cmd_export_entry = {
	.name = "export",
	.args = "[store|all]",
	.max_args = 1,
	.opts = export_opts,
	.reads = READS_PROJECT,
	.example = "thatch export all -o memories.jsonl",
	.summary = "write memories, predictions and behaviors to a file",
	.flags = CMD_STORE,
	.exec = cmd_export_exec,
};
