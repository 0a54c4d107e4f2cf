/*
 * test_store.c — the memory store: remember/get/forget/list, exact search
 * and its cache, recall stamping, verdicts, vector export, hygiene counts.
 * Each test opens a fresh database in a private temporary directory.
 */
#include "check.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/store/store.h"
#include "util/err.h"
#include "util/xmalloc.h"

static char	dir_tmpl[] = "/tmp/thatch-test-store.XXXXXX";
static char	*dir;

static struct store *
open_fresh(const char *name)
{
	struct store	*st = NULL;
	struct err	 err = { "" };
	char		*path = xasprintf("%s/%s/thatch.db", dir, name);

	if (store_open(path, &st, &err) != 0)
		CHECK_FAIL("store_open: %s", err.msg);
	free(path);
	return st;
}

static enum store_write_result
put(struct store *st, const char *store, const char *slug, const char *label,
    const float *vec, int dim, bool overwrite, int archived)
{
	struct err		 err = { "" };
	enum store_write_result	 res = STORE_EXISTS;
	char			*content = xasprintf("# %s\n\nbody of %s",
				    label, label);
	struct store_write	 w = {
		.store = store, .slug = slug, .label = label,
		.content = content, .vec = vec, .dim = dim,
		.model = "Xenova/bge-small-en-v1.5", .archived = archived,
		.overwrite = overwrite, .now = "2025-03-07T14:05:09.042Z",
	};

	if (store_remember(st, &w, &res, &err) != 0)
		CHECK_FAIL("store_remember: %s", err.msg);
	free(content);
	return res;
}

static void
remember_then_get_round_trips(void)
{
	struct store		*st = open_fresh("get");
	struct store_entry	 e;
	struct err		 err = { "" };
	float			 v[3] = { 1, 0.5f, -1 };
	bool			 found, has;

	CHECK_INT(put(st, "acme/api", "hello-world", "Hello World", v, 3,
	    false, -1), STORE_SAVED);
	CHECK_INT(store_get(st, "acme/api", "hello-world", &e, &found, &err),
	    0);
	CHECK(found);
	CHECK_STR(e.label, "Hello World");
	CHECK_STR(e.content, "# Hello World\n\nbody of Hello World");
	CHECK_STR(e.created_at, "2025-03-07T14:05:09.042Z");
	CHECK_STR(e.updated_at, "2025-03-07T14:05:09.042Z");
	CHECK_STR(e.branch, NULL);
	CHECK_INT(e.confidence, 0);
	CHECK_INT(e.recall_count, 0);
	CHECK(!e.archived);
	store_entry_release(&e);
	CHECK_INT(store_has_store(st, "acme/api", &has, &err), 0);
	CHECK(has);
	CHECK_INT(store_get(st, "acme/api", "nope", &e, &found, &err), 0);
	CHECK(!found);
	store_close(st);
}

static void
plain_insert_refuses_an_existing_slug(void)
{
	struct store		*st = open_fresh("exists");
	struct store_entry	 e;
	struct err		 err = { "" };
	bool			 found;

	CHECK_INT(put(st, "s", "a", "A", NULL, 0, false, -1), STORE_SAVED);
	CHECK_INT(put(st, "s", "a", "a!", NULL, 0, false, -1), STORE_EXISTS);
	store_get(st, "s", "a", &e, &found, &err);
	CHECK_STR(e.label, "A");
	store_entry_release(&e);
	store_close(st);
}

static int
count_verdicts(const char *a, const char *b, const char *status, void *arg)
{
	(void)a;
	(void)b;
	(void)status;
	(*(int *)arg)++;
	return 0;
}

static int
verdicts_in(struct store *st, const char *store)
{
	struct err	err = { "" };
	int		n = 0;

	if (store_verdicts(st, store, count_verdicts, &n, &err) != 0)
		CHECK_FAIL("store_verdicts: %s", err.msg);
	return n;
}

static void
overwrite_keeps_history_and_clears_verdicts(void)
{
	struct store		*st = open_fresh("overwrite");
	struct store_entry	 e;
	struct err		 err = { "" };
	struct store_write	 w = {
		.store = "s", .slug = "a", .label = "A", .content = "# A\n\nx",
		.branch = "feat", .confidence = 7, .archived = -1,
		.now = "2025-01-01T00:00:00.000Z",
	};
	enum store_write_result	 res;
	bool			 found;

	store_remember(st, &w, &res, &err);
	CHECK_INT(store_verdict_set(st, "s", "b", "a", "distinct",
	    "2025-01-02T00:00:00.000Z", &err), 0);
	CHECK_INT(store_verdict_set(st, "s", "b", "c", "distinct",
	    "2025-01-02T00:00:00.000Z", &err), 0);
	CHECK_INT(verdicts_in(st, "s"), 2);
	w.overwrite = true;
	w.label = "a";
	w.branch = NULL;
	w.confidence = 0;
	w.content = "# a\n\ny";
	w.now = "2025-02-01T00:00:00.000Z";
	CHECK_INT(store_remember(st, &w, &res, &err), 0);
	CHECK_INT(res, STORE_SAVED);
	store_get(st, "s", "a", &e, &found, &err);
	CHECK_STR(e.label, "a");
	CHECK_STR(e.content, "# a\n\ny");
	CHECK_STR(e.branch, "feat");		/* COALESCE keeps it */
	CHECK_INT(e.confidence, 7);
	CHECK_STR(e.created_at, "2025-01-01T00:00:00.000Z");
	CHECK_STR(e.updated_at, "2025-02-01T00:00:00.000Z");
	store_entry_release(&e);
	CHECK_INT(verdicts_in(st, "s"), 1);	/* b-c survives */
	store_close(st);
}

