/* mapguard.h — file mappings that survive their file being cut (mapguard.c). */
#ifndef THATCH_UTIL_MAPGUARD_H
#define THATCH_UTIL_MAPGUARD_H

#include <stdbool.h>
#include <stddef.h>

/* Mappings guarded at once; a process maps a model and its packed copy. */
#define MAPGUARD_SLOTS	16

/*
 * Guard the read-only mapping of len bytes of fd at addr: a read of a page
 * the file lost (truncated in place) then yields zeros instead of SIGBUS,
 * and the guard remembers it. fd is duplicated; the caller may close its
 * own. Returns the guard (> 0), or 0 when every slot is taken or no
 * descriptor is left: the mapping is then unguarded, as without this.
 * Call right after mmap, before the first read.
 */
int	mapguard_add(int fd, const void *addr, size_t len);

/* Stop guarding (before munmap). 0 is no guard and ignored. */
void	mapguard_remove(int guard);

/*
 * Whether everything read through the mapping since mapguard_add was the
 * file: no page went missing and the file is still at least len bytes
 * long. Once false, always false: whatever was computed from the mapping
 * is garbage, and the mapping should be dropped. True for guard 0.
 */
bool	mapguard_intact(int guard);

#endif
