/*
 * store_db.c — the connection every store file and core module works
 * through: statements, errors, transactions, per-connection state of
 * other modules (attachments), checking and closing. It is the bottom of
 * the store (store_int.h): it calls no other store file, and opening the
 * connection is store.c's.
 *
 * Invariants:
 *  1. Every error names the database's path and says SQLite's why.
 *  2. An attachment is freed exactly once, by its own free_fn: when it is
 *     replaced, or at close before the connection closes, after the
 *     connection's hooks are removed (nothing freed is called).
 *  4. SQLite keeps one update and one rollback hook a connection; they
 *     are set here once (store_watch) and tell every attachment that
 *     watches the connection's own writes (the search cache, the kept
 *     phrases).
 *  3. store_can_write never waits: it tries the write lock with a zero
 *     busy timeout and puts STORE_BUSY_MS back.
 */
#include "core/store/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/store/store_int.h"
#include "util/err.h"

sqlite3 *
store_db(struct store *st)
{
	return st->db;
}

void *
store_attached(struct store *st, const void *key)
{
	size_t	i;

	for (i = 0; i < STORE_ATTACH_MAX; i++)
		if (st->attached[i].key == key)
			return st->attached[i].data;
	return NULL;
}

int
store_attach(struct store *st, const void *key, void *data,
    void (*free_fn)(void *))
{
	struct store_attachment	*a = NULL;
	size_t			 i;

	for (i = 0; i < STORE_ATTACH_MAX; i++)
		if (st->attached[i].key == key ||
		    (a == NULL && st->attached[i].key == NULL))
			a = &st->attached[i];
	if (a == NULL)
		return -1;
	if (a->key == key && a->data != data && a->free_fn != NULL)
		a->free_fn(a->data);
	a->key = key;
	a->data = data;
	a->free_fn = free_fn;
	a->on_update = NULL;
	a->on_rollback = NULL;
	return 0;
}

const char *
store_path(const struct store *st)
{
	return st->path;
}

int
store_prepare(struct store *st, sqlite3_stmt **stmt, const char *sql,
    struct err *err)
{
	if (sqlite3_prepare_v2(st->db, sql, -1, stmt, NULL) != SQLITE_OK) {
		*stmt = NULL;
		return err_set(err, "database '%s': %s", st->path,
		    sqlite3_errmsg(st->db));
	}
	return 0;
}

int
store_fail(struct store *st, struct err *err, const char *what)
{
	return err_set(err, "%s in '%s': %s", what, st->path,
	    sqlite3_errmsg(st->db));
}

void
store_rollback(struct store *st)
{
	if (!sqlite3_get_autocommit(st->db))
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
}

bool
store_can_write(struct store *st)
{
	bool	ok;

	sqlite3_busy_timeout(st->db, 0);
	ok = sqlite3_exec(st->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) ==
	    SQLITE_OK;
	if (ok)
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
	sqlite3_busy_timeout(st->db, STORE_BUSY_MS);
	return ok;
}

void
store_busy_timeout(struct store *st, int ms)
{
	sqlite3_busy_timeout(st->db, ms);
}

long long
store_pages_read(struct store *st)
{
	int	cur = 0, hi = 0;

	sqlite3_db_status(st->db, SQLITE_DBSTATUS_CACHE_MISS, &cur, &hi, 0);
	return cur;
}

int
store_has_object(struct store *st, const char *name, bool *found,
    struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	int		 step;

	if (store_prepare(st, &stmt, "SELECT 1 FROM sqlite_master "
	    "WHERE name = ?", err) != 0)
		return -1;
	sqlite3_bind_text(stmt, 1, name, -1, SQLITE_STATIC);
	step = sqlite3_step(stmt);
	sqlite3_finalize(stmt);
	if (step != SQLITE_ROW && step != SQLITE_DONE)
		return store_fail(st, err, "cannot read the schema");
	*found = step == SQLITE_ROW;
	return 0;
}

int
store_exec(struct store *st, const char *sql, struct err *err)
{
	char	*msg = NULL;

	if (sqlite3_exec(st->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		err_set(err, "database '%s': %s", st->path,
		    msg ? msg : sqlite3_errmsg(st->db));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

int
store_quick_check(struct store *st, char *why, size_t n, struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	const char	*row;
	int		 rc = -1, step;

	if (store_prepare(st, &stmt, "PRAGMA quick_check(1)", err) != 0)
		goto out;
	if ((step = sqlite3_step(stmt)) != SQLITE_ROW) {
		err_set(err, "database '%s': %s", st->path,
		    sqlite3_errmsg(st->db));
		goto out;
	}
	row = (const char *)sqlite3_column_text(stmt, 0);
	rc = row != NULL && strcmp(row, "ok") == 0 ? 0 : 1;
	snprintf(why, n, "%s", row != NULL ? row : "no answer");
out:
	sqlite3_finalize(stmt);
	return rc;
}

/* Invariant 4: a row of main's tables changed through this connection. */
static void
hook_update(void *arg, int op, const char *db, const char *table,
    sqlite3_int64 rowid)
{
	struct store_attachment	*a = ((struct store *)arg)->attached;
	size_t			 i;

	(void)op;
	if (strcmp(db, "main") != 0)
		return;
	for (i = 0; i < STORE_ATTACH_MAX; i++)
		if (a[i].on_update != NULL)
			a[i].on_update(a[i].data, table, rowid);
}

static void
hook_rollback(void *arg)
{
	struct store_attachment	*a = ((struct store *)arg)->attached;
	size_t			 i;

	for (i = 0; i < STORE_ATTACH_MAX; i++)
		if (a[i].on_rollback != NULL)
			a[i].on_rollback(a[i].data);
}

void
store_watch(struct store *st, const void *key,
    void (*on_update)(void *, const char *, sqlite3_int64),
    void (*on_rollback)(void *))
{
	size_t	i;

	for (i = 0; i < STORE_ATTACH_MAX; i++)
		if (st->attached[i].key == key) {
			st->attached[i].on_update = on_update;
			st->attached[i].on_rollback = on_rollback;
		}
	if (st->hooked)
		return;
	sqlite3_update_hook(st->db, hook_update, st);
	sqlite3_rollback_hook(st->db, hook_rollback, st);
	st->hooked = true;
}

/* SQLite's fts5_api is reached through `SELECT fts5(?)` (fts5.html,
 * "Extending FTS5"). */
fts5_api *
store_fts5_api(struct store *st)
{
	sqlite3_stmt	*stmt = NULL;
	fts5_api	*api = NULL;

	if (sqlite3_prepare_v2(st->db, "SELECT fts5(?1)", -1, &stmt,
	    NULL) != SQLITE_OK)
		return NULL;
	sqlite3_bind_pointer(stmt, 1, (void *)&api, "fts5_api_ptr", NULL);
	sqlite3_step(stmt);
	sqlite3_finalize(stmt);
	return api != NULL && api->iVersion >= 2 ? api : NULL;
}

void
store_close(struct store *st)
{
	size_t	i;

	if (st == NULL)
		return;
	if (st->hooked) {	/* invariant 2 */
		sqlite3_update_hook(st->db, NULL, NULL);
		sqlite3_rollback_hook(st->db, NULL, NULL);
	}
	for (i = 0; i < STORE_ATTACH_MAX; i++)
		if (st->attached[i].free_fn != NULL)
			st->attached[i].free_fn(st->attached[i].data);
	sqlite3_close_v2(st->db);
	free(st->path);
	free(st);
}
