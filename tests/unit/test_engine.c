/*
 * test_engine.c — the scoring engine (engines-and-extras §A3-§A6, §A10,
 * §A11): confidence after every signal sequence of the worked table, the
 * scoring cases S1-S6, threshold and dedup edges, cascades, unknown ids
 * and empty stores. Vectors are fed directly; no model.
 */
#include "check.h"

#include "engine_fixture.h"

#include "core/engine/predict.h"

/* Fresh item in store "s" with no matcher; returns its id. */
static char *
new_item(struct store *st, const char *statement)
{
	struct err	 err;
	char		*id = NULL;

	CHECK_INT(engine_create_item(st, &predict_engine, "s", statement, "",
	    NULL, 0, "mock", NOW, &id, &err), 0);
	return id;
}

static void
signal_n(struct store *st, const char *id, enum engine_signal s, int n)
{
	struct err	err;

	while (n-- > 0)
		CHECK_INT(engine_adjust(st, &predict_engine, id, s, NOW, &err),
		    0);
}

/* §A10.1, row by row: signals in, what update and list print out. */
static void
confidence_table(void)
{
	static const struct {
		int		 confirms, disconfirms, softs;
		double		 raw;
		const char	*update, *list;
	} rows[] = {
		{ 0, 0, 0, 0.5, "0.50 (0/0)", "[0.50 conf, 0 tests] x" },
		{ 1, 0, 0, 7.0 / 12, "0.58 (1/0)", "[0.58 conf, 1 test] x" },
		{ 2, 0, 0, 4.5 / 7, "0.64 (2/0)", "[0.64 conf, 2 tests] x" },
		{ 3, 0, 0, 0.6875, "0.69 (3/0)", "[0.69 conf, 3 tests] x" },
		{ 10, 0, 0, 12.5 / 15, "0.83 (10/0)",
		  "[0.83 conf, 10 tests] x" },
		{ 25, 0, 0, 27.5 / 30, "0.92 (25/0)",
		  "[0.92 conf, 25 tests] x" },
		{ 0, 1, 0, 2.5 / 6, "0.42 (0/1)", "[0.42 conf, 1 test] x" },
		{ 0, 0, 1, 2.5 / 5.25, "0.48 (0/0.25)",
		  "[0.48 conf, 0 tests] x" },
		{ 0, 0, 2, 2.5 / 5.5, "0.45 (0/0.5)",
		  "[0.46 conf, 1 test] x" },
		{ 1, 0, 1, 0.56, "0.56 (1/0.25)", "[0.56 conf, 1 test] x" },
		{ 1, 1, 0, 0.5, "0.50 (1/1)", "[0.50 conf, 2 tests] x" },
		{ 1, 1, 1, 3.5 / 7.25, "0.48 (1/1.25)",
		  "[0.48 conf, 2 tests] x" },
		{ 2, 1, 0, 0.5625, "0.56 (2/1)", "[0.56 conf, 3 tests] x" },
		{ 0, 3, 0, 0.3125, "0.31 (0/3)", "[0.31 conf, 3 tests] x" },
		{ 1, 6, 0, 3.5 / 12, "0.29 (1/6)", "[0.29 conf, 7 tests] x" },
		{ 5, 2, 0, 0.625, "0.63 (5/2)", "[0.63 conf, 7 tests] x" },
		{ 2, 5, 0, 0.375, "0.38 (2/5)", "[0.38 conf, 7 tests] x" },
		{ 0, 10, 0, 2.5 / 15, "0.17 (0/10)",
		  "[0.17 conf, 10 tests] x" },
		/* the other double-rounding case of §A10.1 */
		{ 0, 8, 2, 2.5 / 13.5, "0.19 (0/8.5)",
		  "[0.18 conf, 9 tests] x" },
	};
	struct engine_item	 it;
	struct sbuf		 sb = SBUF_INIT;
	struct store		*st;
	struct err		 err;
	char			*id, want[64];
	bool			 found;
	size_t			 i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		st = fixture_open();
		id = new_item(st, "x");
		signal_n(st, id, ENGINE_CONFIRM, rows[i].confirms);
		signal_n(st, id, ENGINE_DISCONFIRM, rows[i].disconfirms);
		signal_n(st, id, ENGINE_SOFT, rows[i].softs);
		CHECK_INT(engine_get_item(st, &predict_engine, id, &it, &found,
		    &err), 0);
		CHECK(found);
		CHECK_NEAR(it.confidence, rows[i].raw, 1e-12);
		sbuf_reset(&sb);
		engine_render_graded(ENGINE_CONFIRM, &it, &sb);
		snprintf(want, sizeof(want), "[confirm] \"x\" confidence=%s",
		    rows[i].update);
		CHECK_STR(sb.buf, want);
		sbuf_reset(&sb);
		CHECK_INT(engine_list(st, &predict_engine, "s", &sb, &err), 0);
		CHECK_STR(sb.buf, rows[i].list);
		engine_item_release(&it);
		free(id);
		fixture_close(st);
	}
	sbuf_release(&sb);
}

