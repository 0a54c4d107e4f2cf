/*
 * sync_held.c — the memories sync held for the user's review (issue 31):
 * what a teammate sent that reads as an order to the agent or carries a
 * secret waits in thatch_sync_held, outside entries, so that no recall,
 * list, hint or session start can see it, until `thatch sync --review`
 * accepts it into entries or rejects it.
 *
 * Invariants:
 *  1. A held memory is never in entries: accepting it is the one way in,
 *     and it writes the row, its provenance and the decision in one
 *     transaction.
 *  2. A decision is about one document: the row keeps the blob id it was
 *     made on, so a rejected document stays out on every later sync and
 *     an accepted one is not held again, while a new version of either is
 *     reviewed afresh.
 *  3. The table is thatch's own (named thatch_*, sync_state.c invariant
 *     1), created on the first sync; a file without it holds nothing.
 */
#include "core/sync/sync_held.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "core/store/store.h"
#include "util/err.h"

static const char SQL_TABLE[] =
	"CREATE TABLE IF NOT EXISTS thatch_sync_held (\n"
	"  id         INTEGER PRIMARY KEY,\n"
	"  store      TEXT NOT NULL,\n"
	"  slug       TEXT NOT NULL,\n"
	"  oid        TEXT NOT NULL,\n"
	"  state      TEXT NOT NULL,\n"
	"  reason     TEXT NOT NULL,\n"
	"  author     TEXT,\n"
	"  ref        TEXT,\n"
	"  label      TEXT NOT NULL,\n"
	"  content    TEXT NOT NULL,\n"
	"  branch     TEXT,\n"
	"  confidence INTEGER,\n"
	"  archived   INTEGER NOT NULL DEFAULT 0,\n"
	"  created_at TEXT NOT NULL,\n"
	"  updated_at TEXT NOT NULL,\n"
	"  UNIQUE (store, slug)\n"
	")";

/* The states by their stored names, in enum order. */
static const char *const states[] = {
	[SYNC_HELD_NONE] = "",
	[SYNC_HELD_PENDING] = "held",
	[SYNC_HELD_ACCEPTED] = "accepted",
	[SYNC_HELD_REJECTED] = "rejected",
};

static int
fail(struct store *st, struct err *err, const char *what)
{
	return err_set(err, "%s: %s", what, sqlite3_errmsg(store_db(st)));
}

int
sync_held_setup(struct store *st, struct err *err)
{
	return store_exec(st, SQL_TABLE, err);
}

int
sync_held_state(struct store *st, const char *store, const char *slug,
    const char *oid, enum sync_held_state *out, struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	const char	*s;
	size_t		 i;
	int		 step;

	*out = SYNC_HELD_NONE;
	if (store_prepare(st, &stmt, "SELECT state FROM thatch_sync_held "
	    "WHERE store = ? AND slug = ? AND oid = ?", err) != 0)
		return -1;
	sqlite3_bind_text(stmt, 1, store, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 2, slug, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 3, oid, -1, SQLITE_STATIC);
	if ((step = sqlite3_step(stmt)) == SQLITE_ROW &&
	    (s = (const char *)sqlite3_column_text(stmt, 0)) != NULL)
		for (i = 1; i < sizeof(states) / sizeof(states[0]); i++)
			if (strcmp(s, states[i]) == 0)
				*out = (enum sync_held_state)i;
	sqlite3_finalize(stmt);
	if (step != SQLITE_ROW && step != SQLITE_DONE)
		return fail(st, err, "cannot read held memories");
	return 0;
}

int
sync_held_put(struct store *st, const struct store_entry *e,
    const char *oid, const char *reason, const char *author,
    const char *ref, struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	int		 step;

	/* a known author is kept when a later sync cannot name it again */
	if (store_prepare(st, &stmt, "INSERT INTO thatch_sync_held (store, "
	    "slug, oid, state, reason, author, ref, label, content, branch, "
	    "confidence, archived, created_at, updated_at) VALUES (?1, ?2, "
	    "?3, 'held', ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13) "
	    "ON CONFLICT (store, slug) DO UPDATE SET oid = excluded.oid, "
	    "state = 'held', reason = excluded.reason, author = "
	    "coalesce(excluded.author, author), ref = coalesce(excluded.ref, "
	    "ref), label = excluded.label, content = excluded.content, "
	    "branch = excluded.branch, confidence = excluded.confidence, "
	    "archived = excluded.archived, created_at = excluded.created_at, "
	    "updated_at = excluded.updated_at", err) != 0)
		return -1;
	sqlite3_bind_text(stmt, 1, e->store, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 2, e->slug, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 3, oid, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 4, reason, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 5, author, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 6, ref, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 7, e->label, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 8, e->content, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 9, e->branch, -1, SQLITE_STATIC);
	if (e->confidence != 0)
		sqlite3_bind_int(stmt, 10, e->confidence);
	sqlite3_bind_int(stmt, 11, e->archived);
	sqlite3_bind_text(stmt, 12, e->created_at, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 13, e->updated_at, -1, SQLITE_STATIC);
	step = sqlite3_step(stmt);
	sqlite3_finalize(stmt);
	return step == SQLITE_DONE ? 0 : fail(st, err,
	    "cannot hold a memory for review");
}