static void
overwrite_of_archived_needs_the_flag(void)
{
	struct store		*st = open_fresh("archived");
	struct store_entry	 e;
	struct err		 err = { "" };
	bool			 found;

	CHECK_INT(put(st, "s", "a", "A", NULL, 0, false, 1), STORE_SAVED);
	store_verdict_set(st, "s", "a", "b", "distinct", "t", &err);
	CHECK_INT(put(st, "s", "a", "A2", NULL, 0, true, -1), STORE_ARCHIVED);
	CHECK_INT(verdicts_in(st, "s"), 1);	/* refusal clears nothing */
	store_get(st, "s", "a", &e, &found, &err);
	CHECK_STR(e.label, "A");
	CHECK(e.archived);
	store_entry_release(&e);
	CHECK_INT(put(st, "s", "a", "A3", NULL, 0, true, 0), STORE_SAVED);
	store_get(st, "s", "a", &e, &found, &err);
	CHECK(!e.archived);
	store_entry_release(&e);
	/* plain insert on an archived row: exists wins */
	CHECK_INT(put(st, "s", "a", "A", NULL, 0, false, -1), STORE_EXISTS);
	store_close(st);
}

static void
forget_deletes_entry_and_verdicts_keeps_store(void)
{
	struct store	*st = open_fresh("forget");
	struct err	 err = { "" };
	bool		 found, has;

	put(st, "s", "a", "A", NULL, 0, false, -1);
	store_verdict_set(st, "s", "a", "b", "distinct", "t", &err);
	store_verdict_set(st, "t", "a", "b", "distinct", "t", &err);
	CHECK_INT(store_forget(st, "s", "a", &found, &err), 0);
	CHECK(found);
	CHECK_INT(verdicts_in(st, "s"), 0);
	CHECK_INT(verdicts_in(st, "t"), 1);
	CHECK_INT(store_forget(st, "s", "a", &found, &err), 0);
	CHECK(!found);
	store_has_store(st, "s", &has, &err);
	CHECK(has);
	store_close(st);
}

/* Append s and a comma to the 128-byte buffer arg. */
static void
append(char *buf, const char *s)
{
	size_t	len = strlen(buf);

	snprintf(buf + len, 128 - len, "%s,", s);
}

static int
collect_labels(const struct store_entry *e, void *arg)
{
	append(arg, e->label);
	return 0;
}

static void
list_orders_by_label_bytes(void)
{
	struct store	*st = open_fresh("list");
	struct err	 err = { "" };
	char		 buf[128] = "";

	put(st, "s", "b", "b", NULL, 0, false, -1);
	put(st, "s", "zed", "Zed", NULL, 0, false, 1);
	put(st, "s", "a", "a", NULL, 0, false, -1);
	put(st, "other", "x", "x", NULL, 0, false, -1);
	CHECK_INT(store_list(st, "s", collect_labels, buf, &err), 0);
	CHECK_STR(buf, "Zed,a,b,");
	store_close(st);
}

static struct store_hits
search(struct store *st, const char *const *stores, size_t n,
    const float *q, int dim, const char *branch, int limit, bool archived)
{
	struct store_hits	hits;
	struct err		err = { "" };
	struct store_query	sq = {
		.stores = stores, .nstores = n, .vec = q, .dim = dim,
		.branch = branch, .limit = limit, .include_archived = archived,
		.min_score = -2,
	};

	if (store_search(st, &sq, &hits, &err) != 0)
		CHECK_FAIL("store_search: %s", err.msg);
	return hits;
}

static void
search_ranks_by_exact_cosine(void)
{
	struct store		*st = open_fresh("search");
	const char		*stores[] = { "p", "global", "p" };
	float			 a[2] = { 1, 0 }, b[2] = { 1, 1 };
	float			 c[2] = { -1, 0 };
	float			 d[3] = { 1, 0, 0 }, z[2] = { 0, 0 };
	float			 q[2] = { 2, 0 };
	struct store_hits	 h;

	put(st, "p", "a", "a", a, 2, false, -1);
	put(st, "global", "b", "b", b, 2, false, -1);
	put(st, "p", "c", "c", c, 2, false, -1);
	put(st, "p", "d", "d", d, 3, false, -1);	/* other dimension */
	put(st, "p", "z", "z", z, 2, false, -1);	/* zero vector */
	put(st, "p", "n", "n", NULL, 0, false, -1);	/* no embedding */
	h = search(st, stores, 3, q, 2, NULL, 10, false);
	CHECK_INT(h.n, 4);
	CHECK_STR(h.v[0].e.slug, "a");
	CHECK_NEAR(h.v[0].score, 1, 1e-12);
	CHECK_STR(h.v[1].e.slug, "b");
	CHECK_NEAR(h.v[1].score, 0.70710678118654746, 1e-15);
	CHECK_STR(h.v[1].e.store, "global");
	CHECK_STR(h.v[2].e.slug, "z");
	CHECK_NEAR(h.v[2].score, 0, 0);
	CHECK_STR(h.v[3].e.slug, "c");
	CHECK_NEAR(h.v[3].score, -1, 1e-12);
	store_hits_release(&h);
	h = search(st, stores, 1, q, 2, NULL, 2, false);
	CHECK_INT(h.n, 2);
	CHECK_STR(h.v[1].e.slug, "z");
	store_hits_release(&h);
	store_close(st);
}

