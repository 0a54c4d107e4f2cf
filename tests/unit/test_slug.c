/*
 * test_slug.c — slugify against the worked examples of store-and-tools
 * §3.2 (tests/unit/cases/slugs.txt, jq-style: label, slug, blank line),
 * the hash fallback flag and the UTF-16 order of verdict slugs.
 */
#include "check.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/slug.h"
#include "util/sbuf.h"

static void
add_utf8(struct sbuf *sb, uint32_t c)
{
	if (c < 0x80)
		sbuf_addc(sb, (char)c);
	else if (c < 0x800) {
		sbuf_addc(sb, (char)(0xc0 | c >> 6));
		sbuf_addc(sb, (char)(0x80 | (c & 0x3f)));
	} else if (c < 0x10000) {
		sbuf_addc(sb, (char)(0xe0 | c >> 12));
		sbuf_addc(sb, (char)(0x80 | (c >> 6 & 0x3f)));
		sbuf_addc(sb, (char)(0x80 | (c & 0x3f)));
	} else {
		sbuf_addc(sb, (char)(0xf0 | c >> 18));
		sbuf_addc(sb, (char)(0x80 | (c >> 12 & 0x3f)));
		sbuf_addc(sb, (char)(0x80 | (c >> 6 & 0x3f)));
		sbuf_addc(sb, (char)(0x80 | (c & 0x3f)));
	}
}

/* The case file's escapes: \t \n \\ \s (space) \e (nothing) \uXXXX
 * \UXXXXXXXX. */
static void
unescape(const char *s, struct sbuf *out)
{
	char	hex[9];
	size_t	n;

	sbuf_reset(out);
	for (; *s != '\0'; s++) {
		if (*s != '\\' || s[1] == '\0') {
			sbuf_addc(out, *s);
			continue;
		}
		switch (*++s) {
		case 't': sbuf_addc(out, '\t'); break;
		case 'n': sbuf_addc(out, '\n'); break;
		case 's': sbuf_addc(out, ' '); break;
		case 'e': break;
		case 'u':
		case 'U':
			n = *s == 'u' ? 4 : 8;
			memcpy(hex, s + 1, n);
			hex[n] = '\0';
			add_utf8(out, (uint32_t)strtoul(hex, NULL, 16));
			s += n;
			break;
		default: sbuf_addc(out, *s); break;
		}
	}
}

static FILE *
open_cases(void)
{
	FILE	*fp = fopen("unit/cases/slugs.txt", "r");

	return fp != NULL ? fp : fopen("tests/unit/cases/slugs.txt", "r");
}

static void
worked_examples_of_the_spec(void)
{
	FILE		*fp = open_cases();
	char		 line[512], label[512];
	struct sbuf	 in = SBUF_INIT, want = SBUF_INIT;
	char		*got;
	int		 have_label = 0, cases = 0;

	CHECK(fp != NULL);
	if (fp == NULL)
		return;
	while (fgets(line, sizeof(line), fp) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		if (line[0] == '#' || (line[0] == '\0' && !have_label))
			continue;
		if (!have_label) {
			snprintf(label, sizeof(label), "%s", line);
			have_label = 1;
			continue;
		}
		unescape(label, &in);
		unescape(line, &want);
		got = slug_make(in.buf, in.len);
		if (strcmp(got, want.buf) != 0)
			CHECK_FAIL("slug of \"%s\" is \"%s\", want \"%s\"",
			    label, got, want.buf);
		free(got);
		have_label = 0;
		cases++;
	}
	fclose(fp);
	CHECK(cases >= 45);
	sbuf_release(&in);
	sbuf_release(&want);
}

static void
hash_fallback_is_flagged(void)
{
	CHECK(slug_is_hashed("!!!", 3));
	CHECK(slug_is_hashed("", 0));
	CHECK(slug_is_hashed("   ", 3));
	CHECK(!slug_is_hashed("--", 2));
	CHECK(!slug_is_hashed("x0", 2));
}

static void
blank_labels_are_whitespace_only(void)
{
	CHECK(slug_is_blank("", 0));
	CHECK(slug_is_blank(" \t\n", 3));
	CHECK(slug_is_blank("\xc2\xa0\xe3\x80\x80", 5));	/* NBSP, U+3000 */
	CHECK(!slug_is_blank("!!!", 3));	/* a label, hashed slug */
	CHECK(!slug_is_blank(" x ", 3));
	CHECK(!slug_is_blank("\xe2\x80\x8b", 3));	/* U+200B is Cf */
}

static void
largest_hash_has_eight_characters(void)
{
	/* U+10FFFF * 31 + ... any value: the slug stays x + base36 */
	char	*s = slug_make("\xf4\x8f\xbf\xbf\xf4\x8f\xbf\xbf", 8);

	CHECK(s[0] == 'x' && strlen(s) >= 2 && strlen(s) <= 8);
	free(s);
}

static void
order_is_javascripts(void)
{
	CHECK(slug_cmp("a", "b") < 0);
	CHECK(slug_cmp("ab", "a") > 0);
	CHECK(slug_cmp("same", "same") == 0);
	/* U+FF01 vs U+1F600: UTF-8 puts the emoji last, UTF-16 first */
	CHECK(slug_cmp("\xef\xbc\x81", "\xf0\x9f\x98\x80") > 0);
	CHECK(strcmp("\xef\xbc\x81", "\xf0\x9f\x98\x80") < 0);
	CHECK(slug_cmp("\xed\x9f\xbf", "\xf0\x9f\x98\x80") < 0);
}

CHECK_MAIN(
	TEST(worked_examples_of_the_spec),
	TEST(hash_fallback_is_flagged),
	TEST(blank_labels_are_whitespace_only),
	TEST(largest_hash_has_eight_characters),
	TEST(order_is_javascripts)
)
