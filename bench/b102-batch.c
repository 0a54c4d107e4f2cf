/*
 * b102-batch.c — what embedding several texts per forward pass gains:
 * per-text wall time of model_embed one text at a time against
 * model_embed_batch with 2, 3, 4 and 6 texts per pass, on memories of
 * ~340 characters (bench_memory), and the largest difference between a
 * text's vector alone and in a batch. MODEL_BATCH_TOKENS follows from it
 * (bench/README.md).
 *
 * usage: b102-batch MODEL_DIR [texts]          (default 120)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "embed/model.h"
#include "util/err.h"
#include "util/path.h"
#include "util/xmalloc.h"

/*
 * Per-text wall ms of embedding texts[0..n) k at a time (k 0:
 * model_embed), and in *cpu the per-text CPU ms, which the neighbours
 * disturb less.
 */
static double
per_text(struct model *m, char **texts, int n, int k, float *out,
    double *cpu)
{
	struct err	err;
	double		t0 = bench_now_ms(), c0 = bench_cpu_ms();
	int		i, dim = model_dim(m);

	for (i = 0; i < n; i += k > 0 ? k : 1) {
		if (k == 0)
			model_embed(m, texts[i], strlen(texts[i]),
			    EMBED_PASSAGE, out + (size_t)i * dim, &err);
		else
			model_embed_batch(m, (const char *const *)texts + i,
			    (size_t)(n - i < k ? n - i : k), EMBED_PASSAGE,
			    out + (size_t)i * dim, &err);
	}
	*cpu = (bench_cpu_ms() - c0) / n;
	return (bench_now_ms() - t0) / n;
}

int
main(int argc, char **argv)
{
	static const int	 ks[] = { 0, 2, 3, 4, 6 };
	struct model_opts	 o;
	struct paths		 p;
	struct model		*m;
	struct err		 err;
	struct bench_ticks	 ticks = bench_ticks();
	char			**texts;
	float			*one, *many;
	double			 diff, ms, cpu;
	size_t			 j, k;
	int			 n, i, round;

	if (argc < 2)
		return 2;
	n = argc > 2 ? atoi(argv[2]) : 120;
	paths_init(&p);
	model_opts_init(&o, &p);
	free(o.id);
	o.id = xstrdup(argv[1]);
	o.download = false;
	if (model_open(&o, &m, &err) != 0) {
		fprintf(stderr, "b102-batch: %s\n", err.msg);
		return 1;
	}
	texts = xcalloc((size_t)n, sizeof(*texts));
	for (i = 0; i < n; i++)
		texts[i] = bench_memory(i);
	one = xcalloc((size_t)n * model_dim(m), sizeof(*one));
	many = xcalloc((size_t)n * model_dim(m), sizeof(*many));
	per_text(m, texts, 6, 0, one, &cpu);	/* warm the weights */
	/* two rounds, turn about, so that the neighbours hit both alike */
	for (round = 0; round < 2; round++)
		for (k = 0; k < sizeof(ks) / sizeof(ks[0]); k++) {
			ms = per_text(m, texts, n, ks[k], ks[k] ? many : one,
			    &cpu);
			printf("round %d, %d text(s) per pass: %6.2f ms wall, "
			    "%6.2f ms CPU per text\n", round + 1,
			    ks[k] ? ks[k] : 1, ms, cpu);
		}
	for (diff = 0, j = 0; j < (size_t)n * model_dim(m); j++)
		diff = fmax(diff, fabs(one[j] - many[j]));
	printf("largest component difference, alone vs batched: %.2g\n",
	    diff);
	printf("steal: %.0f%% of the CPU time went to other guests\n",
	    bench_steal_pct(ticks, bench_ticks()));
	for (i = 0; i < n; i++)
		free(texts[i]);
	free(texts);
	free(one);
	free(many);
	model_close(m);
	model_opts_release(&o);
	paths_release(&p);
	return 0;
}
