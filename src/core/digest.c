/*
 * digest.c — the bounded digest the session-start reminder gives the agent
 * in place of a list of stores and memories (issue 27): the sizes of the
 * project's store and "global", what changed since the project's last
 * session start, and the labels recalled most.
 *
 * Invariants:
 *  1. Bounded at any store size: one line of counts, at most one of
 *     changes, at most DIGEST_TOP labels, each fenced
 *     (text_fence_quoted): a label is stored text, never framing.
 *  2. Every query is indexed and none walks rows: the counts read the
 *     covering index entries_list (store, …, updated_at, archived); the
 *     top labels read thatch_recalled (store, archived, recall_count)
 *     backwards and stop at DIGEST_TOP. Both objects are made here when
 *     missing, best effort (a writer's lock is waited for only
 *     STORE_BEST_EFFORT_MS): a read-only or busy file still gets its
 *     digest, only slower.
 *  3. Stable while the stores do not change: no time or age is printed,
 *     the changes line only when a previous start is recorded and some
 *     memory was written after it, ties broken by rowid.
 *  4. thatch_session_start keeps one row per store, the last start's time
 *     to the second ("YYYY-MM-DDTHH:MM:SSZ"), compared as text with
 *     updated_at as the stale cutoff is: the original stamps in seconds,
 *     thatch in milliseconds, and neither kind written in the start's own
 *     second sorts after it, so a start never counts itself. Writing it is
 *     best effort: a lost write costs one changes line.
 */
#include "core/digest.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/store/store.h"
#include "text/fence.h"
#include "util/err.h"
#include "util/log.h"
#include "util/os/clock.h"
#include "util/sbuf.h"
#include "util/xmalloc.h"

#define SQL_SETUP	"CREATE TABLE IF NOT EXISTS thatch_session_start (" \
	"store TEXT PRIMARY KEY, at TEXT NOT NULL);" \
	"CREATE INDEX IF NOT EXISTS thatch_recalled ON " \
	"entries(store, archived, recall_count)"
/* entries_list covers both (invariant 2); the planner prefers the other */
#define SQL_COUNT	"SELECT count(*) FROM entries INDEXED BY entries_list " \
	"WHERE store = ?1 AND archived = 0"
#define SQL_PREV	"SELECT at FROM thatch_session_start WHERE store = ?1"
#define SQL_CHANGED	"SELECT count(*), total(created_at > ?2) FROM entries " \
	"INDEXED BY entries_list WHERE store = ?1 AND archived = 0 AND updated_at > ?2"
#define SQL_MARK	"INSERT OR REPLACE INTO thatch_session_start (store, " \
	"at) VALUES (?1, ?2)"
#define SQL_TOP		"SELECT label, recall_count FROM entries WHERE " \
	"store = ?1 AND archived = 0 AND recall_count > 0 " \
	"ORDER BY recall_count DESC, rowid DESC LIMIT " STR(DIGEST_TOP)
#define STR(x)	STR_(x)
#define STR_(x)	#x

#define GLOBAL	"global"

/* One label of the top list and where it comes from. */
struct top {
	char		*label;
	const char	*store;
	int64_t		 recalls;
	size_t		 seq;		/* the order it came in: ties */
};

/*
 * Run sql with text parameters a and b (b may be NULL), each row to fn:
 * 0 when the query ran to its end.
 */
static int
each_row(struct store *st, const char *sql, const char *a, const char *b,
    void (*fn)(sqlite3_stmt *, void *), void *arg, struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	int		 step;

	if (store_prepare(st, &stmt, sql, err) != 0)
		return -1;
	sqlite3_bind_text(stmt, 1, a, -1, SQLITE_STATIC);
	if (b != NULL)
		sqlite3_bind_text(stmt, 2, b, -1, SQLITE_STATIC);
	while ((step = sqlite3_step(stmt)) == SQLITE_ROW)
		fn(stmt, arg);
	sqlite3_finalize(stmt);
	if (step == SQLITE_DONE)
		return 0;
	err_set(err, "database '%s': %s", store_path(st),
	    sqlite3_errmsg(store_db(st)));
	return -1;
}

static void
row_int(sqlite3_stmt *stmt, void *arg)
{
	int64_t	*v = arg;

	v[0] = sqlite3_column_int64(stmt, 0);
	if (sqlite3_column_count(stmt) > 1)
		v[1] = sqlite3_column_int64(stmt, 1);
}

static void
row_text(sqlite3_stmt *stmt, void *arg)
{
	char	**s = arg;

	free(*s);
	*s = xstrdup((const char *)sqlite3_column_text(stmt, 0));
}

/* The collector of the top list: a store's rows, appended. */
struct tops {
	struct top	 v[2 * DIGEST_TOP];
	size_t		 n;
	const char	*store;
};

