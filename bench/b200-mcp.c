/*
 * b200-mcp.c — `thatch mcp` measured over its own protocol, as a host sees
 * it: spawn the server, time initialize, memory_recall and memory_remember
 * round trips on stdin/stdout, and read the server's resident memory.
 *
 *   b200-mcp populate DB STORE N THEMES NOISE
 *	write N memories with unit 384-dim vectors into STORE of DB by direct
 *	store calls: THEMES 0 gives independent random vectors; THEMES k > 0
 *	gives k random centres plus NOISE-scaled Gaussian noise (near-
 *	duplicates, for the hygiene benchmark). The rows are tagged with
 *	THATCH_MODEL when it is set, as the server's model tags its own
 *	(a folder is its own tag): rows of another tag are not searched.
 *   b200-mcp serve THATCH STORE ROUNDS [LABEL]
 *	spawn `THATCH mcp` (environment inherited: THATCH_DB_PATH,
 *	THATCH_MODEL, THATCH_WARMUP) and print initialize, recall and
 *	remember timings in ms (median, p95, and the wall-to-CPU ratio of
 *	the server, every thread's CPU time from /proc) and VmRSS/VmHWM in
 *	MB after the model is loaded; with LABEL, recall and remember are
 *	the records "memory_recall LABEL | thatch" and "memory_remember
 *	LABEL | thatch" (bench/b150-load.sh). The first recall comes after a
 *	pause of B200_PAUSE_MS (default 1000), the idle time a server has to
 *	warm up. Each remember saves memory_text(i): a memory of ~85 tokens.
 *	Then ROUNDS recalls, each right after a remember ("memory_recall
 *	after a write"): what a recall costs when the server's lexical
 *	caches have just been dropped.
 *   b200-mcp texts ROUNDS
 *	print the memories serve's remembers save, one JSON object
 *	{"label", "content"} a line, for the original's side of the same
 *	benchmark (bench/js/original-remember.mjs).
 */
#include <dirent.h>
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
#include "core/store/store.h"
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
	const char		*tag = getenv("THATCH_MODEL");
	struct store_write	 w = { .store = store, .vec = v, .dim = DIM,
				    .model = tag && *tag ? tag :
				    "Xenova/bge-small-en-v1.5",
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



/* in as the body of a JSON string; bench texts have no other specials. */
static void
json_escape(const char *in, char *out, size_t size)
{
	size_t	n = 0;

	for (; *in != '\0' && n + 3 < size; in++) {
		if (*in == '\n') {
			out[n++] = '\\';
			out[n++] = 'n';
			continue;
		}
		if (*in == '"' || *in == '\\')
			out[n++] = '\\';
		out[n++] = *in;
	}
	out[n] = '\0';
}

/*
 * The i-th memory a remember saves: bench_memory's ~340 characters (~85
 * tokens with its "# label" line, as memory_remember embeds it), split
 * into the label and the content, both JSON-escaped. The same sequence
 * in every process that starts from the seeded generator.
 */
static void
memory_text(int i, char *label, char *content, size_t size)
{
	char	*m = bench_memory(100000 + i), *body = strstr(m, "\n\n");

	*body = '\0';
	json_escape(m + 2, label, size);
	json_escape(body + 2, content, size);
	free(m);
}

static int
texts(int rounds)
{
	char	label[256], content[1024];
	int	i;

	for (i = 0; i < rounds; i++) {
		memory_text(i, label, content, sizeof(content));
		printf("{\"label\":\"%s\",\"content\":\"%s\"}\n", label,
		    content);
	}
	return 0;
}

/* CPU time of every thread of process pid so far, in ms (schedstat). */
static double
task_cpu_ms(pid_t pid)
{
	char		 path[320];
	double		 ns = 0, v;
	DIR		*d;
	struct dirent	*e;
	FILE		*fp;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	if ((d = opendir(path)) == NULL)
		return 0;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/schedstat",
		    (int)pid, e->d_name);
		if ((fp = fopen(path, "r")) == NULL)
			continue;
		if (fscanf(fp, "%lf", &v) == 1)
			ns += v;
		fclose(fp);
	}
	closedir(d);
	return ns / 1e6;
}

struct conn {
	pid_t	 pid;
	FILE	*to, *from;
	char	*line;
	size_t	 cap;
};

/*
 * One request, one response line; returns the round trip in ms and adds
 * the server's CPU time meanwhile to *cpu when cpu is not NULL.
 */
