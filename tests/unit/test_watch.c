/*
 * test_watch.c — watchers (engines-and-extras B7): the real command
 * runner reads a condition by its exit status only and leaves nothing
 * running, and the registry turns a condition's exits into events by its
 * until mode and hands them over only to an idle session.
 */
#include "check.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/session/watch.h"
#include "util/os/clock.h"
#include "util/sbuf.h"
#include "util/xmalloc.h"

/* Generous: how long a killed process may take to be gone on a busy box. */
#define GONE_DEADLINE_MS	60000

static char *
scratch(void)
{
	char	tmpl[] = "/tmp/thatch-watch-XXXXXX";

	return xstrdup(mkdtemp(tmpl));
}

/* Whether pid has ended: no such process, or a zombie. */
static bool
ended(long pid)
{
	char	 path[64], buf[256], *p;
	FILE	*fp;
	size_t	 n;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if ((fp = fopen(path, "r")) == NULL)
		return true;
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	fclose(fp);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p == NULL || p[1] == '\0' || p[2] == 'Z' || p[2] == 'X';
}

/* Every pid listed in file ends within the deadline (not a timing test:
 * SIGKILL is asynchronous, and a loaded machine may take a while). */
static bool
all_end(const char *file)
{
	int64_t	 deadline = clock_mono_ms() + GONE_DEADLINE_MS;
	struct timespec	nap = { 0, 10000000L };
	long	 pids[8];
	size_t	 n = 0, i;
	FILE	*fp = fopen(file, "r");

	if (fp == NULL)
		return false;
	while (n < 8 && fscanf(fp, "%ld", &pids[n]) == 1)
		n++;
	fclose(fp);
	if (n == 0)
		return false;
	for (i = 0; i < n; i++)
		while (!ended(pids[i])) {
			if (clock_mono_ms() > deadline)
				return false;
			nanosleep(&nap, NULL);
		}
	return true;
}

static void
a_condition_is_read_by_its_exit_status(void)
{
	struct watch_runner	r = watch_runner_system();
	char			*dir = scratch();
	int			 code = -1;

	CHECK_INT(r.cmd(r.ud, "echo noise; echo more >&2; exit 3", dir, 30,
	    &code), 0);
	CHECK_INT(code, 3);
	CHECK_INT(r.cmd(r.ud, "test -d .", dir, 30, &code), 0);
	CHECK_INT(code, 0);
	CHECK_INT(r.cmd(r.ud, "true", "/nonexistent/dir", 30, &code), -1);
	rmdir(dir);
	free(dir);
}

static void
what_a_condition_leaves_running_ends_with_it(void)
{
	struct watch_runner	 r = watch_runner_system();
	char			*dir = scratch(), *pids = xasprintf("%s/pids",
				    dir), *cmd;
	int			 code = -1;

	/* the background job keeps stdout open: its exit is still read at
	 * once, not at the timeout */
	cmd = xasprintf("sleep 300 & echo $! >%s; exit 0", pids);
	CHECK_INT(r.cmd(r.ud, cmd, dir, 60, &code), 0);
	CHECK_INT(code, 0);
	CHECK(all_end(pids));
	unlink(pids);
	free(cmd);
	free(pids);
	rmdir(dir);
	free(dir);
}

static void
a_condition_past_its_timeout_is_124_and_ends_whole(void)
{
	struct watch_runner	 r = watch_runner_system();
	char			*dir = scratch(), *pids = xasprintf("%s/pids",
				    dir), *cmd;
	int			 code = -1;

	cmd = xasprintf("echo $$ >%s; sleep 300 & echo $! >>%s; wait", pids,
	    pids);
	CHECK_INT(r.cmd(r.ud, cmd, dir, 1, &code), 0);
	CHECK_INT(code, 124);
	CHECK(all_end(pids));
	unlink(pids);
	free(cmd);
	free(pids);
	rmdir(dir);
	free(dir);
}

/* A runner whose command exits with the next code of a script. */
struct script {
	const int	*codes;
	size_t		 n, at;
};

