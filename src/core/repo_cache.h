/* repo_cache.h — the repo_paths table behind repo_detect (repo_cache.c). */
#ifndef THATCH_CORE_REPO_CACHE_H
#define THATCH_CORE_REPO_CACHE_H

#include "core/repo.h"

struct clock;
struct store;

/*
 * The SQL implementation of the identity cache (store-and-tools §2.5):
 * hand &rc->cache to repo_detect and friends. Borrows st and clock, which
 * must outlive it; nothing to release.
 */
struct repo_cache_sql {
	struct repo_cache	 cache;		/* first: the callbacks' view */
	struct store		*st;
	const struct clock	*clock;
};

void	repo_cache_init(struct repo_cache_sql *, struct store *,
	    const struct clock *);

#endif