static double
roundtrip(struct conn *c, const char *req, double *cpu)
{
	double	c0 = cpu ? task_cpu_ms(c->pid) : 0, t = bench_now_ms();

	fputs(req, c->to);
	fputc('\n', c->to);
	fflush(c->to);
	if (getline(&c->line, &c->cap, c->from) < 0) {
		fprintf(stderr, "server closed the connection\n");
		exit(1);
	}
	t = bench_now_ms() - t;
	if (cpu != NULL)
		*cpu = task_cpu_ms(c->pid) - c0;
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

/* "memory_recall LABEL | thatch" with a LABEL, else what alone. */
static void
report(const char *what, const char *label, double *t, const double *cpu,
    int n)
{
	char	name[128];

	if (label != NULL)
		snprintf(name, sizeof(name), "%s %s | thatch", what, label);
	else
		snprintf(name, sizeof(name), "%s", what);
	bench_record(name, t, cpu, n);
}

static int
serve(const char *bin, const char *store, int rounds, const char *label)
{
	static const char *const	words[] = { "database", "login",
	    "tests",
	    "deploy", "cache", "retry", "schema", "token", "queue", "build" };
	struct conn			 c = { 0 };
	int				 in[2], out[2], i, status;
	double				*t, *cpu, init;
	const char			*pause = getenv("B200_PAUSE_MS");
	int				 pause_ms = pause ? atoi(pause) : 1000;
	char				 req[2048], name[256], content[1024];

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
	cpu = calloc((size_t)rounds, sizeof(*cpu));
	init = roundtrip(&c, INIT, NULL);
	printf("  %-28s %7.2f ms (spawn to response; model still lazy)\n",
	    "initialize", init);
	for (i = 0; i < rounds; i++)
		t[i] = roundtrip(&c, INIT, &cpu[i]);
	report("initialize, process up", NULL, t, cpu, rounds);
	printf("  %-28s %7.1f MB\n", "VmRSS before the model",
	    rss_mb(c.pid, "VmRSS:"));
	snprintf(req, sizeof(req), "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":"
	    "\"tools/call\",\"params\":{\"name\":\"memory_recall\","
	    "\"arguments\":{\"query\":\"warm up\",\"store\":\"%s\"}}}", store);
	nanosleep(&(struct timespec){ pause_ms / 1000,
	    pause_ms % 1000 * 1000000L }, NULL);
	printf("  %-28s %7.1f ms (after a %d ms pause; loads the model and "
	    "the vectors unless the server warmed up)\n", "first memory_recall",
	    roundtrip(&c, req, NULL), pause_ms);
	for (i = 0; i < rounds; i++) {
		snprintf(req, sizeof(req), "{\"jsonrpc\":\"2.0\",\"id\":%d,"
		    "\"method\":\"tools/call\",\"params\":{\"name\":"
		    "\"memory_recall\",\"arguments\":{\"query\":\"how do we "
		    "handle %s %s errors\",\"store\":\"%s\"}}}", i + 2,
		    words[i % 10], words[(i / 10) % 10], store);
		t[i] = roundtrip(&c, req, &cpu[i]);
	}
	report(label ? "memory_recall" : "memory_recall (limit 10)", label, t,
	    cpu, rounds);
	for (i = 0; i < rounds; i++) {
		memory_text(i, name, content, sizeof(content));
		snprintf(req, sizeof(req), "{\"jsonrpc\":\"2.0\",\"id\":%d,"
		    "\"method\":\"tools/call\",\"params\":{\"name\":"
		    "\"memory_remember\",\"arguments\":{\"label\":\"%s\","
		    "\"content\":\"%s\",\"store\":\"%s\"}}}", i + 100000, name,
		    content, store);
		t[i] = roundtrip(&c, req, &cpu[i]);
	}
	report("memory_remember", label, t, cpu, rounds);
	/* a recall right after a write: the server's own write is patched
	 * into what it kept for both sides (docs/store.md, "Hybrid recall"),
	 * a round trip of work more than a recall after a recall */
	for (i = 0; i < rounds; i++) {
		memory_text(rounds + i, name, content, sizeof(content));
		snprintf(req, sizeof(req), "{\"jsonrpc\":\"2.0\",\"id\":%d,"
		    "\"method\":\"tools/call\",\"params\":{\"name\":"
		    "\"memory_remember\",\"arguments\":{\"label\":\"%s\","
		    "\"content\":\"%s\",\"store\":\"%s\"}}}", i + 200000, name,
		    content, store);
		roundtrip(&c, req, NULL);
		snprintf(req, sizeof(req), "{\"jsonrpc\":\"2.0\",\"id\":%d,"
		    "\"method\":\"tools/call\",\"params\":{\"name\":"
		    "\"memory_recall\",\"arguments\":{\"query\":\"how do we "
		    "handle %s %s errors\",\"store\":\"%s\"}}}", i + 300000,
		    words[i % 10], words[(i / 10 + 3) % 10], store);
		t[i] = roundtrip(&c, req, &cpu[i]);
	}
	report("memory_recall after a write", label, t, cpu, rounds);
	printf("  %-28s %7.1f MB (peak %.1f MB)\n", "VmRSS with the model",
	    rss_mb(c.pid, "VmRSS:"), rss_mb(c.pid, "VmHWM:"));
	fclose(c.to);
	waitpid(c.pid, &status, 0);
	fclose(c.from);
	free(c.line);
	free(t);
	free(cpu);
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc == 7 && strcmp(argv[1], "populate") == 0)
		return populate(argv[2], argv[3], atoi(argv[4]), atoi(argv[5]),
		    strtod(argv[6], NULL));
	if ((argc == 5 || argc == 6) && strcmp(argv[1], "serve") == 0)
		return serve(argv[2], argv[3], atoi(argv[4]),
		    argc == 6 ? argv[5] : NULL);
	if (argc == 3 && strcmp(argv[1], "texts") == 0)
		return texts(atoi(argv[2]));
	fputs("usage: b200-mcp populate DB STORE N THEMES NOISE\n"
	    "       b200-mcp serve THATCH STORE ROUNDS [LABEL]\n"
	    "       b200-mcp texts ROUNDS\n", stderr);
	return 2;
}
