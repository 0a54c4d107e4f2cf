/*
 * xfer_walk.c — the import walk: a file or a directory of them, each file
 * sent to the reader of its format (docs/export.md, "Import").
 *
 * This file sits above the readers: it calls our JSONL reader
 * (xfer_import.c) and the other tools' (xfer_foreign.c), and neither
 * calls it, so a new format is one row of formats[] and one reader.
 *  1. A directory is walked for *.md and *.jsonl files, in byte order of
 *     their paths, not following symbolic links and leaving out hidden
 *     entries (.git, .obsidian).
 *  2. --from auto decides per file: *.md by its name (Claude Code's memory
 *     files, else notes), anything else by its first record's type.
 *  3. What was imported before a failure stays imported: the walk commits
 *     at its end whatever happened.
 */
#include "core/xfer/xfer.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/err.h"
#include "util/fileio.h"
#include "util/jsonx.h"
#include "util/path.h"
#include "util/sbuf.h"
#include "util/xmalloc.h"

static bool
ends_with(const char *s, const char *suffix)
{
	size_t	n = strlen(s), k = strlen(suffix);

	return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* Ours: a markdown export's notes, or JSONL records. */
static int
read_thatch(struct xfer_import *imp, const char *buf, size_t n,
    const char *name, struct err *err)
{
	return ends_with(name, ".md") ? xfer_read_note(imp, buf, n, name, err) :
	    xfer_read_jsonl(imp, buf, n, name, err);
}

/* One row per enum xfer_from, in its order: the --from name and the
 * reader (auto is decided before a reader is picked; ours if not). */
static const struct {
	const char	*name;
	int		(*read)(struct xfer_import *, const char *buf, size_t n,
			    const char *name, struct err *);
} formats[] = {
	[XFER_AUTO] = { "auto", read_thatch },
	[XFER_THATCH] = { "thatch", read_thatch },
	[XFER_MCP_MEMORY] = { "mcp-memory", xfer_read_mcp_memory },
	[XFER_MARKDOWN] = { "markdown", xfer_read_note },
	[XFER_CLAUDE] = { "claude", xfer_read_claude },
};

int
xfer_from_parse(const char *s, enum xfer_from *from)
{
	size_t	i;

	for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (strcmp(s, formats[i].name) == 0) {
			*from = (enum xfer_from)i;
			return 0;
		}
	return -1;
}

/* The first record's type says whose JSONL it is. */
static enum xfer_from
sniff_jsonl(const char *buf, size_t n)
{
	const char	*nl = memchr(buf, '\n', n), *type;
	/* issue 31: a NUL in the first entity's text is that line's
	 * fault (the reader skips it), not a reason to read another format */
	json_t		*rec = json_loadb(buf, nl ? (size_t)(nl - buf) : n,
	    JSON_ALLOW_NUL, NULL);
	enum xfer_from	 from = XFER_THATCH;

	type = jsonx_str(rec, "type");
	if (type != NULL && (strcmp(type, "entity") == 0 ||
	    strcmp(type, "relation") == 0))
		from = XFER_MCP_MEMORY;
	json_decref(rec);
	return from;
}

static bool
is_claude_file(const char *base)
{
	return strcmp(base, "CLAUDE.md") == 0 ||
	    strcmp(base, "CLAUDE.local.md") == 0 ||
	    strcmp(base, "MEMORY.md") == 0;
}

static int
import_file(struct xfer_import *imp, const char *path, enum xfer_from from,
    struct err *err)
{
	struct sbuf	 buf = SBUF_INIT;
	char		*base = path_basename(path);
	int		 rc = -1;

	sbuf_init(&buf);
	if (fileio_read(path, &buf, err) != 0)
		goto out;
	imp->file = path;
	if (from == XFER_AUTO && ends_with(base, ".md"))
		from = is_claude_file(base) ? XFER_CLAUDE : XFER_MARKDOWN;
	else if (from == XFER_AUTO)
		from = sniff_jsonl(buf.buf, buf.len);
	rc = formats[from].read(imp, buf.buf, buf.len, path, err);
out:
	free(base);
	sbuf_release(&buf);
	return rc;
}

static int
cmp_paths(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

struct path_list {
	char	**v;
	size_t	  n, cap;
};

/* The *.md and *.jsonl files under dir (invariant 1). */
static int
collect(const char *dir, struct path_list *pl, struct err *err)
{
	DIR		*d;
	struct dirent	*de;
	struct stat	 sb;
	char		*p;
	int		 rc = 0;

	if ((d = opendir(dir)) == NULL)
		return err_errno(err, "cannot read '%s'", dir);
	while (rc == 0 && (de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		p = path_join(dir, de->d_name);
		if (lstat(p, &sb) == 0 && S_ISDIR(sb.st_mode)) {
			rc = collect(p, pl, err);
			free(p);
		} else if (S_ISREG(sb.st_mode) && (ends_with(p, ".md") ||
		    ends_with(p, ".jsonl"))) {
			if (pl->n == pl->cap) {
				pl->cap = pl->cap ? 2 * pl->cap : 64;
				pl->v = xreallocarray(pl->v, pl->cap,
				    sizeof(*pl->v));
			}
			pl->v[pl->n++] = p;
		} else
			free(p);
	}
	closedir(d);
	return rc;
}

int
xfer_import_path(struct xfer_import *imp, const char *path,
    enum xfer_from from, struct err *err)
{
	struct path_list	pl = { NULL, 0, 0 };
	struct err		cerr;
	struct stat		sb;
	size_t			i;
	int			rc;

	if (stat(path, &sb) != 0)
		return err_errno(err, "cannot read '%s'", path);
	if (!S_ISDIR(sb.st_mode)) {
		rc = import_file(imp, path, from, err);
		goto out;
	}
	rc = collect(path, &pl, err);
	if (pl.n > 0)
		qsort(pl.v, pl.n, sizeof(*pl.v), cmp_paths);
	for (i = 0; rc == 0 && i < pl.n; i++)
		rc = import_file(imp, pl.v[i], from, err);
	for (i = 0; i < pl.n; i++)
		free(pl.v[i]);
	free(pl.v);
out:
	/* invariant 3 */
	if (xfer_import_commit(imp, rc == 0 ? err : &cerr) != 0)
		rc = -1;
	return rc;
}
