/*
 * store_entries.c — memories one at a time: remember, get, forget, move,
 * list, the stores, verdicts and the counts and lists hygiene asks for.
 *
 * The SQL is the original's (store-and-tools §4.3-§4.8, §5.6, §6), with
 * explicit column lists because column positions differ between fresh and
 * migrated files (§1.3 rule 2).
 *  1. The stores row is inserted before any entry that names it (§1.3
 *     rule 6), and is never deleted.
 *  2. A plain remember is insert-and-catch: the primary key decides, never
 *     a check-then-insert, so two writers cannot both save.
 *  3. Overwrite (archived check, upsert, verdict clearing), forget
 *     (entry, verdicts) and move (target store row, entry, verdicts of
 *     both stores) are each one BEGIN IMMEDIATE transaction, rolled back
 *     whole on error; a refusal writes nothing.
 *  4. Verdict slugs are stored in canonical order (slug_cmp) and read back
 *     canonicalised, whoever wrote them.
 *  5. Every write to entries is announced to the search's vector cache
 *     (store_cache_expect) and, once it stands, reported with the row it
 *     left (store_cache_put/_remove), so the cache is what the table
 *     holds without a reload; a refusal or a rolled-back write reports
 *     nothing.
 */
#include "core/store/store.h"

#include <stdlib.h>
#include <string.h>

#include "core/slug.h"
#include "core/store/store_int.h"
#include "core/vector.h"
#include "util/err.h"
#include "util/sbuf.h"
#include "util/xmalloc.h"

static const char SQL_INSERT[] =
	"INSERT INTO entries (slug, store, label, content, embedding, model, "
	"branch, confidence, archived, created_at, updated_at) "
	"VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";

static const char SQL_UPSERT[] =
	"INSERT INTO entries (slug, store, label, content, embedding, model, "
	"branch, confidence, archived, created_at, updated_at) "
	"VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, COALESCE(?9, 0), ?10, ?10) "
	"ON CONFLICT(slug, store) DO UPDATE SET "
	"label = excluded.label, content = excluded.content, "
	"embedding = excluded.embedding, model = excluded.model, "
	"branch = COALESCE(excluded.branch, entries.branch), "
	"confidence = COALESCE(excluded.confidence, entries.confidence), "
	"archived = COALESCE(?9, entries.archived), "
	"updated_at = excluded.updated_at "
	"RETURNING rowid, archived, branch";

static const char SQL_CLEAR_VERDICTS[] =
	"DELETE FROM dedup_pairs "
	"WHERE store = ? AND (slug_a = ? OR slug_b = ?)";

static char *
column_dup(sqlite3_stmt *stmt, int col)
{
	const unsigned char *s = sqlite3_column_text(stmt, col);

	return s == NULL ? NULL : xstrdup((const char *)s);
}

void
store_entry_read(sqlite3_stmt *stmt, int col, struct store_entry *e)
{
	memset(e, 0, sizeof(*e));
	e->slug = column_dup(stmt, col);
	e->store = column_dup(stmt, col + 1);
	e->label = column_dup(stmt, col + 2);
	e->content = column_dup(stmt, col + 3);
	e->model = column_dup(stmt, col + 4);
	e->branch = column_dup(stmt, col + 5);
	e->confidence = sqlite3_column_int(stmt, col + 6);
	e->archived = sqlite3_column_int(stmt, col + 7) != 0;
	e->created_at = column_dup(stmt, col + 8);
	e->updated_at = column_dup(stmt, col + 9);
	e->recall_count = sqlite3_column_int(stmt, col + 10);
	e->last_recalled_at = column_dup(stmt, col + 11);
}

void
store_entry_release(struct store_entry *e)
{
	free(e->slug);
	free(e->store);
	free(e->label);
	free(e->content);
	free(e->model);
	free(e->branch);
	free(e->created_at);
	free(e->updated_at);
	free(e->last_recalled_at);
	free(e->vec);
	free(e->anchors);
	memset(e, 0, sizeof(*e));
}

/* Run a prepared statement that returns no rows; finalizes it. */
static int
step_done(struct store *st, sqlite3_stmt *stmt, const char *what,
    struct err *err)
{
	int	rc = 0;

	if (sqlite3_step(stmt) != SQLITE_DONE)
		rc = store_fail(st, err, what);
	sqlite3_finalize(stmt);
	return rc;
}

