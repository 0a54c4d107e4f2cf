/*
 * test_behavior.c — the behavior engine: the scenario of
 * engines-and-extras §A10.4 (codify, ham, spam, the nudge verbs) and the
 * seeding of the default behaviors (§A9) with the mock embedder.
 */
#include "check.h"

#include "engine_fixture.h"

#include "core/engine/behavior.h"
#include "text/behaviors.h"
#include "util/os/clock.h"

#include <sys/wait.h>

#define S	"about to push a commit"
#define B	"run the test suite first"

static void
codify(struct store *st, const char *store, const char *situation,
    const char *behavior, struct sbuf *out)
{
	struct engine_write	w = { 0 };
	struct engine_item	it;
	enum engine_outcome	oc;
	struct err		err;
	float			sv[MOCK_DIM], bv[MOCK_DIM];

	mock_embed(situation, sv);
	mock_embed(behavior, bv);
	w.store = store;
	w.situation = situation;
	w.situation_vec = sv;
	w.statement = behavior;
	w.statement_vec = bv;
	w.dim = MOCK_DIM;
	w.model = "mock";
	w.rationale = "r";
	w.signal = ENGINE_NEUTRAL;
	w.neutral = "codify";
	w.now = NOW;
	sbuf_reset(out);
	CHECK_INT(engine_record(st, &behavior_engine, &w, &oc, &it, &err), 0);
	engine_render_record(&w, oc, &it, "codified", out);
	engine_item_release(&it);
}

/* What behavior_feedback does after embedding. */
static void
feedback(struct store *st, const char *behavior, bool ham, struct sbuf *out)
{
	struct engine_item	it;
	struct err		err;
	float			v[MOCK_DIM];
	bool			found;

	mock_embed(behavior, v);
	sbuf_reset(out);
	CHECK_INT(engine_grade(st, &behavior_engine, "test-store", v, MOCK_DIM,
	    ham ? ENGINE_CONFIRM : ENGINE_DISCONFIRM, ham ? "ham: ctx" :
	    "spam: ctx", NOW, &it, &found, &err), 0);
	CHECK(found);
	if (found)
		engine_render_graded(ham ? ENGINE_CONFIRM : ENGINE_DISCONFIRM,
		    &it, out);
	engine_item_release(&it);
}

static void
nudge(struct store *st, const char *prompt, struct sbuf *out)
{
	const char	*stores[] = { "test-store", "global" };
	struct err	 err;
	float		 v[MOCK_DIM];

	mock_embed(prompt, v);
	sbuf_reset(out);
	CHECK_INT(engine_nudge(st, &behavior_engine, stores, 2, v, MOCK_DIM,
	    ENGINE_THRESHOLD, out, &err), 0);
}

static void
scenario(void)
{
	struct store	*st = fixture_open();
	struct sbuf	 sb = SBUF_INIT;
	struct err	 err;
	int		 i;

	codify(st, "test-store", S, B, &sb);
	CHECK_STR(sb.buf, "[codified] test-store :: \"" B "\" for \"" S "\"");
	sbuf_reset(&sb);
	CHECK_INT(engine_list(st, &behavior_engine, "test-store", &sb, &err),
	    0);
	CHECK(strncmp(sb.buf, "[0.50 conf, 0 tests] " B "\n", 30) == 0);
	CHECK(strstr(sb.buf, "] codify: r") != NULL);
	nudge(st, S, &sb);
	CHECK_STR(sb.buf, "[thatch] Situational behaviors\n"
	    "- [0.50 conf, 0 tests] When " S ": consider whether to " B);

	feedback(st, B, true, &sb);
	CHECK_STR(sb.buf, "[confirm] \"" B "\" confidence=0.58 (1/0)");
	feedback(st, B, false, &sb);
	CHECK_STR(sb.buf, "[disconfirm] \"" B "\" confidence=0.50 (1/1)");
	for (i = 0; i < 5; i++)
		feedback(st, B, false, &sb);
	CHECK_STR(sb.buf, "[disconfirm] \"" B "\" confidence=0.29 (1/6)");
	sbuf_reset(&sb);
	CHECK_INT(engine_list(st, &behavior_engine, "test-store", &sb, &err),
	    0);
	CHECK(strstr(sb.buf, "] confirm: ham: ctx") != NULL);
	CHECK(strstr(sb.buf, "] disconfirm: spam: ctx") != NULL);
	/* heavily spammed, still surfacing: the number carries it */
	nudge(st, S, &sb);
	CHECK_STR(sb.buf, "[thatch] Situational behaviors\n"
	    "- [0.29 conf, 7 tests] When " S ": do " B);
	nudge(st, "an unrelated prompt about lunch", &sb);
	CHECK_STR(sb.buf, "");
	sbuf_release(&sb);
	fixture_close(st);
}

