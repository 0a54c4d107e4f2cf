/* sha256.h — SHA-256 as lowercase hex (sha256.c). */
#ifndef THATCH_UTIL_SHA256_H
#define THATCH_UTIL_SHA256_H

#include <stddef.h>

/* 64 hex digits and a NUL. */
#define SHA256_HEX_LEN	65

/* The SHA-256 of len bytes at p, in lowercase hex. Returns hex. */
char	*sha256_hex(const void *, size_t, char hex[SHA256_HEX_LEN]);

#endif
