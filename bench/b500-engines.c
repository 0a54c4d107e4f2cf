/*
 * b500-engines.c — auto-fire cost of the scoring engine: one prompt's
 * query vector against N matchers (each with an item) in the project
 * store, i.e. everything flush-tools' sideband request does after the
 * prompt is embedded (engines-and-extras §A7), plus the seeding stamp
 * check every model load pays. Prints median and p95 in milliseconds.
 *
 * usage: b500-engines [matchers] [rounds]      (default 1000 200)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "core/engine/behavior.h"
#include "core/engine/engine.h"
#include "core/engine/predict.h"
#include "core/store/store.h"
#include "util/os/clock.h"
#include "util/err.h"
#include "util/sbuf.h"

#define DIM	384


static void
random_vec(float *v)
{
	int	i;

	for (i = 0; i < DIM; i++)
		v[i] = (float)(bench_uniform() - 0.5);
}



static void
report(const char *what, double *t, int n)
{
	qsort(t, (size_t)n, sizeof(*t), bench_cmp);
	printf("%-44s median %.3f ms  p95 %.3f ms  (n=%d)\n", what, t[n / 2],
	    t[n * 95 / 100], n);
}

static int
fake_embed(void *arg, const char *text, float *out, struct err *err)
{
	(void)arg;
	(void)text;
	(void)err;
	random_vec(out);
	return 0;
}

int
main(int argc, char **argv)
{
	const char		*stores[] = { "proj", "global" };
	int			 n = argc > 1 ? atoi(argv[1]) : 1000;
	int			 rounds = argc > 2 ? atoi(argv[2]) : 200;
	struct behavior_embedder emb = { fake_embed, NULL, DIM, "bench" };
	struct clock		 clk = clock_system();
	struct store		*st = NULL;
	struct sbuf		 sb = SBUF_INIT;
	struct err		 err;
	char			 dir[] = "/tmp/thatch-b500.XXXXXX", path[64];
	char			*mid, *iid, text[64], cmd[80];
	float			 v[DIM];
	double			*t, t0;
	int			 i, fired = 0;

	if (n <= 0 || rounds <= 0 || mkdtemp(dir) == NULL)
		return 2;
	snprintf(path, sizeof(path), "%s/thatch.db", dir);
	t = calloc((size_t)rounds, sizeof(*t));
	if (t == NULL || store_open(path, &st, &err) != 0)
		return 1;
	store_exec(st, "BEGIN", &err);
	for (i = 0; i < n; i++) {
		snprintf(text, sizeof(text), "situation %d", i);
		random_vec(v);
		if (engine_create_matcher(st, &predict_engine, "proj", text, v,
		    DIM, "bench", "2026-01-01T00:00:00.000Z", &mid, &err) != 0)
			return 1;
		random_vec(v);
		if (engine_create_item(st, &predict_engine, "proj", text, "r",
		    v, DIM, "bench", "2026-01-01T00:00:00.000Z", &iid,
		    &err) != 0 ||
		    engine_create_edge(st, &predict_engine, mid, iid, 1.0,
		    "2026-01-01T00:00:00.000Z", &err) != 0)
			return 1;
		free(mid);
		free(iid);
	}
	store_exec(st, "COMMIT", &err);
	if (behavior_seed(st, &emb, &clk, NULL, &err) != 0)
		return 1;

	for (i = 0; i < rounds; i++) {
		random_vec(v);
		sbuf_reset(&sb);
		t0 = bench_now_ms();
		/* threshold 0: every round scores items too, the worst case */
		if (engine_nudge(st, &predict_engine, stores, 2, v, DIM, 0.0,
		    &sb, &err) != 0) {
			fprintf(stderr, "%s\n", err.msg);
			return 1;
		}
		t[i] = bench_now_ms() - t0;
		fired += sb.len > 0;
	}
	snprintf(text, sizeof(text), "auto-fire, %d matchers (%d fired)", n,
	    fired);
	report(text, t, rounds);

	for (i = 0; i < rounds; i++) {
		t0 = bench_now_ms();
		if (behavior_seed(st, &emb, &clk, NULL, &err) != 0)
			return 1;
		t[i] = bench_now_ms() - t0;
	}
	report("seeding stamp check (all current)", t, rounds);

	sbuf_release(&sb);
	store_close(st);
	free(t);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) != 0;
}