static void
search_filters_branch_and_archived(void)
{
	struct store		*st = open_fresh("branch");
	const char		*stores[] = { "p" };
	float			 v[2] = { 1, 0 };
	struct store_write	 w = {
		.store = "p", .content = "#", .vec = v, .dim = 2,
		.archived = -1, .now = "2025-01-01T00:00:00.000Z",
	};
	enum store_write_result	 res;
	struct err		 err = { "" };
	struct store_hits	 h;
	static const struct {
		const char	*slug, *branch;
		int		 archived;
	} rows[] = {
		{ "all", NULL, 0 }, { "feat", "feat", 0 },
		{ "main", "main", 0 }, { "empty", "", 0 }, { "old", NULL, 1 },
	};
	size_t			 i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		w.slug = w.label = rows[i].slug;
		w.branch = rows[i].branch;
		w.archived = rows[i].archived;
		store_remember(st, &w, &res, &err);
	}
	h = search(st, stores, 1, v, 2, "feat", 10, false);
	CHECK_INT(h.n, 2);	/* equal scores: table order */
	CHECK_STR(h.v[0].e.slug, "all");
	CHECK_STR(h.v[1].e.slug, "feat");
	store_hits_release(&h);
	h = search(st, stores, 1, v, 2, "", 10, false);
	CHECK_INT(h.n, 4);
	store_hits_release(&h);
	h = search(st, stores, 1, v, 2, NULL, 10, true);
	CHECK_INT(h.n, 5);
	CHECK_STR(h.v[4].e.slug, "old");
	CHECK(h.v[4].e.archived);
	store_hits_release(&h);
	store_close(st);
}

static void
search_sees_writes_of_other_connections(void)
{
	struct store		*st = open_fresh("cache"), *other;
	struct err		 err = { "" };
	const char		*stores[] = { "p" };
	float			 v[2] = { 1, 0 }, w2[2] = { 0, 1 };
	struct store_hits	 h;
	bool			 found;

	put(st, "p", "a", "a", v, 2, false, -1);
	h = search(st, stores, 1, v, 2, NULL, 10, false);
	CHECK_INT(h.n, 1);
	CHECK_INT(store_stamp_recall(st, &h, "2025-05-05T00:00:00.000Z",
	    &err), 0);
	store_hits_release(&h);
	CHECK_INT(store_open(store_path(st), &other, &err), 0);
	put(other, "p", "b", "b", w2, 2, false, -1);
	h = search(st, stores, 1, w2, 2, NULL, 10, false);
	CHECK_INT(h.n, 2);
	CHECK_STR(h.v[0].e.slug, "b");
	CHECK_INT(h.v[1].e.recall_count, 1);	/* pre-update values */
	CHECK_STR(h.v[1].e.last_recalled_at, "2025-05-05T00:00:00.000Z");
	store_hits_release(&h);
	store_forget(other, "p", "b", &found, &err);
	store_close(other);
	h = search(st, stores, 1, w2, 2, NULL, 10, false);
	CHECK_INT(h.n, 1);
	store_hits_release(&h);
	store_forget(st, "p", "a", &found, &err);	/* our own write */
	h = search(st, stores, 1, w2, 2, NULL, 10, false);
	CHECK_INT(h.n, 0);
	store_hits_release(&h);
	store_close(st);
}

static void
exact_on_random_rows(const char *name, int N, int D)
{
	struct store		*st = open_fresh(name);
	const char		*stores[] = { "p" };
	float			*m = xcalloc((size_t)N * D, sizeof(float));
	float			*q = xcalloc((size_t)D, sizeof(float));
	double			 best = -2, s, dot, nq, nr;
	struct store_hits	 h;
	char			 slug[16];
	int			 i, k, besti = 0;

	srand(7);
	for (k = 0; k < D; k++)
		q[k] = (float)rand() / (float)RAND_MAX - 0.5f;
	store_exec(st, "BEGIN", NULL);
	for (i = 0; i < N; i++) {
		dot = nq = nr = 0;
		for (k = 0; k < D; k++) {
			m[i * D + k] = (float)rand() / (float)RAND_MAX - 0.5f;
			dot += (double)q[k] * m[i * D + k];
			nq += (double)q[k] * q[k];
			nr += (double)m[i * D + k] * m[i * D + k];
		}
		s = dot / (sqrt(nq) * sqrt(nr));
		if (s > best) {
			best = s;
			besti = i;
		}
		snprintf(slug, sizeof(slug), "r%d", i);
		put(st, "p", slug, slug, m + i * D, D, false, -1);
	}
	store_exec(st, "COMMIT", NULL);
	h = search(st, stores, 1, q, D, NULL, 5, false);
	CHECK_INT(h.n, 5);
	snprintf(slug, sizeof(slug), "r%d", besti);
	CHECK_STR(h.v[0].e.slug, slug);
	CHECK(h.v[0].score == best);
	for (i = 1; i < 5; i++)
		CHECK(h.v[i].score <= h.v[i - 1].score);
	store_hits_release(&h);
	free(m);
	free(q);
	store_close(st);
}

static void
search_is_exact_on_many_random_rows(void)
{
	exact_on_random_rows("random", 600, 37);
}

/* From 32,768 rows two threads scan halves of the int8 copy. */
static void
search_is_exact_when_two_threads_scan(void)
{
	exact_on_random_rows("halves", 40000, 8);
}

/* Slugs of h in order, comma-terminated, into buf. */
static const char *
hit_slugs(const struct store_hits *h, char *buf, size_t size)
{
	size_t	i, len = 0;

	buf[0] = '\0';
	for (i = 0; i < h->n && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s,",
		    h->v[i].e.slug);
	return buf;
}

/* The slugs a search returns, as hit_slugs writes them. */
static const char *
search_slugs(struct store *st, const char *store, const float *q,
    const char *branch, bool archived, char *buf, size_t size)
{
	const char		*stores[] = { store };
	struct store_hits	 h = search(st, stores, 1, q, 2, branch, 10,
				    archived);

	hit_slugs(&h, buf, size);
	store_hits_release(&h);
	return buf;
}