/* The mock embedder behind behavior_seed, counting calls; fails on text. */
struct counting {
	int		 calls;
	const char	*fail_on;
};

static int
counting_embed(void *arg, const char *text, float *out, struct err *err)
{
	struct counting	*c = arg;

	c->calls++;
	if (c->fail_on != NULL && strcmp(text, c->fail_on) == 0)
		return err_set(err, "mock failure");
	mock_embed(text, out);
	return 0;
}

static int
seed(struct store *st, struct counting *c)
{
	struct behavior_embedder	emb = { counting_embed, c, MOCK_DIM,
					    "mock" };
	struct clock			clk = clock_fixed(1772360430456);
	struct err			err;
	int				n = -1;

	c->calls = 0;
	CHECK_INT(behavior_seed(st, &emb, &clk, &n, &err), 0);
	return n;
}

static long
global_behaviors(struct store *st)
{
	return fixture_count(st,
	    "SELECT COUNT(*) FROM behaviors WHERE store = 'global'");
}

static void
seeding(void)
{
	struct store	*st = fixture_open();
	struct counting	 c = { 0, NULL };
	struct sbuf	 sb = SBUF_INIT;
	struct err	 err;
	long		 n = (long)text_behaviors_count;
	const char	*p;
	long		 blocks;

	CHECK_INT(seed(st, &c), n);
	CHECK_INT(c.calls, 2 * n);
	CHECK_INT(global_behaviors(st), n);
	CHECK_INT(fixture_count(st, "SELECT COUNT(*) FROM behavior_matchers"),
	    n);
	CHECK_INT(engine_list(st, &behavior_engine, "global", &sb, &err), 0);
	for (blocks = 0, p = sb.buf; (p = strstr(p, "[0.50 conf, 0 tests] "))
	    != NULL; p++)
		blocks++;
	CHECK_INT(blocks, n);
	for (blocks = 0, p = sb.buf; (p = strstr(p, "(w:1)\n  provenance:\n"
	    "    - [")) != NULL; p++)
		blocks++;
	CHECK_INT(blocks, n);
	CHECK_INT(fixture_count(st, "SELECT COUNT(*) FROM behaviors WHERE"
	    " rationale GLOB '* seed-key:* seed-version:*'"), n);
	CHECK_INT(fixture_count(st, "SELECT COUNT(*) FROM behavior_provenance"
	    " WHERE signal = 'codify' AND detail LIKE '%seed-key:%'"), n);
	CHECK_INT(fixture_count(st, "SELECT COUNT(*) FROM behaviors WHERE"
	    " store = 'global' AND created_at = '" NOW "'"), n);

	/* current stamps: nothing embedded, nothing written */
	CHECK_INT(seed(st, &c), 0);
	CHECK_INT(c.calls, 0);
	CHECK_INT(global_behaviors(st), n);

	/* a user rule in global is never touched */
	codify(st, "global", S, B, &sb);
	CHECK_INT(seed(st, &c), 0);
	CHECK_INT(global_behaviors(st), n + 1);

	/* a changed default is re-seeded fresh on its old matcher */
	CHECK_INT(store_exec(st, "UPDATE behaviors SET confirm_count = 3,"
	    " rationale = replace(rationale, 'seed-version:',"
	    " 'seed-version:000000000000 ') WHERE rationale LIKE"
	    " '%seed-key:%'", &err),
	    0);
	CHECK_INT(seed(st, &c), n);
	CHECK_INT(global_behaviors(st), n + 1);
	CHECK_INT(fixture_count(st, "SELECT COUNT(*) FROM behaviors WHERE"
	    " confirm_count = 3"), 0);
	CHECK_INT(fixture_count(st, "SELECT COUNT(*) FROM behavior_matchers"),
	    n + 1);

	/* a default the user deleted comes back, on its orphan matcher */
	CHECK_INT(store_exec(st, "DELETE FROM behaviors WHERE rationale LIKE"
	    " '%seed-key:session-wrap-up %'", &err), 0);
	CHECK_INT(global_behaviors(st), n);
	CHECK_INT(seed(st, &c), 1);
	CHECK_INT(global_behaviors(st), n + 1);
	CHECK_INT(fixture_count(st, "SELECT COUNT(*) FROM behavior_matchers"),
	    n + 1);
	sbuf_release(&sb);
	fixture_close(st);
}

/* The one text value of sql, as a new string ("" when NULL). */
static char *
fixture_text(struct store *st, const char *sql)
{
	sqlite3_stmt	*stmt = NULL;
	struct err	 err;
	const char	*v = NULL;
	char		*s;

	if (store_prepare(st, &stmt, sql, &err) == 0 &&
	    sqlite3_step(stmt) == SQLITE_ROW)
		v = (const char *)sqlite3_column_text(stmt, 0);
	s = strdup(v != NULL ? v : "");
	sqlite3_finalize(stmt);
	return s;
}

