/*
 * watch.c — the watcher registry, its poll round and the per-session
 * queues (engines-and-extras B7).
 *
 *  1. State lives as long as the process (B7: no SQLite); watchers are
 *     numbered w1, w2, … per process; at most WATCH_MAX_PER_SESSION per
 *     session.
 *  2. The first poll of a watcher records a baseline and says nothing;
 *     later polls queue only what changed (watch_pr_diff, the branch's
 *     sha, the command's exit class).
 *  3. A failed poll (gh or the command cannot run, or gh's answer is not
 *     what it should be) is retried at the next round; the
 *     WATCH_MAX_FAILURES-th in a row queues one "watcher error" event.
 *  4. Queued events wait for their session's idle; a session whose
 *     status was never heard is taken as busy (it is in the middle of
 *     the tool call that made the watcher).
 *  5. Commands are the agent's one argument, run as `bash -c <it>`; only
 *     the exit status is read: its output goes to /dev/null, and its
 *     process group is killed when it exits or times out (spawn_quiet).
 *     gh gets argv built from validated repo, number and branch only.
 *  6. A round runs in two phases: the fetching (gh, the command) of up to
 *     WATCH_CONCURRENCY watchers at a time, without the lock, each
 *     reading only what never changes after the watcher is made; then,
 *     under the lock, the comparing and queueing. So the tools and the
 *     session events (which take the lock) never wait for gh or a
 *     command, and a watcher cancelled mid-round is freed by the round.
 */
#include "core/session/watch.h"

#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "util/err.h"
#include "util/jsonx.h"
#include "util/log.h"
#include "util/sbuf.h"
#include "util/os/spawn.h"
#include "util/xmalloc.h"

#define LOG_TAG		"watchers:poll"
#define GH_TIMEOUT_MS	60000

enum watch_kind { WATCH_PR, WATCH_BRANCH, WATCH_CMD };

struct watcher {
	int		 id;
	enum watch_kind	 kind;
	char		*sid;		/* owned */
	char		*target;	/* owned: "o/r#N", "o/r@b", command */
	char		*label;		/* owned: what events call it */
	char		*repo, *branch;	/* owned (PR, branch) */
	long long	 number;
	char		*cwd;		/* owned (command) */
	char		 until[8];	/* command: success, failure, change */
	bool		 baseline;	/* first poll done */
	int		 failures;
	char		 last[48];	/* status shown by watch_list */
	struct watch_pr	 pr;
	char		 sha[41];	/* branch */
	int		 exit;		/* command: last exit code */
	bool		 done;		/* ended: removed after the round */
	bool		 in_round;	/* a round is fetching it (inv. 6) */
	bool		 cancelled;	/* gone meanwhile: the round frees it */
};

/* What a round fetched for one watcher, compared afterwards (inv. 6). */
struct fetched {
	bool		 ok;		/* gh or the command answered */
	bool		 missing;	/* branch: gh said Not Found */
	struct watch_pr	 pr;
	char		 sha[41];
	int		 exit;
};

struct session {
	char		*sid;		/* owned */
	bool		 idle;
	struct sbuf	 queue;		/* events, one per line */
};

struct watchers {
	pthread_mutex_t		 lock;		/* everything below */
	struct watch_runner	 run;
	int			 poll_seconds;
	int			 next_id;
	struct watcher		**v;
	size_t			 n;
	struct session		*s;
	size_t			 ns;
};

/* ---- the system runner -------------------------------------------------- */

static int
sys_gh(void *ud, const char *const argv[], struct sbuf *out, int *status)
{
	struct err	err;

	(void)ud;
	if (spawn_capture(argv, NULL, GH_TIMEOUT_MS, out, status, &err) == 0)
		return 0;
	log_debug(LOG_TAG, "gh: %s", err.msg);
	return -1;
}

static int
sys_cmd(void *ud, const char *command, const char *cwd, int timeout_s,
    int *exit)
{
	const char	*argv[] = { "bash", "-c", command, NULL };
	struct err	 err;

	(void)ud;
	/* invariant 5: no output is even kept; nothing it starts outlives it */
	if (spawn_quiet(argv, cwd, timeout_s * 1000, exit, &err) == 0)
		return 0;
	log_debug(LOG_TAG, "command: %s", err.msg);
	return -1;
}