static void
put_branch(struct store *st, const char *slug, const float *v,
    const char *branch, int archived, bool overwrite)
{
	struct store_write	 w = {
		.store = "p", .slug = slug, .label = slug, .content = "#",
		.vec = v, .dim = v == NULL ? 0 : 2, .branch = branch,
		.archived = archived, .overwrite = overwrite,
		.now = "2025-01-01T00:00:00.000Z",
	};
	enum store_write_result	 res;
	struct err		 err = { "" };

	if (store_remember(st, &w, &res, &err) != 0 || res != STORE_SAVED)
		CHECK_FAIL("store_remember %s: %s", slug, err.msg);
}

static void
cache_follows_own_writes(void)
{
	struct store	*st = open_fresh("own");
	float		 x[2] = { 1, 0 }, y[2] = { 0, 1 }, xy[2] = { 1, 1 };
	float		 mx[2] = { -1, 0 };
	char		 buf[64];
	bool		 found;
	struct err	 err = { "" };

	put_branch(st, "a", x, NULL, -1, false);
	put_branch(st, "b", y, NULL, -1, false);
	CHECK_STR(search_slugs(st, "p", x, NULL, false, buf, 64), "a,b,");
	put_branch(st, "c", xy, NULL, -1, false);		/* insert */
	CHECK_STR(search_slugs(st, "p", x, NULL, false, buf, 64), "a,c,b,");
	put_branch(st, "a", mx, NULL, -1, true);		/* overwrite */
	CHECK_STR(search_slugs(st, "p", x, NULL, false, buf, 64), "c,b,a,");
	put_branch(st, "c", xy, NULL, 1, true);			/* archive */
	CHECK_STR(search_slugs(st, "p", x, NULL, false, buf, 64), "b,a,");
	CHECK_STR(search_slugs(st, "p", x, NULL, true, buf, 64), "c,b,a,");
	put_branch(st, "b", y, "feat", -1, true);		/* branch */
	CHECK_STR(search_slugs(st, "p", x, "main", false, buf, 64), "a,");
	CHECK_STR(search_slugs(st, "p", x, "feat", false, buf, 64), "b,a,");
	put_branch(st, "b", y, NULL, -1, true);	/* COALESCE keeps it */
	CHECK_STR(search_slugs(st, "p", x, "main", false, buf, 64), "a,");
	put_branch(st, "a", NULL, NULL, -1, true);	/* loses its vector */
	CHECK_STR(search_slugs(st, "p", x, NULL, false, buf, 64), "b,");
	CHECK_INT(store_forget(st, "p", "c", &found, &err), 0);	/* forget */
	CHECK(found);
	CHECK_STR(search_slugs(st, "p", x, NULL, true, buf, 64), "b,");
	store_close(st);
}

static void
cache_survives_rolled_back_writes(void)
{
	struct store		*st = open_fresh("rollback");
	const char		*stores[] = { "p" };
	float			 x[2] = { 1, 0 }, y[2] = { 0, 1 };
	float			 xb[2] = { 1, 0.2f };
	struct store_write	 w = {
		.store = "p", .slug = "a", .label = "a", .content = "#",
		.vec = y, .dim = 2, .archived = -1, .overwrite = true,
		.now = "2025-01-01T00:00:00.000Z",
	};
	enum store_write_result	 res;
	struct store_hits	 h;
	struct err		 err = { "" };
	char			 buf[64];

	put_branch(st, "a", x, NULL, -1, false);
	CHECK_STR(search_slugs(st, "p", x, NULL, false, buf, 64), "a,");
	/* the caller's transaction: seen inside, gone after ROLLBACK */
	CHECK_INT(store_exec(st, "BEGIN", &err), 0);
	put_branch(st, "b", x, NULL, -1, false);
	CHECK_STR(search_slugs(st, "p", x, NULL, false, buf, 64), "a,b,");
	CHECK_INT(store_exec(st, "ROLLBACK", &err), 0);
	CHECK_STR(search_slugs(st, "p", x, NULL, false, buf, 64), "a,");
	/* a vector the cache read inside a transaction that rolled back:
	 * a was (-1, 0) in there, below b's band, and is (1, 0) again */
	put_branch(st, "b", xb, NULL, -1, false);
	CHECK_INT(store_exec(st, "BEGIN", &err), 0);
	CHECK_INT(store_exec(st, "UPDATE entries SET embedding = "
	    "X'000080BF00000000' WHERE slug = 'a'", &err), 0);
	h = search(st, stores, 1, x, 2, NULL, 1, false);
	CHECK_STR(hit_slugs(&h, buf, 64), "b,");
	store_hits_release(&h);
	CHECK_INT(store_exec(st, "ROLLBACK", &err), 0);
	h = search(st, stores, 1, x, 2, NULL, 1, false);
	CHECK_STR(hit_slugs(&h, buf, 64), "a,");
	store_hits_release(&h);
	/* our own overwrite failing after its upsert: a keeps (1, 0) */
	CHECK_INT(store_exec(st, "ALTER TABLE dedup_pairs RENAME TO gone",
	    &err), 0);
	CHECK_INT(store_remember(st, &w, &res, &err), -1);
	CHECK_INT(store_exec(st, "ALTER TABLE gone RENAME TO dedup_pairs",
	    &err), 0);
	h = search(st, stores, 1, x, 2, NULL, 1, false);
	CHECK_STR(hit_slugs(&h, buf, 64), "a,");
	CHECK(h.n == 1 && h.v[0].score == 1);
	store_hits_release(&h);
	/* a write of ours that bypasses store_remember is seen too */
	CHECK_INT(store_exec(st, "UPDATE entries SET archived = 1", &err), 0);
	CHECK_STR(search_slugs(st, "p", x, NULL, false, buf, 64), "");
	store_close(st);
}

