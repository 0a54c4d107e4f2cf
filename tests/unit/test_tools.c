/*
 * test_tools.c — the tool table: argument validation (store-and-tools
 * §4.1), the generated schemas, store resolution (§2.6), and the memory
 * and dedup tools' texts with the tiny fixture model and a fixed clock;
 * how a recall's contents share its budget.
 */
#include "check.h"
#include "tmpdb.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/store/store.h"
#include "tools/budget/tool_cut.h"
#include "tools/tool.h"
#include "util/err.h"
#include "util/jsonx.h"
#include "util/path.h"
#include "util/sbuf.h"
#include "util/xmalloc.h"

/* Validate a JSON text of arguments against tool name; "" when valid. */
static char *
validate(const char *name, const char *args)
{
	struct sbuf	 msg = SBUF_INIT;
	json_t		*a = args ? json_loads(args, JSON_ALLOW_NUL, NULL) :
			    NULL;

	tool_validate(tool_find(name), a, &msg);
	json_decref(a);
	return sbuf_detach(&msg, NULL);
}

#define STARTS(s, prefix)	(strncmp(s, prefix, strlen(prefix)) == 0)

#define CHECK_VALID(name, args, want) do {				\
	char	*got_ = validate(name, args);				\
	CHECK_STR(got_, want);						\
	free(got_);							\
} while (0)

static void
every_problem_is_reported_in_schema_order(void)
{
	CHECK_VALID("memory_remember", "{\"content\":\"x\",\"confidence\":11}",
	    "Invalid arguments: label: Required; confidence: Number must be "
	    "less than or equal to 10");
	CHECK_VALID("memory_remember", NULL, "Invalid arguments: label: "
	    "Required; content: Required");
	CHECK_VALID("dedup_mark_checked", "{}", "Invalid arguments: label_a: "
	    "Required; label_b: Required; status: Required");
}

/* issue 15: a nameless memory blocked the label "x0" for good */
static void
a_blank_label_is_refused(void)
{
	CHECK_VALID("memory_remember", "{\"label\":\"\",\"content\":\"c\"}",
	    "Invalid arguments: label: must not be empty or only whitespace");
	CHECK_VALID("memory_remember", "{\"label\":\" \\t\\u00a0\","
	    "\"content\":\"c\"}", "Invalid arguments: label: must not be "
	    "empty or only whitespace");
	CHECK_VALID("memory_remember", "{\"label\":\"!!!\",\"content\":\"c\"}",
	    "");
	CHECK_VALID("memory_move", "{\"label\":\"a\",\"to\":\" \"}",
	    "Invalid arguments: to: must not be empty or only whitespace");
	/* an old nameless memory can still be shown and forgotten */
	CHECK_VALID("memory_forget", "{\"label\":\"\"}", "");
}

static void
types_are_strict_and_null_is_not_absent(void)
{
	CHECK_VALID("memory_recall", "{\"query\":\"q\",\"limit\":\"5\"}",
	    "Invalid arguments: limit: Expected integer, received string");
	CHECK_VALID("memory_recall", "{\"query\":\"q\",\"limit\":5.5}",
	    "Invalid arguments: limit: Expected integer, received float");
	CHECK_VALID("memory_recall", "{\"query\":\"q\",\"limit\":5.0}", "");
	CHECK_VALID("memory_recall", "{\"query\":\"q\",\"limit\":0}",
	    "Invalid arguments: limit: Number must be greater than or equal "
	    "to 1");
	CHECK_VALID("memory_list", "{\"store\":null}",
	    "Invalid arguments: store: Expected string, received null");
	CHECK_VALID("memory_remember", "{\"label\":\"l\",\"content\":\"c\","
	    "\"overwrite\":1}", "Invalid arguments: overwrite: Expected "
	    "boolean, received integer");
	CHECK_VALID("find_duplicates", "{\"threshold\":1.5}",
	    "Invalid arguments: threshold: Number must be less than or equal "
	    "to 1");
	CHECK_VALID("memory_list", "[1]",
	    "Invalid arguments: : Expected object, received array");
}

