/*
 * b200-mcp.c — `thatch mcp` measured over its own protocol, as a host sees
 * it: spawn the server, time initialize, memory_recall and memory_remember
 * round trips on stdin/stdout, and read the server's resident memory.
 *
 *   b200-mcp populate DB STORE N THEMES NOISE
 *	write N memories with unit 384-dim vectors into STORE of DB by direct
 *	store calls: THEMES 0 gives independent random vectors; THEMES k > 0
 *	gives k random centres plus NOISE-scaled Gaussian noise (near-
 *	duplicates, for the hygiene benchmark).
 *   b200-mcp serve THATCH STORE ROUNDS
 *	spawn `THATCH mcp` (environment inherited: THATCH_DB_PATH,
 *	THATCH_MODEL, THATCH_WARMUP) and print initialize, recall and
 *	remember timings in ms (median, p95) and VmRSS/VmHWM in MB after the
 *	model is loaded. The first recall comes after a pause of
 *	B200_PAUSE_MS (default 1000), the idle time a server has to warm up.
 */
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "core/store.h"
#include "util/err.h"

#define DIM	384
#define INIT	"{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\"," \
	"\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{}," \
	"\"clientInfo\":{\"name\":\"b200\",\"version\":\"1\"}}}"



static int
populate(const char *db, const char *store, int n, int themes, double noise)
{
	struct store		*st;
	struct err		 err;
	enum store_write_result	 res;
	float			*centres, v[DIM];
	char			 label[64], content[128];
	struct store_write	 w = { .store = store, .vec = v, .dim = DIM,
				    .model = "Xenova/bge-small-en-v1.5",
				    .archived = -1,
				    .now = "2025-01-01T00:00:00.000Z" };
	int			 i, k;

	if (store_open(db, &st, &err) != 0) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	centres = calloc((size_t)(themes > 0 ? themes : 1) * DIM,
	    sizeof(*centres));
	for (i = 0; i < themes * DIM; i++)
		centres[i] = (float)bench_gauss();
	store_exec(st, "BEGIN", &err);
	for (i = 0; i < n; i++) {
		for (k = 0; k < DIM; k++)
			v[k] = themes > 0 ? centres[(i % themes) * DIM + k] +
			    (float)(noise * bench_gauss()) : (float)bench_gauss();
		bench_normalise(v, DIM);
		snprintf(label, sizeof(label), "memory %d", i);
		snprintf(content, sizeof(content), "# memory %d\n\nfact %d", i,
		    i);
		w.slug = w.label = label;
		w.content = content;
		if (store_remember(st, &w, &res, &err) != 0) {
			fprintf(stderr, "%s\n", err.msg);
			return 1;
		}
	}
	store_exec(st, "COMMIT", &err);
	store_close(st);
	free(centres);
	return 0;
}



struct conn {
	pid_t	 pid;
	FILE	*to, *from;
	char	*line;
	size_t	 cap;
};

/* One request, one response line; returns the round trip in ms. */
static double
roundtrip(struct conn *c, const char *req)
{
	double	t = bench_now_ms();

	fputs(req, c->to);
	fputc('\n', c->to);
	fflush(c->to);
	if (getline(&c->line, &c->cap, c->from) < 0) {
		fprintf(stderr, "server closed the connection\n");
		exit(1);
	}
	t = bench_now_ms() - t;
	if (strstr(c->line, "\"isError\":true") != NULL) {
		fprintf(stderr, "error: %.300s\n", c->line);
		exit(1);
	}
	return t;
}

static double
rss_mb(pid_t pid, const char *field)
{
	char	 path[64], line[256];
	FILE	*fp;
	double	 kb = 0;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if ((fp = fopen(path, "r")) == NULL)
		return 0;
	while (fgets(line, sizeof(line), fp) != NULL)
		if (strncmp(line, field, strlen(field)) == 0)
			kb = strtod(line + strlen(field) + 1, NULL);
	fclose(fp);
	return kb / 1024;
}