struct watch_runner
watch_runner_system(void)
{
	struct watch_runner	r = { sys_gh, sys_cmd, NULL };

	return r;
}

/* ---- registry ------------------------------------------------------------ */

struct watchers *
watchers_new(struct watch_runner run, int poll_seconds)
{
	struct watchers	*w = xcalloc(1, sizeof(*w));

	pthread_mutex_init(&w->lock, NULL);
	w->run = run;
	w->poll_seconds = poll_seconds;
	w->next_id = 1;
	return w;
}

static void
watcher_free(struct watcher *x)
{
	free(x->sid);
	free(x->target);
	free(x->label);
	free(x->repo);
	free(x->branch);
	free(x->cwd);
	free(x);
}

void
watchers_free(struct watchers *w)
{
	size_t	i;

	if (w == NULL)
		return;
	for (i = 0; i < w->n; i++)
		watcher_free(w->v[i]);
	free(w->v);
	for (i = 0; i < w->ns; i++) {
		free(w->s[i].sid);
		sbuf_release(&w->s[i].queue);
	}
	free(w->s);
	pthread_mutex_destroy(&w->lock);
	free(w);
}

int
watchers_poll_seconds(const struct watchers *w)
{
	return w->poll_seconds;
}

bool
watchers_any(struct watchers *w)
{
	bool	any;

	pthread_mutex_lock(&w->lock);
	any = w->n > 0;
	pthread_mutex_unlock(&w->lock);
	return any;
}

static struct session *
session(struct watchers *w, const char *sid)
{
	size_t	i;

	for (i = 0; i < w->ns; i++)
		if (strcmp(w->s[i].sid, sid) == 0)
			return &w->s[i];
	w->s = xreallocarray(w->s, w->ns + 1, sizeof(*w->s));
	w->s[w->ns].sid = xstrdup(sid);
	w->s[w->ns].idle = false;	/* invariant 4 */
	sbuf_init(&w->s[w->ns].queue);
	return &w->s[w->ns++];
}

static size_t
count_for(const struct watchers *w, const char *sid)
{
	size_t	i, n = 0;

	for (i = 0; i < w->n; i++)
		n += strcmp(w->v[i]->sid, sid) == 0;
	return n;
}

static bool
valid_repo(const char *r)
{
	const char	*slash = strchr(r, '/'), *p;

	if (slash == NULL || slash == r || slash[1] == '\0' ||
	    strchr(slash + 1, '/') != NULL || strlen(r) > 140)
		return false;
	for (p = r; *p != '\0'; p++)
		if (!isalnum((unsigned char)*p) && strchr("/._-", *p) == NULL)
			return false;
	return strstr(r, "..") == NULL;
}

static bool
valid_branch(const char *b)
{
	const char	*p;

	if (*b == '\0' || *b == '/' || *b == '-' || strlen(b) > 200 ||
	    strstr(b, "..") != NULL)
		return false;
	for (p = b; *p != '\0'; p++)
		if (!isalnum((unsigned char)*p) && strchr("/._-+", *p) == NULL)
			return false;
	return true;
}

/* Register x (owned) for sid and say so, or refuse (x freed). */
static void
add(struct watchers *w, struct watcher *x, const char *what,
    struct sbuf *out)
{
	pthread_mutex_lock(&w->lock);
	if (count_for(w, x->sid) >= WATCH_MAX_PER_SESSION) {
		pthread_mutex_unlock(&w->lock);
		sbuf_addf(out, "[not watching] this session already has %d "
		    "watchers; cancel one with watch_cancel first",
		    WATCH_MAX_PER_SESSION);
		watcher_free(x);
		return;
	}
	x->id = w->next_id++;
	snprintf(x->last, sizeof(x->last), "not polled yet");
	w->v = xreallocarray(w->v, w->n + 1, sizeof(*w->v));
	w->v[w->n++] = x;
	session(w, x->sid);
	sbuf_addf(out, "[watching] w%d %s %s — polled every %ds", x->id, what,
	    x->label, w->poll_seconds);
	pthread_mutex_unlock(&w->lock);
}