/* Neutral signals and unknown ids change nothing and fail nothing. */
static void
neutral_and_unknown(void)
{
	struct store		*st = fixture_open();
	struct engine_item	 it;
	struct sbuf		 sb = SBUF_INIT;
	struct err		 err;
	char			*id = new_item(st, "x");
	bool			 found, deleted;

	CHECK_INT(engine_adjust(st, &predict_engine, id, ENGINE_NEUTRAL, NOW,
	    &err), 0);
	CHECK_INT(engine_adjust(st, &predict_engine, "no-such-id",
	    ENGINE_CONFIRM, NOW, &err), 0);
	CHECK_INT(engine_get_item(st, &predict_engine, id, &it, &found, &err),
	    0);
	CHECK_NEAR(it.confidence, 0.5, 0);
	CHECK_NEAR(it.confirms + it.disconfirms, 0, 0);
	engine_item_release(&it);
	CHECK_INT(engine_get_item(st, &predict_engine, "no-such-id", &it,
	    &found, &err), 0);
	CHECK(!found);
	CHECK_INT(engine_delete_item(st, &predict_engine, "no-such-id",
	    &deleted, &err), 0);
	CHECK(!deleted);
	CHECK_INT(engine_forget(st, &predict_engine, "s", "nothing like it",
	    QUERY4, 4, &sb, &err), 0);
	CHECK_STR(sb.buf,
	    "No prediction matching \"nothing like it\" found in \"s\".");
	free(id);
	sbuf_release(&sb);
	fixture_close(st);
}

static void
empty_store(void)
{
	struct store		*st = fixture_open();
	const char		*stores[] = { "s", "global" };
	struct engine_hits	 hs;
	struct sbuf		 sb = SBUF_INIT;
	struct err		 err;

	CHECK_INT(engine_list(st, &predict_engine, "s", &sb, &err), 0);
	CHECK_STR(sb.buf, "No predictions in \"s\".");
	sbuf_reset(&sb);
	CHECK_INT(engine_nudge(st, &predict_engine, stores, 2, QUERY4, 4,
	    0.0, &sb, &err), 0);
	CHECK_STR(sb.buf, "");
	CHECK_INT(predict_query(st, stores, 2, QUERY4, 4, &sb, &err), 0);
	CHECK_STR(sb.buf, "No matching predictions found.");
	CHECK_INT(engine_score_nudge(st, &predict_engine, stores, 0, QUERY4,
	    4, 0.0, &hs, &err), 0);
	CHECK_INT(hs.n, 0);
	sbuf_release(&sb);
	fixture_close(st);
}

