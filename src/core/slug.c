/*
 * slug.c — a memory's identity from its label, exactly as the original's
 * slugify (store-and-tools §3.1), and the verdicts' canonical order.
 *
 * Character classes come from utf8proc (the Unicode database), never from
 * the C locale.
 *  1. Only the whitespace set of §3.1 step 1 counts as whitespace (not
 *     U+0085, U+180E or U+200B), for both the trim and the runs.
 *  2. Lowercasing is per code point (utf8proc's simple mapping) plus the
 *     one context rule JavaScript applies without a locale: Final_Sigma.
 *     U+0130 lowercases to "i" + U+0307 in JavaScript; the U+0307 is a
 *     mark the filter drops, so the simple mapping "i" gives the same slug.
 *  3. The hash fallback hashes the label as given, untrimmed, by code
 *     point, modulo 2^32.
 */
#include "core/slug.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <utf8proc.h>

#include "util/sbuf.h"
#include "util/utf8.h"
#include "util/xmalloc.h"

/* A label decoded to code points. */
struct cps {
	int32_t	*v;	/* owned */
	size_t	 n;
};

static void
decode(const char *s, size_t n, struct cps *out)
{
	size_t	i = 0;

	out->v = xcalloc(n + 1, sizeof(*out->v));
	out->n = 0;
	while (i < n)
		i += utf8_decode(s + i, n - i, &out->v[out->n++]);
}

static bool
is_space(int32_t c)
{
	return (c >= 0x09 && c <= 0x0d) || c == 0x20 || c == 0xa0 ||
	    c == 0x1680 || (c >= 0x2000 && c <= 0x200a) || c == 0x2028 ||
	    c == 0x2029 || c == 0x202f || c == 0x205f || c == 0x3000 ||
	    c == 0xfeff;
}

/* Unicode "Cased": has a case mapping or is a cased letter. */
static bool
is_cased(int32_t c)
{
	utf8proc_category_t	cat = utf8proc_category(c);

	return cat == UTF8PROC_CATEGORY_LU || cat == UTF8PROC_CATEGORY_LL ||
	    cat == UTF8PROC_CATEGORY_LT || utf8proc_tolower(c) != c ||
	    utf8proc_toupper(c) != c;
}

/* Unicode "Case_Ignorable": marks, format, modifiers and the word-internal
 * punctuation of Word_Break MidLetter/MidNumLet/Single_Quote. */
static bool
is_case_ignorable(int32_t c)
{
	switch (utf8proc_category(c)) {
	case UTF8PROC_CATEGORY_MN:
	case UTF8PROC_CATEGORY_ME:
	case UTF8PROC_CATEGORY_CF:
	case UTF8PROC_CATEGORY_LM:
	case UTF8PROC_CATEGORY_SK:
		return true;
	default:
		break;
	}
	return c == 0x27 || c == 0x2e || c == 0x3a || c == 0xb7 ||
	    c == 0x387 || c == 0x5f4 || c == 0x2018 || c == 0x2019 ||
	    c == 0x2024 || c == 0x2027 || c == 0xfe13 || c == 0xfe52 ||
	    c == 0xfe55 || c == 0xff07 || c == 0xff0e || c == 0xff1a;
}

/* Final_Sigma at position i of v[0..n). */
static bool
final_sigma(const int32_t *v, size_t n, size_t i)
{
	size_t	j;
	bool	before = false;

	for (j = i; j-- > 0;) {
		if (!is_case_ignorable(v[j])) {
			before = is_cased(v[j]);
			break;
		}
	}
	if (!before)
		return false;
	for (j = i + 1; j < n; j++) {
		if (!is_case_ignorable(v[j]))
			return !is_cased(v[j]);
	}
	return true;
}

