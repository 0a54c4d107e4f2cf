/*
 * test_predict.c — the prediction engine through the scenario of
 * engines-and-extras §A10.3, with the original's mock embedder: the
 * replies of prediction_update, the list block and prediction_query.
 */
#include "check.h"

#include "engine_fixture.h"

#include "core/engine/predict.h"

#define M	"deciding how to structure error handling"
#define P	"handle error cases before happy paths"

/* What prediction_update does after embedding: record and reply. */
static void
update(struct store *st, const char *matcher, const char *prediction,
    enum engine_signal sig, const char *rationale, struct sbuf *out)
{
	struct engine_write	w = { 0 };
	struct engine_item	it;
	enum engine_outcome	oc;
	struct err		err;
	float			mv[MOCK_DIM], pv[MOCK_DIM];

	mock_embed(matcher, mv);
	mock_embed(prediction, pv);
	w.store = "test-store";
	w.situation = matcher;
	w.situation_vec = mv;
	w.statement = prediction;
	w.statement_vec = pv;
	w.dim = MOCK_DIM;
	w.model = "mock";
	w.rationale = rationale;
	w.signal = sig;
	w.neutral = "create";
	w.now = NOW;
	sbuf_reset(out);
	CHECK_INT(engine_record(st, &predict_engine, &w, &oc, &it, &err), 0);
	engine_render_record(&w, oc, &it, "created", out);
	engine_item_release(&it);
}

static void
query(struct store *st, const char *context, struct sbuf *out)
{
	const char	*stores[] = { "test-store", "global" };
	struct err	 err;
	float		 v[MOCK_DIM];

	mock_embed(context, v);
	sbuf_reset(out);
	CHECK_INT(predict_query(st, stores, 2, v, MOCK_DIM, out, &err), 0);
}

/* The date part of the provenance rows (a SQL default, second precision). */
static void
provenance_day(struct store *st, char day[11])
{
	sqlite3_stmt	*stmt = NULL;
	struct err	 err;

	day[0] = '\0';
	if (store_prepare(st, &stmt, "SELECT substr(created_at, 1, 10) FROM"
	    " prediction_provenance LIMIT 1", &err) == 0 &&
	    sqlite3_step(stmt) == SQLITE_ROW)
		snprintf(day, 11, "%s", sqlite3_column_text(stmt, 0));
	sqlite3_finalize(stmt);
}

static void
scenario(void)
{
	struct store	*st = fixture_open();
	struct sbuf	 sb = SBUF_INIT, want = SBUF_INIT;
	struct err	 err;
	char		 day[11];

	update(st, M, P, ENGINE_NEUTRAL, "r", &sb);
	CHECK_STR(sb.buf, "[created] test-store :: \"" P "\" for \"" M "\"");
	update(st, M, P, ENGINE_CONFIRM, "r2", &sb);
	CHECK_STR(sb.buf, "[confirm] \"" P "\" confidence=0.58 (1/0)");
	update(st, M, P, ENGINE_SOFT, "r3", &sb);
	CHECK_STR(sb.buf, "[soft] \"" P "\" confidence=0.56 (1/0.25)");
	update(st, M, P, ENGINE_DISCONFIRM, "", &sb);
	CHECK_STR(sb.buf, "[disconfirm] \"" P "\" confidence=0.48 (1/1.25)");

	sbuf_reset(&sb);
	CHECK_INT(engine_list(st, &predict_engine, "test-store", &sb, &err),
	    0);
	provenance_day(st, day);
	sbuf_addf(&want, "[0.48 conf, 2 tests] " P "\n"
	    "  rationale: r\n"
	    "  matchers:\n"
	    "    - \"" M "\" (w:1)\n"
	    "  provenance:\n"
	    "    - [%s] disconfirm: \n"
	    "    - [%s] soft: r3\n"
	    "    - [%s] confirm: r2\n"
	    "    - [%s] create: r", day, day, day, day);
	CHECK_STR(sb.buf, want.buf);

	query(st, M, &sb);
	CHECK_STR(sb.buf, "[0.48 conf, 2 tests] When " M ": the user tends to " P);
	query(st, "what is the weather like today", &sb);
	CHECK_STR(sb.buf, "No matching predictions found.");

	/* a second situation for the same prediction links, counts kept */
	update(st, "reviewing a pull request", P, ENGINE_NEUTRAL, "r4", &sb);
	CHECK_STR(sb.buf, "[linked] \"" P "\" for \"reviewing a pull "
	    "request\" confidence=0.48 (1/1.25)");
	sbuf_reset(&sb);
	CHECK_INT(engine_list(st, &predict_engine, "test-store", &sb, &err),
	    0);
	CHECK(strstr(sb.buf, "  matchers:\n    - \"" M "\" (w:1)\n"
	    "    - \"reviewing a pull request\" (w:1)\n") != NULL);
	sbuf_release(&sb);
	sbuf_release(&want);
	fixture_close(st);
}

/* A first signal other than create is applied at once (§A8.3 step 3.3). */
static void
created_with_signal(void)
{
	struct store	*st = fixture_open();
	struct sbuf	 sb = SBUF_INIT;

	update(st, M, P, ENGINE_CONFIRM, "r", &sb);
	CHECK_STR(sb.buf, "[created + confirm] \"" P "\" confidence=0.58 "
	    "(1/0)");
	sbuf_release(&sb);
	fixture_close(st);
}

/* The query lists every item (no cap of five); the nudge caps at five. */
static void
query_is_uncapped(void)
{
	static const char *const prefs[] = { "p1", "p2", "p3", "p4", "p5",
	    "p6", "p7" };
	const char	*stores[] = { "test-store" };
	struct store	*st = fixture_open();
	struct sbuf	 sb = SBUF_INIT;
	struct err	 err;
	float		 v[MOCK_DIM];
	size_t		 i, lines;
	const char	*p;

	for (i = 0; i < 7; i++)
		update(st, M, prefs[i], ENGINE_NEUTRAL, "r", &sb);
	query(st, M, &sb);
	for (lines = 1, p = sb.buf; (p = strchr(p, '\n')) != NULL; p++)
		lines++;
	CHECK_INT(lines, 7);
	mock_embed(M, v);
	sbuf_reset(&sb);
	CHECK_INT(engine_nudge(st, &predict_engine, stores, 1, v, MOCK_DIM,
	    0.6, &sb, &err), 0);
	for (lines = 0, p = sb.buf; (p = strstr(p, "\n- ")) != NULL; p++)
		lines++;
	CHECK_INT(lines, 5);
	sbuf_release(&sb);
	fixture_close(st);
}

CHECK_MAIN(
	TEST(scenario),
	TEST(created_with_signal),
	TEST(query_is_uncapped)
)
