/*
 * cmd_doctor.c — `thatch doctor [--json]`: is everything thatch needs in
 * place? One line per finding, ✓ (fine), ✗ (wrong, with what to do) or ·
 * (nothing wrong, worth knowing: a host not set up, no server running);
 * exit 1 when any line is ✗.
 *
 * The checks are rows of checks[] (name + function), run in order; to add
 * one, write its function and add its row. A row may use what an earlier
 * row found: d->store is the database row's read-only connection (NULL
 * when it did not open), d->dim and d->model_tag the model row's (0 and
 * NULL when it did not load).
 *
 * Invariants:
 *  1. Doctor changes nothing: the database is opened read-only (a missing
 *     one is reported, never created), the model is neither downloaded
 *     nor packed to disk, the sideband probe removes no stale socket, the
 *     queue is only peeked at, and the debug log is closed first so that
 *     not even a log line is written.
 *  2. Project scope is judged where setup would write it (the top of the
 *     git work tree, setup_project_top), so doctor and setup agree.
 *  3. Not set up, no server running and an empty queue are states, not
 *     faults: only something that keeps thatch from working is ✗.
 */
#include "cli/cmd.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/session/queue.h"
#include "core/store/store.h"
#include "embed/model.h"
#include "host/setup/setup.h"
#include "host/setup/setup_check.h"
#include "host/setup/setup_host.h"
#include "host/sideband/sideband_client.h"
#include "util/log.h"
#include "util/sbuf.h"
#include "util/xmalloc.h"

/* How long a server may take to answer the probe. */
#define DOCTOR_PROBE_MS	2000

enum mark {
	MARK_OK,
	MARK_BAD,
	MARK_INFO,
};

static const char *const marks[] = { "✓", "✗", "·" };
static const char *const mark_names[] = { "ok", "fail", "info" };

struct doctor {
	struct cli_ctx	*ctx;
	json_t		*checks;	/* owned; --json's rows or NULL */
	int		 bad;
	char		*log_file;	/* owned; NULL: no debug log */
	char		*log_filter;	/* owned */
	struct store	*store;		/* owned; the database row's */
	int		 dim;		/* the model row's */
	char		*model_tag;	/* owned */
};

static void	say(struct doctor *, enum mark, const char *, const char *,
		    const char *, ...) __attribute__((format(printf, 5, 6)));

/* One finding: "<mark> <check>: <detail>", then " — <fix>" when given. */
static void
say(struct doctor *d, enum mark m, const char *check, const char *fix,
    const char *fmt, ...)
{
	char	detail[2048];
	va_list	ap;

	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	if (m == MARK_BAD)
		d->bad++;
	if (d->checks != NULL) {
		json_array_append_new(d->checks, json_pack("{s:s, s:s, s:o, "
		    "s:o}", "check", check, "status", mark_names[m], "detail",
		    cli_json_str(detail), "fix", fix != NULL ?
		    cli_json_str(fix) : json_null()));
		return;
	}
	printf("%s %s: %s", marks[m], check, detail);
	if (fix != NULL)
		printf(" — %s", fix);
	putchar('\n');
}

/* A size as people read it. */
static void
human_size(char *buf, size_t n, long long bytes)
{
	if (bytes < 1024)
		snprintf(buf, n, "%lld bytes", bytes);
	else if (bytes < 1024 * 1024)
		snprintf(buf, n, "%.1f KiB", (double)bytes / 1024);
	else
		snprintf(buf, n, "%.1f MiB", (double)bytes / (1024 * 1024));
}

static void
check_database(struct doctor *d)
{
	const char	*path = d->ctx->paths.db_path;
	struct stat	 st;
	struct err	 err;
	char		 why[256], size[32];
	int		 rc;

	if (stat(path, &st) != 0) {
		say(d, MARK_BAD, "database", "run `thatch stores` (or start "
		    "a host) to create it", "%s does not exist", path);
		return;
	}
	if (store_open_readonly(path, &d->store, &err) != 0) {
		say(d, MARK_BAD, "database", "check the file's permissions, "
		    "or set THATCH_DB_PATH", "%s", err.msg);
		return;
	}
	human_size(size, sizeof(size), (long long)st.st_size);
	rc = store_quick_check(d->store, why, sizeof(why), &err);
	if (rc == 0) {
		say(d, MARK_OK, "database", NULL, "%s (%s, opens, integrity "
		    "check passed)", path, size);
		return;
	}
	/* rc -1: not even the check could read it (not a database) */
	say(d, MARK_BAD, "database", "restore it from a backup, or try "
	    "`sqlite3 <file> .recover`; moved aside, thatch starts a new one",
	    "%s fails its integrity check: %s", path, rc < 0 ? err.msg : why);
	store_close(d->store);
	d->store = NULL;
}