static struct watcher *
watcher_new(enum watch_kind k, const char *sid)
{
	struct watcher	*x = xcalloc(1, sizeof(*x));

	x->kind = k;
	x->sid = xstrdup(sid);
	return x;
}

void
watchers_add_pr(struct watchers *w, const char *sid, const char *repo,
    long long number, struct sbuf *out)
{
	struct watcher	*x;

	if (!valid_repo(repo) || number < 1) {
		sbuf_adds(out, "[not watching] give repo as owner/repo and a "
		    "pull request number above 0");
		return;
	}
	x = watcher_new(WATCH_PR, sid);
	x->repo = xstrdup(repo);
	x->number = number;
	x->target = xasprintf("%s#%lld", repo, number);
	x->label = xstrdup(x->target);
	add(w, x, "PR", out);
}

void
watchers_add_branch(struct watchers *w, const char *sid, const char *repo,
    const char *branch, struct sbuf *out)
{
	struct watcher	*x;

	if (!valid_repo(repo) || !valid_branch(branch)) {
		sbuf_adds(out, "[not watching] give repo as owner/repo and a "
		    "branch name (letters, digits, / . _ - +)");
		return;
	}
	x = watcher_new(WATCH_BRANCH, sid);
	x->repo = xstrdup(repo);
	x->branch = xstrdup(branch);
	x->target = xasprintf("%s@%s", repo, branch);
	x->label = xstrdup(x->target);
	add(w, x, "branch", out);
}

void
watchers_add_command(struct watchers *w, const char *sid, const char *command,
    const char *until, const char *label, const char *cwd, struct sbuf *out)
{
	struct watcher	*x;

	if (*command == '\0' || strlen(command) > 1000) {
		sbuf_adds(out, "[not watching] the command must be 1 to 1000 "
		    "characters");
		return;
	}
	x = watcher_new(WATCH_CMD, sid);
	x->target = xstrdup(command);
	x->label = xasprintf("\"%s\"", label != NULL && *label != '\0' ?
	    label : command);
	x->cwd = xstrdup(cwd);
	snprintf(x->until, sizeof(x->until), "%s", until ? until : "success");
	add(w, x, "command", out);
}

static const char *const kind_names[] = { "PR", "branch", "command" };

void
watchers_list(struct watchers *w, const char *sid, struct sbuf *out)
{
	size_t	i, n = 0;

	pthread_mutex_lock(&w->lock);
	for (i = 0; i < w->n; i++) {
		if (strcmp(w->v[i]->sid, sid) != 0)
			continue;
		sbuf_addf(out, "w%d %s %s — last: %s — every %ds\n", w->v[i]->id,
		    kind_names[w->v[i]->kind], w->v[i]->label, w->v[i]->last,
		    w->poll_seconds);
		n++;
	}
	pthread_mutex_unlock(&w->lock);
	if (n == 0)
		sbuf_adds(out, "No watchers in this session.");
	else
		sbuf_setlen(out, out->len - 1);
}

/* Out of the registry; a round fetching it frees it (invariant 6). */
static void
remove_at(struct watchers *w, size_t i)
{
	if (w->v[i]->in_round)
		w->v[i]->cancelled = true;
	else
		watcher_free(w->v[i]);
	memmove(&w->v[i], &w->v[i + 1], (w->n - i - 1) * sizeof(*w->v));
	w->n--;
}

void
watchers_cancel(struct watchers *w, const char *sid, const char *id,
    struct sbuf *out)
{
	char	*end;
	long	 n;
	size_t	 i;

	n = strtol(id + (*id == 'w'), &end, 10);
	pthread_mutex_lock(&w->lock);
	for (i = 0; *end == '\0' && i < w->n; i++)
		if (w->v[i]->id == n && strcmp(w->v[i]->sid, sid) == 0) {
			remove_at(w, i);
			pthread_mutex_unlock(&w->lock);
			sbuf_addf(out, "[cancelled] w%ld", n);
			return;
		}
	pthread_mutex_unlock(&w->lock);
	sbuf_adds(out, "No watcher ");
	sbuf_adds(out, id);
	sbuf_adds(out, " in this session (watch_list shows them).");
}

