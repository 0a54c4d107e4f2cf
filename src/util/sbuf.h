/* sbuf.h — growable byte strings, always NUL-terminated (sbuf.c). */
#ifndef THATCH_UTIL_SBUF_H
#define THATCH_UTIL_SBUF_H

#include <stddef.h>

/*
 * Like git's strbuf: `buf` is always a valid C string (never NULL once
 * initialised), `len` excludes the terminator. Held by value; release with
 * sbuf_release, or take the string with sbuf_detach.
 */
struct sbuf {
	char	*buf;	/* owned */
	size_t	 len;
	size_t	 cap;
};

#define SBUF_INIT { NULL, 0, 0 }

void	 sbuf_init(struct sbuf *);
void	 sbuf_release(struct sbuf *);
/* Empty the string, keeping the allocation. */
void	 sbuf_reset(struct sbuf *);
/* Hand the string to the caller (free it); the sbuf is re-initialised. */
char	*sbuf_detach(struct sbuf *, size_t *);
void	 sbuf_grow(struct sbuf *, size_t);
void	 sbuf_add(struct sbuf *, const void *, size_t);
void	 sbuf_adds(struct sbuf *, const char *);
void	 sbuf_addc(struct sbuf *, char);
void	 sbuf_addf(struct sbuf *, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
/* Shorten to len bytes (len <= current length). */
void	 sbuf_setlen(struct sbuf *, size_t);
/* Remove trailing ASCII whitespace. */
void	 sbuf_rtrim(struct sbuf *);

#endif
