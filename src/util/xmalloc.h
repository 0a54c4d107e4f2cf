/* xmalloc.h — allocators that never return NULL (xmalloc.c). */
#ifndef THATCH_UTIL_XMALLOC_H
#define THATCH_UTIL_XMALLOC_H

#include <stddef.h>

/* Running out of memory is fatal (as in tmux's xmalloc.c): these print one
 * line to stderr and abort, so their results are never checked. */
void	*xmalloc(size_t);
void	*xcalloc(size_t, size_t);
void	*xrealloc(void *, size_t);
/* Grow an array of n elements of size sz to at least `need` elements. */
void	*xreallocarray(void *, size_t, size_t);
/* size bytes at a multiple of align (a power of two, >= sizeof(void *));
 * released with free. */
void	*xaligned_alloc(size_t align, size_t size);
char	*xstrdup(const char *);
char	*xstrndup(const char *, size_t);
/* A newly allocated formatted string. */
char	*xasprintf(const char *, ...) __attribute__((format(printf, 1, 2)));

#endif
