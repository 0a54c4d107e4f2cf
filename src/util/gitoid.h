/* gitoid.h — git's object id of a blob, computed without git (gitoid.c). */
#ifndef THATCH_UTIL_GITOID_H
#define THATCH_UTIL_GITOID_H

#include <stddef.h>

/* 40 lowercase hex digits (SHA-1) and a NUL. */
#define GITOID_HEX_LEN	41

/* The blob id git gives len bytes of data (SHA-1 of "blob <len>\0"
 * data), as `git hash-object` prints it. */
void	gitoid_blob(const char *data, size_t len, char oid[GITOID_HEX_LEN]);

/* Whether s is such an id: exactly 40 lowercase hex digits. */
int	gitoid_ok(const char *s);

#endif