/* A matcher at cosine c with one edge of weight w to a new item. */
static void
link_item(struct store *st, const char *store, double c, int axis, double w,
    const char *mdesc, const char *item_id)
{
	struct err	 err;
	float		 v[4];
	char		*mid = NULL;

	vec_at(c, axis, v);
	CHECK_INT(engine_create_matcher(st, &predict_engine, store, mdesc, v,
	    4, "mock", NOW, &mid, &err), 0);
	CHECK_INT(engine_create_edge(st, &predict_engine, mid, item_id, w, NOW,
	    &err), 0);
	free(mid);
}

static void
nudge_text(struct store *st, double threshold, struct sbuf *sb)
{
	const char	*stores[] = { "s", "global" };
	struct err	 err;

	sbuf_reset(sb);
	CHECK_INT(engine_nudge(st, &predict_engine, stores, 2, QUERY4, 4,
	    threshold, sb, &err), 0);
}

/* S1: 0.87349 -> 0.873; x 0.58333 -> 0.509; one confirm reads assertive. */
static void
scoring_s1(void)
{
	struct store		*st = fixture_open();
	const char		*stores[] = { "s" };
	struct engine_hits	 hs;
	struct sbuf		 sb = SBUF_INIT;
	struct err		 err;
	char			*id = new_item(st, "write tests first");

	link_item(st, "s", 0.87349, 0, 1.0, "adding a feature", id);
	signal_n(st, id, ENGINE_CONFIRM, 1);
	CHECK_INT(engine_score_nudge(st, &predict_engine, stores, 1, QUERY4, 4,
	    0.6, &hs, &err), 0);
	CHECK_INT(hs.n, 1);
	CHECK_NEAR(hs.v[0].score, 0.509, 1e-12);
	CHECK_NEAR(hs.v[0].confidence, 0.583, 1e-12);
	engine_hits_release(&hs);
	nudge_text(st, 0.6, &sb);
	CHECK_STR(sb.buf, "[thatch] User decision model\n"
	    "- [0.58 conf, 1 test] When adding a feature: the user tends to write "
	    "tests first");
	free(id);
	sbuf_release(&sb);
	fixture_close(st);
}

/* S2: two matchers to one item: one line, the better matcher's. */
static void
scoring_s2(void)
{
	struct store		*st = fixture_open();
	struct engine_matchers	 ms;
	struct engine_hits	 hs;
	const char		*stores[] = { "s" };
	struct err		 err;
	char			*id = new_item(st, "X");

	link_item(st, "s", 0.9, 0, 1.0, "m1", id);
	link_item(st, "s", 0.8, 1, 0.8, "m2", id);
	CHECK_INT(engine_find_matchers(st, &predict_engine, stores, 1, QUERY4,
	    4, 5, &ms, &err), 0);
	CHECK_INT(ms.n, 2);
	CHECK_INT(engine_score_items(st, &predict_engine, &ms, &hs, &err), 0);
	CHECK_INT(hs.n, 1);
	CHECK_STR(hs.v[0].matcher_description, "m1");
	CHECK_NEAR(hs.v[0].score, 0.45, 1e-12);
	engine_hits_release(&hs);
	/* without m1, m2's own score shows the weight: 0.8 x 0.8 x 0.5 */
	free(ms.v[0].id);
	free(ms.v[0].description);
	ms.v[0] = ms.v[1];
	ms.n = 1;
	CHECK_INT(engine_score_items(st, &predict_engine, &ms, &hs, &err), 0);
	CHECK_NEAR(hs.v[0].score, 0.32, 1e-12);
	engine_hits_release(&hs);
	engine_matchers_release(&ms);
	free(id);
	fixture_close(st);
}