struct census {
	struct store	*store;
	struct sbuf	 list;
	int		 stores, total;
	struct err	*err;
};

static int
count_store(const char *name, void *arg)
{
	struct census	*c = arg;
	int		 n;

	if (store_count(c->store, name, &n, c->err) != 0)
		return -1;
	if (c->stores < 10)
		sbuf_addf(&c->list, "%s%s %d", c->stores ? ", " : "", name,
		    n);
	else if (c->stores == 10)
		sbuf_adds(&c->list, ", …");
	c->stores++;
	c->total += n;
	return 0;
}

static void
check_memories(struct doctor *d)
{
	struct err	err;
	struct census	c = { d->store, SBUF_INIT, 0, 0, &err };

	if (d->store == NULL)
		return;		/* the database row said why */
	sbuf_init(&c.list);
	err.msg[0] = '\0';
	if (store_list_stores(d->store, count_store, &c, &err) != 0)
		say(d, MARK_BAD, "memories", "run `thatch stores` to bring "
		    "the database up to date", "cannot count them: %s",
		    err.msg);
	else
		say(d, MARK_OK, "memories", NULL, "%d in %d store%s%s%s%s",
		    c.total, c.stores, c.stores == 1 ? "" : "s",
		    c.stores ? " (" : "", c.list.buf, c.stores ? ")" : "");
	sbuf_release(&c.list);
}

/* The vector file is a cache: whatever its state, search is exact. */
static void
check_vecfile(struct doctor *d)
{
	enum store_vecfile_state	 state;
	char				*path, size[32];
	long long			 bytes;

	if (d->store == NULL)
		return;		/* the database row said why */
	state = store_vecfile_state(d->store, &path, &bytes);
	human_size(size, sizeof(size), bytes);
	switch (state) {
	case STORE_VECFILE_CURRENT:
		say(d, MARK_OK, "vector file", NULL, "%s (%s, current: a "
		    "search maps it instead of reading every vector)", path,
		    size);
		break;
	case STORE_VECFILE_STALE:
		say(d, MARK_INFO, "vector file", NULL, "%s (%s) is out of "
		    "date or damaged: the next search reads the table and "
		    "rebuilds it", path, size);
		break;
	case STORE_VECFILE_NONE:
		say(d, MARK_INFO, "vector file", NULL, "none yet: the next "
		    "search writes one beside the database");
		break;
	case STORE_VECFILE_UNKEYED:
		say(d, MARK_INFO, "vector file", NULL, "not kept: the "
		    "database lacks thatch's generation table (it is added "
		    "on the next open that can write)");
		break;
	}
	free(path);
}

static void
check_model(struct doctor *d)
{
	struct model_opts	 o;
	struct model_info	 i;
	struct model		*m = NULL;
	struct err		 err;

	model_opts_init(&o, &d->ctx->paths);
	free(o.pack_dir);
	o.pack_dir = NULL;	/* invariant 1: packed in memory */
	o.download = false;
	o.progress = false;
	if (model_open(&o, &m, &err) != 0)
		say(d, MARK_BAD, "model", "run `thatch model pull` (or check "
		    "THATCH_MODEL)", "%s: %s", o.id, err.msg);
	else {
		model_describe(m, &i);
		d->dim = i.dim;
		d->model_tag = xstrdup(i.tag);
		/* a folder named by THATCH_MODEL is its own tag */
		say(d, MARK_OK, "model", NULL, "%s (%d dimensions%s%s)",
		    i.tag, i.dim, strcmp(i.tag, i.dir) != 0 ? ", in " : "",
		    strcmp(i.tag, i.dir) != 0 ? i.dir : "");
	}
	model_close(m);
	model_opts_release(&o);
}

/*
 * Rows embedded by another model than the one in effect: invisible to
 * recall until `thatch reembed` (store_space.c). Needs the model row's
 * space and the database row's store.
 */
