/*
 * utf8.c — UTF-8 measured the way the original's JavaScript measures
 * strings, and made safe to print.
 *
 * The original counts and truncates in UTF-16 code units; thatch keeps the
 * same limits so truncated titles and previews match, but never cuts inside
 * a code point (the original could leave a lone surrogate).
 *
 * Labels, store names and branches come from agents and other programs;
 * printed raw, a newline forges a line of output and an escape sequence
 * rewrites the user's terminal. The CLI prints them through utf8_escape.
 */
#include "util/utf8.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/sbuf.h"

size_t
utf8_decode(const char *s, size_t n, int32_t *cp)
{
	const unsigned char	*u = (const unsigned char *)s;
	size_t			 len, i;
	int32_t			 c, min;

	if (n == 0) {
		*cp = 0xFFFD;
		return 1;
	}
	if (u[0] < 0x80) {
		*cp = u[0];
		return 1;
	}
	if (u[0] >= 0xF0 && u[0] <= 0xF4) {
		len = 4; c = u[0] & 0x07; min = 0x10000;
	} else if (u[0] >= 0xE0) {
		len = 3; c = u[0] & 0x0F; min = 0x800;
	} else if (u[0] >= 0xC2 && u[0] <= 0xDF) {
		len = 2; c = u[0] & 0x1F; min = 0x80;
	} else {
		*cp = 0xFFFD;
		return 1;
	}
	if (len > n || u[0] > 0xF4) {
		*cp = 0xFFFD;
		return 1;
	}
	for (i = 1; i < len; i++) {
		if ((u[i] & 0xC0) != 0x80) {
			*cp = 0xFFFD;
			return 1;
		}
		c = (c << 6) | (u[i] & 0x3F);
	}
	if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) {
		*cp = 0xFFFD;
		return 1;
	}
	*cp = c;
	return len;
}

/* Length of the maximal invalid UTF-8 subpart at s (Unicode §3.9). */
static size_t
invalid_span(const unsigned char *s, size_t n)
{
	unsigned char	lo = 0x80, hi = 0xBF;
	size_t		need, i;

	if (s[0] >= 0xC2 && s[0] <= 0xDF)
		need = 1;
	else if (s[0] >= 0xE0 && s[0] <= 0xEF) {
		need = 2;
		if (s[0] == 0xE0)
			lo = 0xA0;
		else if (s[0] == 0xED)
			hi = 0x9F;
	} else if (s[0] >= 0xF0 && s[0] <= 0xF4) {
		need = 3;
		if (s[0] == 0xF0)
			lo = 0x90;
		else if (s[0] == 0xF4)
			hi = 0x8F;
	} else
		return 1;
	for (i = 1; i <= need && i < n; i++) {
		if (s[i] < lo || s[i] > hi)
			break;
		lo = 0x80;
		hi = 0xBF;
	}
	return i;
}

size_t
utf8_decode_subpart(const char *s, size_t n, int32_t *cp)
{
	size_t	step = utf8_decode(s, n, cp);

	/* an encoded U+FFFD is 3 bytes; a bad byte decodes 1 byte long */
	if (*cp == 0xFFFD && step == 1 && (unsigned char)s[0] >= 0x80)
		step = invalid_span((const unsigned char *)s, n);
	return step;
}

void
utf8_repair(struct sbuf *out, const char *s, size_t n)
{
	size_t	i = 0, step;
	int32_t	cp;

	while (i < n) {
		step = utf8_decode(s + i, n - i, &cp);
		if (cp == 0xFFFD && step == 1 && (unsigned char)s[i] >= 0x80) {
			step = invalid_span((const unsigned char *)s + i,
			    n - i);
			sbuf_adds(out, "\xEF\xBF\xBD");
		} else
			sbuf_add(out, s + i, step);
		i += step;
	}
}

size_t
utf8_js_len(const char *s, size_t n)
{
	size_t	i = 0, units = 0;
	int32_t	cp;

	while (i < n) {
		i += utf8_decode(s + i, n - i, &cp);
		units += cp >= 0x10000 ? 2 : 1;
	}
	return units;
}

size_t
utf8_js_cut(const char *s, size_t n, size_t units)
{
	size_t	i = 0, used = 0, step, w;
	int32_t	cp;

	while (i < n) {
		step = utf8_decode(s + i, n - i, &cp);
		w = cp >= 0x10000 ? 2 : 1;
		if (used + w > units)
			break;
		used += w;
		i += step;
	}
	return i;
}

/* Append the visible form of control character cp. */
static void
add_control(struct sbuf *out, int32_t cp)
{
	switch (cp) {
	case '\n':	sbuf_adds(out, "\\n"); break;
	case '\t':	sbuf_adds(out, "\\t"); break;
	case '\r':	sbuf_adds(out, "\\r"); break;
	default:
		if (cp < 0x80)
			sbuf_addf(out, "\\x%02x", (unsigned)cp);
		else
			sbuf_addf(out, "\\u%04x", (unsigned)cp);
	}
}

static bool
keeps(const char *s, int32_t cp, unsigned flags)
{
	if (!(flags & UTF8_ESC_TEXT))
		return false;
	return cp == '\n' || cp == '\t' || (cp == '\r' && s[1] == '\n');
}

void
utf8_escape(struct sbuf *out, const char *s, unsigned flags)
{
	size_t	n, len;
	int32_t	cp;

	for (n = strlen(s); n > 0; s += len, n -= len) {
		/* a run of printable ASCII, the common case, at once */
		for (len = 0; len < n && s[len] >= 0x20 && s[len] < 0x7f; len++)
			;
		if (len > 0) {
			sbuf_add(out, s, len);
			continue;
		}
		len = utf8_decode(s, n, &cp);
		if (cp == 0xFFFD && len == 1)	/* not UTF-8 */
			sbuf_addf(out, "\\x%02x", (unsigned char)*s);
		else if ((cp < 0x20 || (cp >= 0x7f && cp <= 0x9f)) &&
		    !keeps(s, cp, flags))
			add_control(out, cp);
		else
			sbuf_add(out, s, len);
	}
}

void
utf8_addf(struct sbuf *out, const char *fmt, ...)
{
	va_list		 ap;
	const char	*p, *arg;
	size_t		 n;

	va_start(ap, fmt);
	for (p = fmt; *p != '\0'; p++) {
		if (*p != '%') {
			n = strcspn(p, "%");
			sbuf_add(out, p, n);
			p += n - 1;
			continue;
		}
		switch (*++p) {
		case 's':
			if ((arg = va_arg(ap, const char *)) != NULL)
				utf8_escape(out, arg, 0);
			break;
		case 'd':
			sbuf_addf(out, "%d", va_arg(ap, int));
			break;
		case '%':
			sbuf_addc(out, '%');
			break;
		default:	/* a programming error: the format is ours */
			abort();
		}
	}
	va_end(ap);
}