/* S3: an edge keeps its first weight. */
static void
scoring_s3(void)
{
	struct store		*st = fixture_open();
	struct engine_hits	 hs;
	struct sbuf		 sb = SBUF_INIT;
	const char		*stores[] = { "s" };
	struct err		 err;
	char			*id = new_item(st, "X"), *mid = NULL;
	float			 v[4];

	vec_at(0.9, 0, v);
	CHECK_INT(engine_create_matcher(st, &predict_engine, "s", "m", v, 4,
	    "mock", NOW, &mid, &err), 0);
	CHECK_INT(engine_create_edge(st, &predict_engine, mid, id, 0.7, NOW,
	    &err), 0);
	CHECK_INT(engine_create_edge(st, &predict_engine, mid, id, 1.0, NOW,
	    &err), 0);
	CHECK_INT(engine_score_nudge(st, &predict_engine, stores, 1, QUERY4, 4,
	    0.6, &hs, &err), 0);
	CHECK_INT(hs.n, 1);
	CHECK_NEAR(hs.v[0].score, 0.315, 1e-12);
	engine_hits_release(&hs);
	CHECK_INT(engine_list(st, &predict_engine, "s", &sb, &err), 0);
	CHECK_STR(sb.buf, "[0.50 conf, 0 tests] X\n"
	    "  matchers:\n"
	    "    - \"m\" (w:0.7)");
	free(id);
	free(mid);
	sbuf_release(&sb);
	fixture_close(st);
}

/* S4: confidence ranks, never admits: both listed, B first. */
static void
scoring_s4(void)
{
	struct store		*st = fixture_open();
	struct engine_hits	 hs;
	const char		*stores[] = { "s" };
	struct err		 err;
	char			*a = new_item(st, "A"), *b = new_item(st, "B");

	signal_n(st, a, ENGINE_CONFIRM, 1);
	signal_n(st, a, ENGINE_DISCONFIRM, 6);
	link_item(st, "s", 0.95, 0, 1.0, "ma", a);
	link_item(st, "s", 0.70, 1, 1.0, "mb", b);
	CHECK_INT(engine_score_nudge(st, &predict_engine, stores, 1, QUERY4, 4,
	    0.6, &hs, &err), 0);
	CHECK_INT(hs.n, 2);
	CHECK_STR(hs.v[0].statement, "B");
	CHECK_NEAR(hs.v[0].score, 0.35, 1e-12);
	CHECK_STR(hs.v[1].statement, "A");
	CHECK_NEAR(hs.v[1].score, 0.277, 1e-12);
	engine_hits_release(&hs);
	free(a);
	free(b);
	fixture_close(st);
}

/* S5: only the top five matchers count; S6: thresholds 1.01 and 0. */
static void
scoring_s5_s6(void)
{
	static const char *const names[] = { "i1", "i2", "i3", "i4", "i5",
	    "i6", "i7" };
	struct store		*st = fixture_open();
	struct engine_hits	 hs;
	struct sbuf		 sb = SBUF_INIT;
	const char		*stores[] = { "s" };
	struct err		 err;
	char			*id;
	size_t			 i;

	for (i = 0; i < 7; i++) {
		id = new_item(st, names[i]);
		link_item(st, "s", 0.95 - 0.05 * (double)i, (int)i, 1.0,
		    names[i], id);
		free(id);
	}
	CHECK_INT(engine_score_nudge(st, &predict_engine, stores, 1, QUERY4, 4,
	    0.6, &hs, &err), 0);
	CHECK_INT(hs.n, 5);
	for (i = 0; i < hs.n; i++)
		CHECK_STR(hs.v[i].statement, names[i]);
	engine_hits_release(&hs);
	nudge_text(st, 1.01, &sb);
	CHECK_STR(sb.buf, "");
	/* a matcher below the noise floor never fires, even at 0 */
	id = new_item(st, "noise");
	link_item(st, "s", 0.005, 0, 1.0, "noise", id);
	free(id);
	CHECK_INT(engine_score_nudge(st, &predict_engine, stores, 1, QUERY4, 4,
	    0.0, &hs, &err), 0);
	CHECK_INT(hs.n, 5);
	for (i = 0; i < hs.n; i++)
		CHECK(strcmp(hs.v[i].statement, "noise") != 0);
	engine_hits_release(&hs);
	sbuf_release(&sb);
	fixture_close(st);
}

