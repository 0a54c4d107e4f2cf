/*
 * test_texts.c — every text the agent reads names only what it has: the
 * skills, the instruction block, the nudges, the default behaviors and
 * the actions mention tools and arguments of the tool table and skills
 * thatch ships, the dedup classifier's verdicts are exactly
 * dedup_mark_checked's, and every confidence scale a text gives is
 * memory_remember's.
 */
#include "check.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "text/actions.h"
#include "text/behaviors.h"
#include "text/block.h"
#include "text/nudge.h"
#include "text/text_opencode.h"
#include "text/skills.h"
#include "tools/tool.h"
#include "util/sbuf.h"

static bool
is_tool_or_arg(const char *w, size_t n)
{
	const struct tool *const	*t;
	const struct tool_arg		*a;

	for (t = tool_table; *t != NULL; t++) {
		if (strlen((*t)->name) == n && strncmp((*t)->name, w, n) == 0)
			return true;
		for (a = (*t)->args; a != NULL && a->name != NULL; a++)
			if (strlen(a->name) == n && strncmp(a->name, w, n) == 0)
				return true;
	}
	return false;
}

static bool
is_skill(const char *w, size_t n)
{
	size_t	i;

	for (i = 0; i < text_nskills; i++)
		if (strlen(text_skills[i].name) == n &&
		    strncmp(text_skills[i].name, w, n) == 0)
			return true;
	return false;
}

/*
 * Check one text: each `snake_case` span is a tool or an argument (bare
 * or with a host prefix), each thatch-<name> word a shipped skill (the
 * thatch-review-* family aside).
 */
static void
names_exist(const char *what, const char *text)
{
	static const char *const	 prefixes[] = { "mcp__thatch__",
					    "thatch_", "", NULL };
	const char			*p, *e, *w;
	const char *const		*pre;
	size_t				 n;

	for (p = text; (p = strchr(p, '`')) != NULL && (e = strchr(p + 1,
	    '`')) != NULL; p = e + 1) {
		w = p + 1;
		n = (size_t)(e - w);
		if (n == 0 || strspn(w, "abcdefghijklmnopqrstuvwxyz_") != n ||
		    memchr(w, '_', n) == NULL)
			continue;
		for (pre = prefixes; *pre != NULL; pre++)
			if (strncmp(w, *pre, strlen(*pre)) == 0 &&
			    (strlen(*pre) == n || is_tool_or_arg(w +
			    strlen(*pre), n - strlen(*pre))))
				break;
		if (*pre == NULL)
			CHECK_FAIL("%s names `%.*s`, no tool or argument",
			    what, (int)n, w);
	}
	for (p = text; (p = strstr(p, "thatch-")) != NULL; p += n) {
		n = strspn(p, "abcdefghijklmnopqrstuvwxyz-");
		if (p[n] == '*' || (p > text && p[-1] == '/'))
			continue;
		while (n > 0 && p[n - 1] == '-')
			n--;
		if (!is_skill(p, n))
			CHECK_FAIL("%s names %.*s, no skill", what, (int)n, p);
	}
}

static void
skills_name_what_exists(void)
{
	size_t	i;

	for (i = 0; i < text_nskills; i++)
		names_exist(text_skills[i].name, text_skills[i].content);
}