void
watchers_status(struct watchers *w, const char *sid, bool busy)
{
	size_t	i;

	pthread_mutex_lock(&w->lock);
	for (i = 0; i < w->ns; i++)
		if (strcmp(w->s[i].sid, sid) == 0)
			w->s[i].idle = !busy;
	pthread_mutex_unlock(&w->lock);
}

void
watchers_forget(struct watchers *w, const char *sid)
{
	size_t	i;

	pthread_mutex_lock(&w->lock);
	for (i = w->n; i-- > 0;)
		if (strcmp(w->v[i]->sid, sid) == 0)
			remove_at(w, i);
	for (i = 0; i < w->ns; i++)
		if (strcmp(w->s[i].sid, sid) == 0) {
			free(w->s[i].sid);
			sbuf_release(&w->s[i].queue);
			w->s[i] = w->s[--w->ns];
			break;
		}
	pthread_mutex_unlock(&w->lock);
}

/* ---- polling ------------------------------------------------------------- */

static void
queue(struct watchers *w, struct watcher *x, const char *event)
{
	struct sbuf	*q = &session(w, x->sid)->queue;

	sbuf_addf(q, "[thatch] watcher w%d (%s %s, polled every %ds): %s.\n",
	    x->id, kind_names[x->kind], x->label, w->poll_seconds, event);
	log_debug("watchers:deliver", "w%d queued: %s", x->id, event);
}

/* Invariant 3. */
static void
failed(struct watchers *w, struct watcher *x, const char *why)
{
	log_debug(LOG_TAG, "w%d: %s", x->id, why);
	if (++x->failures == WATCH_MAX_FAILURES)
		queue(w, x, "watcher error — polling keeps failing; it is "
		    "retried every round");
}

/* `gh api <path>` into out; false (and a failure) when it fails. */
static bool
gh_api(struct watchers *w, const char *path,
    struct sbuf *out, bool *missing)
{
	const char	*argv[] = { "gh", "api", path, NULL };
	json_t		*j;
	int		 status;

	sbuf_reset(out);
	if (w->run.gh(w->run.ud, argv, out, &status) != 0)
		return false;
	if (status == 0)
		return true;
	j = jsonx_parse(out->buf, out->len, "gh", NULL);
	if (missing != NULL && jsonx_str(j, "message") != NULL &&
	    strcmp(jsonx_str(j, "message"), "Not Found") == 0)
		*missing = true;
	json_decref(j);
	return false;
}

/* `gh api repos/<repo>/<what>` into out, what freed. */
static bool
gh_repo(struct watchers *w, const struct watcher *x, char *what,
    struct sbuf *out)
{
	char	*path = xasprintf("repos/%s/%s", x->repo, what);
	bool	 ok = gh_api(w, path, out, NULL);

	free(path);
	free(what);
	return ok;
}

/* The fetching half of a PR's poll (invariant 6: no lock held). */
static void
fetch_pr(struct watchers *w, const struct watcher *x, struct fetched *f)
{
	struct sbuf	b[5];
	int		i;

	for (i = 0; i < 5; i++)
		sbuf_init(&b[i]);
	f->ok = gh_repo(w, x, xasprintf("pulls/%lld", x->number), &b[0]) &&
	    watch_pr_parse(b[0].buf, NULL, NULL, NULL, NULL, &f->pr) == 0 &&
	    gh_repo(w, x, xasprintf("commits/%s/check-runs", f->pr.head[0] ?
	    f->pr.head : "HEAD"), &b[1]) &&
	    gh_repo(w, x, xasprintf("pulls/%lld/reviews", x->number),
	    &b[2]) &&
	    gh_repo(w, x, xasprintf("issues/%lld/comments", x->number),
	    &b[3]) &&
	    gh_repo(w, x, xasprintf("pulls/%lld/comments", x->number),
	    &b[4]) &&
	    watch_pr_parse(b[0].buf, b[1].buf, b[2].buf, b[3].buf, b[4].buf,
	    &f->pr) == 0;
	for (i = 0; i < 5; i++)
		sbuf_release(&b[i]);
}