/* §A7.1: the rounded cosine meets the threshold: 0.5996 fires, 0.5994 not. */
static void
threshold_edges(void)
{
	struct store	*st = fixture_open();
	struct sbuf	 sb = SBUF_INIT;
	char		*id = new_item(st, "use tabs");

	link_item(st, "s", 0.5994, 0, 1.0, "formatting code", id);
	nudge_text(st, 0.60, &sb);
	CHECK_STR(sb.buf, "");
	link_item(st, "s", 0.5996, 1, 1.0, "formatting code again", id);
	nudge_text(st, 0.60, &sb);
	CHECK_STR(sb.buf, "[thatch] User decision model\n"
	    "- [0.50 conf, 0 tests] When formatting code again: the user may "
	    "prefer to use tabs");
	free(id);
	sbuf_release(&sb);
	fixture_close(st);
}

static enum engine_outcome
record(struct store *st, const char *store, double mcos, int maxis,
    double icos, int iaxis, enum engine_signal sig, struct sbuf *sb)
{
	struct engine_write	w = { 0 };
	struct engine_item	it;
	enum engine_outcome	oc = ENGINE_CREATED;
	struct err		err;
	float			mv[4], iv[4];

	vec_at(mcos, maxis, mv);
	vec_at(icos, iaxis, iv);
	w.store = store;
	w.situation = "when x";
	w.situation_vec = mv;
	w.statement = "do y";
	w.statement_vec = iv;
	w.dim = 4;
	w.model = "mock";
	w.rationale = "because";
	w.signal = sig;
	w.neutral = "create";
	w.now = NOW;
	CHECK_INT(engine_record(st, &predict_engine, &w, &oc, &it, &err), 0);
	sbuf_reset(sb);
	engine_render_record(&w, oc, &it, "created", sb);
	engine_item_release(&it);
	return oc;
}

/* §A6: reuse at raw cosine >= 0.85 in the target store, never across. */
static void
dedup_edges(void)
{
	struct store	*st = fixture_open();
	struct sbuf	 sb = SBUF_INIT;

	CHECK_INT(record(st, "s", 1, 0, 1, 0, ENGINE_NEUTRAL, &sb),
	    ENGINE_CREATED);
	CHECK_STR(sb.buf, "[created] s :: \"do y\" for \"when x\"");
	/* 0.8501 to both: same matcher, same item */
	CHECK_INT(record(st, "s", 0.8501, 1, 0.8501, 1, ENGINE_NEUTRAL, &sb),
	    ENGINE_LINKED);
	CHECK_STR(sb.buf, "[linked] \"do y\" for \"when x\" confidence=0.50 "
	    "(0/0)");
	CHECK_INT(fixture_count(st, "SELECT COUNT(*) FROM prediction_matchers"),
	    1);
	CHECK_INT(fixture_count(st, "SELECT COUNT(*) FROM predictions"), 1);
	/* 0.8499: a new matcher, linked to the existing item */
	CHECK_INT(record(st, "s", 0.8499, 2, 1, 0, ENGINE_CONFIRM, &sb),
	    ENGINE_GRADED);
	CHECK_STR(sb.buf, "[confirm] \"do y\" confidence=0.58 (1/0)");
	CHECK_INT(fixture_count(st, "SELECT COUNT(*) FROM prediction_matchers"),
	    2);
	CHECK_INT(fixture_count(st, "SELECT COUNT(*) FROM prediction_edges"),
	    2);
	/* 0.8499 for the item: a new one, its first signal applied */
	CHECK_INT(record(st, "s", 1, 0, 0.8499, 2, ENGINE_SOFT, &sb),
	    ENGINE_CREATED);
	CHECK_STR(sb.buf, "[created + soft] \"do y\" confidence=0.48 "
	    "(0/0.25)");
	CHECK_INT(fixture_count(st, "SELECT COUNT(*) FROM predictions"), 2);
	/* identical texts in another store: nothing reused */
	CHECK_INT(record(st, "other", 1, 0, 1, 0, ENGINE_NEUTRAL, &sb),
	    ENGINE_CREATED);
	CHECK_INT(fixture_count(st, "SELECT COUNT(*) FROM prediction_matchers"),
	    3);
	CHECK_INT(fixture_count(st,
	    "SELECT COUNT(*) FROM stores WHERE name = 'other'"), 1);
	sbuf_release(&sb);
	fixture_close(st);
}