static void
block_nudges_and_defaults_name_what_exists(void)
{
	static const struct text_block_host	 claude = {
		TEXT_BLOCK_START_CLAUDE, "Claude Code", "CLAUDE.md",
		"mcp__thatch__",
	};
	const char				*names[64];
	const struct tool *const		*t;
	const char				*labels[] = { "a", "b", "c" };
	struct sbuf				 sb = SBUF_INIT;
	size_t					 i, n = 0;

	for (t = tool_table; *t != NULL && n < 63; t++)
		if ((*t)->flags & TOOL_MCP)
			names[n++] = (*t)->name;
	names[n] = NULL;
	sbuf_init(&sb);
	text_block_render(&sb, &claude, names);
	names_exist("the CLAUDE.md block", sb.buf);
	sbuf_reset(&sb);
	text_opencode_system(&sb, "o/r", names);
	names_exist("opencode's system prompt", sb.buf);
	sbuf_reset(&sb);
	text_nudge_reminder_for(&sb, "o/r", NULL,
	    "Store \"o/r\": 1 memory ...", "mcp__thatch__");
	for (i = 0; i < 4; i++)
		text_nudge_extract(&sb, 3, (int)i, "s1", "mcp__thatch__");
	text_nudge_write(&sb);
	text_nudge_recall_for(&sb, 3, labels, "thatch_");
	names_exist("the nudges", sb.buf);
	for (i = 0; i < text_behaviors_count; i++) {
		names_exist(text_behaviors[i].key, text_behaviors[i].situation);
		names_exist(text_behaviors[i].key, text_behaviors[i].behavior);
	}
	for (i = 0; i < text_nactions; i++) {
		sbuf_reset(&sb);
		text_expand(&sb, text_actions[i].summary, "");
		text_expand(&sb, text_actions[i].body, "");
		names_exist(text_actions[i].name, sb.buf);
	}
	sbuf_release(&sb);
}

/* The classifier's verdict list is the tool's enum, in its order. */
static void
classifier_verdicts_are_the_tools(void)
{
	const struct tool	*t = tool_find("dedup_mark_checked");
	const struct tool_arg	*a;
	const char		*skill = NULL, *p, *e;
	const char *const	*c;
	size_t			 i;

	for (i = 0; i < text_nskills; i++)
		if (strcmp(text_skills[i].name, "thatch-dedup-classifier") == 0)
			skill = text_skills[i].content;
	CHECK(t != NULL && skill != NULL);
	if (t == NULL || skill == NULL)
		return;
	for (a = t->args; a->name != NULL && strcmp(a->name, "status") != 0;
	    a++)
		;
	CHECK(a->choices != NULL);
	if (a->choices == NULL)
		return;
	/* the verdict list: lines "   - `<verdict>`: ..." */
	c = a->choices;
	for (p = skill; (p = strstr(p, "\n   - `")) != NULL; p = e) {
		p += strlen("\n   - `");
		e = strchr(p, '`');
		if (e == NULL || e[1] != ':')
			break;
		if (*c == NULL || strncmp(*c, p, (size_t)(e - p)) != 0 ||
		    strlen(*c) != (size_t)(e - p))
			CHECK_FAIL("verdict `%.*s` is not the tool's next (%s)",
			    (int)(e - p), p, *c ? *c : "none left");
		else
			c++;
	}
	CHECK(*c == NULL);
	CHECK(strstr(skill, "Record every classified pair") != NULL);
}

/* Whether the n bytes at s say "to", "-" or "\u2013" (a range). */
static bool
joins_a_range(const char *s, size_t n)
{
	char	buf[64];

	if (n >= sizeof(buf))
		return false;
	memcpy(buf, s, n);
	buf[n] = '\0';
	return strstr(buf, "to") != NULL || strchr(buf, '-') != NULL ||
	    strstr(buf, "\xe2\x80\x93") != NULL;
}

/*
 * Each "confidence ... <lo> ... to <hi>" of text (within its sentence) is
 * the schema's range: one scale everywhere (issue 15; the block and the
 * fact extractor once said 1-5 to a tool that takes 1-10).
 */
static void
scale_is_schemas(const char *what, const char *text, int lo, int hi)
{
	const char	*p, *end, *d;
	long		 a, b;
	char		*e;

	for (p = text; (p = strstr(p, "confidence")) != NULL; p++) {
		end = p + strcspn(p, ".;");
		for (d = p; d < end && !isdigit((unsigned char)*d); d++)
			;
		if (d == end)
			continue;
		a = strtol(d, &e, 10);
		for (d = e; d < end && !isdigit((unsigned char)*d); d++)
			;
		if (d == end || !joins_a_range(e, (size_t)(d - e)))
			continue;
		b = strtol(d, NULL, 10);
		if (a != lo || b != hi)
			CHECK_FAIL("%s gives confidence from %ld to %ld, the "
			    "schema %d to %d", what, a, b, lo, hi);
	}
}

