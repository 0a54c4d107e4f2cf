/*
 * test_engine_text.c — the block lines read as sentences (engine_text.c):
 * situations and statements as agents write them, each with the exact
 * line it must render to, for both engines, at both evidence levels, and
 * the whole blocks with their headers.
 */
#include "check.h"

#include <stdlib.h>

#include "core/engine/behavior.h"
#include "core/engine/predict.h"
#include "text/behaviors.h"
#include "util/sbuf.h"

static char *
line(const struct engine *eng, const char *situation, const char *statement,
    double conf, long evidence)
{
	struct engine_hit	h = { 0 };
	struct sbuf		sb = SBUF_INIT;

	h.matcher_description = (char *)situation;
	h.statement = (char *)statement;
	h.confidence = conf;
	h.evidence = evidence;
	sbuf_init(&sb);
	engine_render_hit(eng, &h, &sb);
	return sbuf_detach(&sb, NULL);
}

#define CHECK_LINE(eng, sit, stmt, conf, ev, want) do {			\
	char *l_ = line((eng), (sit), (stmt), (conf), (ev));		\
	CHECK_STR(l_, (want));						\
	free(l_);							\
} while (0)

/* Situations written every way agents write them: matcher -> line. */
static void
situations_read_as_one_clause(void)
{
	static const struct {
		const char	*matcher, *line;
	} rows[] = {
		{ "writing commit messages",
		  "When writing commit messages" },
		{ "when writing commit messages",
		  "When writing commit messages" },
		{ "When writing commit messages",
		  "When writing commit messages" },
		{ "WHEN writing commit messages.",
		  "When writing commit messages" },
		{ "When: the user asks for a review",
		  "When the user asks for a review" },
		{ "Writing commit messages.",
		  "When writing commit messages" },
		{ "The user asks for a code review",
		  "When the user asks for a code review" },
		{ "the user asks for a code review;",
		  "When the user asks for a code review" },
		{ "The user is wrapping up the session or signing off. They "
		  "say things like \"that's it for today\" or \"good "
		  "night\".",
		  "When the user is wrapping up the session or signing off" },
		{ "The user says \"good night\".",
		  "When the user says \"good night\"" },
		{ "The user says \"bye. See you\" and leaves",
		  "When the user says \"bye. See you\" and leaves" },
		{ "\"when the tests fail\"",
		  "When the tests fail" },
		{ "if CI fails on main",
		  "If CI fails on main" },
		{ "If CI fails on main:",
		  "If CI fails on main" },
		{ "before a release",
		  "Before a release" },
		{ "After merging a PR!",
		  "After merging a PR" },
		{ "CI fails on main",
		  "When CI fails on main" },
		{ "GitHub Actions is red",
		  "When GitHub Actions is red" },
		{ "I ask for a refactor",
		  "When I ask for a refactor" },
		{ "choosing between e.g. Rust and Go for a tool",
		  "When choosing between e.g. Rust and Go for a tool" },
		{ "  deciding\n how to   structure\terror handling \n",
		  "When deciding how to structure error handling" },
		{ "asked \"why?\" about a design",
		  "When asked \"why?\" about a design" },
	};
	struct sbuf	want = SBUF_INIT;
	size_t		i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		sbuf_init(&want);
		sbuf_addf(&want, "[0.50 conf, 0 tests] %s: consider whether "
		    "to run the linter", rows[i].line);
		CHECK_LINE(&behavior_engine, rows[i].matcher, "Run the linter",
		    0.5, 0, want.buf);
		sbuf_release(&want);
	}
}