/* Deleting cascades to edges and provenance; the orphan matcher stays
 * and still takes a top-5 slot (§A11.1). */
static void
cascade_delete(void)
{
	struct store		*st = fixture_open();
	struct engine_matchers	 ms;
	struct sbuf		 sb = SBUF_INIT;
	const char		*stores[] = { "s" };
	struct err		 err;

	record(st, "s", 1, 0, 1, 0, ENGINE_CONFIRM, &sb);
	CHECK_INT(fixture_count(st, "SELECT COUNT(*) FROM prediction_edges"),
	    1);
	CHECK_INT(fixture_count(st,
	    "SELECT COUNT(*) FROM prediction_provenance"), 1);
	sbuf_reset(&sb);
	CHECK_INT(engine_forget(st, &predict_engine, "s", "do y", QUERY4, 4,
	    &sb, &err), 0);
	CHECK_STR(sb.buf, "[deleted] \"do y\" from \"s\"");
	CHECK_INT(fixture_count(st, "SELECT COUNT(*) FROM predictions"), 0);
	CHECK_INT(fixture_count(st, "SELECT COUNT(*) FROM prediction_edges"),
	    0);
	CHECK_INT(fixture_count(st,
	    "SELECT COUNT(*) FROM prediction_provenance"), 0);
	CHECK_INT(fixture_count(st, "SELECT COUNT(*) FROM prediction_matchers"),
	    1);
	CHECK_INT(engine_find_matchers(st, &predict_engine, stores, 1, QUERY4,
	    4, 5, &ms, &err), 0);
	CHECK_INT(ms.n, 1);
	engine_matchers_release(&ms);
	sbuf_reset(&sb);
	nudge_text(st, 0.6, &sb);
	CHECK_STR(sb.buf, "");
	sbuf_release(&sb);
	fixture_close(st);
}

/* Rows of another dimension are skipped, not scored. */
static void
dimension_mismatch(void)
{
	struct store		*st = fixture_open();
	struct engine_matchers	 ms;
	const char		*stores[] = { "s" };
	struct err		 err;
	float			 v3[3] = { 1, 0, 0 };
	char			*mid = NULL;

	CHECK_INT(engine_create_matcher(st, &predict_engine, "s", "3-d", v3,
	    3, "mock", NOW, &mid, &err), 0);
	free(mid);
	CHECK_INT(engine_find_matchers(st, &predict_engine, stores, 1, QUERY4,
	    4, 5, &ms, &err), 0);
	CHECK_INT(ms.n, 0);
	engine_matchers_release(&ms);
	fixture_close(st);
}

/* Ids are lowercase UUID v4; code-written times have milliseconds. */
static void
ids_and_times(void)
{
	struct store	*st = fixture_open();
	sqlite3_stmt	*stmt = NULL;
	struct sbuf	 sb = SBUF_INIT;
	struct err	 err;
	const char	*id;
	size_t		 i;

	record(st, "s", 1, 0, 1, 0, ENGINE_NEUTRAL, &sb);
	CHECK_INT(store_prepare(st, &stmt, "SELECT p.id, p.created_at,"
	    " v.created_at, v.id FROM predictions p JOIN prediction_provenance"
	    " v ON v.prediction_id = p.id", &err), 0);
	CHECK_INT(sqlite3_step(stmt), SQLITE_ROW);
	id = (const char *)sqlite3_column_text(stmt, 0);
	CHECK_INT(strlen(id), 36);
	for (i = 0; i < 36; i++)
		CHECK(i == 8 || i == 13 || i == 18 || i == 23 ? id[i] == '-' :
		    strchr("0123456789abcdef", id[i]) != NULL);
	CHECK(id[14] == '4');
	CHECK(strchr("89ab", id[19]) != NULL);
	CHECK_STR((const char *)sqlite3_column_text(stmt, 1), NOW);
	CHECK_INT(strlen((const char *)sqlite3_column_text(stmt, 2)), 20);
	CHECK(strcmp((const char *)sqlite3_column_text(stmt, 3), id) != 0);
	sqlite3_finalize(stmt);
	sbuf_release(&sb);
	fixture_close(st);
}