static void
apply_pr(struct watchers *w, struct watcher *x, const struct fetched *f)
{
	struct sbuf	ev = SBUF_INIT;

	if (!f->ok) {
		failed(w, x, "gh api failed or answered no pull request");
		return;
	}
	x->failures = 0;
	sbuf_init(&ev);
	if (x->baseline && watch_pr_diff(&x->pr, &f->pr, &ev))
		x->done = true;
	if (ev.len > 0)
		queue(w, x, ev.buf);
	x->pr = f->pr;
	x->baseline = true;
	snprintf(x->last, sizeof(x->last), "%s%s, checks %d/%d done",
	    f->pr.merged ? "merged" : f->pr.state, f->pr.draft ? " draft" : "",
	    f->pr.checks_done, f->pr.checks_total);
	sbuf_release(&ev);
}

static void
fetch_branch(struct watchers *w, const struct watcher *x, struct fetched *f)
{
	struct sbuf	 b = SBUF_INIT;
	json_t		*j = NULL;
	const char	*sha;
	char		*path = xasprintf("repos/%s/branches/%s", x->repo,
			    x->branch);

	sbuf_init(&b);
	if (gh_api(w, path, &b, &f->missing))
		j = jsonx_parse(b.buf, b.len, "gh", NULL);
	sha = jsonx_str(json_object_get(j, "commit"), "sha");
	f->ok = sha != NULL && strlen(sha) <= 40 &&
	    strspn(sha, "0123456789abcdefABCDEF") == strlen(sha);
	if (f->ok)
		snprintf(f->sha, sizeof(f->sha), "%s", sha);
	json_decref(j);
	sbuf_release(&b);
	free(path);
}

static void
apply_branch(struct watchers *w, struct watcher *x, const struct fetched *f)
{
	char	ev[128];

	if (f->missing) {
		if (x->baseline)
			queue(w, x, "branch deleted; the watcher ends");
		x->done = x->baseline;
		snprintf(x->last, sizeof(x->last), "not found");
		x->baseline = true;
		return;
	}
	if (!f->ok) {
		failed(w, x, "gh api failed or answered no branch");
		return;
	}
	x->failures = 0;
	if (x->baseline && strcmp(x->sha, f->sha) != 0) {
		snprintf(ev, sizeof(ev), "sha moved %.7s→%.7s",
		    x->sha[0] ? x->sha : "none", f->sha);
		queue(w, x, ev);
	}
	snprintf(x->sha, sizeof(x->sha), "%s", f->sha);
	snprintf(x->last, sizeof(x->last), "at %.7s", f->sha);
	x->baseline = true;
}

static void
fetch_cmd(struct watchers *w, const struct watcher *x, struct fetched *f)
{
	f->ok = w->run.cmd(w->run.ud, x->target, x->cwd, WATCH_CMD_TIMEOUT,
	    &f->exit) == 0;
}

static void
apply_cmd(struct watchers *w, struct watcher *x, const struct fetched *f)
{
	char	ev[96];
	bool	was_ok = x->exit == 0, ok, fire;

	if (!f->ok) {
		failed(w, x, "the command could not be started");
		return;
	}
	x->failures = 0;
	ok = f->exit == 0;
	snprintf(x->last, sizeof(x->last), "exit %d", f->exit);
	/* a condition already met at the first poll fires: nothing to wait for */
	if (strcmp(x->until, "change") == 0)
		fire = x->baseline && ok != was_ok;
	else if (strcmp(x->until, "failure") == 0)
		fire = !ok;
	else
		fire = ok;
	x->exit = f->exit;
	x->baseline = true;
	if (!fire)
		return;
	snprintf(ev, sizeof(ev), "%s, exit %d%s", ok ? "succeeded" : "failed",
	    f->exit, strcmp(x->until, "change") == 0 ? "" : "; the watcher ends");
	queue(w, x, ev);
	x->done = strcmp(x->until, "change") != 0;
}

