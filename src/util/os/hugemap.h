/* hugemap.h — read-only file mappings in 2 MB pages (hugemap.c). */
#ifndef THATCH_UTIL_HUGEMAP_H
#define THATCH_UTIL_HUGEMAP_H

#include <stddef.h>

/* A transparent huge page: the alignment of every mapping here. */
#define HUGEMAP_PAGE	((size_t)2 << 20)

/*
 * Map size bytes of fd from offset 0 read-only and private, at a 2 MB
 * boundary, with MADV_HUGEPAGE. Returns the mapping (munmap(p, size)
 * releases it) or MAP_FAILED with errno set.
 */
void	*hugemap_file(int fd, size_t size);

#endif
