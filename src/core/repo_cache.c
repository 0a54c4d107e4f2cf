/*
 * repo_cache.c — the repo_paths table (store-and-tools §1.4.5, §2.5): the
 * store identity each directory resolved to, kept so that a deleted
 * worktree still maps to its repository's store.
 *
 * The cache is an optimisation of last resort: a database error makes a
 * lookup miss and a write vanish, never a detection fail (repo.c
 * invariant 1), so errors are logged, not returned.
 *  1. A write reads first and skips an identical row (§1.4.5), so a warm
 *     cache costs no write lock.
 *  2. resolved_at is epoch milliseconds (the unit the spec leaves open;
 *     JavaScript's Date.now()).
 */
#include "core/repo_cache.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/store/store.h"
#include "util/os/clock.h"
#include "util/err.h"
#include "util/log.h"
#include "util/xmalloc.h"

static int
cache_get(struct repo_cache *c, const char *path, char **main_path,
    char **slug)
{
	struct repo_cache_sql	*rc = (struct repo_cache_sql *)c;
	sqlite3_stmt		*stmt = NULL;
	struct err		 err;
	int			 hit = 0;

	*main_path = *slug = NULL;
	if (store_prepare(rc->st, &stmt, "SELECT main_path, repo_slug "
	    "FROM repo_paths WHERE worktree_path = ?", &err) != 0) {
		log_warn("identity cache: %s", err.msg);
		return 0;
	}
	sqlite3_bind_text(stmt, 1, path, -1, SQLITE_STATIC);
	if (sqlite3_step(stmt) == SQLITE_ROW &&
	    sqlite3_column_text(stmt, 0) != NULL &&
	    sqlite3_column_text(stmt, 1) != NULL) {
		*main_path = xstrdup((const char *)
		    sqlite3_column_text(stmt, 0));
		*slug = xstrdup((const char *)sqlite3_column_text(stmt, 1));
		hit = 1;
	}
	sqlite3_finalize(stmt);
	return hit;
}

static void
run(struct repo_cache_sql *rc, const char *sql, const char *a, const char *b,
    const char *c, bool with_time)
{
	sqlite3_stmt	*stmt = NULL;
	struct err	 err;
	int		 step;

	if (store_prepare(rc->st, &stmt, sql, &err) != 0) {
		log_warn("identity cache: %s", err.msg);
		return;
	}
	sqlite3_bind_text(stmt, 1, a, -1, SQLITE_STATIC);
	if (b != NULL)
		sqlite3_bind_text(stmt, 2, b, -1, SQLITE_STATIC);
	if (c != NULL)
		sqlite3_bind_text(stmt, 3, c, -1, SQLITE_STATIC);
	if (with_time)
		sqlite3_bind_int64(stmt, 4, clock_now(rc->clock));
	/* a lost write costs a later lookup; waiting would cost this one */
	store_busy_timeout(rc->st, STORE_BEST_EFFORT_MS);
	step = sqlite3_step(stmt);
	store_busy_timeout(rc->st, STORE_BUSY_MS);
	if (step != SQLITE_DONE)
		log_warn("identity cache in '%s': %s", store_path(rc->st),
		    sqlite3_errmsg(store_db(rc->st)));
	sqlite3_finalize(stmt);
}

static void
cache_put(struct repo_cache *c, const char *path, const char *main_path,
    const char *slug)
{
	struct repo_cache_sql	*rc = (struct repo_cache_sql *)c;
	char			*old_main, *old_slug;
	bool			 same;

	if (cache_get(c, path, &old_main, &old_slug)) {
		same = strcmp(old_main, main_path) == 0 &&
		    strcmp(old_slug, slug) == 0;
		free(old_main);
		free(old_slug);
		if (same)
			return;		/* invariant 1 */
	}
	run(rc, "INSERT INTO repo_paths (worktree_path, main_path, repo_slug, "
	    "resolved_at) VALUES (?1, ?2, ?3, ?4) "
	    "ON CONFLICT(worktree_path) DO UPDATE SET "
	    "main_path = excluded.main_path, repo_slug = excluded.repo_slug, "
	    "resolved_at = excluded.resolved_at", path, main_path, slug, true);
}

static void
cache_evict(struct repo_cache *c, const char *path)
{
	run((struct repo_cache_sql *)c, "DELETE FROM repo_paths "
	    "WHERE worktree_path = ?", path, NULL, NULL, false);
}

void
repo_cache_init(struct repo_cache_sql *rc, struct store *st,
    const struct clock *clock)
{
	rc->cache.get = cache_get;
	rc->cache.put = cache_put;
	rc->cache.evict = cache_evict;
	rc->st = st;
	rc->clock = clock;
}
