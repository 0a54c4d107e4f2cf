/* hygiene_cache.h — the reminder's cache of hygiene facts (hygiene_cache.c). */
#ifndef THATCH_CORE_HYGIENE_CACHE_H
#define THATCH_CORE_HYGIENE_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct err;
struct hygiene_facts;
struct store;

/* Stores below this many memories are scanned in the reminder itself
 * (THATCH_HYGIENE_SYNC_MAX overrides; see docs/hosts-and-hooks.md). */
#define HYGIENE_CACHE_SYNC_MAX	100

/* The cache of one (database, store): file names derive from both. */
struct hygiene_cache {
	char	*db;	/* the database path, as store_path gives it */
	char	*repo;	/* the store */
	char	*dir;	/* <cache_home>/thatch/hygiene */
	char	*file;	/* dir/<key>.json */
	char	*lock;	/* dir/<key>.lock */
};

void	hygiene_cache_init(struct hygiene_cache *, const char *cache_home,
	    const char *db, const char *repo);
void	hygiene_cache_release(struct hygiene_cache *);

/*
 * True if the cache holds current facts (the database has the stamp the
 * file was written under and no memory has aged past the stale limit
 * since): f gets them, without the database being opened. False: f is
 * empty; use hygiene_cache_facts.
 */
bool	hygiene_cache_current(const struct hygiene_cache *, int64_t now_ms,
	    struct hygiene_facts *);

/*
 * The facts the reminder prints, as of now_ms. When the cache was written
 * from the database as it is now (same stamp) and no memory has aged past
 * the stale limit since, they are the cached facts. Otherwise a store of
 * fewer than sync_max memories is scanned here (and the cache rewritten);
 * a larger one gets the last cached facts, or, with none, a scan without
 * the duplicate count, and *refresh is set: the caller should start
 * hygiene_cache_update in the background. A cache file that cannot be
 * read, parsed or written is ignored. Returns 0, or -1 with err set (a
 * scan failed; f empty).
 */
int	hygiene_cache_facts(const struct hygiene_cache *, struct store *,
	    int64_t now_ms, size_t sync_max, struct hygiene_facts *,
	    bool *refresh, struct err *);

/*
 * Bring the cache up to date: unless it already matches the database,
 * scan the store with its duplicate count and rewrite the file. Returns 0,
 * or -1 with err set.
 */
int	hygiene_cache_update(const struct hygiene_cache *, struct store *,
	    int64_t now_ms, struct err *);

/*
 * Take the refresher lock without waiting: a descriptor (close-on-exec)
 * holding an exclusive flock on the lock file, or -1 when another process
 * holds it or the file cannot be made. The lock lasts while any copy of
 * the descriptor stays open, so a refresher that inherits it keeps it.
 */
int	hygiene_cache_lock(const struct hygiene_cache *);

#endif
