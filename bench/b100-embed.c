/*
 * b100-embed.c — embedding latency and memory of a loaded model: load
 * time, then per-text latency for texts of about 8, 70 and 250 tokens
 * (wall-clock median and p95, and the wall-to-CPU ratio, which tells
 * waiting for a core from working), then the process's resident memory
 * and the share of CPU time other guests of the VM's host took meanwhile.
 * With TEXTS (bench/embed-texts.tsv: NAME<TAB>text a line, # comments),
 * its texts replace the built-in ones and each case is named
 * "embed NAME | thatch" ("thatch Nt" under THATCH_THREADS=N), the names
 * bench/js/embed.mjs gives onnxruntime's (bench/b150-load.sh).
 *
 * usage: b100-embed MODEL_DIR [rounds [TEXTS]]          (default 50)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "embed/model.h"
#include "util/err.h"
#include "util/path.h"
#include "util/sbuf.h"
#include "util/xmalloc.h"

#define MAX_TEXTS	16

struct text {
	char	*name, *text;
};
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

/* The built-in texts: ~8 tokens, then each repeat adds ~20. */
static int
builtin_texts(struct text *t)
{
	static const char	*sentence = "The build runs make test before "
	    "every push, and the CI gate checks formatting and lints. ";
	static const int	 reps[] = { 0, 3, 12 };
	struct sbuf		 text = SBUF_INIT;
	int			 i, r;

	for (i = 0; i < 3; i++) {
		sbuf_reset(&text);
		sbuf_adds(&text, "user prefers tabs over spaces");
		for (r = 0; r < reps[i]; r++)
			sbuf_adds(&text, sentence);
		t[i].name = xstrdup(i == 0 ? "~8 tok" : i == 1 ? "~70 tok" :
		    "~250 tok");
		t[i].text = xstrdup(text.buf);
	}
	sbuf_release(&text);
	return 3;
}

/* The cases of a TEXTS file, named "embed NAME | thatch[ Nt]". */
static int
file_texts(const char *path, struct text *t)
{
	const char	*threads = getenv("THATCH_THREADS");
	char		*line = NULL, *tab, who[32];
	size_t		 cap = 0;
	ssize_t		 len;
	int		 n = 0;
	FILE		*fp = fopen(path, "r");

	if (fp == NULL) {
		perror(path);
		exit(1);
	}
	snprintf(who, sizeof(who), threads ? "thatch %st" : "thatch%s",
	    threads ? threads : "");
	while (n < MAX_TEXTS && (len = getline(&line, &cap, fp)) > 0) {
		if (line[len - 1] == '\n')
			line[--len] = '\0';
		if (line[0] == '#' || (tab = strchr(line, '\t')) == NULL)
			continue;
		*tab = '\0';
		t[n].name = xmalloc(strlen(line) + strlen(who) + 16);
		sprintf(t[n].name, "embed %s | %s", line, who);
		t[n++].text = xstrdup(tab + 1);
	}
	free(line);
	fclose(fp);
	return n;
}

int
main(int argc, char **argv)
{
	struct model_opts	 o;
	struct paths		 p;
	struct model		*m;
	struct err		 err;
	struct text		 texts[MAX_TEXTS];
	struct bench_ticks	 ticks = bench_ticks();
	double			*t, *cpu, t0;
	float			*v;
	int			 rounds, n, i, r;

	if (argc < 2)
		return 2;
	rounds = argc > 2 ? atoi(argv[2]) : 50;
	if (rounds < 1)
		return 2;
	n = argc > 3 ? file_texts(argv[3], texts) : builtin_texts(texts);
	paths_init(&p);
	model_opts_init(&o, &p);
	free(o.id);
	o.id = xstrdup(argv[1]);
	o.download = false;
	t0 = bench_now_ms();
	if (model_open(&o, &m, &err) != 0) {
		fprintf(stderr, "b100-embed: %s\n", err.msg);
		return 1;
	}
	printf("model_open: %.1f ms (%d threads)\n", bench_now_ms() - t0,
	    o.threads);
	v = xcalloc((size_t)model_dim(m), sizeof(*v));
	t = xcalloc((size_t)rounds, sizeof(*t));
	cpu = xcalloc((size_t)rounds, sizeof(*cpu));
	for (i = 0; i < n; i++) {
		const char	*s = texts[i].text;

		model_embed(m, s, strlen(s), EMBED_PASSAGE, v, &err);
		for (r = 0; r < rounds; r++) {
			struct bench_mark	mark = bench_mark();

			model_embed(m, s, strlen(s), EMBED_PASSAGE, v, &err);
			t[r] = bench_since(mark, &cpu[r]);
		}
		bench_record(texts[i].name, t, cpu, rounds);
		free(texts[i].name);
		free(texts[i].text);
	}
	printf("resident: %.1f MB now, %.1f MB peak\n", status_mb("VmRSS"),
	    status_mb("VmHWM"));
	printf("steal: %.0f%% of the CPU time went to other guests\n",
	    bench_steal_pct(ticks, bench_ticks()));
	model_close(m);
	model_opts_release(&o);
	paths_release(&p);
	free(v);
	free(t);
	free(cpu);
	return 0;
}
