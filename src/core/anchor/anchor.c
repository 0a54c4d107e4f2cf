/*
 * anchor.c — recording a memory's anchors, and reading them back.
 *
 *  1. The tables are thatch's own (the original never reads them) and are
 *     created with IF NOT EXISTS on the first write of an anchor, so a
 *     database without anchors is the original's schema plus nothing.
 *  2. The triggers make the original's writes keep them true: deleting a
 *     memory drops its anchors; changing its store or slug (memory_move)
 *     carries them.
 *  3. The fingerprint is git's blob id of the working-tree file (not of
 *     HEAD): the memory describes the code as the agent saw it, and git
 *     can name the same id in history and on another clone.
 *  4. Replacing a memory's anchors is one transaction: readers see the
 *     old set or the new one.
 */
#include "core/anchor/anchor.h"

#include <stdlib.h>
#include <string.h>

#include "core/anchor/anchor_int.h"
#include "core/store/store.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/path.h"
#include "util/sbuf.h"
#include "util/xmalloc.h"

static const char schema[] =
	"CREATE TABLE IF NOT EXISTS thatch_anchors ("
	" store TEXT NOT NULL, slug TEXT NOT NULL, seq INTEGER NOT NULL,"
	" spec TEXT NOT NULL, path TEXT NOT NULL, symbol TEXT,"
	" blob TEXT, span TEXT, head TEXT, recorded_at TEXT NOT NULL,"
	" PRIMARY KEY (store, slug, seq));"
	"CREATE TABLE IF NOT EXISTS thatch_anchor_files ("
	" path TEXT PRIMARY KEY, size INTEGER NOT NULL,"
	" mtime INTEGER NOT NULL, ino INTEGER NOT NULL, blob TEXT NOT NULL);"
	"CREATE TRIGGER IF NOT EXISTS thatch_anchors_ad AFTER DELETE ON "
	"entries BEGIN DELETE FROM thatch_anchors WHERE store = old.store "
	"AND slug = old.slug; END;"
	"CREATE TRIGGER IF NOT EXISTS thatch_anchors_au AFTER UPDATE OF "
	"store, slug ON entries BEGIN UPDATE thatch_anchors SET store = "
	"new.store, slug = new.slug WHERE store = old.store AND slug = "
	"old.slug; END;";

void
anchors_release(struct anchors *as)
{
	size_t	i;

	for (i = 0; i < as->n; i++) {
		free(as->v[i].spec);
		free(as->v[i].path);
		free(as->v[i].symbol);
		free(as->v[i].blob);
		free(as->v[i].span);
		free(as->v[i].head);
		free(as->v[i].recorded_at);
	}
	free(as->v);
	memset(as, 0, sizeof(*as));
}

int
anchor_parse(const char *spec, char **path, char **symbol, struct err *err)
{
	const char	*hash = strchr(spec, '#'), *colon, *p;
	size_t		 n;

	*path = *symbol = NULL;
	n = hash != NULL ? (size_t)(hash - spec) : strlen(spec);
	/* "path:L10-L20": the range names lines, judged by the file */
	if ((colon = memchr(spec, ':', n)) != NULL && colon[1] == 'L')
		n = (size_t)(colon - spec);
	while (n > 2 && spec[0] == '.' && spec[1] == '/')
		spec += 2, n -= 2;
	if (n == 0 || spec[0] == '/')
		return err_set(err, "anchor \"%s\": give a path relative to "
		    "the repository", spec);
	for (p = spec; p < spec + n; p = p + strcspn(p, "/") + 1)
		if (strncmp(p, "..", 2) == 0 && (p + 2 == spec + n ||
		    p[2] == '/'))
			return err_set(err, "anchor \"%s\": the path leaves the "
			    "repository", spec);
	*path = xstrndup(spec, n);
	if (hash != NULL && hash[1] != '\0')
		*symbol = xstrdup(hash + 1);
	return 0;
}

/* Fingerprint a's file under root at record time (invariant 3). */
static void
fingerprint(struct anchor *a, const char *root)
{
	struct sbuf	 sb = SBUF_INIT;
	char		 oid[ANCHOR_OID_LEN], *file = path_join(root, a->path);

	if (fileio_read(file, &sb, NULL) == 0) {
		gitoid_blob(sb.buf, sb.len, oid);
		a->blob = xstrdup(oid);
		if (a->symbol != NULL && anchor_span(sb.buf, sb.len,
		    a->symbol, oid))
			a->span = xstrdup(oid);
	}
	sbuf_release(&sb);
	free(file);
}