static void
a_nul_in_any_string_is_refused(void)
{
	const struct tool *const	*t;
	const struct tool_arg		*a;
	char				*args, *want, *got;

	CHECK_VALID("memory_remember", "{\"label\":\"a\\u0000b\","
	    "\"content\":\"c\\u0000\"}", "Invalid arguments: label: contains "
	    "a NUL character; content: contains a NUL character");
	/* every string argument of every tool, from the table */
	for (t = tool_table; *t != NULL; t++)
		for (a = (*t)->args; a->name != NULL; a++) {
			if (a->type != ARG_STRING)
				continue;
			args = xasprintf("{\"%s\":\"x\\u0000\"}", a->name);
			want = xasprintf("%s: contains a NUL character",
			    a->name);
			got = validate((*t)->name, args);
			if (strstr(got, want) == NULL)
				CHECK_FAIL("%s %s: %s", (*t)->name, args, got);
			free(args);
			free(want);
			free(got);
		}
}

static void
unknown_arguments_are_ignored(void)
{
	CHECK_VALID("store_list", "{\"bogus\":1}", "");
	CHECK_VALID("memory_show", "{\"label\":\"\",\"extra\":null}", "");
}

static void
schemas_come_from_the_rows(void)
{
	json_t	*s = tool_schema(tool_find("memory_remember"));
	char	*txt = jsonx_dump(s, 0);

	/* no "$schema": every tools/list token is paid each session */
	CHECK(strncmp(txt, "{\"type\":\"object\",", 16) == 0);
	CHECK(strstr(txt, "$schema") == NULL);
	CHECK(strstr(txt, "\"required\":[\"label\",\"content\"]") != NULL);
	CHECK(strstr(txt, "\"confidence\":{\"type\":\"integer\","
	    "\"minimum\":1,\"maximum\":10,") != NULL);
	CHECK(strstr(txt, "\"additionalProperties\":false") != NULL);
	free(txt);
	json_decref(s);
	s = tool_schema(tool_find("memory_list"));
	CHECK(json_object_get(s, "required") == NULL);
	json_decref(s);
}

static void
the_table_is_in_registry_order(void)
{
	static const char *const	want[] = { "memory_remember",
	    "memory_recall", "memory_list", "memory_show", "memory_forget",
	    "store_list", "find_duplicates", "dedup_mark_checked" };
	size_t				i;

	for (i = 0; i < sizeof(want) / sizeof(*want); i++)
		CHECK_STR(tool_table[i] ? tool_table[i]->name : NULL, want[i]);
	CHECK(tool_find("nope") == NULL);
}

static void
unknown_store_becomes_global(void)
{
	struct tool_ctx	 ctx;
	json_t		*a;

	memset(&ctx, 0, sizeof(ctx));
	ctx.default_store = "unknown";
	CHECK_STR(tool_target_store(&ctx, NULL), "global");
	ctx.default_store = "o/r";
	a = json_pack("{s:s}", "store", "");
	CHECK_STR(tool_target_store(&ctx, a), "o/r");
	json_decref(a);
	a = json_pack("{s:s}", "store", "unknown");
	CHECK_STR(tool_target_store(&ctx, a), "global");
	json_decref(a);
}

/* ---- Handlers with the tiny model ---------------------------------------- */

struct fixture {
	struct store	*st;
	struct paths	 paths;
	struct tool_ctx	 ctx;
};

static void
fixture_open(struct fixture *f, const char *name)
{
	setenv("THATCH_MODEL", "fixtures/embed/tiny-bert", 1);
	setenv("HF_ENDPOINT", "http://127.0.0.1:9", 1);
	f->st = tmpdb_open(name);
	/* the packed weights go to the private folder, not the user's cache */
	setenv("XDG_CACHE_HOME", tmpdb_dir, 1);
	paths_init(&f->paths);
	tool_ctx_init(&f->ctx, f->st, "o/r", &f->paths);
	/* 2025-03-07T14:05:09.042Z */
	f->ctx.clock = clock_fixed(1741356309042LL);
}

static void
fixture_close(struct fixture *f)
{
	tool_ctx_release(&f->ctx);
	paths_release(&f->paths);
	store_close(f->st);
}