/* The verb, the count and the statement, at both levels, both engines. */
static void
verbs_counts_and_statements(void)
{
	static const struct {
		const struct engine	*eng;
		const char		*statement;
		double			 conf;
		long			 evidence;
		const char		*line;
	} rows[] = {
		{ &predict_engine, "handle error cases before happy paths",
		  0.5, 0, "[0.50 conf, 0 tests] When deciding how to "
		  "structure error handling: the user may prefer to handle "
		  "error cases before happy paths" },
		{ &predict_engine, "Handle error cases before happy paths.",
		  0.48, 2, "[0.48 conf, 2 tests] When deciding how to "
		  "structure error handling: the user tends to handle error "
		  "cases before happy paths." },
		{ &predict_engine, "handle error cases before happy paths",
		  7.0 / 12, 1, "[0.58 conf, 1 test] When deciding how to "
		  "structure error handling: the user tends to handle error "
		  "cases before happy paths" },
		{ &behavior_engine, "Read the\nhistory first", 0.5, 0,
		  "[0.50 conf, 0 tests] When deciding how to structure error "
		  "handling: consider whether to read the history first" },
		{ &behavior_engine, "Read the history first", 0.625, 7,
		  "[0.63 conf, 7 tests] When deciding how to structure error "
		  "handling: do read the history first" },
		{ &behavior_engine, "GitHub issues get a label first", 0.29, 1,
		  "[0.29 conf, 1 test] When deciding how to structure error "
		  "handling: do GitHub issues get a label first" },
	};
	size_t	i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		CHECK_LINE(rows[i].eng, "When deciding how to structure "
		    "error handling.", rows[i].statement, rows[i].conf,
		    rows[i].evidence, rows[i].line);
}

/*
 * Statements written every way agents write them, at both levels: what
 * follows "When <situation>: " for each engine (engine_text.c
 * invariant 6).
 */
static void
statements_read_as_verb_phrases(void)
{
	static const struct {
		const char	*statement;
		const char	*pred0, *pred1, *beh0, *beh1;
	} rows[] = {
		{ "Run the linter",
		  "the user may prefer to run the linter",
		  "the user tends to run the linter",
		  "consider whether to run the linter",
		  "do run the linter" },
		{ "Never force-push to main",
		  "the user may prefer to never force-push to main",
		  "the user tends to never force-push to main",
		  "consider whether to never force-push to main",
		  "never force-push to main" },
		{ "Always run the linter",
		  "the user may prefer to always run the linter",
		  "the user tends to always run the linter",
		  "consider whether to always run the linter",
		  "always run the linter" },
		{ "Don't push to main",
		  "the user may prefer not to push to main",
		  "the user tends not to push to main",
		  "consider whether not to push to main",
		  "do not push to main" },
		{ "do not skip the tests",
		  "the user may prefer not to skip the tests",
		  "the user tends not to skip the tests",
		  "consider whether not to skip the tests",
		  "do not skip the tests" },
		{ "I should read the history first",
		  "the user may prefer to read the history first",
		  "the user tends to read the history first",
		  "consider whether to read the history first",
		  "do read the history first" },
		{ "You must not skip the tests",
		  "the user may prefer not to skip the tests",
		  "the user tends not to skip the tests",
		  "consider whether not to skip the tests",
		  "do not skip the tests" },
		{ "Please squash the fixups",
		  "the user may prefer to squash the fixups",
		  "the user tends to squash the fixups",
		  "consider whether to squash the fixups",
		  "do squash the fixups" },
		{ "The user prefers tabs over spaces",
		  "the user may prefer tabs over spaces",
		  "the user tends to prefer tabs over spaces",
		  "consider whether to prefer tabs over spaces",
		  "do prefer tabs over spaces" },
		{ "Prefers small PRs",
		  "the user may prefer small PRs",
		  "the user tends to prefer small PRs",
		  "consider whether to prefer small PRs",
		  "do prefer small PRs" },
		{ "Uses pnpm, not npm",
		  "the user may prefer to use pnpm, not npm",
		  "the user tends to use pnpm, not npm",
		  "consider whether to use pnpm, not npm",
		  "do use pnpm, not npm" },
		{ "The user pushes small commits",
		  "the user may prefer to push small commits",
		  "the user tends to push small commits",
		  "consider whether to push small commits",
		  "do push small commits" },
		{ "the user tries the fix by hand",
		  "the user may prefer to try the fix by hand",
		  "the user tends to try the fix by hand",
		  "consider whether to try the fix by hand",
		  "do try the fix by hand" },
		{ "user is picky about names",
		  "the user may prefer to be picky about names",
		  "the user tends to be picky about names",
		  "consider whether to be picky about names",
		  "do be picky about names" },
		{ "User does not like emoji in commits",
		  "the user may prefer not to like emoji in commits",
		  "the user tends not to like emoji in commits",
		  "consider whether not to like emoji in commits",
		  "do not like emoji in commits" },
		{ "They focus on the tests",
		  "the user may prefer to focus on the tests",
		  "the user tends to focus on the tests",
		  "consider whether to focus on the tests",
		  "do focus on the tests" },
	};
	struct sbuf	want = SBUF_INIT;
	const char	*w[4];
	size_t		i, k;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		w[0] = rows[i].pred0;
		w[1] = rows[i].pred1;
		w[2] = rows[i].beh0;
		w[3] = rows[i].beh1;
		for (k = 0; k < 4; k++) {
			sbuf_init(&want);
			sbuf_addf(&want, "[0.50 conf, %d test%s] When writing "
			    "code: %s", (int)(k % 2), k % 2 ? "" : "s", w[k]);
			CHECK_LINE(k < 2 ? &predict_engine : &behavior_engine,
			    "writing code", rows[i].statement, 0.5,
			    (long)(k % 2), want.buf);
			sbuf_release(&want);
		}
	}
}

