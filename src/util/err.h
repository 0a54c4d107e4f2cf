/* err.h — one-line failure reasons (err.c). */
#ifndef THATCH_UTIL_ERR_H
#define THATCH_UTIL_ERR_H

/*
 * A failing function returns -1 and leaves its reason here, for the caller
 * to print or to wrap. The message is a fixed buffer so that failing never
 * needs to allocate (STYLE §6).
 */
struct err {
	char	msg[512];
};

/* Set err (may be NULL) from a printf format; returns -1 for one-line
 * failures: `return err_set(err, "cannot open '%s'", path);` */
int	err_set(struct err *, const char *, ...)
	    __attribute__((format(printf, 2, 3)));

/* As err_set, with ": <strerror(errno)>" appended. errno is preserved. */
int	err_errno(struct err *, const char *, ...)
	    __attribute__((format(printf, 2, 3)));

/* Prefix an existing message: "<prefix>: <old message>". Returns -1. */
int	err_wrap(struct err *, const char *, ...)
	    __attribute__((format(printf, 2, 3)));

#endif