static int
ensure_store(struct store *st, const char *store, struct err *err)
{
	sqlite3_stmt	*stmt = NULL;

	if (store_prepare(st, &stmt,
	    "INSERT OR IGNORE INTO stores (name) VALUES (?)", err) != 0)
		return -1;
	sqlite3_bind_text(stmt, 1, store, -1, SQLITE_STATIC);
	return step_done(st, stmt, "cannot create store", err);
}

static int
clear_verdicts(struct store *st, const char *store, const char *slug,
    struct err *err)
{
	sqlite3_stmt	*stmt = NULL;

	if (store_prepare(st, &stmt, SQL_CLEAR_VERDICTS, err) != 0)
		return -1;
	sqlite3_bind_text(stmt, 1, store, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 2, slug, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 3, slug, -1, SQLITE_STATIC);
	return step_done(st, stmt, "cannot clear verdicts", err);
}

/* Step a write to entries announced to the cache (invariant 5). */
static int
step_entries(struct store *st, sqlite3_stmt *stmt)
{
	int	step;

	store_cache_expect(st, true);
	step = sqlite3_step(stmt);
	store_cache_expect(st, false);
	return step;
}

/* Invariant 5: the row a write left, its vector and attributes. */
static void
cache_put(struct store *st, const struct store_write *w,
    sqlite3_int64 rowid, bool archived, const char *branch)
{
	store_cache_put(st, w->store, rowid, w->dim > 0 ? w->vec : NULL,
	    w->dim, archived, branch);
}

/* Bind ?1-?8 (shared by the insert and the upsert) and the timestamps. */
static void
bind_write(sqlite3_stmt *stmt, const struct store_write *w,
    void **scratch)
{
	const void	*blob;

	sqlite3_bind_text(stmt, 1, w->slug, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 2, w->store, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 3, w->label, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 4, w->content, -1, SQLITE_STATIC);
	if (w->vec != NULL && w->dim > 0) {
		blob = vector_encode(w->vec, (size_t)w->dim, scratch);
		sqlite3_bind_blob(stmt, 5, blob, w->dim * 4, SQLITE_STATIC);
	}
	if (w->model != NULL)
		sqlite3_bind_text(stmt, 6, w->model, -1, SQLITE_STATIC);
	if (w->branch != NULL)
		sqlite3_bind_text(stmt, 7, w->branch, -1, SQLITE_STATIC);
	if (w->confidence != 0)
		sqlite3_bind_int(stmt, 8, w->confidence);
	sqlite3_bind_text(stmt, 10, w->now, -1, SQLITE_STATIC);
}

