/*
 * sbuf.c — growable byte strings.
 *
 * Invariants: after sbuf_init, buf points at a NUL-terminated string of len
 * bytes (a static empty string until the first write, so readers never see
 * NULL); cap is 0 exactly when buf is that static string.
 */
#include "util/sbuf.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/xmalloc.h"

static char	sbuf_empty[1];

void
sbuf_init(struct sbuf *sb)
{
	sb->buf = sbuf_empty;
	sb->len = 0;
	sb->cap = 0;
}

void
sbuf_release(struct sbuf *sb)
{
	if (sb->cap != 0)
		free(sb->buf);
	sbuf_init(sb);
}

void
sbuf_reset(struct sbuf *sb)
{
	if (sb->buf == NULL)
		sbuf_init(sb);
	sb->len = 0;
	if (sb->cap != 0)	/* the shared empty string is never written */
		sb->buf[0] = '\0';
}

char *
sbuf_detach(struct sbuf *sb, size_t *len)
{
	char	*s;

	if (sb->cap == 0)
		sbuf_grow(sb, 0);
	s = sb->buf;
	if (len != NULL)
		*len = sb->len;
	sbuf_init(sb);
	return s;
}

void
sbuf_grow(struct sbuf *sb, size_t extra)
{
	size_t	need, cap;

	if (sb->buf == NULL)
		sbuf_init(sb);
	need = sb->len + extra + 1;
	if (need <= sb->cap)
		return;
	cap = sb->cap ? sb->cap : 64;
	while (cap < need)
		cap *= 2;
	if (sb->cap == 0) {
		sb->buf = xmalloc(cap);
		sb->buf[0] = '\0';
	} else
		sb->buf = xrealloc(sb->buf, cap);
	sb->cap = cap;
}

void
sbuf_add(struct sbuf *sb, const void *p, size_t n)
{
	sbuf_grow(sb, n);
	memcpy(sb->buf + sb->len, p, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void
sbuf_adds(struct sbuf *sb, const char *s)
{
	sbuf_add(sb, s, strlen(s));
}

void
sbuf_addc(struct sbuf *sb, char c)
{
	sbuf_add(sb, &c, 1);
}

void
sbuf_addf(struct sbuf *sb, const char *fmt, ...)
{
	va_list	ap;
	int	n;

	sbuf_grow(sb, 0);
	va_start(ap, fmt);
	n = vsnprintf(sb->buf + sb->len, sb->cap - sb->len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sb->cap - sb->len) {
		sbuf_grow(sb, (size_t)n);
		va_start(ap, fmt);
		vsnprintf(sb->buf + sb->len, sb->cap - sb->len, fmt, ap);
		va_end(ap);
	}
	sb->len += (size_t)n;
}

void
sbuf_setlen(struct sbuf *sb, size_t len)
{
	if (len > sb->len)
		return;
	sb->len = len;
	if (sb->cap != 0)
		sb->buf[len] = '\0';
}

void
sbuf_rtrim(struct sbuf *sb)
{
	while (sb->len > 0 && isspace((unsigned char)sb->buf[sb->len - 1]))
		sb->len--;
	if (sb->cap != 0)
		sb->buf[sb->len] = '\0';
}
