/*
 * test_space.c — embedding spaces (store_space.c): which rows count as
 * another space, re-embedding them batch by batch with a stand-in
 * embedder, a row another writer changed meanwhile, a failing embedder,
 * a connection whose matcher cache sees vectors rewritten by another,
 * and embedding only the rows with no vector at all (what a sync brings).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/engine/predict.h"
#include "core/store/store.h"
#include "tmpdb.h"
#include "util/err.h"

#define NOW	"2025-01-01T00:00:00.000Z"

static void
put_text(struct store *st, const char *store, const char *slug,
    const char *content, const float *v, int dim, const char *model)
{
	struct store_write	 w = {
		.store = store, .slug = slug, .label = slug,
		.content = content, .vec = v, .dim = dim, .model = model,
		.archived = -1, .overwrite = true, .now = NOW,
	};
	enum store_write_result	 res;
	struct err		 err = { "" };

	if (store_remember(st, &w, &res, &err) != 0 || res != STORE_SAVED)
		CHECK_FAIL("store_remember %s: %s", slug, err.msg);
}

static void
put(struct store *st, const char *store, const char *slug, const float *v,
    int dim, const char *model)
{
	put_text(st, store, slug, slug, v, dim, model);
}

/* The stand-in model "new", 3 dimensions: (strlen(text), 1, 0). */
struct fake {
	int		 calls, fail_at;
	struct store	*other;		/* writes m1 during the first call */
};

static int
fake_embed(void *arg, const char *const *texts, size_t n, float *out,
    struct err *err)
{
	static const float	v3[3] = { 0, 0, 1 };
	struct fake		*f = arg;
	size_t			 i;

	if (++f->calls == f->fail_at)
		return err_set(err, "the model broke");
	if (f->other != NULL && f->calls == 1)
		put_text(f->other, "p", "m1", "m1, rewritten", v3, 3,
		    "writer");
	for (i = 0; i < n; i++) {
		out[i * 3] = (float)strlen(texts[i]);
		out[i * 3 + 1] = 1;
		out[i * 3 + 2] = 0;
	}
	return 0;
}

static struct store_reembed
run_of(struct fake *f, const char *store, bool all)
{
	struct store_reembed	r = {
		.store = store, .space = { 3, "new" }, .rows = all ? STORE_ROWS_ALL : STORE_ROWS_OTHER,
		.batch = 2, .embed = fake_embed, .arg = f,
		.now = "2025-06-01T00:00:00.000Z",
	};

	return r;
}

/* p: m1 (2-d "old"), m2 (3-d "new"), m3 (3-d "old"), m4 (no vector);
 * q: m5 (2-d "old"); a 2-d "old" matcher and item in p. */
static struct store *
fill(const char *name)
{
	static const float	v2[2] = { 1, 0 }, v3[3] = { 1, 0, 0 };
	struct store		*st = tmpdb_open(name);
	struct err		 err = { "" };
	char			*id;

	put(st, "p", "m1", v2, 2, "old");
	put(st, "p", "m2", v3, 3, "new");
	put(st, "p", "m3", v3, 3, "old");
	put(st, "p", "m4", NULL, 0, NULL);
	put(st, "q", "m5", v2, 2, "old");
	CHECK_INT(engine_create_matcher(st, &predict_engine, "p", "when x",
	    v2, 2, "old", NOW, &id, &err), 0);
	free(id);
	CHECK_INT(engine_create_item(st, &predict_engine, "p", "do y", "",
	    v2, 2, "old", NOW, &id, &err), 0);
	free(id);
	return st;
}

static void
counts_name_the_rows_of_other_spaces(void)
{
	struct store			*st = fill("count");
	struct store_space		 sp = { 3, "new" };
	struct store_space_count	 c;
	struct err			 err = { "" };

	CHECK_INT(store_count_other_space(st, "p", &sp, &c, &err), 0);
	CHECK_INT(c.memories, 3);	/* dimension, tag, no vector */
	CHECK_INT(c.matchers, 1);
	CHECK_INT(c.items, 1);
	CHECK_INT(store_count_other_space(st, NULL, &sp, &c, &err), 0);
	CHECK_INT(c.memories, 4);
	sp.dim = 2;
	sp.tag = "old";
	CHECK_INT(store_count_other_space(st, "q", &sp, &c, &err), 0);
	CHECK_INT(c.memories + c.matchers + c.items, 0);
	store_close(st);
}