static void
search_sees_foreign_overwrite_archive_and_branch(void)
{
	struct store	*st = open_fresh("foreign"), *other;
	struct err	 err = { "" };
	float		 x[2] = { 1, 0 }, y[2] = { 0, 1 }, mx[2] = { -1, 0 };
	char		 buf[64];

	put_branch(st, "a", x, NULL, -1, false);
	put_branch(st, "b", y, NULL, -1, false);
	CHECK_STR(search_slugs(st, "p", x, NULL, false, buf, 64), "a,b,");
	CHECK_INT(store_open(store_path(st), &other, &err), 0);
	put_branch(other, "a", mx, NULL, -1, true);
	CHECK_STR(search_slugs(st, "p", x, NULL, false, buf, 64), "b,a,");
	put_branch(other, "b", y, NULL, 1, true);
	CHECK_STR(search_slugs(st, "p", x, NULL, false, buf, 64), "a,");
	put_branch(other, "b", y, "feat", 0, true);
	CHECK_STR(search_slugs(st, "p", x, "main", false, buf, 64), "a,");
	CHECK_STR(search_slugs(st, "p", x, "feat", false, buf, 64), "b,a,");
	/* a foreign write of the same vector under the same rowid */
	CHECK_INT(store_exec(other, "UPDATE entries SET embedding = "
	    "embedding WHERE slug = 'a'", &err), 0);
	CHECK_STR(search_slugs(st, "p", x, NULL, false, buf, 64), "b,a,");
	store_close(other);
	store_close(st);
}

/*
 * The brute force the cache must match: NR slots r<i> in store p, each
 * live or not, with its vector and its place in table (rowid) order.
 */
enum { NR = 300, ND = 24 };
struct truth {
	float	v[NR][ND];
	int	seq[NR];
	bool	live[NR];
	int	next_seq;
};

static void
truth_vec(struct truth *t, int i, int copy_of)
{
	int	k;

	for (k = 0; k < ND; k++)
		t->v[i][k] = copy_of >= 0 ? t->v[copy_of][k] :
		    (float)rand() / (float)RAND_MAX - 0.5f;
}

/* Write slot i through st (as the next row when it is new). */
static void
truth_put(struct truth *t, struct store *st, int i)
{
	char	slug[16];

	snprintf(slug, sizeof(slug), "r%d", i);
	put(st, "p", slug, slug, t->v[i], ND, t->live[i], -1);
	if (!t->live[i])
		t->seq[i] = t->next_seq++;
	t->live[i] = true;
}

static void
truth_forget(struct truth *t, struct store *st, int i)
{
	struct err	err = { "" };
	char		slug[16];
	bool		found;

	snprintf(slug, sizeof(slug), "r%d", i);
	if (store_forget(st, "p", slug, &found, &err) != 0 || !found)
		CHECK_FAIL("store_forget %s: %s", slug, err.msg);
	t->live[i] = false;
}

struct scored {
	int	i, seq;
	double	s;
};

static int
scored_cmp(const void *pa, const void *pb)
{
	const struct scored	*a = pa, *b = pb;

	if (a->s != b->s)
		return a->s > b->s ? -1 : 1;
	return a->seq - b->seq;
}

/* Search st and compare hits and double scores with the brute force. */
static void
truth_check(const struct truth *t, struct store *st, const float *q,
    int limit)
{
	const char		*stores[] = { "p" };
	struct scored		 want[NR];
	struct store_hits	 h = search(st, stores, 1, q, ND, NULL, limit,
				    false);
	double			 dot, nq, nr;
	char			 slug[16];
	int			 i, k, n = 0;

	for (i = 0; i < NR; i++) {
		if (!t->live[i])
			continue;
		dot = nq = nr = 0;
		for (k = 0; k < ND; k++) {
			dot += (double)q[k] * t->v[i][k];
			nq += (double)q[k] * q[k];
			nr += (double)t->v[i][k] * t->v[i][k];
		}
		want[n++] = (struct scored){ i, t->seq[i],
		    dot / (sqrt(nq) * sqrt(nr)) };
	}
	qsort(want, (size_t)n, sizeof(*want), scored_cmp);
	n = n < limit ? n : limit;
	CHECK_INT(h.n, n);
	for (i = 0; i < n && (size_t)i < h.n; i++) {
		snprintf(slug, sizeof(slug), "r%d", want[i].i);
		CHECK_STR(h.v[i].e.slug, slug);
		CHECK(h.v[i].score == want[i].s);
	}
	store_hits_release(&h);
}

static void
truth_check_some(const struct truth *t, struct store *st)
{
	float	q[ND];
	int	r, k;

	for (r = 0; r < 8; r++) {
		for (k = 0; k < ND; k++)
			q[k] = (float)rand() / (float)RAND_MAX - 0.5f;
		truth_check(t, st, q, 1 + r % 4 * 3);
	}
	truth_check(t, st, t->v[7], 5);		/* ties: r7 has copies */
}

static void
search_stays_exact_through_writes(void)
{
	struct store		*st = open_fresh("truth"), *other;
	struct truth		*t = xcalloc(1, sizeof(*t));
	struct store_hits	 h;
	struct err		 err = { "" };
	const char		*stores[] = { "p" };
	int			 i;

	srand(11);
	store_exec(st, "BEGIN", NULL);
	for (i = 0; i < NR - 40; i++) {
		truth_vec(t, i, i % 50 == 49 ? 7 : -1);	/* some duplicates */
		truth_put(t, st, i);
	}
	store_exec(st, "COMMIT", NULL);
	truth_check_some(t, st);
	for (i = 0; i < 30; i++) {			/* our own writes */
		truth_vec(t, 3 * i + 1, -1);
		truth_put(t, st, 3 * i + 1);
		truth_forget(t, st, 3 * i + 2);
		truth_vec(t, NR - 40 + i, i % 10 == 0 ? 7 : -1);
		truth_put(t, st, NR - 40 + i);
	}
	truth_check_some(t, st);
	for (i = 0; i < 30; i += 7)	/* rewritten rows come out on top */
		truth_check(t, st, t->v[3 * i + 1], 1);
	CHECK_INT(store_open(store_path(st), &other, &err), 0);
	for (i = 0; i < 30; i++) {			/* another connection */
		truth_vec(t, 3 * i, -1);
		truth_put(t, other, 3 * i);
		if (t->live[3 * i + 100])
			truth_forget(t, other, 3 * i + 100);
	}
	for (i = NR - 10; i < NR; i++) {
		truth_vec(t, i, -1);
		truth_put(t, other, i);
	}
	truth_check_some(t, st);
	for (i = 0; i < 30; i += 7)
		truth_check(t, st, t->v[3 * i], 1);
	h = search(other, stores, 1, t->v[0], ND, NULL, 10, false);
	CHECK_INT(store_stamp_recall(other, &h, "2025-05-05T00:00:00.000Z",
	    &err), 0);				/* a foreign recall stamp */
	store_hits_release(&h);
	truth_check_some(t, st);
	store_close(other);
	free(t);
	store_close(st);
}