static void
row_top(sqlite3_stmt *stmt, void *arg)
{
	struct tops	*t = arg;
	struct top	*e;

	if (t->n >= sizeof(t->v) / sizeof(t->v[0]))
		return;
	e = &t->v[t->n++];
	e->label = xstrdup((const char *)sqlite3_column_text(stmt, 0));
	e->store = t->store;
	e->recalls = sqlite3_column_int64(stmt, 1);
	e->seq = t->n;
}

/* Most recalled first; the project's store before "global" on a tie. */
static int
top_cmp(const void *a, const void *b)
{
	const struct top	*x = a, *y = b;

	if (x->recalls != y->recalls)
		return x->recalls > y->recalls ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* "N memories" or "1 memory" after the fenced store name. */
static void
count_part(struct sbuf *out, const char *store, int64_t n)
{
	text_fence_quoted(out, store);
	sbuf_addf(out, ": %lld memor%s", (long long)n, n == 1 ? "y" : "ies");
}

/* Invariant 4: the previous start of repo, and now recorded in its place. */
static char *
mark_start(struct store *st, const char *repo, int64_t now_ms)
{
	char		 iso[CLOCK_ISO_LEN];
	char		*prev = NULL;
	struct err	 err;

	clock_iso(now_ms, iso);
	iso[19] = 'Z';		/* to the second: invariant 4 */
	iso[20] = '\0';

	if (each_row(st, SQL_PREV, repo, NULL, row_text, &prev, &err) != 0)
		log_debug("digest", "%s", err.msg);
	store_busy_timeout(st, STORE_BEST_EFFORT_MS);
	if (each_row(st, SQL_MARK, repo, iso, row_text,
	    NULL, &err) != 0)
		log_debug("digest", "session start not recorded: %s", err.msg);
	store_busy_timeout(st, STORE_BUSY_MS);
	return prev;
}

/* The changes line of repo since prev (nothing when none or no prev). */
static int
changes_line(struct store *st, const char *repo, const char *prev,
    struct sbuf *out, struct err *err)
{
	int64_t	v[2] = { 0, 0 };

	if (prev == NULL)
		return 0;
	if (each_row(st, SQL_CHANGED, repo, prev, row_int, v, err) != 0)
		return -1;
	if (v[0] == 0)
		return 0;
	sbuf_adds(out, "\nChanged since the last session start in ");
	text_fence_quoted(out, repo);
	sbuf_addf(out, ": %lld new, %lld updated.", (long long)v[1],
	    (long long)(v[0] - v[1]));
	return 0;
}

/* The top labels of repo and "global" together. */
static int
top_line(struct store *st, const char *const *stores, size_t nstores,
    struct sbuf *out, struct err *err)
{
	struct tops	t = { .n = 0 };
	size_t		i;
	int		rc = 0;

	for (i = 0; i < nstores && rc == 0; i++) {
		t.store = stores[i];
		rc = each_row(st, SQL_TOP, stores[i], NULL, row_top, &t, err);
	}
	qsort(t.v, t.n, sizeof(t.v[0]), top_cmp);
	if (rc == 0 && t.n > 0)
		sbuf_adds(out, "\nRecalled most (labels):");
	for (i = 0; i < t.n; i++) {
		if (rc == 0 && i < DIGEST_TOP) {
			sbuf_adds(out, "\n- ");
			text_fence_quoted(out, t.v[i].label);
			sbuf_adds(out, " in ");
			text_fence_quoted(out, t.v[i].store);
		}
		free(t.v[i].label);
	}
	return rc;
}

int
digest_session_start(struct store *st, const char *repo, int64_t now_ms,
    struct sbuf *out, struct err *err)
{
	const char	*stores[] = { repo, GLOBAL };
	size_t		 nstores = strcmp(repo, GLOBAL) == 0 ? 1 : 2, i, mark;
	struct err	 setup;
	int64_t		 n;
	char		*prev;
	int		 rc = 0;

	/* a writer holding the lock costs the index, not the session's start */
	store_busy_timeout(st, STORE_BEST_EFFORT_MS);
	if (store_exec(st, SQL_SETUP, &setup) != 0)
		log_debug("digest", "setup: %s", setup.msg);
	store_busy_timeout(st, STORE_BUSY_MS);
	mark = out->len;
	sbuf_adds(out, "[thatch digest] ");
	for (i = 0; i < nstores && rc == 0; i++) {
		n = 0;
		rc = each_row(st, SQL_COUNT, stores[i], NULL, row_int, &n, err);
		if (i > 0)
			sbuf_adds(out, "; ");
		count_part(out, stores[i], n);
	}
	if (rc == 0)
		sbuf_adds(out, ".");
	prev = rc == 0 ? mark_start(st, repo, now_ms) : NULL;
	if (rc == 0)
		rc = changes_line(st, repo, prev, out, err);
	if (rc == 0)
		rc = top_line(st, stores, nstores, out, err);
	free(prev);
	if (rc != 0) {
		out->len = mark;
		out->buf[mark] = '\0';
	}
	return rc;
}