/* Each kind's two halves, by enum watch_kind. */
static const struct {
	void	(*fetch)(struct watchers *, const struct watcher *,
		    struct fetched *);
	void	(*apply)(struct watchers *, struct watcher *,
		    const struct fetched *);
} kinds[] = {
	[WATCH_PR] = { fetch_pr, apply_pr },
	[WATCH_BRANCH] = { fetch_branch, apply_branch },
	[WATCH_CMD] = { fetch_cmd, apply_cmd },
};

/* One round's fetching, shared by its workers. */
struct round {
	struct watchers	 *w;
	struct watcher	**x;		/* the round's watchers */
	struct fetched	 *f;		/* what each fetched */
	size_t		  n, next;	/* next: the next to take */
	pthread_mutex_t	  lock;		/* guards next */
};

static void *
worker(void *arg)
{
	struct round	*r = arg;
	size_t		 i;

	for (;;) {
		pthread_mutex_lock(&r->lock);
		i = r->next++;
		pthread_mutex_unlock(&r->lock);
		if (i >= r->n)
			return NULL;
		kinds[r->x[i]->kind].fetch(r->w, r->x[i], &r->f[i]);
	}
}

/* Invariant 6: up to WATCH_CONCURRENCY fetches at once, this thread one. */
static void
fetch_all(struct round *r)
{
	pthread_t	t[WATCH_CONCURRENCY - 1];
	size_t		i, nt = 0;

	pthread_mutex_init(&r->lock, NULL);
	while (nt < WATCH_CONCURRENCY - 1 && nt + 1 < r->n &&
	    pthread_create(&t[nt], NULL, worker, r) == 0)
		nt++;
	worker(r);
	for (i = 0; i < nt; i++)
		pthread_join(t[i], NULL);
	pthread_mutex_destroy(&r->lock);
}

void
watchers_poll(struct watchers *w)
{
	struct round	r;
	size_t		i;

	memset(&r, 0, sizeof(r));
	r.w = w;
	pthread_mutex_lock(&w->lock);
	r.n = w->n;
	r.x = xreallocarray(NULL, r.n + 1, sizeof(*r.x));
	for (i = 0; i < r.n; i++) {
		r.x[i] = w->v[i];
		r.x[i]->in_round = true;
	}
	pthread_mutex_unlock(&w->lock);
	r.f = xcalloc(r.n + 1, sizeof(*r.f));
	fetch_all(&r);
	pthread_mutex_lock(&w->lock);
	for (i = 0; i < r.n; i++) {
		r.x[i]->in_round = false;
		if (r.x[i]->cancelled)
			watcher_free(r.x[i]);
		else
			kinds[r.x[i]->kind].apply(w, r.x[i], &r.f[i]);
	}
	for (i = w->n; i-- > 0;)
		if (w->v[i]->done)
			remove_at(w, i);
	pthread_mutex_unlock(&w->lock);
	free(r.x);
	free(r.f);
}

/* ---- delivery ------------------------------------------------------------ */

static bool
take(struct session *s, char **text)
{
	if (!s->idle || s->queue.len == 0)
		return false;
	sbuf_setlen(&s->queue, s->queue.len - 1);	/* the last newline */
	*text = sbuf_detach(&s->queue, NULL);
	sbuf_init(&s->queue);
	return true;
}

bool
watchers_take(struct watchers *w, char **sid, char **text)
{
	size_t	i;
	bool	got = false;

	pthread_mutex_lock(&w->lock);
	for (i = 0; !got && i < w->ns; i++)
		if ((got = take(&w->s[i], text)))
			*sid = xstrdup(w->s[i].sid);
	pthread_mutex_unlock(&w->lock);
	return got;
}

bool
watchers_take_for(struct watchers *w, const char *sid, char **text)
{
	size_t	i;
	bool	got = false;

	pthread_mutex_lock(&w->lock);
	for (i = 0; i < w->ns; i++)
		if (strcmp(w->s[i].sid, sid) == 0) {
			got = take(&w->s[i], text);
			break;
		}
	pthread_mutex_unlock(&w->lock);
	return got;
}