static void
report(const char *what, double *t, int n)
{
	qsort(t, (size_t)n, sizeof(*t), bench_cmp);
	printf("  %-28s median %7.2f ms   p95 %7.2f ms   (%d calls)\n", what,
	    t[n / 2], t[(int)(n * 0.95)], n);
}

static int
serve(const char *bin, const char *store, int rounds)
{
	static const char *const	words[] = { "database", "login",
	    "tests",
	    "deploy", "cache", "retry", "schema", "token", "queue", "build" };
	struct conn			 c = { 0 };
	int				 in[2], out[2], i, status;
	double				*t, init;
	const char			*pause = getenv("B200_PAUSE_MS");
	int				 pause_ms = pause ? atoi(pause) : 1000;
	char				 req[1024];

	if (pipe(in) != 0 || pipe(out) != 0)
		return 1;
	if ((c.pid = fork()) == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[1]);
		close(out[0]);
		execl(bin, bin, "mcp", (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	c.to = fdopen(in[1], "w");
	c.from = fdopen(out[0], "r");
	t = calloc((size_t)rounds, sizeof(*t));
	init = roundtrip(&c, INIT);
	printf("  %-28s %7.2f ms (spawn to response; model still lazy)\n",
	    "initialize", init);
	for (i = 0; i < rounds; i++)
		t[i] = roundtrip(&c, INIT);
	report("initialize, process up", t, rounds);
	printf("  %-28s %7.1f MB\n", "VmRSS before the model",
	    rss_mb(c.pid, "VmRSS:"));
	snprintf(req, sizeof(req), "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":"
	    "\"tools/call\",\"params\":{\"name\":\"memory_recall\","
	    "\"arguments\":{\"query\":\"warm up\",\"store\":\"%s\"}}}", store);
	nanosleep(&(struct timespec){ pause_ms / 1000,
	    pause_ms % 1000 * 1000000L }, NULL);
	printf("  %-28s %7.1f ms (after a %d ms pause; loads the model and "
	    "the vectors unless the server warmed up)\n", "first memory_recall",
	    roundtrip(&c, req), pause_ms);
	for (i = 0; i < rounds; i++) {
		snprintf(req, sizeof(req), "{\"jsonrpc\":\"2.0\",\"id\":%d,"
		    "\"method\":\"tools/call\",\"params\":{\"name\":"
		    "\"memory_recall\",\"arguments\":{\"query\":\"how do we "
		    "handle %s %s errors\",\"store\":\"%s\"}}}", i + 2,
		    words[i % 10], words[(i / 10) % 10], store);
		t[i] = roundtrip(&c, req);
	}
	report("memory_recall (limit 10)", t, rounds);
	for (i = 0; i < rounds; i++) {
		snprintf(req, sizeof(req), "{\"jsonrpc\":\"2.0\",\"id\":%d,"
		    "\"method\":\"tools/call\",\"params\":{\"name\":"
		    "\"memory_remember\",\"arguments\":{\"label\":\"bench %d "
		    "%d\",\"content\":\"The %s layer retries %s calls three "
		    "times before giving up.\",\"store\":\"%s\"}}}",
		    i + 100000, (int)getpid(), i, words[i % 10],
		    words[(i / 10) % 10], store);
		t[i] = roundtrip(&c, req);
	}
	report("memory_remember", t, rounds);
	printf("  %-28s %7.1f MB (peak %.1f MB)\n", "VmRSS with the model",
	    rss_mb(c.pid, "VmRSS:"), rss_mb(c.pid, "VmHWM:"));
	fclose(c.to);
	waitpid(c.pid, &status, 0);
	fclose(c.from);
	free(c.line);
	free(t);
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc == 7 && strcmp(argv[1], "populate") == 0)
		return populate(argv[2], argv[3], atoi(argv[4]), atoi(argv[5]),
		    strtod(argv[6], NULL));
	if (argc == 5 && strcmp(argv[1], "serve") == 0)
		return serve(argv[2], argv[3], atoi(argv[4]));
	fputs("usage: b200-mcp populate DB STORE N THEMES NOISE\n"
	    "       b200-mcp serve THATCH STORE ROUNDS\n", stderr);
	return 2;
}