#define HELD_COLS	"id, reason, author, ref, slug, store, label, " \
	"content, branch, confidence, archived, created_at, updated_at"

/* A row of HELD_COLS; the strings borrowed from stmt. */
static void
read_row(sqlite3_stmt *stmt, struct sync_held *h)
{
	memset(h, 0, sizeof(*h));
	h->id = sqlite3_column_int64(stmt, 0);
	h->reason = (const char *)sqlite3_column_text(stmt, 1);
	h->author = (const char *)sqlite3_column_text(stmt, 2);
	h->ref = (const char *)sqlite3_column_text(stmt, 3);
	h->e.slug = (char *)sqlite3_column_text(stmt, 4);
	h->e.store = (char *)sqlite3_column_text(stmt, 5);
	h->e.label = (char *)sqlite3_column_text(stmt, 6);
	h->e.content = (char *)sqlite3_column_text(stmt, 7);
	h->e.branch = (char *)sqlite3_column_text(stmt, 8);
	h->e.confidence = sqlite3_column_int(stmt, 9);
	h->e.archived = sqlite3_column_int(stmt, 10) != 0;
	h->e.created_at = (char *)sqlite3_column_text(stmt, 11);
	h->e.updated_at = (char *)sqlite3_column_text(stmt, 12);
}

/*
 * Call fn for each memory of store still held whose id is id (0: all),
 * in id order. A database without the table holds nothing.
 */
static int
walk(struct store *st, const char *store, long long id,
    int (*fn)(const struct sync_held *, void *), void *arg, struct err *err)
{
	sqlite3_stmt		*stmt = NULL;
	struct sync_held	 h;
	int			 step, stop = 0;

	if (sqlite3_prepare_v2(store_db(st), "SELECT " HELD_COLS " FROM "
	    "thatch_sync_held WHERE store = ?1 AND state = 'held' AND "
	    "(?2 = 0 OR id = ?2) ORDER BY id", -1, &stmt, NULL) != SQLITE_OK)
		return 0;	/* invariant 3 */
	sqlite3_bind_text(stmt, 1, store, -1, SQLITE_STATIC);
	sqlite3_bind_int64(stmt, 2, id);
	while (!stop && (step = sqlite3_step(stmt)) == SQLITE_ROW) {
		read_row(stmt, &h);
		stop = fn(&h, arg);
	}
	sqlite3_finalize(stmt);
	if (!stop && step != SQLITE_DONE)
		return fail(st, err, "cannot read held memories");
	return stop < 0 ? -1 : 0;
}

int
sync_held_walk(struct store *st, const char *store,
    int (*fn)(const struct sync_held *, void *), void *arg, struct err *err)
{
	return walk(st, store, 0, fn, arg, err);
}

struct decision {
	struct store	*st;
	bool		 accept;
	size_t		 n;
	struct err	*err;
};

/* Invariant 1: an accepted memory goes in with its provenance. */
static int
decide_one(const struct sync_held *h, void *arg)
{
	struct decision	*d = arg;
	sqlite3_stmt	*stmt = NULL;
	int		 step;

	if (d->accept && (store_put_exact(d->st, &h->e, d->err) != 0 ||
	    store_origin_set(d->st, h->e.store, h->e.slug, STORE_ORIGIN_SYNC,
	    h->author, h->ref, d->err) != 0))
		return -1;
	if (store_prepare(d->st, &stmt, "UPDATE thatch_sync_held SET "
	    "state = ? WHERE id = ?", d->err) != 0)
		return -1;
	sqlite3_bind_text(stmt, 1, states[d->accept ? SYNC_HELD_ACCEPTED :
	    SYNC_HELD_REJECTED], -1, SQLITE_STATIC);
	sqlite3_bind_int64(stmt, 2, h->id);
	step = sqlite3_step(stmt);
	sqlite3_finalize(stmt);
	if (step != SQLITE_DONE)
		return fail(d->st, d->err, "cannot record a review");
	d->n++;
	return 0;
}

int
sync_held_decide(struct store *st, const char *store, long long id,
    bool accept, size_t *n, struct err *err)
{
	struct decision	d = { st, accept, 0, err };

	*n = 0;
	if (store_exec(st, "BEGIN IMMEDIATE", err) != 0)
		return -1;
	if (walk(st, store, id, decide_one, &d, err) != 0 ||
	    store_exec(st, "COMMIT", err) != 0) {
		store_exec(st, "ROLLBACK", NULL);
		return -1;
	}
	*n = d.n;
	return 0;
}
