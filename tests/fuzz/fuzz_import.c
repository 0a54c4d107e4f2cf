/*
 * fuzz_import.c — the importers (src/core/xfer/xfer_import.c, xfer_foreign.c,
 * and memdoc.c through the markdown reader), which read files other
 * programs and people wrote. The first byte of an input picks the reader
 * (our JSONL, the MCP memory graph, a markdown note, CLAUDE.md
 * sections); the rest is the file. Records go into a real database, with
 * the tiny model embedding what needs it.
 *
 * Properties: no input stops an import (only the model or the database
 * may); every record is counted once, imported, skipped or failed, and a
 * failure is reported; the database stays consistent (foreign keys).
 */
#include <stdbool.h>

#include "fuzz.h"

#include "core/store/store.h"
#include "core/xfer/xfer.h"
#include "embed/model.h"
#include "util/err.h"
#include "util/path.h"

static struct store		*st;
static struct model_opts	 mopts;
static struct paths		 paths;
static struct xfer_import	 imp;
static int			 reports;

static int
count_row(void *arg, int n, char **v, char **names)
{
	(void)n;
	(void)v;
	(void)names;
	(*(int *)arg)++;
	return 0;
}

static void
count_report(void *arg, const char *where, const char *why)
{
	(void)arg;
	FUZZ_ASSERT(where != NULL && why != NULL && *why != '\0');
	reports++;
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct err	err;

	(void)argc;
	(void)argv;
	fuzz_env();
	paths_init(&paths);
	if (store_open(getenv("THATCH_DB_PATH"), &st, &err) != 0) {
		fprintf(stderr, "%s\n", err.msg);
		abort();
	}
	/* the harness measures parsing, not the disk */
	sqlite3_exec(store_db(st), "PRAGMA synchronous = OFF", NULL, NULL,
	    NULL);
	model_opts_init(&mopts, &paths);
	imp.st = st;
	imp.default_store = "fuzz";
	imp.model_opts = &mopts;
	imp.now = "2025-01-01T00:00:00.000Z";
	imp.report = count_report;
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int	(*const readers[])(struct xfer_import *, const char *,
	    size_t, const char *, struct err *) = { xfer_read_jsonl,
	    xfer_read_mcp_memory, xfer_read_note, xfer_read_claude };
	struct err	err;
	int		before, fails, rc, dangling = 0;

	if (size == 0)
		return 0;
	before = imp.imported + imp.skipped + imp.failed;
	fails = imp.failed;
	reports = 0;
	imp.conflict = (enum xfer_conflict)(data[0] / 4 % 3);
	rc = readers[data[0] % 4](&imp, (const char *)data + 1, size - 1,
	    "fuzz.md", &err);
	if (rc == 0)
		rc = xfer_import_commit(&imp, &err);
	if (rc != 0)
		fprintf(stderr, "import stopped: %s\n", err.msg);
	FUZZ_ASSERT(rc == 0);
	FUZZ_ASSERT(imp.imported + imp.skipped + imp.failed >= before);
	FUZZ_ASSERT(imp.failed - fails == reports);
	FUZZ_ASSERT(sqlite3_exec(store_db(st), "PRAGMA foreign_key_check",
	    count_row, &dangling, NULL) == SQLITE_OK);
	FUZZ_ASSERT(dangling == 0);
	return 0;
}