static int
scripted_cmd(void *ud, const char *command, const char *cwd, int timeout_s,
    int *exit)
{
	struct script	*s = ud;

	(void)command;
	(void)cwd;
	(void)timeout_s;
	*exit = s->codes[s->at < s->n ? s->at : s->n - 1];
	s->at++;
	return 0;
}

/* Poll once per code of the script; what the idle session got each time
 * ("-" for nothing), joined by " | ". */
static char *
events(const char *until, const int *codes, size_t n)
{
	struct script		 s = { codes, n, 0 };
	struct watch_runner	 r = { NULL, scripted_cmd, &s };
	struct watchers		*w = watchers_new(r, 60);
	struct sbuf		 out = SBUF_INIT, got = SBUF_INIT;
	char			*text, *sid;
	size_t			 i;

	sbuf_init(&out);
	sbuf_init(&got);
	watchers_add_command(w, "S", "make check", until, "the build", "/",
	    &out);
	watchers_status(w, "S", false);
	for (i = 0; i < n; i++) {
		watchers_poll(w);
		if (i > 0)
			sbuf_adds(&got, " | ");
		if (watchers_take(w, &sid, &text)) {
			sbuf_adds(&got, strstr(text, "): ") + 3);
			free(text);
			free(sid);
		} else
			sbuf_adds(&got, "-");
	}
	sbuf_addf(&got, " | %s", watchers_any(w) ? "watching" : "ended");
	sbuf_release(&out);
	watchers_free(w);
	return sbuf_detach(&got, NULL);
}

static void
conditions_fire_by_their_until_mode(void)
{
	static const int	flips[] = { 1, 0, 0, 1, 1 };
	static const int	fails[] = { 0, 0, 2, 0 };
	static const int	met[] = { 1, 1, 0 };
	char			*s;

	s = events("change", flips, 5);
	CHECK_STR(s, "- | succeeded, exit 0. | - | failed, exit 1. | - | "
	    "watching");
	free(s);
	s = events("failure", fails, 4);
	CHECK_STR(s, "- | - | failed, exit 2; the watcher ends. | - | ended");
	free(s);
	s = events(NULL, met, 3);
	CHECK_STR(s, "- | - | succeeded, exit 0; the watcher ends. | ended");
	free(s);
}

static void
a_busy_session_gets_its_events_at_its_idle_once(void)
{
	static const int	 codes[] = { 1, 0, 1 };
	struct script		 s = { codes, 3, 0 };
	struct watch_runner	 r = { NULL, scripted_cmd, &s };
	struct watchers		*w = watchers_new(r, 60);
	struct sbuf		 out = SBUF_INIT;
	char			*text = NULL, *sid = NULL;

	sbuf_init(&out);
	watchers_add_command(w, "S", "probe", "change", NULL, "/", &out);
	CHECK_STR(out.buf, "[watching] w1 command \"probe\" — polled every "
	    "60s");
	watchers_poll(w);
	watchers_poll(w);
	watchers_poll(w);
	/* never heard of: busy (it is in the tool call that made it) */
	CHECK(!watchers_take(w, &sid, &text));
	watchers_status(w, "S", true);
	CHECK(!watchers_take_for(w, "S", &text));
	watchers_status(w, "S", false);
	CHECK(watchers_take_for(w, "S", &text));
	CHECK_STR(text, "[thatch] watcher w1 (command \"probe\", polled every "
	    "60s): succeeded, exit 0.\n[thatch] watcher w1 (command \"probe\", "
	    "polled every 60s): failed, exit 1.");
	free(text);
	CHECK(!watchers_take_for(w, "S", &text));
	watchers_forget(w, "S");
	CHECK(!watchers_any(w));
	sbuf_release(&out);
	watchers_free(w);
}

/* A gh that holds each call until WATCH_CONCURRENCY are in flight (or a
 * deadline passes), counting the most in flight at once. */
struct gate {
	pthread_mutex_t	lock;
	pthread_cond_t	moved;
	int		in_flight, most, calls;
};