static void
find_similar_ranks_by_rounded_score(void)
{
	struct store		*st = open_fresh("similar");
	const char		*stores[] = { "p" };
	float			 a[2] = { 1, 0.0001f }, b[2] = { 1, 0.0002f };
	float			 c[2] = { 1, 0 }, q[2] = { 1, 0 };
	struct store_query	 sq = {
		.stores = stores, .nstores = 1, .vec = q, .dim = 2, .limit = 3,
		.exclude_slug = "c", .min_score = 0.85, .rank_round3 = true,
	};
	struct store_hits	 h;
	struct err		 err = { "" };

	put(st, "p", "b", "b", b, 2, false, -1);	/* lower, first */
	put(st, "p", "a", "a", a, 2, false, -1);
	put(st, "p", "c", "c", c, 2, false, -1);
	CHECK_INT(store_search(st, &sq, &h, &err), 0);
	CHECK_INT(h.n, 2);
	CHECK_STR(h.v[0].e.slug, "b");	/* round3 ties keep table order */
	CHECK(h.v[0].score < h.v[1].score);
	store_hits_release(&h);
	store_close(st);
}

static void
vectors_export_in_slug_order(void)
{
	struct store		*st = open_fresh("vectors");
	struct store_matrix	 mx;
	struct err		 err = { "" };
	float			 v2[2] = { 1, 2 }, v3[3] = { 1, 2, 3 };

	put(st, "p", "b", "B", v2, 2, false, -1);
	put(st, "p", "a", "A", v2, 2, false, -1);
	put(st, "p", "c", "C", v3, 3, false, -1);
	put(st, "p", "d", "D", v2, 2, false, 1);
	CHECK_INT(store_vectors(st, "p", 0, false, &mx, &err), 0);
	CHECK_INT(mx.dim, 2);
	CHECK_INT(mx.n, 2);
	CHECK_STR(mx.slugs[0], "a");
	CHECK_STR(mx.labels[1], "B");
	CHECK(mx.v[3] == 2.0f);
	store_matrix_release(&mx);
	CHECK_INT(store_vectors(st, "p", 3, false, &mx, &err), 0);
	CHECK_INT(mx.n, 1);
	store_matrix_release(&mx);
	CHECK_INT(store_vectors(st, "p", 0, true, &mx, &err), 0);
	CHECK_INT(mx.n, 3);
	store_matrix_release(&mx);
	CHECK_INT(store_vectors(st, "none", 0, false, &mx, &err), 0);
	CHECK_INT(mx.n, 0);
	store_matrix_release(&mx);
	store_close(st);
}

static int
first_verdict(const char *a, const char *b, const char *status, void *arg)
{
	snprintf((char *)arg, 64, "%s|%s|%s", a, b, status);
	return 1;
}

static void
verdicts_are_canonical(void)
{
	struct store	*st = open_fresh("verdicts");
	struct err	 err = { "" };
	char		 got[64] = "";

	/* U+FF01 sorts after U+1F600 in UTF-16, before it in UTF-8 */
	CHECK_INT(store_verdict_set(st, "s", "\xef\xbc\x81", "\xf0\x9f\x98\x80",
	    "distinct", "t", &err), 0);
	store_verdicts(st, "s", first_verdict, got, &err);
	CHECK_STR(got, "\xf0\x9f\x98\x80|\xef\xbc\x81|distinct");
	store_exec(st, "DELETE FROM dedup_pairs; INSERT INTO dedup_pairs "
	    "VALUES ('s', 'z', 'a', 'dup', 't')", &err);
	store_verdicts(st, "s", first_verdict, got, &err);
	CHECK_STR(got, "a|z|dup");
	store_close(st);
}

static int
collect_branches(const char *b, void *arg)
{
	append(arg, b);
	return 0;
}

static void
hygiene_counts(void)
{
	struct store		*st = open_fresh("hygiene");
	struct err		 err = { "" };
	struct store_write	 w = {
		.store = "p", .content = "#", .archived = -1,
	};
	enum store_write_result	 res;
	const char		*gone[] = { "old", "" };
	char			 buf[128] = "";
	int			 n;

	w.slug = w.label = "a"; w.now = "2024-01-01T00:00:00.000Z";
	w.branch = "old";
	store_remember(st, &w, &res, &err);
	w.slug = w.label = "b"; w.now = "2025-06-01T00:00:00.000Z";
	w.branch = "main";
	store_remember(st, &w, &res, &err);
	w.slug = w.label = "c"; w.now = "2024-01-01T00:00:00.000Z";
	w.branch = "old"; w.archived = 1;
	store_remember(st, &w, &res, &err);
	CHECK_INT(store_count(st, "p", &n, &err), 0);
	CHECK_INT(n, 3);
	CHECK_INT(store_count_stale(st, "p", "2025-01-01T00:00:00.000Z", &n,
	    &err), 0);
	CHECK_INT(n, 1);
	CHECK_INT(store_branches(st, "p", collect_branches, buf, &err), 0);
	CHECK_STR(buf, "main,old,");
	CHECK_INT(store_count_in_branches(st, "p", gone, 2, &n, &err), 0);
	CHECK_INT(n, 1);
	CHECK_INT(store_count_in_branches(st, "p", gone, 0, &n, &err), 0);
	CHECK_INT(n, 0);
	store_close(st);
}