static int
insert_plain(struct store *st, const struct store_write *w,
    enum store_write_result *res, struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	void		*scratch = NULL;
	int		 rc = -1;

	if (store_prepare(st, &stmt, SQL_INSERT, err) != 0)
		goto out;
	bind_write(stmt, w, &scratch);
	sqlite3_bind_int(stmt, 9, w->archived == 1);
	sqlite3_bind_text(stmt, 11, w->now, -1, SQLITE_STATIC);
	if (step_entries(st, stmt) == SQLITE_DONE) {
		*res = STORE_SAVED;
		cache_put(st, w, sqlite3_last_insert_rowid(st->db),
		    w->archived == 1, w->branch);
	} else if (sqlite3_extended_errcode(st->db) ==
	    SQLITE_CONSTRAINT_PRIMARYKEY)
		*res = STORE_EXISTS;
	else {
		store_fail(st, err, "cannot save memory");
		goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(stmt);
	free(scratch);
	return rc;
}

/* *archived: -1 no row, else the row's flag. */
static int
read_archived(struct store *st, const char *store, const char *slug,
    int *archived, struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	int		 step;

	*archived = -1;
	if (store_prepare(st, &stmt, "SELECT archived FROM entries "
	    "WHERE slug = ? AND store = ?", err) != 0)
		return -1;
	sqlite3_bind_text(stmt, 1, slug, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 2, store, -1, SQLITE_STATIC);
	step = sqlite3_step(stmt);
	if (step == SQLITE_ROW)
		*archived = sqlite3_column_int(stmt, 0) != 0;
	sqlite3_finalize(stmt);
	if (step != SQLITE_ROW && step != SQLITE_DONE)
		return store_fail(st, err, "cannot read memory");
	return 0;
}

static int
overwrite(struct store *st, const struct store_write *w,
    enum store_write_result *res, struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	void		*scratch = NULL;
	char		*branch = NULL;
	sqlite3_int64	 rowid = 0;
	int		 rc = -1, archived;

	if (store_exec(st, "BEGIN IMMEDIATE", err) != 0)
		return -1;
	if (read_archived(st, w->store, w->slug, &archived, err) != 0)
		goto out;
	if (archived == 1 && w->archived == -1) {
		*res = STORE_ARCHIVED;
		rc = 0;
		goto out;	/* nothing written: rolled back below */
	}
	if (store_prepare(st, &stmt, SQL_UPSERT, err) != 0)
		goto out;
	bind_write(stmt, w, &scratch);
	if (w->archived != -1)
		sqlite3_bind_int(stmt, 9, w->archived);
	/* RETURNING: the row's rowid and the flags COALESCE left */
	if (step_entries(st, stmt) != SQLITE_ROW) {
		store_fail(st, err, "cannot save memory");
		goto out;
	}
	rowid = sqlite3_column_int64(stmt, 0);
	archived = sqlite3_column_int(stmt, 1) != 0;
	if (sqlite3_column_type(stmt, 2) != SQLITE_NULL)
		branch = xstrdup((const char *)sqlite3_column_text(stmt, 2));
	if (step_entries(st, stmt) != SQLITE_DONE) {
		store_fail(st, err, "cannot save memory");
		goto out;
	}
	if (clear_verdicts(st, w->store, w->slug, err) != 0 ||
	    store_exec(st, "COMMIT", err) != 0)
		goto out;
	cache_put(st, w, rowid, archived, branch);
	*res = STORE_SAVED;
	rc = 0;
out:
	sqlite3_finalize(stmt);
	free(scratch);
	free(branch);
	store_rollback(st);
	return rc;
}

int
store_remember(struct store *st, const struct store_write *w,
    enum store_write_result *res, struct err *err)
{
	if (ensure_store(st, w->store, err) != 0)
		return -1;
	if (w->overwrite)
		return overwrite(st, w, res, err);
	return insert_plain(st, w, res, err);
}

int
store_get(struct store *st, const char *store, const char *slug,
    struct store_entry *e, bool *found, struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	int		 step;

	*found = false;
	memset(e, 0, sizeof(*e));
	if (store_prepare(st, &stmt, "SELECT " STORE_ENTRY_COLS
	    " FROM entries WHERE slug = ? AND store = ?", err) != 0)
		return -1;
	sqlite3_bind_text(stmt, 1, slug, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 2, store, -1, SQLITE_STATIC);
	step = sqlite3_step(stmt);
	if (step == SQLITE_ROW) {
		store_entry_read(stmt, 0, e);
		*found = true;
	}
	sqlite3_finalize(stmt);
	if (step != SQLITE_ROW && step != SQLITE_DONE)
		return store_fail(st, err, "cannot read memory");
	return 0;
}

/* Delete the row inside the caller's transaction; *rowid its rowid. */
static int
delete_row(struct store *st, const char *store, const char *slug,
    bool *found, sqlite3_int64 *rowid, struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	int		 step;

	*found = false;
	if (store_prepare(st, &stmt, "DELETE FROM entries "
	    "WHERE slug = ? AND store = ? RETURNING rowid", err) != 0)
		return -1;
	sqlite3_bind_text(stmt, 1, slug, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 2, store, -1, SQLITE_STATIC);
	if ((step = step_entries(st, stmt)) == SQLITE_ROW) {
		*found = true;
		*rowid = sqlite3_column_int64(stmt, 0);
		step = step_entries(st, stmt);
	}
	sqlite3_finalize(stmt);
	if (step != SQLITE_DONE) {
		*found = false;
		return store_fail(st, err, "cannot forget memory");
	}
	if (*found && clear_verdicts(st, store, slug, err) != 0)
		return -1;
	return 0;
}

int
store_forget(struct store *st, const char *store, const char *slug,
    bool *found, struct err *err)
{
	sqlite3_int64	 rowid = 0;
	int		 rc = -1;

	*found = false;
	if (store_exec(st, "BEGIN IMMEDIATE", err) != 0)
		return -1;
	if (delete_row(st, store, slug, found, &rowid, err) != 0)
		goto out;
	if (store_exec(st, "COMMIT", err) != 0)
		goto out;
	if (*found)
		store_cache_remove(st, store, rowid);
	rc = 0;
out:
	store_rollback(st);
	if (rc != 0)
		*found = false;
	return rc;
}

/* The moved row's vector for the search cache (NULL when it has none
 * or a BLOB the cache would skip, invariant 5). */
static float *
moved_vec(sqlite3_stmt *stmt, int col, int *dim)
{
	int	 n = sqlite3_column_bytes(stmt, col);
	float	*vec;

	*dim = 0;
	if (sqlite3_column_type(stmt, col) != SQLITE_BLOB || n == 0 ||
	    n % 4 != 0)
		return NULL;
	*dim = n / 4;
	vec = xcalloc((size_t)*dim, sizeof(*vec));
	vector_decode(sqlite3_column_blob(stmt, col), (size_t)*dim, vec);
	return vec;
}

int
store_move(struct store *st, const char *from, const char *slug,
    const char *to, enum store_move_result *res, struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	sqlite3_int64	 rowid = 0;
	float		*vec = NULL;
	char		*branch = NULL;
	bool		 archived = false;
	int		 rc = -1, step, dim = 0;

	*res = STORE_MOVE_MISSING;
	if (store_exec(st, "BEGIN IMMEDIATE", err) != 0)
		return -1;
	if (ensure_store(st, to, err) != 0 || store_prepare(st, &stmt,
	    "UPDATE entries SET store = ?3 WHERE slug = ?1 AND store = ?2 "
	    "RETURNING rowid, embedding, archived, branch", err) != 0)
		goto out;
	sqlite3_bind_text(stmt, 1, slug, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 2, from, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 3, to, -1, SQLITE_STATIC);
	if ((step = step_entries(st, stmt)) == SQLITE_ROW) {
		rowid = sqlite3_column_int64(stmt, 0);
		vec = moved_vec(stmt, 1, &dim);
		archived = sqlite3_column_int(stmt, 2) != 0;
		if (sqlite3_column_type(stmt, 3) != SQLITE_NULL)
			branch = xstrdup((const char *)
			    sqlite3_column_text(stmt, 3));
		*res = STORE_MOVED;
		step = step_entries(st, stmt);
	}
	if (step != SQLITE_DONE && sqlite3_extended_errcode(st->db) ==
	    SQLITE_CONSTRAINT_PRIMARYKEY) {
		*res = STORE_MOVE_TAKEN;
		rc = 0;
		goto out;	/* rolled back below */
	}
	if (step != SQLITE_DONE) {
		store_fail(st, err, "cannot move memory");
		goto out;
	}
	if (*res == STORE_MOVED && (clear_verdicts(st, from, slug, err) != 0 ||
	    clear_verdicts(st, to, slug, err) != 0))
		goto out;
	if (store_exec(st, "COMMIT", err) != 0)
		goto out;
	if (*res == STORE_MOVED) {
		store_cache_remove(st, from, rowid);
		store_cache_put(st, to, rowid, vec, dim, archived, branch);
	}
	rc = 0;
out:
	sqlite3_finalize(stmt);
	store_rollback(st);
	free(vec);
	free(branch);
	if (rc != 0)
		*res = STORE_MOVE_MISSING;
	return rc;
}

/*
 * The columns a walk reads: every entry column but content, which stays
 * on disk (a list shows none, and sorting 10,000 rows with their contents
 * costs more than the rest of `list`).
 */
#define SQL_WALK_COLS	"SELECT slug, store, label, NULL, model, branch, " \
	"confidence, archived, created_at, updated_at, recall_count, " \
	"last_recalled_at FROM entries "

/* Call fn for each row of sql (SQL_WALK_COLS ..., text parameters). */
static int
walk_entries(struct store *st, const char *sql, const char *const *params,
    size_t nparams, int (*fn)(const struct store_entry *, void *),
    void *arg, struct err *err)
{
	sqlite3_stmt		*stmt = NULL;
	struct store_entry	 e;
	size_t			 i;
	int			 step = SQLITE_DONE, stop = 0;

	if (store_prepare(st, &stmt, sql, err) != 0)
		return -1;
	for (i = 0; i < nparams; i++)
		sqlite3_bind_text(stmt, (int)i + 1, params[i], -1,
		    SQLITE_STATIC);
	while (!stop && (step = sqlite3_step(stmt)) == SQLITE_ROW) {
		store_entry_read(stmt, 0, &e);
		stop = fn(&e, arg);
		store_entry_release(&e);
	}
	sqlite3_finalize(stmt);
	if (!stop && step != SQLITE_DONE)
		return store_fail(st, err, "cannot list memories");
	return 0;
}

int
store_list(struct store *st, const char *store,
    int (*fn)(const struct store_entry *, void *), void *arg,
    struct err *err)
{
	return walk_entries(st, SQL_WALK_COLS "WHERE store = ? ORDER BY label",
	    &store, 1, fn, arg, err);
}

/* Only the columns of the entries_list index (store_sidecar.c), which
 * SQLite then reads alone, in order, without the table or a sort. */
int
store_list_lines(struct store *st, const char *store,
    int (*fn)(const struct store_entry *, void *), void *arg,
    struct err *err)
{
	return walk_entries(st, "SELECT NULL, store, label, NULL, NULL, "
	    "branch, confidence, archived, NULL, updated_at, 0, NULL "
	    "FROM entries WHERE store = ? ORDER BY label", &store, 1, fn, arg,
	    err);
}

/* Run a one-integer query with text parameters; *n gets the result. */
static int
query_int(struct store *st, const char *sql, const char *const *params,
    size_t nparams, int *n, struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	size_t		 i;
	int		 rc = -1;

	*n = 0;
	if (store_prepare(st, &stmt, sql, err) != 0)
		return -1;
	for (i = 0; i < nparams; i++)
		sqlite3_bind_text(stmt, (int)i + 1, params[i], -1,
		    SQLITE_STATIC);
	if (sqlite3_step(stmt) == SQLITE_ROW) {
		*n = sqlite3_column_int(stmt, 0);
		rc = 0;
	} else
		store_fail(st, err, "cannot count memories");
	sqlite3_finalize(stmt);
	return rc;
}

int
store_list_stores(struct store *st, int (*fn)(const char *, void *),
    void *arg, struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	int		 rc = -1, step;

	if (store_prepare(st, &stmt, "SELECT name FROM stores ORDER BY name",
	    err) != 0)
		goto out;
	while ((step = sqlite3_step(stmt)) == SQLITE_ROW) {
		if (fn((const char *)sqlite3_column_text(stmt, 0), arg) != 0)
			break;
	}
	if (step != SQLITE_ROW && step != SQLITE_DONE) {
		err_set(err, "cannot list stores in '%s': %s", st->path,
		    sqlite3_errmsg(st->db));
		goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(stmt);
	return rc;
}

int
store_has_store(struct store *st, const char *name, bool *found,
    struct err *err)
{
	int	n;

	*found = false;
	if (query_int(st, "SELECT COUNT(*) FROM stores WHERE name = ?",
	    &name, 1, &n, err) != 0)
		return -1;
	*found = n > 0;
	return 0;
}

int
store_count(struct store *st, const char *store, int *n, struct err *err)
{
	return query_int(st, "SELECT COUNT(*) FROM entries WHERE store = ?",
	    &store, 1, n, err);
}

/* §6 signal 2: the last touch of a memory, and the stale ones of ?1 by
 * cutoff ?2 (one definition for the count and the list). */
#define SQL_TOUCHED	"max(updated_at, COALESCE(last_recalled_at, " \
	"updated_at))"
#define SQL_STALE	"WHERE store = ? AND archived = 0 AND " SQL_TOUCHED \
	" < ?"

int
store_count_stale(struct store *st, const char *store, const char *cutoff,
    int *n, struct err *err)
{
	const char	*params[] = { store, cutoff };

	return query_int(st, "SELECT COUNT(*) FROM entries " SQL_STALE,
	    params, 2, n, err);
}

int
store_list_stale(struct store *st, const char *store, const char *cutoff,
    int (*fn)(const struct store_entry *, void *), void *arg,
    struct err *err)
{
	const char	*params[] = { store, cutoff };

	return walk_entries(st, SQL_WALK_COLS SQL_STALE " ORDER BY "
	    SQL_TOUCHED ", label", params, 2, fn, arg, err);
}

int
store_next_stale(struct store *st, const char *store, const char *cutoff,
    char **touched, struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	int		 rc = -1;

	*touched = NULL;
	if (store_prepare(st, &stmt, "SELECT min(" SQL_TOUCHED ") FROM "
	    "entries WHERE store = ? AND archived = 0 AND " SQL_TOUCHED
	    " >= ?", err) != 0)
		return -1;
	sqlite3_bind_text(stmt, 1, store, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 2, cutoff, -1, SQLITE_STATIC);
	if (sqlite3_step(stmt) == SQLITE_ROW) {
		*touched = column_dup(stmt, 0);
		rc = 0;
	} else
		store_fail(st, err, "cannot read touch times");
	sqlite3_finalize(stmt);
	return rc;
}

int
store_count_in_branches(struct store *st, const char *store,
    const char *const *branches, size_t nbranches, int *n,
    struct err *err)
{
	struct sbuf	 sql = SBUF_INIT;
	const char	**params;
	size_t		 i;
	int		 rc;

	*n = 0;
	if (nbranches == 0)
		return 0;
	params = xcalloc(nbranches + 1, sizeof(*params));
	params[0] = store;
	sbuf_adds(&sql, "SELECT COUNT(*) FROM entries WHERE store = ? "
	    "AND archived = 0 AND branch IN (");
	for (i = 0; i < nbranches; i++) {
		sbuf_adds(&sql, i == 0 ? "?" : ", ?");
		params[i + 1] = branches[i];
	}
	sbuf_addc(&sql, ')');
	rc = query_int(st, sql.buf, params, nbranches + 1, n, err);
	free(params);
	sbuf_release(&sql);
	return rc;
}

int
store_list_branch(struct store *st, const char *store, const char *branch,
    int (*fn)(const struct store_entry *, void *), void *arg,
    struct err *err)
{
	const char	*params[] = { store, branch };

	return walk_entries(st, SQL_WALK_COLS "WHERE store = ? AND "
	    "archived = 0 AND branch = ? ORDER BY label", params, 2, fn, arg,
	    err);
}

int
store_branches(struct store *st, const char *store,
    int (*fn)(const char *, void *), void *arg, struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	int		 step = SQLITE_DONE, stop = 0;

	if (store_prepare(st, &stmt, "SELECT DISTINCT branch FROM entries "
	    "WHERE store = ? AND branch IS NOT NULL ORDER BY branch", err) != 0)
		return -1;
	sqlite3_bind_text(stmt, 1, store, -1, SQLITE_STATIC);
	while (!stop && (step = sqlite3_step(stmt)) == SQLITE_ROW)
		stop = fn((const char *)sqlite3_column_text(stmt, 0), arg);
	sqlite3_finalize(stmt);
	if (!stop && step != SQLITE_DONE)
		return store_fail(st, err, "cannot list branches");
	return 0;
}

int
store_verdict_set(struct store *st, const char *store, const char *slug_x,
    const char *slug_y, const char *status, const char *now,
    struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	bool		 swap = slug_cmp(slug_x, slug_y) > 0;

	if (store_prepare(st, &stmt, "INSERT OR REPLACE INTO dedup_pairs "
	    "(store, slug_a, slug_b, status, checked_at) "
	    "VALUES (?, ?, ?, ?, ?)", err) != 0)
		return -1;
	sqlite3_bind_text(stmt, 1, store, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 2, swap ? slug_y : slug_x, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 3, swap ? slug_x : slug_y, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 4, status, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 5, now, -1, SQLITE_STATIC);
	return step_done(st, stmt, "cannot record verdict", err);
}

int
store_verdicts(struct store *st, const char *store,
    int (*fn)(const char *, const char *, const char *, void *), void *arg,
    struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	const char	*a, *b, *status;
	int		 step = SQLITE_DONE, stop = 0;

	if (store_prepare(st, &stmt, "SELECT slug_a, slug_b, status "
	    "FROM dedup_pairs WHERE store = ?", err) != 0)
		return -1;
	sqlite3_bind_text(stmt, 1, store, -1, SQLITE_STATIC);
	while (!stop && (step = sqlite3_step(stmt)) == SQLITE_ROW) {
		a = (const char *)sqlite3_column_text(stmt, 0);
		b = (const char *)sqlite3_column_text(stmt, 1);
		status = (const char *)sqlite3_column_text(stmt, 2);
		if (a == NULL || b == NULL)
			continue;	/* NOT NULL in the schema; be safe */
		stop = slug_cmp(a, b) > 0 ? fn(b, a, status, arg) :
		    fn(a, b, status, arg);
	}
	sqlite3_finalize(stmt);
	if (!stop && step != SQLITE_DONE)
		return store_fail(st, err, "cannot read verdicts");
	return 0;
}

/* ---- Sync (core/sync/sync.c): exact rows, inside the caller's transaction -- */

static const char SQL_PUT_EXACT[] =
	"INSERT INTO entries (slug, store, label, content, embedding, model, "
	"branch, confidence, archived, created_at, updated_at) "
	"VALUES (?1, ?2, ?3, ?4, NULL, NULL, ?5, ?6, ?7, ?8, ?9) "
	"ON CONFLICT(slug, store) DO UPDATE SET "
	"label = excluded.label, content = excluded.content, "
	"embedding = NULL, model = NULL, branch = excluded.branch, "
	"confidence = excluded.confidence, archived = excluded.archived, "
	"created_at = excluded.created_at, updated_at = excluded.updated_at "
	"RETURNING rowid";

int
store_walk(struct store *st, const char *store,
    int (*fn)(const struct store_entry *, void *), void *arg,
    struct err *err)
{
	return walk_entries(st, "SELECT " STORE_ENTRY_COLS " FROM entries "
	    "WHERE store = ? ORDER BY slug", &store, 1, fn, arg, err);
}

int
store_put_exact(struct store *st, const struct store_entry *e,
    struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	sqlite3_int64	 rowid;
	int		 rc = -1;

	if (ensure_store(st, e->store, err) != 0 ||
	    store_prepare(st, &stmt, SQL_PUT_EXACT, err) != 0)
		return -1;
	sqlite3_bind_text(stmt, 1, e->slug, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 2, e->store, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 3, e->label, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 4, e->content, -1, SQLITE_STATIC);
	if (e->branch != NULL)
		sqlite3_bind_text(stmt, 5, e->branch, -1, SQLITE_STATIC);
	if (e->confidence != 0)
		sqlite3_bind_int(stmt, 6, e->confidence);
	sqlite3_bind_int(stmt, 7, e->archived);
	sqlite3_bind_text(stmt, 8, e->created_at, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 9, e->updated_at, -1, SQLITE_STATIC);
	if (step_entries(st, stmt) != SQLITE_ROW) {
		store_fail(st, err, "cannot save memory");
		goto out;
	}
	rowid = sqlite3_column_int64(stmt, 0);
	if (step_entries(st, stmt) != SQLITE_DONE) {
		store_fail(st, err, "cannot save memory");
		goto out;
	}
	if (clear_verdicts(st, e->store, e->slug, err) != 0)
		goto out;
	store_cache_put(st, e->store, rowid, NULL, 0, e->archived, e->branch);
	rc = 0;
out:
	sqlite3_finalize(stmt);
	return rc;
}

int
store_drop(struct store *st, const char *store, const char *slug,
    struct err *err)
{
	sqlite3_int64	rowid = 0;
	bool		found;

	if (delete_row(st, store, slug, &found, &rowid, err) != 0)
		return -1;
	if (found)
		store_cache_remove(st, store, rowid);
	return 0;
}

int
store_set_embedding(struct store *st, const char *store, const char *slug,
    const float *vec, int dim, const char *model, struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	void		*scratch = NULL;
	const void	*blob;
	int		 rc = -1;

	if (store_prepare(st, &stmt, "UPDATE entries SET embedding = ?, "
	    "model = ? WHERE slug = ? AND store = ? "
	    "RETURNING rowid, archived, branch", err) != 0)
		return -1;
	blob = vector_encode(vec, (size_t)dim, &scratch);
	sqlite3_bind_blob(stmt, 1, blob, dim * 4, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 2, model, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 3, slug, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 4, store, -1, SQLITE_STATIC);
	switch (step_entries(st, stmt)) {
	case SQLITE_ROW:
		store_cache_put(st, store, sqlite3_column_int64(stmt, 0), vec,
		    dim, sqlite3_column_int(stmt, 1) != 0,
		    (const char *)sqlite3_column_text(stmt, 2));
		if (step_entries(st, stmt) != SQLITE_DONE)
			break;
		/* FALLTHROUGH */
	case SQLITE_DONE:
		rc = 0;
		break;
	}
	if (rc != 0)
		store_fail(st, err, "cannot save an embedding");
	sqlite3_finalize(stmt);
	free(scratch);
	return rc;
}