static void
check_space(struct doctor *d)
{
	struct store_space	 sp = { d->dim, d->model_tag };
	struct store_space_count c;
	struct err		 err;
	long long		 n;

	if (d->store == NULL || d->model_tag == NULL)
		return;		/* their rows said why */
	if (store_count_other_space(d->store, NULL, &sp, &c, &err) != 0)
		say(d, MARK_BAD, "embedding space", "run `thatch model info`",
		    "cannot count the rows: %s", err.msg);
	else if (c.memories + c.matchers + c.items == 0)
		say(d, MARK_OK, "embedding space", NULL, "every row is %s's",
		    d->model_tag);
	else {
		n = c.memories + c.matchers + c.items;
		say(d, MARK_BAD, "embedding space", "run `thatch reembed`",
		    "%lld row%s (memories %lld, matchers %lld, items %lld) "
		    "embedded by another model than %s, invisible to recall",
		    n, n == 1 ? "" : "s", c.memories, c.matchers, c.items,
		    d->model_tag);
	}
}

/* One row of setup_host_table, as `thatch setup` names it. */
static void
check_host(struct doctor *d, const struct setup_host *h, bool global)
{
	struct setup_opts	o = { &d->ctx->paths, NULL, global };
	struct setup_check	c;
	char			name[64], fix[128];

	snprintf(name, sizeof(name), "%s (%s)", h->name, global ?
	    "global" : "project");
	snprintf(fix, sizeof(fix), "run `thatch setup %s%s`", h->flag,
	    global ? " --global" : "");
	setup_check_init(&c);
	h->check(&o, &c);
	if (c.found == 0)
		say(d, MARK_INFO, name, fix, "not set up");
	else if (c.found == c.expected && c.problems.len == 0)
		say(d, MARK_OK, name, NULL, "set up (%d of %d pieces in "
		    "place, every program they run exists)", c.found,
		    c.expected);
	else
		say(d, MARK_BAD, name, c.fix != NULL ? c.fix : fix, "%s",
		    c.problems.buf);
	setup_check_release(&c);
}

static void
check_hosts(struct doctor *d)
{
	size_t	i;

	for (i = 0; i < setup_host_count; i++) {
		check_host(d, &setup_host_table[i], false);
		check_host(d, &setup_host_table[i], true);
	}
}

static void
check_server(struct doctor *d)
{
	struct sideband_client_probe	p;
	int				live, stale, silent;

	sideband_client_probe(&d->ctx->paths, &p, DOCTOR_PROBE_MS);
	live = p.count[SIDEBAND_CLIENT_ANSWERS];
	stale = p.count[SIDEBAND_CLIENT_STALE];
	silent = p.count[SIDEBAND_CLIENT_SILENT];
	if (silent > 0)
		say(d, MARK_BAD, "server", "restart the host; if it keeps "
		    "happening, look in the debug log (THATCH_DEBUG=1)",
		    "%d MCP server%s of this database accept%s but did not "
		    "answer within %d s", silent, silent == 1 ? "" : "s",
		    silent == 1 ? "s" : "", DOCTOR_PROBE_MS / 1000);
	if (live > 0)
		say(d, MARK_OK, "server", NULL, "%d MCP server%s of this "
		    "database answer%s over the sideband", live,
		    live == 1 ? "" : "s", live == 1 ? "s" : "");
	else if (silent == 0)
		say(d, MARK_INFO, "server", "a host starts one (`thatch mcp`) "
		    "when a session begins", "no MCP server of this database "
		    "is running; hooks work without one, less the recall "
		    "nudges");
	if (stale > 0)
		say(d, MARK_INFO, "server", NULL, "%d socket%s left by killed "
		    "servers (harmless: the next hook removes them)", stale,
		    stale == 1 ? "" : "s");
}

