/*
 * b64.c — standard base64 with padding, for embedding vectors in JSONL and
 * markdown exports (docs/export.md).
 *
 *  1. The decoder accepts only canonical input (length a multiple of 4,
 *     padding only at the end, unused bits zero), so an exported file has
 *     one spelling and a round trip is byte-identical.
 */
#include "util/b64.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/sbuf.h"
#include "util/xmalloc.h"

static const char	b64_alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void
b64_encode(struct sbuf *out, const void *data, size_t n)
{
	const unsigned char	*p = data;
	uint32_t		 v;
	size_t			 i;

	for (i = 0; i + 2 < n; i += 3) {
		v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
		sbuf_addc(out, b64_alphabet[v >> 18 & 63]);
		sbuf_addc(out, b64_alphabet[v >> 12 & 63]);
		sbuf_addc(out, b64_alphabet[v >> 6 & 63]);
		sbuf_addc(out, b64_alphabet[v & 63]);
	}
	if (i < n) {
		v = (uint32_t)p[i] << 16;
		if (i + 1 < n)
			v |= (uint32_t)p[i + 1] << 8;
		sbuf_addc(out, b64_alphabet[v >> 18 & 63]);
		sbuf_addc(out, b64_alphabet[v >> 12 & 63]);
		sbuf_addc(out, i + 1 < n ? b64_alphabet[v >> 6 & 63] : '=');
		sbuf_addc(out, '=');
	}
}

static int
b64_value(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

unsigned char *
b64_decode(const char *s, size_t n, size_t *outlen)
{
	unsigned char	*buf;
	size_t		 i, len = 0, pad = 0;
	uint32_t	 v;
	int		 d, k;

	if (n % 4 != 0)
		return NULL;
	if (n > 0 && s[n - 1] == '=')
		pad = n > 1 && s[n - 2] == '=' ? 2 : 1;
	buf = xmalloc(n / 4 * 3 + 1);
	for (i = 0; i < n; i += 4) {
		v = 0;
		for (k = 0; k < 4; k++) {
			if (i + 4 == n && k >= 4 - (int)pad)
				d = 0;
			else if ((d = b64_value(s[i + k])) < 0)
				goto bad;
			v = v << 6 | (uint32_t)d;
		}
		buf[len++] = (unsigned char)(v >> 16);
		buf[len++] = (unsigned char)(v >> 8);
		buf[len++] = (unsigned char)v;
	}
	len -= pad;
	/* invariant 1: the bits the padding hides must be zero */
	if ((pad == 1 && (v & 0xff) != 0) || (pad == 2 && (v & 0xffff) != 0))
		goto bad;
	*outlen = len;
	return buf;
bad:
	free(buf);
	return NULL;
}

void
b64_encode_f32(struct sbuf *out, const float *vec, int dim)
{
	unsigned char	*b = xmalloc(dim > 0 ? (size_t)dim * 4 : 1);
	uint32_t	 u;
	int		 i;

	for (i = 0; i < dim; i++) {
		memcpy(&u, &vec[i], 4);
		b[4 * i] = (unsigned char)u;
		b[4 * i + 1] = (unsigned char)(u >> 8);
		b[4 * i + 2] = (unsigned char)(u >> 16);
		b[4 * i + 3] = (unsigned char)(u >> 24);
	}
	b64_encode(out, b, dim > 0 ? (size_t)dim * 4 : 0);
	free(b);
}

float *
b64_decode_f32(const char *s, size_t n, int *dim)
{
	unsigned char	*b;
	float		*vec;
	size_t		 len = 0, i;
	uint32_t	 u;

	if ((b = b64_decode(s, n, &len)) == NULL || len == 0 ||
	    len % 4 != 0 || len / 4 > INT_MAX) {
		free(b);
		return NULL;
	}
	vec = xmalloc(len);
	for (i = 0; i < len / 4; i++) {
		u = (uint32_t)b[4 * i] | (uint32_t)b[4 * i + 1] << 8 |
		    (uint32_t)b[4 * i + 2] << 16 | (uint32_t)b[4 * i + 3] << 24;
		memcpy(&vec[i], &u, 4);
	}
	free(b);
	*dim = (int)(len / 4);
	return vec;
}