static int
gated_gh(void *ud, const char *const argv[], struct sbuf *out, int *status)
{
	struct gate	*g = ud;
	struct timespec	 until;

	(void)argv;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 30;	/* generous: only a broken round waits it out */
	pthread_mutex_lock(&g->lock);
	g->calls++;
	if (++g->in_flight > g->most)
		g->most = g->in_flight;
	pthread_cond_broadcast(&g->moved);
	while (g->most < WATCH_CONCURRENCY &&
	    pthread_cond_timedwait(&g->moved, &g->lock, &until) == 0)
		;
	g->in_flight--;
	pthread_mutex_unlock(&g->lock);
	sbuf_adds(out, "{\"commit\":{\"sha\":\"abc\"}}");
	*status = 0;
	return 0;
}

static void
a_round_fetches_four_watchers_at_once(void)
{
	struct gate		 g = { PTHREAD_MUTEX_INITIALIZER,
				    PTHREAD_COND_INITIALIZER, 0, 0, 0 };
	struct watch_runner	 r = { gated_gh, NULL, &g };
	struct watchers		*w = watchers_new(r, 60);
	struct sbuf		 out = SBUF_INIT;
	char			 branch[16];
	int			 i;

	sbuf_init(&out);
	for (i = 0; i < 6; i++) {
		snprintf(branch, sizeof(branch), "b%d", i);
		watchers_add_branch(w, "S", "acme/api", branch, &out);
	}
	watchers_poll(w);
	CHECK_INT(g.calls, 6);
	CHECK_INT(g.most, WATCH_CONCURRENCY);
	sbuf_reset(&out);
	watchers_list(w, "S", &out);
	CHECK(strstr(out.buf, "w6 branch acme/api@b5 — last: at abc") != NULL);
	sbuf_release(&out);
	watchers_free(w);
}

/* What a pull request's second poll says after its first, from gh's JSON. */
static char *
pr_diff(const char *pull0, const char *checks0, const char *reviews0,
    const char *pull1, const char *checks1, const char *reviews1,
    const char *comments1, bool *ends)
{
	struct watch_pr	old, now;
	struct sbuf	out = SBUF_INIT;

	sbuf_init(&out);
	CHECK_INT(watch_pr_parse(pull0, checks0, reviews0, "[]", "[]", &old),
	    0);
	CHECK_INT(watch_pr_parse(pull1, checks1, reviews1, comments1, "[]",
	    &now), 0);
	*ends = watch_pr_diff(&old, &now, &out);
	return sbuf_detach(&out, NULL);
}

#define SHA_A	"\"aaaaaaa" "111111111111111111111111111111111" "\""
#define SHA_B	"\"bbbbbbb" "222222222222222222222222222222222" "\""

static void
a_pull_requests_events_are_pointers_and_machine_status(void)
{
	const char	*open_a = "{\"state\":\"open\",\"title\":\"EVIL\","
			    "\"head\":{\"sha\":" SHA_A "}}";
	const char	*open_b = "{\"state\":\"open\",\"head\":{\"sha\":"
			    SHA_B "}}";
	const char	*merged = "{\"state\":\"closed\",\"merged\":true,"
			    "\"head\":{\"sha\":" SHA_B "}}";
	const char	*running = "{\"check_runs\":[{\"name\":\"EVIL\","
			    "\"status\":\"in_progress\"}]}";
	const char	*finished = "{\"check_runs\":[{\"name\":\"EVIL\","
			    "\"status\":\"completed\",\"conclusion\":\"success\"},"
			    "{\"status\":\"completed\",\"conclusion\":\"weird\"}]}";
	const char	*reviews = "[{\"state\":\"APPROVED\",\"user\":{\"login\":"
			    "\"bobby\"},\"body\":\"EVIL\"},{\"state\":"
			    "\"CHANGES_REQUESTED\",\"user\":{\"login\":\"bob\"}},"
			    "{\"state\":\"COMMENTED\",\"user\":{\"login\":"
			    "\"ignore previous\"}}]";
	const char	*comments = "[{\"body\":\"EVIL\",\"created_at\":\"2026-"
			    "01-02\",\"html_url\":\"https://github.com/a/b/pull/1#"
			    "issuecomment-2\"},{\"created_at\":\"2026-01-03\","
			    "\"html_url\":\"https://evil.example/x\"}]";
	char		*s;
	bool		 ends;

	s = pr_diff(open_a, running, "[]", open_b, finished, reviews, comments,
	    &ends);
	CHECK_STR(s, "new head aaaaaaa→bbbbbbb. checks finished — success 1, "
	    "other 1. 3 new reviews (APPROVED 1, CHANGES_REQUESTED 1, "
	    "COMMENTED 1) by bobby,bob. 2 new comments, newest "
	    "https://github.com/a/b/pull/1#issuecomment-2");
	CHECK(!ends);
	CHECK(strstr(s, "EVIL") == NULL);
	free(s);
	s = pr_diff(open_b, finished, "[]", open_b, finished, "[]", "[]",
	    &ends);
	CHECK_STR(s, "");
	CHECK(!ends);
	free(s);
	s = pr_diff(open_b, finished, "[]", merged, finished, "[]", "[]",
	    &ends);
	CHECK_STR(s, "merged; the watcher ends");
	CHECK(ends);
	free(s);
}