/* Run tool name on a JSON text of arguments; the text, or "ERR: <msg>". */
static char *
call(struct fixture *f, const char *name, const char *args)
{
	const struct tool	*t = tool_find(name);
	struct sbuf		 out = SBUF_INIT;
	struct err		 err = { "" };
	json_t			*a = json_loads(args, JSON_ALLOW_NUL, NULL);

	if (tool_validate(t, a, &out) != 0)
		;
	else if (t->run(&f->ctx, a, &out, &err) != 0)
		sbuf_addf(&out, "ERR: %s", err.msg);
	json_decref(a);
	return sbuf_detach(&out, NULL);
}

#define CHECK_CALL(f, name, args, want) do {				\
	char	*got_ = call(f, name, args);				\
	CHECK_STR(got_, want);						\
	free(got_);							\
} while (0)

static void
remember_show_list_forget(void)
{
	struct fixture	f;
	char		*r;

	fixture_open(&f, "memory");
	CHECK_CALL(&f, "memory_remember", "{\"label\":\"Login flow\","
	    "\"content\":\"Tokens come from auth.\",\"branch\":\"feat/x\","
	    "\"confidence\":7}", "[saved] o/r :: Login flow");
	CHECK_CALL(&f, "memory_remember", "{\"label\":\"login flow!\","
	    "\"content\":\"again\"}", "A memory labeled \"login flow!\" "
	    "already exists in store \"o/r\". Pass overwrite: true to "
	    "replace it.");
	CHECK_CALL(&f, "memory_show", "{\"label\":\"LOGIN FLOW\"}",
	    "[o/r] branch:feat/x confidence:7 created:2025-03-07T14:05:09.042Z "
	    "updated:2025-03-07T14:05:09.042Z\n\n# Login flow\n\nTokens come "
	    "from auth.");
	CHECK_CALL(&f, "memory_list", "{}", "[o/r] Login flow (branch:feat/x) "
	    "(c:7) (2025-03-07T14:05:09.042Z)");
	CHECK_CALL(&f, "memory_list", "{\"store\":\"empty\"}",
	    "No memories in \"empty\".");
	r = call(&f, "store_list", "{}");
	CHECK_STR(r, "- global\n- o/r");
	free(r);
	CHECK_CALL(&f, "memory_forget", "{\"label\":\"login flow\"}",
	    "[forgotten] o/r :: login flow");
	CHECK_CALL(&f, "memory_show", "{\"label\":\"login flow\"}",
	    "No memory labeled \"login flow\" in store \"o/r\".");
	fixture_close(&f);
}

static void
archived_memories_need_an_explicit_archived_to_overwrite(void)
{
	struct fixture	f;

	fixture_open(&f, "archived");
	CHECK_CALL(&f, "memory_remember", "{\"label\":\"old\",\"content\":"
	    "\"c\",\"archived\":true}", "[saved] o/r :: old");
	CHECK_CALL(&f, "memory_remember", "{\"label\":\"old\",\"content\":"
	    "\"d\",\"overwrite\":true}", "\"old\" is archived. Pass archived: "
	    "true to keep it archived, or archived: false to unarchive it.");
	CHECK_CALL(&f, "memory_list", "{}", "[o/r] old (archived) "
	    "(2025-03-07T14:05:09.042Z)");
	CHECK_CALL(&f, "memory_recall", "{\"query\":\"old\"}",
	    "No matching memories found.");
	CHECK_CALL(&f, "memory_remember", "{\"label\":\"old\",\"content\":"
	    "\"d\",\"overwrite\":true,\"archived\":false}",
	    "[saved] o/r :: old");
	fixture_close(&f);
}