/*
 * The original's defaults (its program version as seed-version) are the
 * defaults: never deleted, re-seeded or doubled, their counts kept.
 */
static void
seeding_leaves_the_originals_defaults(void)
{
	struct store	*st = fixture_open();
	struct counting	 c = { 0, NULL };
	struct err	 err;
	long		 n = (long)text_behaviors_count;
	const char	*rows = "SELECT group_concat(id || confirm_count || "
			    "rationale, '|') FROM (SELECT * FROM behaviors "
			    "ORDER BY id)";
	char		*before, *after;

	CHECK_INT(seed(st, &c), n);
	CHECK_INT(store_exec(st, "UPDATE behaviors SET confirm_count = 2,"
	    " rationale = substr(rationale, 1, instr(rationale,"
	    " 'seed-version:') - 1) || 'seed-version:0.1.30'", &err), 0);
	before = fixture_text(st, rows);
	c.calls = 0;
	CHECK_INT(seed(st, &c), 0);
	CHECK_INT(c.calls, 0);
	after = fixture_text(st, rows);
	CHECK_STR(after, before);
	CHECK_INT(global_behaviors(st), n);
	CHECK_INT(fixture_count(st, "SELECT COUNT(*) FROM behaviors WHERE"
	    " rationale LIKE '% seed-version:0.1.30'"), n);
	free(before);
	free(after);
	/* one of the original's gone: only that default comes back */
	CHECK_INT(store_exec(st, "DELETE FROM behaviors WHERE rationale LIKE"
	    " '%seed-key:snag-dead-end %'", &err), 0);
	CHECK_INT(seed(st, &c), 1);
	CHECK_INT(global_behaviors(st), n);
	fixture_close(st);
}

/* One default failing to embed is logged and skipped; the rest seed. */
static void
seeding_failure_is_isolated(void)
{
	struct store	*st = fixture_open();
	struct counting	 c = { 0, text_behaviors[0].behavior };

	CHECK_INT(seed(st, &c), (long)text_behaviors_count - 1);
	CHECK_INT(global_behaviors(st), (long)text_behaviors_count - 1);
	c.fail_on = NULL;
	CHECK_INT(seed(st, &c), 1);
	CHECK_INT(c.calls, 2);
	fixture_close(st);
}

/* Two processes seeding one database at once write each default once. */
static void
seeding_races_write_once(void)
{
	struct store	*st = fixture_open(), *mine = NULL;
	struct counting	 c = { 0, NULL };
	struct err	 err;
	char		 path[128];
	pid_t		 pid[2];
	int		 i, status;

	snprintf(path, sizeof(path), "%s/thatch.db", fixture_dir);
	store_close(st);	/* a connection must not cross fork() */
	for (i = 0; i < 2; i++) {
		if ((pid[i] = fork()) == 0) {
			if (store_open(path, &mine, &err) != 0)
				_exit(2);
			seed(mine, &c);
			store_close(mine);
			_exit(check_test_failed);
		}
	}
	for (i = 0; i < 2; i++) {
		CHECK(waitpid(pid[i], &status, 0) == pid[i]);
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	CHECK_INT(store_open(path, &st, &err), 0);
	CHECK_INT(global_behaviors(st), (long)text_behaviors_count);
	CHECK_INT(fixture_count(st, "SELECT COUNT(*) FROM behavior_provenance"),
	    (long)text_behaviors_count);
	fixture_close(st);
}

/* Every default has a key, texts and a rationale; keys are unique. */
static void
defaults_are_well_formed(void)
{
	size_t	i, j;

	CHECK(text_behaviors_count > 0);
	for (i = 0; i < text_behaviors_count; i++) {
		CHECK(text_behaviors[i].key[0] != '\0');
		CHECK(strpbrk(text_behaviors[i].key, " \t\n") == NULL);
		CHECK(strlen(text_behaviors[i].situation) > 40);
		CHECK(strlen(text_behaviors[i].behavior) > 40);
		CHECK(text_behaviors[i].rationale[0] != '\0');
		for (j = 0; j < i; j++)
			CHECK(strcmp(text_behaviors[i].key,
			    text_behaviors[j].key) != 0);
	}
}

CHECK_MAIN(
	TEST(scenario),
	TEST(seeding),
	TEST(seeding_leaves_the_originals_defaults),
	TEST(seeding_failure_is_isolated),
	TEST(seeding_races_write_once),
	TEST(defaults_are_well_formed)
)
