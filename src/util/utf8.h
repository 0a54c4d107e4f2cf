/* utf8.h — UTF-8 measured as the original's JavaScript measures strings,
 * and made safe to print (utf8.c). */
#ifndef THATCH_UTIL_UTF8_H
#define THATCH_UTIL_UTF8_H

#include <stddef.h>
#include <stdint.h>

struct sbuf;

/*
 * Decode one code point from s (n bytes available). Returns the number of
 * bytes consumed (>= 1); an invalid byte decodes as U+FFFD, one byte long.
 */
size_t	utf8_decode(const char *, size_t, int32_t *);

/*
 * utf8_decode, except that an invalid sequence consumes its maximal
 * invalid subpart (Unicode §3.9), as JavaScript's TextDecoder does: `E2 82`
 * is one U+FFFD, `FF FE` two.
 */
size_t	utf8_decode_subpart(const char *, size_t, int32_t *);

/*
 * Append s to out as valid UTF-8: each maximal invalid subpart becomes
 * U+FFFD, the way the original's runtime decoded what it read.
 */
void	utf8_repair(struct sbuf *out, const char *s, size_t n);

/* Length in UTF-16 code units: 1 per code point below U+10000, else 2
 * (hosts-hooks-cli §0.3). */
size_t	utf8_js_len(const char *, size_t);

/*
 * Byte length of the longest prefix of s that holds at most `units` UTF-16
 * code units, never splitting a UTF-8 sequence or an astral code point.
 */
size_t	utf8_js_cut(const char *, size_t, size_t units);

/*
 * Append s to out with everything a terminal would act on made visible:
 * C0 controls as \n, \t, \r or \xHH (ESC is \x1b), DEL as \x7f, C1
 * controls (U+0080-U+009F) as \uHHHH, and bytes that are not UTF-8 as
 * \xHH. With UTF8_ESC_TEXT (multi-line text) newlines, tabs and CRLF stay
 * as they are. A backslash is not doubled: this is for eyes, not parsers.
 */
#define UTF8_ESC_TEXT	1
void	utf8_escape(struct sbuf *out, const char *s, unsigned flags);

/*
 * sbuf_addf for lines of untrusted strings: every %s argument (NULL prints
 * nothing) is appended through utf8_escape, flags 0. The format is trusted
 * and may use only %s, %d and %%.
 */
void	utf8_addf(struct sbuf *out, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));

#endif