/* The whole block: header, dashes, one line per hit, no newline at end. */
static void
blocks_render_exactly(void)
{
	struct engine_hit	hs[2] = { { 0 }, { 0 } };
	struct sbuf		sb = SBUF_INIT;

	hs[0].matcher_description = (char *)"when the user commits";
	hs[0].statement = (char *)"Squash the fixups";
	hs[0].confidence = 0.58;
	hs[0].evidence = 1;
	hs[1].matcher_description = (char *)"The user opens a PR.";
	hs[1].statement = (char *)"write the description in sections";
	hs[1].confidence = 0.5;
	sbuf_init(&sb);
	engine_render_nudge(&predict_engine, hs, 2, &sb);
	CHECK_STR(sb.buf, "[thatch] User decision model\n"
	    "- [0.58 conf, 1 test] When the user commits: the user tends to "
	    "squash the fixups\n"
	    "- [0.50 conf, 0 tests] When the user opens a PR: the user may "
	    "prefer to write the description in sections");
	sbuf_reset(&sb);
	engine_render_nudge(&behavior_engine, hs, 2, &sb);
	CHECK_STR(sb.buf, "[thatch] Situational behaviors\n"
	    "- [0.58 conf, 1 test] When the user commits: do squash the "
	    "fixups\n"
	    "- [0.50 conf, 0 tests] When the user opens a PR: consider "
	    "whether to write the description in sections");
	sbuf_reset(&sb);
	engine_render_nudge(&behavior_engine, hs, 0, &sb);
	CHECK_STR(sb.buf, "");
	sbuf_release(&sb);
}

/* Every default behavior renders as "When <one clause>: ... <verb ...>". */
static void
defaults_read_as_sentences(void)
{
	struct engine_hit	h = { 0 };
	struct sbuf		sb = SBUF_INIT;
	size_t			i;
	const char		*when, *colon;

	for (i = 0; i < text_behaviors_count; i++) {
		h.matcher_description = (char *)text_behaviors[i].situation;
		h.statement = (char *)text_behaviors[i].behavior;
		h.confidence = 0.5;
		sbuf_init(&sb);
		engine_render_hit(&behavior_engine, &h, &sb);
		CHECK(strncmp(sb.buf, "[0.50 conf, 0 tests] When the ", 30)
		    == 0);
		when = strstr(sb.buf, "When ");
		colon = strstr(sb.buf, ": consider whether to ");
		CHECK(when != NULL && colon != NULL);
		/* one clause: no sentence ends, no colon before the verb */
		if (when != NULL && colon != NULL) {
			CHECK(strcspn(when, ".:") == (size_t)(colon - when));
			/* an imperative follows: a lower-case verb, no comma */
			colon += strlen(": consider whether to ");
			CHECK(colon[0] >= 'a' && colon[0] <= 'z');
			CHECK(colon[strcspn(colon, " ,")] == ' ');
		}
		if (check_test_failed)
			fprintf(stderr, "  %s: %s\n", text_behaviors[i].key,
			    sb.buf);
		sbuf_release(&sb);
	}
}

CHECK_MAIN(
	TEST(situations_read_as_one_clause),
	TEST(verbs_counts_and_statements),
	TEST(statements_read_as_verb_phrases),
	TEST(blocks_render_exactly),
	TEST(defaults_read_as_sentences)
)
