/*
 * err.c — one-line failure reasons.
 *
 * Messages follow git's convention: lowercase, no full stop, the subject in
 * quotes. Truncation at 511 bytes never splits a UTF-8 sequence.
 */
#include "util/err.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void
trim_partial_utf8(char *s)
{
	size_t	n = strlen(s), i = n;

	/* Walk back over continuation bytes to the lead byte. */
	while (i > 0 && ((unsigned char)s[i - 1] & 0xC0) == 0x80)
		i--;
	if (i > 0) {
		unsigned char	lead = (unsigned char)s[i - 1];
		size_t		need = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 :
				    lead >= 0xC0 ? 2 : 1;
		if (n - (i - 1) < need)
			s[i - 1] = '\0';
	}
}

static void __attribute__((format(printf, 2, 0)))
err_vset(struct err *err, const char *fmt, va_list ap)
{
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	trim_partial_utf8(err->msg);
}

int
err_set(struct err *err, const char *fmt, ...)
{
	va_list	ap;

	if (err == NULL)
		return -1;
	va_start(ap, fmt);
	err_vset(err, fmt, ap);
	va_end(ap);
	return -1;
}

int
err_errno(struct err *err, const char *fmt, ...)
{
	va_list	ap;
	int	saved = errno;
	size_t	len;

	if (err == NULL)
		return -1;
	va_start(ap, fmt);
	err_vset(err, fmt, ap);
	va_end(ap);
	len = strlen(err->msg);
	snprintf(err->msg + len, sizeof(err->msg) - len, ": %s",
	    strerror(saved));
	trim_partial_utf8(err->msg);
	errno = saved;
	return -1;
}

int
err_wrap(struct err *err, const char *fmt, ...)
{
	char	old[sizeof(err->msg)];
	va_list	ap;
	size_t	len;

	if (err == NULL)
		return -1;
	memcpy(old, err->msg, sizeof(old));
	va_start(ap, fmt);
	err_vset(err, fmt, ap);
	va_end(ap);
	len = strlen(err->msg);
	snprintf(err->msg + len, sizeof(err->msg) - len, ": %s", old);
	trim_partial_utf8(err->msg);
	return -1;
}
