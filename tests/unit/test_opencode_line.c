/*
 * test_opencode_line.c — host/opencode/opencode_line.c: lines split
 * across reads, the last one at end of input, a line over the cap dropped
 * as it arrives with its head kept, and the id of a line that does not
 * parse recovered only from a whole first member.
 */
#include "check.h"

#include <stdlib.h>
#include <string.h>

#include "host/opencode/opencode_line.h"

static void
lines_split_across_reads_and_the_last_at_eof(void)
{
	struct opencode_lines	l;
	struct opencode_line	x;

	opencode_lines_init(&l);
	opencode_lines_add(&l, "{\"id\":1}\n{\"id", 13);
	CHECK(opencode_lines_next(&l, false, &x));
	CHECK(x.len == 8 && x.over == 0 && memcmp(x.p, "{\"id\":1}", 8) == 0);
	CHECK(!opencode_lines_next(&l, false, &x));
	opencode_lines_add(&l, "\":2}", 4);
	CHECK(!opencode_lines_next(&l, false, &x));
	CHECK(opencode_lines_next(&l, true, &x));
	CHECK(x.len == 8 && memcmp(x.p, "{\"id\":2}", 8) == 0);
	CHECK(!opencode_lines_next(&l, true, &x));
	opencode_lines_release(&l);
}

/* Feed a line of n bytes (its head "{\"id\":7,") in 64 KiB reads, then
 * "\n{}\n"; nothing over the cap may stay buffered meanwhile. */
static void
a_line_over_the_cap_is_dropped_its_head_kept(void)
{
	struct opencode_lines	 l;
	struct opencode_line	 x;
	size_t			 n = OPENCODE_LINE_MAX + 200000, sent = 0, k;
	char			*chunk = malloc(65536);
	json_t			*id;

	memset(chunk, 'a', 65536);
	memcpy(chunk, "{\"id\":7,", 8);
	opencode_lines_init(&l);
	while (sent < n) {
		k = n - sent < 65536 ? n - sent : 65536;
		opencode_lines_add(&l, chunk, k);
		if (sent == 0)
			memset(chunk, 'a', 8);
		sent += k;
		CHECK(!opencode_lines_next(&l, false, &x));
		CHECK(l.in.len <= OPENCODE_LINE_MAX + 65536);
	}
	opencode_lines_add(&l, "\n{}\n", 4);
	CHECK(opencode_lines_next(&l, false, &x));
	CHECK(x.over == n && x.len == OPENCODE_LINE_HEAD);
	id = opencode_line_id(x.p, x.len);
	CHECK(json_integer_value(id) == 7);
	json_decref(id);
	CHECK(opencode_lines_next(&l, false, &x));
	CHECK(x.over == 0 && x.len == 2 && memcmp(x.p, "{}", 2) == 0);
	opencode_lines_release(&l);
	free(chunk);
}

static void
an_id_comes_only_from_a_whole_first_member(void)
{
	static const struct {
		const char	*line;
		const char	*want;	/* the id dumped, or NULL */
	} cases[] = {
		{ "{\"id\":3,\"op\":\"\\ud800\"}", "3" },
		{ " { \"id\" : \"s7\" }", "\"s7\"" },
		{ "{\"id\":12", NULL },		/* cut: maybe 123 */
		{ "{\"id\":1.5,", NULL },
		{ "{\"id\":{\"a\":1},", NULL },
		{ "{\"op\":\"x\",\"id\":4}", NULL },
		{ "[{\"id\":5}]", NULL },
		{ "not json", NULL },
		{ "", NULL },
	};
	size_t	 i;
	json_t	*id;
	char	*got;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		id = opencode_line_id(cases[i].line, strlen(cases[i].line));
		got = id ? json_dumps(id, JSON_ENCODE_ANY) : NULL;
		if (cases[i].want == NULL)
			CHECK(got == NULL);
		else
			CHECK_STR(got ? got : "(none)", cases[i].want);
		free(got);
		json_decref(id);
	}
}

CHECK_MAIN(
	TEST(lines_split_across_reads_and_the_last_at_eof),
	TEST(a_line_over_the_cap_is_dropped_its_head_kept),
	TEST(an_id_comes_only_from_a_whole_first_member)
)