static void
one_confidence_scale(void)
{
	const struct tool	*t = tool_find("memory_remember");
	const struct tool_arg	*a;
	const char		*names[] = { "memory_remember", NULL };
	struct sbuf		 sb = SBUF_INIT;
	size_t			 i;
	int			 lo, hi;

	for (a = t->args; a->name != NULL && strcmp(a->name, "confidence");
	    a++)
		;
	CHECK(a->name != NULL);
	lo = (int)a->min;
	hi = (int)a->max;
	scale_is_schemas("the confidence argument", a->description, lo, hi);
	for (i = 0; i < text_nskills; i++)
		scale_is_schemas(text_skills[i].name, text_skills[i].content,
		    lo, hi);
	sbuf_init(&sb);
	text_block_render(&sb, &(struct text_block_host){
	    TEXT_BLOCK_START_CLAUDE, "Claude Code", "CLAUDE.md", "" }, names);
	text_opencode_system(&sb, "o/r", names);
	text_opencode_extract(&sb, "s1", 3);
	for (i = 0; i < text_nactions; i++) {
		text_expand(&sb, text_actions[i].summary, "");
		text_expand(&sb, text_actions[i].body, "");
	}
	scale_is_schemas("the block, prompts and actions", sb.buf, lo, hi);
	CHECK(strstr(sb.buf, "from 1\n(a guess) to 10") != NULL);
	sbuf_release(&sb);
}

/*
 * Every text that has the agent merge near-duplicates records the
 * verdicts first, as dedup_mark_checked requires (it refuses a label that
 * names no memory): its first `dedup_mark_checked` comes before its first
 * `memory_forget`. The defrag and hygiene actions once recorded only the
 * pairs left after merging, against the classifier skill.
 */
static void
verdicts_are_recorded_before_merging(void)
{
	struct sbuf	 sb = SBUF_INIT;
	const char	*mark, *forget;
	size_t		 i, checked = 0;

	for (i = 0; i < text_nactions + text_nskills; i++) {
		sbuf_init(&sb);
		if (i < text_nactions) {
			text_expand(&sb, text_actions[i].summary, "");
			text_expand(&sb, text_actions[i].body, "");
		} else
			sbuf_adds(&sb, text_skills[i - text_nactions].content);
		mark = strstr(sb.buf, "`dedup_mark_checked`");
		forget = strstr(sb.buf, "`memory_forget`");
		if (mark != NULL && forget != NULL) {
			checked++;
			if (mark > forget)
				CHECK_FAIL("%s has memories forgotten before "
				    "the verdicts are recorded", i <
				    text_nactions ? text_actions[i].name :
				    text_skills[i - text_nactions].name);
		}
		sbuf_release(&sb);
	}
	CHECK(checked >= 3);	/* defrag, hygiene, the classifier */
}

/* Level B counts what waits and claims no new calls (issue 15). */
static void
insistent_nudge_claims_nothing_new(void)
{
	struct sbuf	sb = SBUF_INIT;

	sbuf_init(&sb);
	text_nudge_extract(&sb, 1, 2, "s1", "mcp__thatch__");
	CHECK(strncmp(sb.buf, "[thatch] THE PREVIOUS EXTRACTION REQUESTS WERE "
	    "NOT HANDLED. 1 queued tool interaction still waits. Spawn a "
	    "background sub-agent now", 106) == 0);
	CHECK(strstr(sb.buf, "more") == NULL);
	sbuf_reset(&sb);
	text_nudge_extract(&sb, 3, 2, "s1", "mcp__thatch__");
	CHECK(strstr(sb.buf, " 3 queued tool interactions still wait. ") !=
	    NULL);
	CHECK(strstr(sb.buf, "more") == NULL);
	sbuf_release(&sb);
}

CHECK_MAIN(
	TEST(insistent_nudge_claims_nothing_new),
	TEST(skills_name_what_exists),
	TEST(block_nudges_and_defaults_name_what_exists),
	TEST(classifier_verdicts_are_the_tools),
	TEST(one_confidence_scale),
	TEST(verdicts_are_recorded_before_merging)
)
