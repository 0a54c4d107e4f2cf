/* utf8.h — UTF-8 measured the way the original's JavaScript measures strings (utf8.c). */
#ifndef THATCH_UTIL_UTF8_H
#define THATCH_UTIL_UTF8_H

#include <stddef.h>
#include <stdint.h>

/*
 * Decode one code point from s (n bytes available). Returns the number of
 * bytes consumed (>= 1); an invalid byte decodes as U+FFFD, one byte long.
 */
size_t	utf8_decode(const char *, size_t, int32_t *);

/* Length in UTF-16 code units: 1 per code point below U+10000, else 2
 * (hosts-hooks-cli §0.3). */
size_t	utf8_js_len(const char *, size_t);

/*
 * Byte length of the longest prefix of s that holds at most `units` UTF-16
 * code units, never splitting a UTF-8 sequence or an astral code point.
 */
size_t	utf8_js_cut(const char *, size_t, size_t units);

#endif