/* The matcher cache follows other connections' commits (data_version). */
static void
cache_sees_other_writers(void)
{
	struct store		*a = fixture_open(), *b = NULL;
	struct engine_matchers	 ms;
	const char		*stores[] = { "s" };
	struct err		 err;
	char			 path[128], *id;

	snprintf(path, sizeof(path), "%s/thatch.db", fixture_dir);
	CHECK_INT(store_open(path, &b, &err), 0);
	CHECK_INT(engine_find_matchers(a, &predict_engine, stores, 1, QUERY4,
	    4, 5, &ms, &err), 0);
	CHECK_INT(ms.n, 0);
	engine_matchers_release(&ms);
	id = new_item(b, "x");
	link_item(b, "s", 0.9, 0, 1.0, "written by b", id);
	free(id);
	CHECK_INT(engine_find_matchers(a, &predict_engine, stores, 1, QUERY4,
	    4, 5, &ms, &err), 0);
	CHECK_INT(ms.n, 1);
	if (ms.n == 1)
		CHECK_STR(ms.v[0].description, "written by b");
	engine_matchers_release(&ms);
	store_close(b);
	fixture_close(a);
}

/* A matcher cached inside a rolled-back transaction does not linger,
 * even when the next insert reuses its rowid. */
static void
cache_survives_rollback(void)
{
	struct store		*st = fixture_open();
	struct engine_matchers	 ms;
	const char		*stores[] = { "s" };
	struct err		 err;
	char			*mid = NULL;

	CHECK_INT(store_exec(st, "BEGIN IMMEDIATE", &err), 0);
	CHECK_INT(engine_create_matcher(st, &predict_engine, "s", "rolled back",
	    QUERY4, 4, "mock", NOW, &mid, &err), 0);
	free(mid);
	CHECK_INT(engine_find_matchers(st, &predict_engine, stores, 1, QUERY4,
	    4, 5, &ms, &err), 0);
	CHECK_INT(ms.n, 1);
	engine_matchers_release(&ms);
	CHECK_INT(store_exec(st, "ROLLBACK", &err), 0);
	CHECK_INT(engine_find_matchers(st, &predict_engine, stores, 1, QUERY4,
	    4, 5, &ms, &err), 0);
	CHECK_INT(ms.n, 0);
	engine_matchers_release(&ms);
	CHECK_INT(engine_create_matcher(st, &predict_engine, "s", "kept",
	    QUERY4, 4, "mock", NOW, &mid, &err), 0);
	free(mid);
	CHECK_INT(engine_find_matchers(st, &predict_engine, stores, 1, QUERY4,
	    4, 5, &ms, &err), 0);
	CHECK_INT(ms.n, 1);
	if (ms.n == 1)
		CHECK_STR(ms.v[0].description, "kept");
	engine_matchers_release(&ms);
	fixture_close(st);
}

CHECK_MAIN(
	TEST(confidence_table),
	TEST(neutral_and_unknown),
	TEST(empty_store),
	TEST(scoring_s1),
	TEST(scoring_s2),
	TEST(scoring_s3),
	TEST(scoring_s4),
	TEST(scoring_s5_s6),
	TEST(threshold_edges),
	TEST(dedup_edges),
	TEST(cascade_delete),
	TEST(dimension_mismatch),
	TEST(ids_and_times),
	TEST(cache_sees_other_writers),
	TEST(cache_survives_rollback)
)
