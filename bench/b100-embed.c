/*
 * b100-embed.c — embedding latency and memory of a loaded model: load
 * time, then per-text latency for texts of about 8, 70 and 250 tokens
 * (wall-clock min, median and p95, and CPU time, which a busy machine
 * disturbs less), then the process's resident memory and the share of
 * CPU time other guests of the VM's host took meanwhile.
 *
 * usage: b100-embed MODEL_DIR [rounds]          (default 50)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "embed/model.h"
#include "util/err.h"
#include "util/path.h"
#include "util/sbuf.h"
#include "util/xmalloc.h"

static double
clock_ms(clockid_t id)
{
	struct timespec	ts;

	clock_gettime(id, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static double
now_ms(void)
{
	return clock_ms(CLOCK_MONOTONIC);
}


/* "VmRSS" or "VmHWM" of this process in MB. */
static double
status_mb(const char *key)
{
	char	 line[256];
	double	 kb = 0;
	FILE	*fp = fopen("/proc/self/status", "r");

	while (fp != NULL && fgets(line, sizeof(line), fp) != NULL) {
		if (strncmp(line, key, strlen(key)) == 0)
			kb = strtod(line + strlen(key) + 1, NULL);
	}
	if (fp != NULL)
		fclose(fp);
	return kb / 1024;
}

int
main(int argc, char **argv)
{
	static const char	*sentence = "The build runs make test before "
	    "every push, and the CI gate checks formatting and lints. ";
	struct model_opts	 o;
	struct paths		 p;
	struct model		*m;
	struct err		 err;
	struct sbuf		 text = SBUF_INIT;
	struct bench_ticks	 ticks = bench_ticks();
	static const int	 reps[] = { 0, 3, 12 };
	double			*t, *cpu, t0, c0;
	float			*v;
	int			 rounds, i, r;

	if (argc < 2)
		return 2;
	rounds = argc > 2 ? atoi(argv[2]) : 50;
	paths_init(&p);
	model_opts_init(&o, &p);
	free(o.id);
	o.id = xstrdup(argv[1]);
	o.download = false;
	t0 = now_ms();
	if (model_open(&o, &m, &err) != 0) {
		fprintf(stderr, "b100-embed: %s\n", err.msg);
		return 1;
	}
	printf("model_open: %.1f ms (%d threads)\n", now_ms() - t0,
	    o.threads);
	v = xcalloc((size_t)model_dim(m), sizeof(*v));
	t = xcalloc((size_t)rounds, sizeof(*t));
	cpu = xcalloc((size_t)rounds, sizeof(*cpu));
	for (i = 0; i < 3; i++) {
		sbuf_reset(&text);
		/* ~8 tokens; each repeat adds ~16 */
		sbuf_adds(&text, "user prefers tabs over spaces");
		for (r = 0; r < reps[i]; r++)
			sbuf_adds(&text, sentence);
		model_embed(m, text.buf, text.len, EMBED_PASSAGE, v, &err);
		for (r = 0; r < rounds; r++) {
			t0 = now_ms();
			c0 = clock_ms(CLOCK_PROCESS_CPUTIME_ID);
			model_embed(m, text.buf, text.len, EMBED_PASSAGE, v,
			    &err);
			t[r] = now_ms() - t0;
			cpu[r] = clock_ms(CLOCK_PROCESS_CPUTIME_ID) - c0;
		}
		qsort(t, (size_t)rounds, sizeof(*t), bench_cmp);
		qsort(cpu, (size_t)rounds, sizeof(*cpu), bench_cmp);
		printf("%-9s wall: min %6.2f median %6.2f p95 %6.2f ms; "
		    "cpu: median %6.2f ms\n",
		    i == 0 ? "~8 tok" : i == 1 ? "~70 tok" : "~250 tok",
		    t[0], t[rounds / 2], t[rounds * 95 / 100],
		    cpu[rounds / 2]);
	}
	printf("resident: %.1f MB now, %.1f MB peak\n", status_mb("VmRSS"),
	    status_mb("VmHWM"));
	printf("steal: %.0f%% of the CPU time went to other guests\n",
	    bench_steal_pct(ticks, bench_ticks()));
	model_close(m);
	model_opts_release(&o);
	paths_release(&p);
	sbuf_release(&text);
	free(v);
	free(t);
	free(cpu);
	return 0;
}
