/*
 * utf8.c — UTF-8 measured the way the original's JavaScript measures strings.
 *
 * The original counts and truncates in UTF-16 code units; thatch keeps the
 * same limits so truncated titles and previews match, but never cuts inside
 * a code point (the original could leave a lone surrogate).
 */
#include "util/utf8.h"

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