/* hygiene --list reads the memories the counts count (hygiene.c inv. 5) */
static void
hygiene_lists_match_the_counts(void)
{
	struct store		*st = open_fresh("hygiene-list");
	struct err		 err = { "" };
	struct store_write	 w = {
		.store = "p", .content = "#", .archived = -1,
	};
	enum store_write_result	 res;
	char			 buf[128] = "";

	w.slug = w.label = "new"; w.now = "2025-06-01T00:00:00.000Z";
	store_remember(st, &w, &res, &err);
	w.slug = w.label = "older"; w.now = "2024-02-01T00:00:00.000Z";
	w.branch = "old";
	store_remember(st, &w, &res, &err);
	w.slug = w.label = "oldest"; w.now = "2024-01-01T00:00:00.000Z";
	store_remember(st, &w, &res, &err);
	w.slug = w.label = "hidden"; w.archived = 1;
	store_remember(st, &w, &res, &err);
	CHECK_INT(store_list_stale(st, "p", "2025-01-01T00:00:00.000Z",
	    collect_labels, buf, &err), 0);
	CHECK_STR(buf, "oldest,older,");	/* oldest touch first */
	buf[0] = '\0';
	CHECK_INT(store_list_branch(st, "p", "old", collect_labels, buf, &err),
	    0);
	CHECK_STR(buf, "older,oldest,");	/* by label, archived not */
	store_close(st);
}

static int
count_entries(const struct store_entry *e, void *arg)
{
	(void)e;
	(*(int *)arg)++;
	return 0;
}

static void
move_keeps_every_field(void)
{
	struct store		*st = open_fresh("move");
	struct store_entry	 before, after;
	struct err		 err = { "" };
	enum store_move_result	 res;
	float			 x[2] = { 1, 0 };
	char			 buf[64];
	bool			 found;
	int			 n = 0;

	put_branch(st, "a", x, "feat", 1, false);
	put_branch(st, "b", x, NULL, -1, false);
	store_verdict_set(st, "p", "a", "b", "unrelated", "t", &err);
	CHECK_STR(search_slugs(st, "p", x, NULL, true, buf, 64), "a,b,");
	store_get(st, "p", "a", &before, &found, &err);
	CHECK_INT(store_move(st, "p", "a", "q", &res, &err), 0);
	CHECK_INT(res, STORE_MOVED);
	CHECK_INT(store_get(st, "q", "a", &after, &found, &err), 0);
	CHECK(found);
	CHECK_STR(after.content, before.content);
	CHECK_STR(after.branch, "feat");
	CHECK(after.archived);
	CHECK_STR(after.created_at, before.created_at);
	CHECK_STR(after.updated_at, before.updated_at);
	CHECK_INT(after.recall_count, before.recall_count);
	store_entry_release(&before);
	store_entry_release(&after);
	CHECK_INT(verdicts_in(st, "p"), 0);	/* the pair had two stores */
	/* the search cache follows: gone from p, found in q */
	CHECK_STR(search_slugs(st, "p", x, NULL, true, buf, 64), "b,");
	CHECK_STR(search_slugs(st, "q", x, NULL, true, buf, 64), "a,");
	CHECK_INT(store_move(st, "p", "a", "q", &res, &err), 0);
	CHECK_INT(res, STORE_MOVE_MISSING);
	put_branch(st, "a", x, NULL, -1, false);	/* p has an "a" again */
	CHECK_INT(store_move(st, "p", "a", "q", &res, &err), 0);
	CHECK_INT(res, STORE_MOVE_TAKEN);
	CHECK_INT(store_list(st, "p", count_entries, &n, &err), 0);
	CHECK_INT(n, 2);			/* nothing moved */
	store_close(st);
}

static char *
slurp(const char *path)
{
	FILE	*fp = fopen(path, "r");
	char	*buf = xcalloc(1, 65536);

	if (fp == NULL) {
		CHECK_FAIL("cannot open %s", path);
		return buf;
	}
	if (fread(buf, 1, 65535, fp) == 0)
		CHECK_FAIL("cannot read %s", path);
	fclose(fp);
	return buf;
}

/* Text of one column of the first row of sql on a raw connection. */
static char *
raw_text(sqlite3 *db, const char *sql)
{
	sqlite3_stmt	*stmt = NULL;
	char		*out = NULL;

	if (sqlite3_prepare_v2(db, sql, -1, &stmt, NULL) == SQLITE_OK &&
	    sqlite3_step(stmt) == SQLITE_ROW && sqlite3_column_text(stmt, 0))
		out = xstrdup((const char *)sqlite3_column_text(stmt, 0));
	sqlite3_finalize(stmt);
	return out != NULL ? out : xstrdup("(none)");
}

