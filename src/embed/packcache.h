/* packcache.h — packed weights kept in a cache file (packcache.c). */
#ifndef THATCH_EMBED_PACKCACHE_H
#define THATCH_EMBED_PACKCACHE_H

#include <stdbool.h>
#include <stddef.h>

struct err;

/* floats floats of packed weights, 64-byte aligned, mapped or allocated. */
struct packcache {
	float	*data;
	size_t	 floats;
	void	*map;		/* the file's mapping, or NULL: allocated */
	size_t	 map_len;
	int	 guard;		/* the mapping's mapguard, or 0 */
};

/*
 * Map the cache file at path if it is one of ours holding exactly floats
 * floats: 0 with pc filled, else -1 (absent, short, foreign: the caller
 * packs anew; there is nothing to report).
 */
int	packcache_map(const char *path, size_t floats, struct packcache *);

/*
 * Whether the floats are still the file's: false for good once the file
 * was cut under its mapping (util/os/mapguard.h), when what was read from
 * it is zeros. Always true for allocated floats.
 */
bool	packcache_intact(const struct packcache *);

/* Fresh memory for floats floats, in 2 MB pages where the kernel allows. */
void	packcache_alloc(size_t floats, struct packcache *);

/*
 * Write pc's floats to path for the next process: parent folders created,
 * a temporary file written and fsync'd, then renamed into place, so a
 * reader sees the whole file or none. 0, or -1 with err set.
 */
int	packcache_save(const char *path, const struct packcache *,
	    struct err *);

void	packcache_release(struct packcache *);

#endif