static void
recall_formats_hits_and_near_duplicates_warn(void)
{
	struct fixture	 f;
	char		*r;

	fixture_open(&f, "recall");
	CHECK_CALL(&f, "memory_remember", "{\"label\":\"pool size\","
	    "\"content\":\"the database pool holds ten connections\"}",
	    "[saved] o/r :: pool size");
	r = call(&f, "memory_remember", "{\"label\":\"pool size 2\","
	    "\"content\":\"the database pool holds ten connections\"}");
	CHECK(STARTS(r, "[saved] o/r :: pool size 2\n\n\u26a0 "));
	CHECK(strstr(r, "\n  - \"pool size\" (similarity 0.") != NULL ||
	    strstr(r, "\n  - \"pool size\" (similarity 1)") != NULL);
	CHECK(strstr(r, "dedup_mark_checked") != NULL);
	free(r);
	r = call(&f, "memory_recall", "{\"query\":\"database pool\","
	    "\"limit\":1,\"store\":\"o/r\"}");
	CHECK(STARTS(r, "[store:o/r updated:2025-03-07T14:05:09.042Z] "
	    "[score:"));
	CHECK(strstr(r, "]\n# pool size") != NULL);
	CHECK(strstr(r, "-----") == NULL);
	free(r);
	/* issue 27: the near-copy is one line under the hit it repeats */
	r = call(&f, "memory_recall", "{\"query\":\"database pool\"}");
	CHECK(strstr(r, "-----") == NULL);
	CHECK(strstr(r, "connections\nalso: \"pool size") != NULL);
	CHECK(strstr(r, "\" [store:o/r] [score:") != NULL);
	CHECK(strstr(r, "(nearly the same)") != NULL);
	free(r);
	fixture_close(&f);
}

/* recall_count of slug in store o/r, or -1. */
static int
recalls(struct fixture *f, const char *slug)
{
	struct store_entry	e;
	struct err		err;
	bool			found = false;
	int			n;

	if (store_get(f->st, "o/r", slug, &e, &found, &err) != 0 || !found)
		return -1;
	n = e.recall_count;
	store_entry_release(&e);
	return n;
}

static void
recall_keeps_its_hits_when_the_stamp_fails(void)
{
	struct fixture	 f;
	char		*r;

	fixture_open(&f, "stamp");
	CHECK_CALL(&f, "memory_remember", "{\"label\":\"pool size\","
	    "\"content\":\"the database pool holds ten connections\"}",
	    "[saved] o/r :: pool size");
	/* every write now fails at once, as on a read-only file */
	sqlite3_exec(store_db(f.st), "PRAGMA query_only = ON", NULL, NULL,
	    NULL);
	r = call(&f, "memory_recall", "{\"query\":\"database pool\"}");
	CHECK(STARTS(r, "[store:o/r updated:2025-03-07T14:05:09.042Z] "));
	CHECK(strstr(r, "]\n# pool size\n\nthe database pool") != NULL);
	CHECK(strstr(r, "\n\n[thatch] recall not recorded in '") != NULL);
	CHECK(strstr(r, "readonly database") != NULL);
	free(r);
	CHECK_INT(recalls(&f, "pool-size"), 0);
	sqlite3_exec(store_db(f.st), "PRAGMA query_only = OFF", NULL, NULL,
	    NULL);
	r = call(&f, "memory_recall", "{\"query\":\"database pool\"}");
	CHECK(strstr(r, "recall not recorded") == NULL);
	free(r);
	CHECK_INT(recalls(&f, "pool-size"), 1);
	fixture_close(&f);
}

static void
duplicates_cluster_and_verdicts_hide_them(void)
{
	struct fixture	 f;
	char		*r;

	fixture_open(&f, "dups");
	CHECK_CALL(&f, "find_duplicates", "{}", "No duplicate candidates in "
	    "\"o/r\" above threshold 0.85.");
	free(call(&f, "memory_remember", "{\"label\":\"a\",\"content\":"
	    "\"x\"}"));
	free(call(&f, "memory_remember", "{\"label\":\"b\",\"content\":"
	    "\"x\"}"));
	r = call(&f, "find_duplicates", "{\"threshold\":0.5}");
	CHECK(STARTS(r, "Cluster of 2:\n  [score:"));
	CHECK(strstr(r, "] \"a\" \u2194 \"b\"") != NULL);
	free(r);
	CHECK_CALL(&f, "dedup_mark_checked", "{\"label_a\":\"b\",\"label_b\":"
	    "\"a\",\"status\":\"unrelated\"}",
	    "[checked] o/r :: \"b\" \u2194 \"a\" \u2192 unrelated");
	CHECK_CALL(&f, "find_duplicates", "{\"threshold\":0.5,\"store\":"
	    "\"unknown\"}", "No duplicate candidates in \"global\" above "
	    "threshold 0.5.");
	CHECK_CALL(&f, "find_duplicates", "{\"threshold\":0.5}",
	    "No duplicate candidates in \"o/r\" above threshold 0.5.");
	fixture_close(&f);
}