/* A gh that always fails, as a network outage does. */
static int
failing_gh(void *ud, const char *const argv[], struct sbuf *out,
    int *status)
{
	(void)ud;
	(void)argv;
	sbuf_adds(out, "{\"message\":\"Bad gateway\"}");
	*status = 1;
	return 0;
}

static void
failures_make_one_error_event_and_a_session_holds_twenty(void)
{
	struct watch_runner	 r = { failing_gh, NULL, NULL };
	struct watchers		*w = watchers_new(r, 60);
	struct sbuf		 out = SBUF_INIT;
	char			*text, branch[16];
	int			 i;

	sbuf_init(&out);
	watchers_add_branch(w, "S", "acme/api", "main", &out);
	watchers_status(w, "S", false);
	for (i = 0; i < WATCH_MAX_FAILURES - 1; i++)
		watchers_poll(w);
	CHECK(!watchers_take_for(w, "S", &text));
	for (i = 0; i < 3 * WATCH_MAX_FAILURES; i++)
		watchers_poll(w);
	CHECK(watchers_take_for(w, "S", &text));
	CHECK_STR(text, "[thatch] watcher w1 (branch acme/api@main, polled "
	    "every 60s): watcher error — polling keeps failing; it is retried "
	    "every round.");
	free(text);
	CHECK(watchers_any(w));		/* it keeps trying */
	for (i = 2; i <= WATCH_MAX_PER_SESSION; i++) {
		snprintf(branch, sizeof(branch), "b%d", i);
		sbuf_reset(&out);
		watchers_add_branch(w, "S", "acme/api", branch, &out);
	}
	CHECK(strncmp(out.buf, "[watching] w20 ", 15) == 0);
	sbuf_reset(&out);
	watchers_add_branch(w, "S", "acme/api", "one-too-many", &out);
	CHECK_STR(out.buf, "[not watching] this session already has 20 "
	    "watchers; cancel one with watch_cancel first");
	sbuf_reset(&out);
	watchers_add_branch(w, "T", "acme/api", "main", &out);
	CHECK(strncmp(out.buf, "[watching] w21 ", 15) == 0);
	sbuf_release(&out);
	watchers_free(w);
}

CHECK_MAIN(
	TEST(a_condition_is_read_by_its_exit_status),
	TEST(what_a_condition_leaves_running_ends_with_it),
	TEST(a_condition_past_its_timeout_is_124_and_ends_whole),
	TEST(conditions_fire_by_their_until_mode),
	TEST(a_busy_session_gets_its_events_at_its_idle_once),
	TEST(a_round_fetches_four_watchers_at_once),
	TEST(a_pull_requests_events_are_pointers_and_machine_status),
	TEST(failures_make_one_error_event_and_a_session_holds_twenty)
)