static int
insert(struct store *st, const char *store, const char *slug,
    const struct anchors *as, struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	size_t		 i;
	int		 rc = -1, c;

	if (store_prepare(st, &stmt, "INSERT INTO thatch_anchors VALUES "
	    "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", err) != 0)
		return -1;
	for (i = 0; i < as->n; i++) {
		const struct anchor	*a = &as->v[i];
		const char		*col[] = { a->spec, a->path, a->symbol,
					    a->blob, a->span, a->head,
					    a->recorded_at };

		sqlite3_reset(stmt);
		sqlite3_bind_text(stmt, 1, store, -1, SQLITE_STATIC);
		sqlite3_bind_text(stmt, 2, slug, -1, SQLITE_STATIC);
		sqlite3_bind_int64(stmt, 3, (sqlite3_int64)i);
		for (c = 0; c < 7; c++)
			sqlite3_bind_text(stmt, 4 + c, col[c], -1,
			    SQLITE_STATIC);
		if (sqlite3_step(stmt) != SQLITE_DONE) {
			err_set(err, "recording anchors in '%s': %s",
			    store_path(st), sqlite3_errmsg(store_db(st)));
			goto out;
		}
	}
	rc = 0;
out:
	sqlite3_finalize(stmt);
	return rc;
}

int
anchor_tables(struct store *st, struct err *err)
{
	return store_exec(st, schema, err);
}

int
anchor_rows_replace(struct store *st, const char *store, const char *slug,
    const struct anchors *as, struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	int		 rc = -1;

	if (store_prepare(st, &stmt, "DELETE FROM thatch_anchors WHERE "
	    "store = ? AND slug = ?", err) != 0)
		return -1;
	sqlite3_bind_text(stmt, 1, store, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 2, slug, -1, SQLITE_STATIC);
	if (sqlite3_step(stmt) != SQLITE_DONE)
		err_set(err, "dropping anchors in '%s': %s", store_path(st),
		    sqlite3_errmsg(store_db(st)));
	else
		rc = insert(st, store, slug, as, err);
	sqlite3_finalize(stmt);
	return rc;
}

/* Invariant 4. */
static int
replace(struct store *st, const char *store, const char *slug,
    const struct anchors *as, struct err *err)
{
	if (store_exec(st, "BEGIN IMMEDIATE", err) != 0)
		return -1;
	if (anchor_rows_replace(st, store, slug, as, err) == 0 &&
	    store_exec(st, "COMMIT", err) == 0)
		return 0;
	(void)store_exec(st, "ROLLBACK", NULL);
	return -1;
}

int
anchor_record(struct store *st, const char *store, const char *slug,
    const char *const *specs, size_t n, const char *dir, const char *now,
    struct err *err)
{
	struct anchors		 as = { NULL, 0 }, old = { NULL, 0 };
	struct anchor_repo	 repo;
	char			*head = NULL;
	const char		*root = dir;
	int			 rc = -1;

	if (specs == NULL) {
		if (anchor_get(st, store, slug, &old, err) != 0)
			return -1;
		if (old.n == 0)
			return 0;	/* nothing to re-record, no table made */
	}
	if (anchor_tables(st, err) != 0) {
		anchors_release(&old);
		return -1;
	}
	if (anchor_repo_find(dir, &repo) == 0) {
		root = repo.root;
		head = anchor_git_head(root);
	}
	n = specs != NULL ? n : old.n;
	as.v = xcalloc(n > 0 ? n : 1, sizeof(*as.v));
	for (as.n = 0; as.n < n; as.n++) {
		struct anchor	*a = &as.v[as.n];

		a->spec = xstrdup(specs != NULL ? specs[as.n] : old.v[as.n].spec);
		if (anchor_parse(a->spec, &a->path, &a->symbol, err) != 0) {
			as.n++;
			goto out;
		}
		fingerprint(a, root);
		a->head = head != NULL ? xstrdup(head) : NULL;
		a->recorded_at = xstrdup(now);
	}
	rc = replace(st, store, slug, &as, err);
out:
	anchors_release(&old);
	anchors_release(&as);
	free(head);
	anchor_repo_release(&repo);
	return rc;
}

int
anchor_get(struct store *st, const char *store, const char *slug,
    struct anchors *as, struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	struct anchor	*a;
	int		 step;

	memset(as, 0, sizeof(*as));
	/* no table: no anchors were ever recorded (invariant 1) */
	if (sqlite3_prepare_v2(store_db(st), "SELECT spec, path, symbol, "
	    "blob, span, head, recorded_at FROM thatch_anchors WHERE "
	    "store = ? AND slug = ? ORDER BY seq", -1, &stmt, NULL) !=
	    SQLITE_OK)
		return 0;
	sqlite3_bind_text(stmt, 1, store, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 2, slug, -1, SQLITE_STATIC);
	while ((step = sqlite3_step(stmt)) == SQLITE_ROW) {
		char	**col[7];
		int	  c;

		as->v = xreallocarray(as->v, as->n + 1, sizeof(*as->v));
		a = &as->v[as->n++];
		col[0] = &a->spec, col[1] = &a->path, col[2] = &a->symbol;
		col[3] = &a->blob, col[4] = &a->span, col[5] = &a->head;
		col[6] = &a->recorded_at;
		for (c = 0; c < 7; c++)
			*col[c] = sqlite3_column_text(stmt, c) == NULL ? NULL :
			    xstrdup((const char *)sqlite3_column_text(stmt, c));
	}
	sqlite3_finalize(stmt);
	if (step != SQLITE_DONE) {
		anchors_release(as);
		return err_set(err, "reading anchors in '%s': %s",
		    store_path(st), sqlite3_errmsg(store_db(st)));
	}
	return 0;
}
