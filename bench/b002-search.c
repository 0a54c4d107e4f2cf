/*
 * b002-search.c — memory_recall's store work: store_search (limit 10 over
 * [project, global]) plus store_stamp_recall, against N memories with
 * random unit 384-dim vectors. Prints the first search (which loads the
 * in-memory cache) and the median and p95 of warm searches, in ms; then
 * what a write costs the next search: our own remember (store_remember
 * plus the write-time similarity search, as memory_remember does), and a
 * commit by another connection before the search: a recall stamp (no
 * vector moves), an overwrite of one memory, an insert.
 *
 * Each case is a bench_record (median, p95, wall/CPU); warm search and
 * own remember are named "... N | thatch" for bench/b150-load.sh's table.
 *
 * With "recall", only those two (bench/b150-load.sh), without the
 * searches after a foreign commit.
 *
 * usage: b002-search [memories] [rounds] [recall]    (default 1000 200)
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "core/store/store.h"
#include "util/err.h"

#define DIM	384


static void
unit_vec(float *v)
{
	int	i;

	for (i = 0; i < DIM; i++)
		v[i] = (float)bench_gauss();
	bench_normalise(v, DIM);
}



static void
die(const struct err *err)
{
	fprintf(stderr, "%s\n", err->msg);
	exit(1);
}

/* bench_record as "<what> N", or "<what> N | thatch" for bench/b150's
 * table when table is true. */
static void
report(const char *what, int n, bool table, double *t, const double *c,
    int rounds)
{
	char	name[96];

	snprintf(name, sizeof(name), "%s %d%s", what, n,
	    table ? " | thatch" : "");
	bench_record(name, t, c, rounds);
}

/* What a foreign commit costs the next search: kind 0 stamps a recall,
 * 1 overwrites a memory, 2 inserts one. */
static void
foreign(struct store *st, struct store *other, struct store_query *sq,
    struct store_write *w, int kind, int rounds, double *t, double *c)
{
	struct store_hits	 hits;
	enum store_write_result	 res;
	struct err		 err;
	struct bench_mark	 mark;
	char			 slug[32];
	int			 i;

	for (i = 0; i < rounds; i++) {
		unit_vec((float *)sq->vec);
		if (kind == 0) {
			if (store_search(other, sq, &hits, &err) != 0 ||
			    store_stamp_recall(other, &hits,
			    "2025-01-03T00:00:00.000Z", &err) != 0)
				die(&err);
			store_hits_release(&hits);
		} else {
			unit_vec((float *)w->vec);
			snprintf(slug, sizeof(slug), kind == 1 ? "memory-%d" :
			    "foreign-%d", kind == 1 ? 5 * i + 1 : i);
			w->slug = w->label = slug;
			w->store = "acme/api";
			w->overwrite = kind == 1;
			if (store_remember(other, w, &res, &err) != 0)
				die(&err);
		}
		mark = bench_mark();
		if (store_search(st, sq, &hits, &err) != 0)
			die(&err);
		t[i] = bench_since(mark, &c[i]);
		store_hits_release(&hits);
	}
}