static void
check_queue(struct doctor *d)
{
	const char	*dir = d->ctx->paths.queue_dir;
	struct dirent	*de;
	struct err	 err;
	json_t		*recs;
	char		*sid;
	size_t		 n;
	int		 sessions = 0, calls = 0, failed = 0;
	DIR		*dp;

	if ((dp = opendir(dir)) == NULL) {
		if (errno == ENOENT)
			say(d, MARK_OK, "queue", NULL, "empty (%s)", dir);
		else
			say(d, MARK_BAD, "queue", "check the folder's "
			    "permissions", "cannot read %s: %s", dir,
			    strerror(errno));
		return;
	}
	while ((de = readdir(dp)) != NULL) {
		n = strlen(de->d_name);
		if (de->d_name[0] == '.' || n <= 6 ||
		    strcmp(de->d_name + n - 6, ".jsonl") != 0)
			continue;
		sid = xstrndup(de->d_name, n - 6);
		if (queue_peek(dir, sid, &recs, &err) != 0) {
			if (failed++ == 0)
				say(d, MARK_BAD, "queue", "delete the file; "
				    "its calls are lost either way", "%s",
				    err.msg);
		} else if (json_array_size(recs) > 0) {
			sessions++;
			calls += (int)json_array_size(recs);
		}
		json_decref(recs);
		free(sid);
	}
	closedir(dp);
	if (sessions == 0 && failed == 0)
		say(d, MARK_OK, "queue", NULL, "empty (%s)", dir);
	else if (sessions > 0)
		say(d, MARK_OK, "queue", NULL, "%d session%s with %d tool "
		    "call%s waiting for extraction (%s)", sessions,
		    sessions == 1 ? "" : "s", calls, calls == 1 ? "" : "s",
		    dir);
}

static void
check_debug_log(struct doctor *d)
{
	struct stat	 st;
	char		*dir, size[32];

	if (d->log_file == NULL) {
		say(d, MARK_OK, "debug log", NULL, "off (THATCH_DEBUG=1 "
		    "writes %s/debug.log)", d->ctx->paths.db_dir);
		return;
	}
	dir = path_dirname(d->log_file);
	if (access(dir, W_OK) != 0)
		say(d, MARK_BAD, "debug log", "make the folder writable, or "
		    "unset THATCH_DEBUG", "on (THATCH_DEBUG=%s), but %s cannot "
		    "be written", d->log_filter, dir);
	else {
		if (stat(d->log_file, &st) == 0)
			human_size(size, sizeof(size), (long long)st.st_size);
		else
			snprintf(size, sizeof(size), "not written yet");
		say(d, MARK_OK, "debug log", NULL, "on (THATCH_DEBUG=%s): %s "
		    "(%s)", d->log_filter, d->log_file, size);
	}
	free(dir);
}

/* The checks, in the order they print. */
static const struct {
	const char	*name;
	void		(*run)(struct doctor *);
} checks[] = {
	{ "database", check_database },
	{ "memories", check_memories },
	{ "vector file", check_vecfile },
	{ "model", check_model },
	{ "embedding space", check_space },
	{ "hosts", check_hosts },
	{ "server", check_server },
	{ "queue", check_queue },
	{ "debug log", check_debug_log },
};

static int
cmd_doctor_exec(struct cli_ctx *ctx, int argc, char **argv)
{
	struct doctor	 d;
	size_t		 i;

	(void)argc;
	(void)argv;
	memset(&d, 0, sizeof(d));
	d.ctx = ctx;
	if (cli_flag(ctx, "--json"))
		d.checks = json_array();
	if (log_file() != NULL) {
		d.log_file = xstrdup(log_file());
		d.log_filter = xstrdup(log_filter());
	}
	log_close();		/* invariant 1 */
	free(setup_project_top(&ctx->paths));	/* invariant 2 */
	for (i = 0; i < sizeof(checks) / sizeof(checks[0]); i++)
		checks[i].run(&d);
	if (d.checks != NULL)
		cli_print_json(json_pack("{s:b, s:o}", "ok", d.bad == 0,
		    "checks", d.checks));
	else if (d.bad > 0)
		printf("\n%d problem%s found.\n", d.bad, d.bad == 1 ? "" :
		    "s");
	store_close(d.store);
	free(d.model_tag);
	free(d.log_file);
	free(d.log_filter);
	return d.bad > 0 ? 1 : 0;
}

static const struct cmd_opt doctor_opts[] = {
	{ "--json", NULL, "print one JSON document: ok, and each check's "
	    "status, detail and fix" },
	{ NULL, NULL, NULL },
};

const struct cmd_entry cmd_doctor_entry = {
	.name = "doctor",
	.args = "",
	.max_args = 0,
	.opts = doctor_opts,
	.env = "THATCH_MODEL HF_HOME CLAUDE_CONFIG_DIR CURSOR_CONFIG_DIR "
	    "XDG_CONFIG_HOME XDG_CACHE_HOME THATCH_QUEUE_DIR XDG_RUNTIME_DIR",
	.reads = READS_PROJECT,
	.example = "thatch doctor",
	.summary = "check the database, model, host setups, server and queue",
	.exec = cmd_doctor_exec,
};