static void
a_missing_model_is_a_tool_error_and_other_tools_work(void)
{
	struct fixture	 f;
	char		*r;

	fixture_open(&f, "nomodel");
	free(f.ctx.model_opts.id);
	f.ctx.model_opts.id = xstrdup("/nonexistent/model");
	f.ctx.model_opts.download = false;
	r = call(&f, "memory_recall", "{\"query\":\"q\"}");
	CHECK(STARTS(r, "ERR: "));
	free(r);
	CHECK_CALL(&f, "memory_list", "{}", "No memories in \"o/r\".");
	fixture_close(&f);
}

/* A recall's contents share the budget (tool_cut_share): best first,
 * each at most the cut, none below the floor (or its own length). */
static void
recalled_contents_share_the_budget_best_first(void)
{
	static const struct {
		size_t	n, len[6], cut, budget, want[6];
	} cases[] = {
		/* everything fits: nothing is cut */
		{ 3, { 100, 900, 40 }, 1500, 4000, { 100, 900, 40 } },
		/* each at most the cut */
		{ 2, { 3000, 3000 }, 1500, 4000, { 1500, 1500 } },
		/* the best keep the cut while the rest can have the floor */
		{ 6, { 2000, 2000, 2000, 2000, 2000, 2000 }, 1500, 4000,
		  { 1500, 1500, 400, 200, 200, 200 } },
		/* a short later content needs only its length */
		{ 3, { 2000, 2000, 50 }, 1500, 2000, { 1500, 450, 50 } },
		/* past budget / floor, each still has the floor */
		{ 4, { 900, 900, 900, 900 }, 1500, 500, { 200, 200, 200, 200 } },
		/* a cut below the floor is the floor */
		{ 2, { 900, 900 }, 100, 4000, { 100, 100 } },
	};
	size_t	i, j, got[6];

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		tool_cut_share(cases[i].len, cases[i].n, cases[i].cut,
		    cases[i].budget, got);
		for (j = 0; j < cases[i].n; j++)
			CHECK_INT(got[j], cases[i].want[j]);
	}
}

/* A cut says what it left out and how to read it, unless leaving it out
 * saves less than saying so. */
static void
a_cut_saves_more_than_its_pointer_costs(void)
{
	struct sbuf	out = SBUF_INIT;
	char		text[1201];

	memset(text, 'a', 1200);
	text[1200] = '\0';
	tool_cut_content(&out, text, "L", "s", 1150);
	CHECK_INT(out.len, 1200);
	sbuf_setlen(&out, 0);
	tool_cut_content(&out, text, "L", "s", 1000);
	CHECK(strstr(out.buf, "\n[… 200 more bytes: memory_show "
	    "{\"label\": \"L\", \"store\": \"s\"}]") != NULL);
	sbuf_release(&out);
}

CHECK_MAIN(
	TEST(recalled_contents_share_the_budget_best_first),
	TEST(a_cut_saves_more_than_its_pointer_costs),
	TEST(every_problem_is_reported_in_schema_order),
	TEST(a_blank_label_is_refused),
	TEST(types_are_strict_and_null_is_not_absent),
	TEST(a_nul_in_any_string_is_refused),
	TEST(unknown_arguments_are_ignored),
	TEST(schemas_come_from_the_rows),
	TEST(the_table_is_in_registry_order),
	TEST(unknown_store_becomes_global),
	TEST(remember_show_list_forget),
	TEST(archived_memories_need_an_explicit_archived_to_overwrite),
	TEST(recall_formats_hits_and_near_duplicates_warn),
	TEST(recall_keeps_its_hits_when_the_stamp_fails),
	TEST(duplicates_cluster_and_verdicts_hide_them),
	TEST(a_missing_model_is_a_tool_error_and_other_tools_work),
	TEST(tmpdb_cleanup)
)
