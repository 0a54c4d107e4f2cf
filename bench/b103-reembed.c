/*
 * b103-reembed.c — the database b103-reembed.sh re-embeds: N memories of
 * ~340 characters (bench_memory) in store "bench", as a model of another
 * space left them (8 dimensions, tag "old/model"), so that every one of
 * them is `thatch reembed`'s to do.
 *
 * usage: b103-reembed DB_PATH N
 */
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"
#include "core/store/store.h"
#include "util/err.h"

int
main(int argc, char **argv)
{
	struct store		*st;
	struct store_write	 w = { 0 };
	enum store_write_result	 res;
	struct err		 err;
	float			 v[8];
	char			 slug[32];
	int			 n, i, j;

	if (argc != 3)
		return 2;
	n = atoi(argv[2]);
	if (store_open(argv[1], &st, &err) != 0) {
		fprintf(stderr, "b103-reembed: %s\n", err.msg);
		return 1;
	}
	store_exec(st, "BEGIN", &err);
	w.store = "bench";
	w.vec = v;
	w.dim = 8;
	w.model = "old/model";
	w.archived = -1;
	w.now = "2025-01-01T00:00:00.000Z";
	for (i = 0; i < n; i++) {
		for (j = 0; j < 8; j++)
			v[j] = (float)bench_gauss();
		snprintf(slug, sizeof(slug), "note-%d", i);
		w.slug = w.label = slug;
		w.content = bench_memory(i);
		if (store_remember(st, &w, &res, &err) != 0) {
			fprintf(stderr, "b103-reembed: %s\n", err.msg);
			return 1;
		}
		free((char *)w.content);
	}
	store_exec(st, "COMMIT", &err);
	store_close(st);
	return 0;
}