static void
reembed_rewrites_them_and_then_nothing(void)
{
	struct store			*st = fill("run");
	struct store_space_count	 c;
	struct store_entry		 e;
	struct fake			 f = { 0, 0, NULL };
	struct store_reembed		 r = run_of(&f, "p", false);
	struct err			 err = { "" };
	long long			 done;
	bool				 found;

	CHECK_INT(store_reembed(st, &r, &done, &err), 0);
	CHECK_INT(done, 5);
	CHECK_INT(f.calls, 4);		/* 3 memories in 2 batches, 1, 1 */
	CHECK_INT(store_count_other_space(st, NULL, &r.space, &c, &err), 0);
	CHECK_INT(c.memories, 1);	/* q's, out of scope */
	CHECK_INT(c.matchers + c.items, 0);
	CHECK_INT(store_get(st, "p", "m4", &e, &found, &err), 0);
	CHECK_STR(e.model, "new");
	CHECK_STR(e.updated_at, NOW);	/* memories keep their times */
	store_entry_release(&e);
	CHECK_INT(store_reembed(st, &r, &done, &err), 0);
	CHECK_INT(done, 0);
	r.rows = STORE_ROWS_ALL;
	CHECK_INT(store_reembed(st, &r, &done, &err), 0);
	CHECK_INT(done, 6);		/* every row of p */
	store_close(st);
}

static void
a_row_rewritten_meanwhile_keeps_its_writer(void)
{
	struct store		*st = fill("race");
	struct store		*other = tmpdb_open("race");
	struct store_entry	 e;
	struct fake		 f = { 0, 0, other };
	struct store_reembed	 r = run_of(&f, "p", false);
	struct err		 err = { "" };
	long long		 done;
	bool			 found;

	CHECK_INT(store_reembed(st, &r, &done, &err), 0);
	CHECK_INT(store_get(st, "p", "m1", &e, &found, &err), 0);
	CHECK_STR(e.model, "writer");
	store_entry_release(&e);
	store_close(other);
	store_close(st);
}

static void
a_failing_embedder_stops_with_whole_batches_written(void)
{
	struct store			*st = fill("fail");
	struct store_space_count	 c;
	struct fake			 f = { 0, 2, NULL };
	struct store_reembed		 r = run_of(&f, "p", false);
	struct err			 err = { "" };
	long long			 done;

	CHECK_INT(store_reembed(st, &r, &done, &err), -1);
	CHECK_STR(err.msg, "the model broke");
	CHECK_INT(done, 2);
	CHECK_INT(store_count_other_space(st, "p", &r.space, &c, &err), 0);
	CHECK_INT(c.memories, 1);
	CHECK_INT(c.matchers + c.items, 2);
	store_close(st);
}

static void
another_connections_matcher_cache_follows(void)
{
	static const float		 q3[3] = { 1, 0, 0 };
	struct store			*st = fill("cache");
	struct store			*server = tmpdb_open("cache");
	const char			*stores[] = { "p" };
	struct engine_matchers		 m;
	struct fake			 f = { 0, 0, NULL };
	struct store_reembed		 r = run_of(&f, "p", false);
	struct err			 err = { "" };
	long long			 done;

	CHECK_INT(engine_find_matchers(server, &predict_engine, stores, 1, q3,
	    3, 5, &m, &err), 0);
	CHECK_INT(m.n, 0);		/* 2-d matcher, 3-d query */
	engine_matchers_release(&m);
	CHECK_INT(store_reembed(st, &r, &done, &err), 0);
	CHECK_INT(engine_find_matchers(server, &predict_engine, stores, 1, q3,
	    3, 5, &m, &err), 0);
	CHECK_INT(m.n, 1);
	engine_matchers_release(&m);
	store_close(server);
	store_close(st);
}

static void
teardown(void)
{
	tmpdb_cleanup();
}

static void
missing_rows_alone_get_vectors(void)
{
	struct store		*st = fill("missing");
	struct fake		 f = { 0, 0, NULL };
	struct store_reembed	 r = run_of(&f, "p", false);
	struct store_entry	 e;
	struct err		 err = { "" };
	long long		 n, done;
	bool			 found;

	CHECK_INT(store_count_missing(st, "p", &n, &err), 0);
	CHECK_INT(n, 1);		/* m4 alone: m1 and m3 have vectors */
	r.rows = STORE_ROWS_MISSING;
	CHECK_INT(store_reembed(st, &r, &done, &err), 0);
	CHECK_INT(done, 1);
	CHECK_INT(store_get(st, "p", "m4", &e, &found, &err), 0);
	CHECK_STR(e.model, "new");
	store_entry_release(&e);
	CHECK_INT(store_get(st, "p", "m1", &e, &found, &err), 0);
	CHECK_STR(e.model, "old");	/* another space, left to reembed */
	store_entry_release(&e);
	CHECK_INT(store_count_missing(st, "p", &n, &err), 0);
	CHECK_INT(n, 0);
	store_close(st);
}

CHECK_MAIN(
	TEST(counts_name_the_rows_of_other_spaces),
	TEST(reembed_rewrites_them_and_then_nothing),
	TEST(a_row_rewritten_meanwhile_keeps_its_writer),
	TEST(a_failing_embedder_stops_with_whole_batches_written),
	TEST(missing_rows_alone_get_vectors),
	TEST(another_connections_matcher_cache_follows),
	TEST(teardown)
)