static bool
is_kept(int32_t c)
{
	switch (utf8proc_category(c)) {
	case UTF8PROC_CATEGORY_LU:
	case UTF8PROC_CATEGORY_LL:
	case UTF8PROC_CATEGORY_LT:
	case UTF8PROC_CATEGORY_LM:
	case UTF8PROC_CATEGORY_LO:
	case UTF8PROC_CATEGORY_ND:
	case UTF8PROC_CATEGORY_NL:
	case UTF8PROC_CATEGORY_NO:
		return true;
	default:
		return c == '_' || c == '-';
	}
}

static void
add_cp(struct sbuf *sb, int32_t c)
{
	utf8proc_uint8_t	b[4];

	sbuf_add(sb, b, (size_t)utf8proc_encode_char(c, b));
}

/* Steps 1-5 into sb (possibly empty). */
static void
slug_build(const struct cps *l, struct sbuf *sb)
{
	size_t	 lo = 0, hi = l->n, i;
	int32_t	 c;
	bool	 dash = false;

	while (lo < hi && is_space(l->v[lo]))
		lo++;
	while (hi > lo && is_space(l->v[hi - 1]))
		hi--;
	for (i = lo; i < hi; i++) {
		c = l->v[i];
		if (is_space(c) || c == '-') {
			if (!dash)
				sbuf_addc(sb, '-');
			dash = true;
			continue;
		}
		c = c == 0x3a3 && final_sigma(l->v + lo, hi - lo, i - lo) ?
		    0x3c2 : utf8proc_tolower(c);
		if (!is_kept(c))
			continue;	/* dropped: a '-' run goes on */
		add_cp(sb, c);
		dash = false;
	}
}

static char *
slug_hash(const struct cps *l)
{
	static const char	 digits[] =
				    "0123456789abcdefghijklmnopqrstuvwxyz";
	char			 buf[16], *p = buf + sizeof(buf);
	uint32_t		 h = 0;
	size_t			 i;

	for (i = 0; i < l->n; i++)
		h = h * 31u + (uint32_t)l->v[i];
	*--p = '\0';
	do {
		*--p = digits[h % 36];
		h /= 36;
	} while (h != 0);
	*--p = 'x';
	return xstrdup(p);
}

char *
slug_make(const char *label, size_t n)
{
	struct cps	 l;
	struct sbuf	 sb = SBUF_INIT;
	char		*out;

	decode(label, n, &l);
	slug_build(&l, &sb);
	if (sb.len > 0)
		out = sbuf_detach(&sb, NULL);
	else
		out = slug_hash(&l);
	sbuf_release(&sb);
	free(l.v);
	return out;
}

int
slug_is_blank(const char *label, size_t n)
{
	int32_t	cp;
	size_t	i = 0;

	while (i < n) {
		i += utf8_decode(label + i, n - i, &cp);
		if (!is_space(cp))
			return 0;
	}
	return 1;
}

int
slug_is_hashed(const char *label, size_t n)
{
	struct cps	 l;
	struct sbuf	 sb = SBUF_INIT;
	int		 hashed;

	decode(label, n, &l);
	slug_build(&l, &sb);
	hashed = sb.len == 0;
	sbuf_release(&sb);
	free(l.v);
	return hashed;
}

/* The order of a code point's UTF-16 encoding: U+E000-U+FFFF sort after
 * every supplementary character, whose lead surrogate is below 0xE000. */
static uint32_t
utf16_rank(int32_t c)
{
	return c >= 0xe000 && c <= 0xffff ? (uint32_t)c + 0x200000 :
	    (uint32_t)c;
}

int
slug_cmp(const char *a, const char *b)
{
	size_t	 na = strlen(a), nb = strlen(b), i = 0, j = 0;
	int32_t	 ca, cb;

	while (i < na && j < nb) {
		i += utf8_decode(a + i, na - i, &ca);
		j += utf8_decode(b + j, nb - j, &cb);
		if (ca != cb)
			return utf16_rank(ca) < utf16_rank(cb) ? -1 : 1;
	}
	return (i < na) - (j < nb);
}
