/*
 * store_page.c — one page of a store's listing, newest-updated first, with
 * the count of all it was cut from (issue 27: memory_list bounded).
 *
 * store_list_lines walks a whole store in label order for `thatch list`;
 * this file serves the agent, whose context pays for every line.
 *  1. The filters (label prefix, compared byte for byte like labels are
 *     ordered; branch, exactly) apply to the count and the page alike, so
 *     the total a caller prints is what offset pages through.
 *  2. The order is updated_at, newest first, then label: stable across
 *     calls while the store does not change, so offsets do not skip.
 *  3. Only the listing columns are read (those of entries_list), as in
 *     store_list_lines.
 */
#include "core/store/store.h"

#include "core/store/store_int.h"

#define PAGE_WHERE	"FROM entries WHERE store = ?1 AND (?2 IS NULL OR " \
	"substr(label, 1, length(?2)) = ?2) AND (?3 IS NULL OR branch = ?3) "

/* Bind the store and the two filters shared by both statements. */
static void
bind_filters(sqlite3_stmt *stmt, const char *store,
    const struct store_page *pg)
{
	sqlite3_bind_text(stmt, 1, store, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 2, pg->prefix, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 3, pg->branch, -1, SQLITE_STATIC);
}

static int
count_matching(struct store *st, const char *store,
    const struct store_page *pg, long long *total, struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	int		 rc = -1;

	if (store_prepare(st, &stmt, "SELECT count(*) " PAGE_WHERE, err) != 0)
		return -1;
	bind_filters(stmt, store, pg);
	if (sqlite3_step(stmt) == SQLITE_ROW) {
		*total = sqlite3_column_int64(stmt, 0);
		rc = 0;
	} else
		store_fail(st, err, "cannot count memories");
	sqlite3_finalize(stmt);
	return rc;
}

int
store_list_page(struct store *st, const char *store,
    const struct store_page *pg, int (*fn)(const struct store_entry *, void *),
    void *arg, long long *total, struct err *err)
{
	sqlite3_stmt		*stmt = NULL;
	struct store_entry	 e;
	int			 step = SQLITE_DONE, stop = 0;

	if (count_matching(st, store, pg, total, err) != 0)
		return -1;
	if (store_prepare(st, &stmt, "SELECT NULL, store, label, NULL, NULL, "
	    "branch, confidence, archived, NULL, updated_at, 0, NULL "
	    PAGE_WHERE "ORDER BY updated_at DESC, label LIMIT ?4 OFFSET ?5",
	    err) != 0)
		return -1;
	bind_filters(stmt, store, pg);
	sqlite3_bind_int64(stmt, 4, pg->limit);
	sqlite3_bind_int64(stmt, 5, pg->offset);
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
