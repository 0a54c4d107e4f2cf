/*
 * ascii.h — ASCII letter classes that never consult the locale (unlike
 * <ctype.h>), for code that reads identifiers and English words inside
 * UTF-8 text: a byte of a multi-byte sequence is never a letter here.
 */
#ifndef THATCH_UTIL_ASCII_H
#define THATCH_UTIL_ASCII_H

#include <stdbool.h>

static inline bool
ascii_is_upper(char c)
{
	return c >= 'A' && c <= 'Z';
}

static inline bool
ascii_is_lower(char c)
{
	return c >= 'a' && c <= 'z';
}

#endif
