/*
 * sync_state.c — the two tables that are thatch's own, beside the
 * original's: thatch_sync (per store and remote: the last merged remote
 * commit, and whether the MCP server syncs in the background) and
 * thatch_sync_private (slugs never sent).
 *
 * Invariants:
 *  1. The original's tables get no column: these tables are separate and
 *     named thatch_*, which the original never reads or creates, so a
 *     file that has them still opens in the original (store.c
 *     invariant 2).
 *  2. They are created on the first sync or --auto/--private, never by
 *     store_open (store.c invariant 5: opening writes nothing); a reader
 *     of a file without them sees "no state".
 */
#include "core/sync/sync_state.h"

#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "core/store/store.h"
#include "core/sync/sync.h"
#include "util/err.h"
#include "util/xmalloc.h"

static const char SQL_STATE[] =
	"CREATE TABLE IF NOT EXISTS thatch_sync (\n"
	"  store  TEXT NOT NULL,\n"
	"  remote TEXT NOT NULL,\n"
	"  base   TEXT,\n"
	"  auto   INTEGER NOT NULL DEFAULT 0,\n"
	"  PRIMARY KEY (store, remote)\n"
	");\n"
	"CREATE TABLE IF NOT EXISTS thatch_sync_private (\n"
	"  store TEXT NOT NULL,\n"
	"  slug  TEXT NOT NULL,\n"
	"  PRIMARY KEY (store, slug)\n"
	")";

int
sync_state_setup(struct store *st, struct err *err)
{
	return store_exec(st, SQL_STATE, err);
}

int
sync_state_base(struct store *st, const char *store, const char *remote,
    char base[SYNC_OID_LEN + 1], struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	const char	*s;
	int		 step;

	base[0] = '\0';
	if (store_prepare(st, &stmt, "SELECT base FROM thatch_sync "
	    "WHERE store = ? AND remote = ?", err) != 0)
		return -1;
	sqlite3_bind_text(stmt, 1, store, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 2, remote, -1, SQLITE_STATIC);
	step = sqlite3_step(stmt);
	if (step == SQLITE_ROW &&
	    (s = (const char *)sqlite3_column_text(stmt, 0)) != NULL &&
	    strlen(s) == SYNC_OID_LEN)
		memcpy(base, s, SYNC_OID_LEN + 1);
	sqlite3_finalize(stmt);
	if (step != SQLITE_ROW && step != SQLITE_DONE)
		return err_set(err, "cannot read the last synced state: %s",
		    sqlite3_errmsg(store_db(st)));
	return 0;
}

static int
state_write(struct store *st, const char *sql, const char *store,
    const char *remote, const char *value, struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	int		 rc = 0;

	if (store_prepare(st, &stmt, sql, err) != 0)
		return -1;
	sqlite3_bind_text(stmt, 1, store, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 2, remote, -1, SQLITE_STATIC);
	if (value != NULL)
		sqlite3_bind_text(stmt, 3, value, -1, SQLITE_STATIC);
	if (sqlite3_step(stmt) != SQLITE_DONE)
		rc = err_set(err, "cannot record the sync state: %s",
		    sqlite3_errmsg(store_db(st)));
	sqlite3_finalize(stmt);
	return rc;
}

int
sync_state_set_base(struct store *st, const char *store, const char *remote,
    const char *base, struct err *err)
{
	return state_write(st, "INSERT INTO thatch_sync (store, remote, base) "
	    "VALUES (?1, ?2, ?3) ON CONFLICT (store, remote) DO UPDATE SET "
	    "base = excluded.base", store, remote, base, err);
}

int
sync_auto_set(struct store *st, const char *store, const char *remote,
    bool on, struct err *err)
{
	if (sync_state_setup(st, err) != 0)
		return -1;
	if (on && state_write(st, "UPDATE thatch_sync SET auto = 0 "
	    "WHERE store = ?1 AND remote != ?2", store, remote, NULL,
	    err) != 0)
		return -1;
	return state_write(st, on ?
	    "INSERT INTO thatch_sync (store, remote, auto) VALUES (?1, ?2, 1) "
	    "ON CONFLICT (store, remote) DO UPDATE SET auto = 1" :
	    "UPDATE thatch_sync SET auto = 0 WHERE store = ?1", store,
	    remote, NULL, err);
}

char *
sync_auto_remote(struct store *st, const char *store)
{
	sqlite3_stmt	*stmt = NULL;
	char		*remote = NULL;

	/* no table yet is "off", not an error: prepare quietly */
	if (sqlite3_prepare_v2(store_db(st), "SELECT remote FROM thatch_sync "
	    "WHERE store = ? AND auto = 1 ORDER BY remote LIMIT 1", -1, &stmt,
	    NULL) != SQLITE_OK) {
		sqlite3_finalize(stmt);
		return NULL;
	}
	sqlite3_bind_text(stmt, 1, store, -1, SQLITE_STATIC);
	if (sqlite3_step(stmt) == SQLITE_ROW)
		remote = xstrdup((const char *)sqlite3_column_text(stmt, 0));
	sqlite3_finalize(stmt);
	return remote;
}

int
sync_private_set(struct store *st, const char *store, const char *slug,
    bool private, struct err *err)
{
	if (sync_state_setup(st, err) != 0)
		return -1;
	return state_write(st, private ?
	    "INSERT OR IGNORE INTO thatch_sync_private (store, slug) "
	    "VALUES (?1, ?2)" :
	    "DELETE FROM thatch_sync_private WHERE store = ?1 AND slug = ?2",
	    store, slug, NULL, err);
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int
sync_state_privates(struct store *st, const char *store, char ***out,
    size_t *n, struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	size_t		 cap = 0;
	int		 step;

	*out = NULL;
	*n = 0;
	if (store_prepare(st, &stmt, "SELECT slug FROM thatch_sync_private "
	    "WHERE store = ?", err) != 0)
		return -1;
	sqlite3_bind_text(stmt, 1, store, -1, SQLITE_STATIC);
	while ((step = sqlite3_step(stmt)) == SQLITE_ROW) {
		if (*n == cap)
			*out = xreallocarray(*out, cap = cap * 2 + 8,
			    sizeof(**out));
		(*out)[(*n)++] =
		    xstrdup((const char *)sqlite3_column_text(stmt, 0));
	}
	sqlite3_finalize(stmt);
	if (step != SQLITE_DONE)
		return err_set(err, "cannot read private memories: %s",
		    sqlite3_errmsg(store_db(st)));
	/* strcmp, not the column's collation: sync.c bsearches with it;
	 * an empty list is NULL, which qsort may not be given (UBSan) */
	if (*n > 1)
		qsort(*out, *n, sizeof(**out), cmp_str);
	return 0;
}

void
sync_state_free_list(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}
