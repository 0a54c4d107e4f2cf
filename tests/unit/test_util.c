/*
 * test_util.c — the util layer: JavaScript-identical numbers and JSON,
 * Node's path.join, UTF-16 lengths.
 */
#include "check.h"

#include <stdlib.h>

#include "util/jsonx.h"
#include "util/num.h"
#include "util/path.h"
#include "util/sbuf.h"
#include "util/utf8.h"

static void
numbers_print_like_javascript(void)
{
	char	b[NUM_BUFSZ];

	CHECK_STR(num_js(1, b), "1");
	CHECK_STR(num_js(0.5, b), "0.5");
	CHECK_STR(num_js(0.6, b), "0.6");
	CHECK_STR(num_js(0.857, b), "0.857");
	CHECK_STR(num_js(0.1 + 0.2, b), "0.30000000000000004");
	CHECK_STR(num_js(-3, b), "-3");
	CHECK_STR(num_js(1e21, b), "1e+21");
	CHECK_STR(num_js(1e-7, b), "1e-7");
	CHECK_STR(num_js(123456789012, b), "123456789012");
	CHECK_STR(num_js(0.000001, b), "0.000001");
	CHECK_STR(num_js(num_round3(0.85749), b), "0.857");
}

static void
fixed_rounds_ties_away_from_zero(void)
{
	char	b[NUM_BUFSZ];

	CHECK_STR(num_fixed(0.125, 2, b), "0.13");	/* C says 0.12 */
	CHECK_STR(num_fixed(0.0625, 3, b), "0.063");
	CHECK_STR(num_fixed(2.5, 0, b), "3");
	CHECK_STR(num_fixed(-0.125, 2, b), "-0.13");
	CHECK_STR(num_fixed(0.615, 2, b), "0.61");	/* 0.6149999... */
	CHECK_STR(num_fixed(0.5, 2, b), "0.50");
	CHECK_STR(num_fixed(0.857142, 3, b), "0.857");
}

static void
json_serialises_like_json_stringify(void)
{
	json_t	*v = json_pack("{s:s, s:f, s:i, s:[b, n], s:{}}", "a",
	    "q\"\\\x1b\n/é\xe2\x80\xa8", "x", 0.6, "n", 3, "l", 1, "o");
	char	*s = jsonx_dump(v, 0);

	CHECK_STR(s, "{\"a\":\"q\\\"\\\\\\u001b\\n/é\xe2\x80\xa8\",\"x\":0.6,"
	    "\"n\":3,\"l\":[true,null],\"o\":{}}");
	free(s);
	s = jsonx_dump(v, 2);
	CHECK(strstr(s, "{\n  \"a\": ") == s);
	CHECK(strstr(s, "\"l\": [\n    true,\n    null\n  ],") != NULL);
	free(s);
	json_decref(v);
}

static void
path_join_is_nodes(void)
{
	static const char *const cases[][3] = {
		{ "/home/u/", ".config", "/home/u/.config" },
		{ "/a//b", "c/", "/a/b/c" },
		{ "/a/b", "../c", "/a/c" },
		{ "a", "../../b", "../b" },
		{ "/", "..", "/" },
		{ "", "", "." },
		{ "a/./b", "", "a/b" },
	};
	size_t	i;
	char	*s;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		s = path_join(cases[i][0], cases[i][1]);
		CHECK_STR(s, cases[i][2]);
		free(s);
	}
	s = path_dirname("/a/b/thatch.db");
	CHECK_STR(s, "/a/b");
	free(s);
	s = path_basename("/a/repo/");
	CHECK_STR(s, "repo");
	free(s);
}

static void
lengths_count_utf16_units(void)
{
	const char	*s = "a\xf0\x9f\x8e\x89" "b";	/* a🎉b */

	CHECK_INT(utf8_js_len(s, strlen(s)), 4);
	CHECK_INT(utf8_js_cut(s, strlen(s), 2), 1);	/* never half an emoji */
	CHECK_INT(utf8_js_cut(s, strlen(s), 3), 5);
}

/* utf8_escape(s, flags) as a new string. */
static char *
escaped(const char *s, unsigned flags)
{
	struct sbuf	sb = SBUF_INIT;

	utf8_escape(&sb, s, flags);
	return sbuf_detach(&sb, NULL);
}

static void
controls_are_escaped_for_terminals(void)
{
	static const struct {
		const char	*in;
		unsigned	 flags;
		const char	*want;
	} cases[] = {
		{ "plain \xc3\xa9t\xc3\xa9 \xf0\x9f\x8e\x89", 0,
		  "plain \xc3\xa9t\xc3\xa9 \xf0\x9f\x8e\x89" },
		{ "a\nb\tc\rd", 0, "a\\nb\\tc\\rd" },
		{ "\x1b[31mred\x1b[0m", 0, "\\x1b[31mred\\x1b[0m" },
		{ "bell\x07 del\x7f", 0, "bell\\x07 del\\x7f" },
		{ "csi\xc2\x9b" "2J nel\xc2\x85", 0, "csi\\u009b2J nel\\u0085" },
		{ "raw\x9b" "2J", 0, "raw\\x9b2J" },	/* not UTF-8 */
		{ "back\\slash", 0, "back\\slash" },
		{ "line 1\n\tline 2\r\n", UTF8_ESC_TEXT, "line 1\n\tline 2\r\n" },
		{ "over\rwrite \x1b[2J", UTF8_ESC_TEXT,
		  "over\\rwrite \\x1b[2J" },
	};
	struct sbuf	 sb = SBUF_INIT;
	char		*s;
	size_t		 i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		s = escaped(cases[i].in, cases[i].flags);
		CHECK_STR(s, cases[i].want);
		free(s);
	}
	utf8_addf(&sb, "[%s] %s (c:%d) 100%%", "st\x1b", "", 7);
	CHECK_STR(sb.buf, "[st\\x1b]  (c:7) 100%");
	sbuf_release(&sb);
}

static void
sbuf_grows_and_detaches(void)
{
	struct sbuf	sb = SBUF_INIT;
	char		*s;
	int		 i;

	sbuf_init(&sb);
	CHECK_STR(sb.buf, "");
	for (i = 0; i < 1000; i++)
		sbuf_addf(&sb, "%d,", i);
	CHECK(sb.len > 3000);
	sbuf_setlen(&sb, 2);
	s = sbuf_detach(&sb, NULL);
	CHECK_STR(s, "0,");
	CHECK_STR(sb.buf, "");
	free(s);
}

CHECK_MAIN(
	TEST(numbers_print_like_javascript),
	TEST(fixed_rounds_ties_away_from_zero),
	TEST(json_serialises_like_json_stringify),
	TEST(path_join_is_nodes),
	TEST(lengths_count_utf16_units),
	TEST(controls_are_escaped_for_terminals),
	TEST(sbuf_grows_and_detaches)
)