static void
writes_land_in_named_columns_of_an_old_file(void)
{
	char		*path = xasprintf("%s/old/thatch.db", dir);
	char		*ddl = slurp("fixtures/store/original-old.sql"), *t;
	char		*mk = xasprintf("mkdir -p '%s/old'", dir);
	struct store	*st = NULL;
	struct err	 err = { "" };
	sqlite3		*raw = NULL;
	float		 v[3] = { 1, 0.5f, -1 };

	if (system(mk) != 0)
		CHECK_FAIL("mkdir");
	sqlite3_open(path, &raw);
	CHECK_INT(sqlite3_exec(raw, ddl, NULL, NULL, NULL), SQLITE_OK);
	CHECK_INT(store_open(path, &st, &err), 0);
	CHECK_INT(put(st, "o/r", "x", "X", v, 3, false, 1), STORE_SAVED);
	store_close(st);
	/* SELECT * gives the file's own order: migrated columns last */
	t = raw_text(raw, "SELECT quote(slug) || quote(store) || "
	    "hex(embedding) || '|' || model || '|' || archived || '|' || "
	    "recall_count || '|' || created_at FROM entries");
	CHECK_STR(t, "'x''o/r'0000803F0000003F000080BF|Xenova/bge-small-en-"
	    "v1.5|1|0|2025-03-07T14:05:09.042Z");
	free(t);
	t = raw_text(raw, "SELECT name FROM pragma_table_info('entries') "
	    "WHERE cid = 12");
	CHECK_STR(t, "archived");
	free(t);
	sqlite3_close(raw);
	free(ddl);
	free(mk);
	free(path);
}

/* The permission bits of path, or -1 when it does not exist. */
static int
mode_of(const char *path)
{
	struct stat	sb;

	return stat(path, &sb) == 0 ? (int)(sb.st_mode & 07777) : -1;
}

static void
files_are_private_whatever_the_umask(void)
{
	char		*path = xasprintf("%s/private/thatch.db", dir);
	char		*wal = xasprintf("%s-wal", path);
	char		*shm = xasprintf("%s-shm", path);
	char		*sub = xasprintf("%s/private", dir);
	mode_t		 old = umask(022);
	struct store	*st = open_fresh("private");
	float		 v[3] = { 1, 0.5f, -1 };

	CHECK_INT(put(st, "o/r", "x", "X", v, 3, false, -1), STORE_SAVED);
	CHECK_INT(mode_of(sub), 0700);
	CHECK_INT(mode_of(path), 0600);
	CHECK_INT(mode_of(wal), 0600);	/* SQLite copies the db's mode */
	CHECK_INT(mode_of(shm), 0600);
	store_close(st);
	/* a file others may read, left by an older version, is narrowed */
	CHECK_INT(chmod(path, 0644), 0);
	st = open_fresh("private");
	CHECK_INT(mode_of(path), 0600);
	store_close(st);
	umask(old);
	free(sub);
	free(shm);
	free(wal);
	free(path);
}

static double
seconds(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int
add_name(const char *name, void *arg)
{
	char	**names = arg;
	char	 *s = xasprintf("%s%s,", *names, name);

	free(*names);
	*names = s;
	return 0;
}

/* Opening and reading write nothing, so another process's write
 * transaction costs them no wait (the busy timeout is 5 s). */
static void
opening_waits_for_no_writer(void)
{
	char			*path = xasprintf("%s/busy/thatch.db", dir);
	char			*names = xstrdup("");
	struct store		*st = open_fresh("busy");
	struct store_entry	 e;
	struct err		 err = { "" };
	sqlite3			*raw = NULL;
	float			 v[3] = { 1, 0.5f, -1 };
	double			 t0;
	bool			 found = false;

	CHECK_INT(put(st, "o/r", "x", "X", v, 3, false, -1), STORE_SAVED);
	store_close(st);
	st = NULL;
	sqlite3_open(path, &raw);
	CHECK_INT(sqlite3_exec(raw, "BEGIN IMMEDIATE; INSERT INTO stores "
	    "VALUES ('held')", NULL, NULL, NULL), SQLITE_OK);
	t0 = seconds();
	CHECK_INT(store_open(path, &st, &err), 0);
	if (st != NULL) {
		CHECK_INT(store_get(st, "o/r", "x", &e, &found, &err), 0);
		CHECK(found);
		if (found)
			store_entry_release(&e);
		CHECK_INT(store_list_stores(st, add_name, &names, &err), 0);
		CHECK_STR(names, "global,o/r,");
	}
	CHECK(seconds() - t0 < 2);
	store_close(st);
	sqlite3_exec(raw, "ROLLBACK", NULL, NULL, NULL);
	sqlite3_close(raw);
	free(names);
	free(path);
}

static void
setup(void)
{
	dir = mkdtemp(dir_tmpl);
}

static void
teardown(void)
{
	char	*cmd = xasprintf("rm -rf '%s'", dir);

	if (system(cmd) != 0)
		CHECK_FAIL("cannot remove %s", dir);
	free(cmd);
}

CHECK_MAIN(
	TEST(setup),
	TEST(remember_then_get_round_trips),
	TEST(plain_insert_refuses_an_existing_slug),
	TEST(overwrite_keeps_history_and_clears_verdicts),
	TEST(overwrite_of_archived_needs_the_flag),
	TEST(forget_deletes_entry_and_verdicts_keeps_store),
	TEST(list_orders_by_label_bytes),
	TEST(search_ranks_by_exact_cosine),
	TEST(search_filters_branch_and_archived),
	TEST(search_sees_writes_of_other_connections),
	TEST(search_is_exact_on_many_random_rows),
	TEST(search_is_exact_when_two_threads_scan),
	TEST(search_stays_exact_through_writes),
	TEST(cache_follows_own_writes),
	TEST(cache_survives_rolled_back_writes),
	TEST(search_sees_foreign_overwrite_archive_and_branch),
	TEST(find_similar_ranks_by_rounded_score),
	TEST(vectors_export_in_slug_order),
	TEST(verdicts_are_canonical),
	TEST(hygiene_counts),
	TEST(hygiene_lists_match_the_counts),
	TEST(move_keeps_every_field),
	TEST(writes_land_in_named_columns_of_an_old_file),
	TEST(files_are_private_whatever_the_umask),
	TEST(opening_waits_for_no_writer),
	TEST(teardown)
)