int
main(int argc, char **argv)
{
	int			 n = argc > 1 ? (int)strtol(argv[1], NULL, 10) : 1000;
	int			 rounds = argc > 2 ? (int)strtol(argv[2], NULL, 10) :
				    200;
	bool			 recall_only = argc > 3 &&
				    strcmp(argv[3], "recall") == 0;
	static const char *const foreign_case[] = {	/* foreign()'s kinds */
		"search after a foreign recall stamp",
		"search after a foreign overwrite",
		"search after a foreign insert",
	};
	char			 path[] = "/tmp/thatch-b002.XXXXXX", db[64], slug[32];
	const char		*stores[] = { "acme/api", "global" };
	float			 v[DIM], q[DIM];
	struct store		*st, *other;
	struct err		 err;
	struct store_hits	 hits;
	enum store_write_result	 res;
	struct store_write	 w = { .content = "# m\n\nbody", .vec = v,
				    .dim = DIM, .model = "Xenova/bge-small-en-v1.5",
				    .archived = -1,
				    .now = "2025-01-01T00:00:00.000Z" };
	struct store_query	 sq = { .stores = stores, .nstores = 2, .vec = q,
				    .dim = DIM, .limit = 10, .min_score = -2 };
	struct store_query	 sim = { .stores = stores, .nstores = 1, .vec = v,
				    .dim = DIM, .limit = 3, .min_score = 0.85,
				    .rank_round3 = true };
	double			*t, *u, *ct, *cu, first;
	struct bench_mark	 mark, stamp;
	int			 i, k;

	if (mkdtemp(path) == NULL)
		return 1;
	snprintf(db, sizeof(db), "%s/thatch.db", path);
	if (store_open(db, &st, &err) != 0)
		die(&err);
	store_exec(st, "BEGIN", &err);
	for (i = 0; i < n; i++) {
		unit_vec(v);
		snprintf(slug, sizeof(slug), "memory-%d", i);
		w.slug = w.label = slug;
		w.store = i % 5 == 0 ? "global" : "acme/api";
		if (store_remember(st, &w, &res, &err) != 0)
			die(&err);
	}
	store_exec(st, "COMMIT", &err);
	store_close(st);

	/* a fresh connection, as a new MCP server would have */
	if (store_open(db, &st, &err) != 0 || store_open(db, &other, &err) != 0)
		die(&err);
	t = calloc((size_t)rounds, sizeof(*t));
	u = calloc((size_t)rounds, sizeof(*u));
	ct = calloc((size_t)rounds, sizeof(*ct));
	cu = calloc((size_t)rounds, sizeof(*cu));
	unit_vec(q);
	first = bench_now_ms();
	store_search(st, &sq, &hits, &err);
	store_stamp_recall(st, &hits, "2025-01-02T00:00:00.000Z", &err);
	first = bench_now_ms() - first;
	store_hits_release(&hits);
	for (i = 0; i < rounds; i++) {
		unit_vec(q);
		mark = bench_mark();
		if (store_search(st, &sq, &hits, &err) != 0)
			die(&err);
		stamp = bench_mark();
		if (store_stamp_recall(st, &hits, "2025-01-02T00:00:00.000Z",
		    &err) != 0)
			die(&err);
		u[i] = bench_since(stamp, &cu[i]);
		t[i] = bench_since(mark, &ct[i]);
		store_hits_release(&hits);
	}
	printf("%6d memories (dim %d, limit 10, %d rounds): first search+stamp "
	    "%.1f ms (loads the cache)\n", n, DIM, rounds, first);
	report("warm search+stamp", n, true, t, ct, rounds);
	report("of which stamp", n, false, u, cu, rounds);
	w.overwrite = false;
	w.store = "acme/api";
	for (i = 0; i < rounds; i++) {
		unit_vec(v);
		snprintf(slug, sizeof(slug), "own-%d", i);
		w.slug = w.label = slug;
		mark = bench_mark();
		if (store_search(st, &sim, &hits, &err) != 0 ||
		    store_remember(st, &w, &res, &err) != 0)
			die(&err);
		t[i] = bench_since(mark, &ct[i]);
		store_hits_release(&hits);
	}
	report("remember+similarity", n, true, t, ct, rounds);
	for (k = 0; k < 3 && !recall_only; k++) {
		foreign(st, other, &sq, &w, k, rounds, t, ct);
		report(foreign_case[k], n, false, t, ct, rounds);
	}
	free(cu);
	free(ct);
	free(u);
	free(t);
	store_close(other);
	store_close(st);
	if (getenv("B002_KEEP")) { printf("kept %s\n", db); return 0; }
	snprintf(db, sizeof(db), "rm -rf '%s'", path);
	return system(db) != 0;
}
