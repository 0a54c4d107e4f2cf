/* watch.h — watchers: GitHub pull requests and branches, shell
 * conditions, polled, diffed, queued per session (watch.c). */
#ifndef THATCH_CORE_WATCH_H
#define THATCH_CORE_WATCH_H

#include <stdbool.h>
#include <stdint.h>

struct err;
struct sbuf;

/*
 * engines-and-extras B7. An in-memory registry (process lifetime, on
 * purpose) and a poll round the host runs at the cadence; events carry
 * pointers and machine status only — never titles, bodies, comments or
 * check names — and wait per session until the host says it is idle.
 * Opaque.
 */
struct watchers;

/*
 * How watchers reach the outside, injected (DESIGN principle 5). gh runs
 * `gh` with argv (argv[0] is "gh"), stdout appended to out: 0 with
 * *status its exit code, or -1 when it could not start. cmd runs
 * `bash -c command` in cwd with no output kept: 0 with *exit its code
 * (124 past timeout_s), or -1.
 */
struct watch_runner {
	int	(*gh)(void *ud, const char *const argv[], struct sbuf *out,
		    int *status);
	int	(*cmd)(void *ud, const char *command, const char *cwd,
		    int timeout_s, int *exit);
	void	 *ud;
};

/* The real one: spawn_capture of gh (60 s limit), spawn_quiet of bash -c. */
struct watch_runner watch_runner_system(void);

#define WATCH_MAX_PER_SESSION	20
#define WATCH_MAX_FAILURES	5
#define WATCH_CMD_TIMEOUT	30
#define WATCH_CONCURRENCY	4	/* watchers fetched at once in a round */

/*
 * Threads: one round (watchers_poll) at a time may run on a thread of its
 * own while the other functions are called from another; they never wait
 * for gh or a command, only for a round's brief comparing. watchers_free
 * only once no round runs.
 *
 * poll_seconds: the cadence shown in outputs and notifications.
 */
struct watchers *watchers_new(struct watch_runner, int poll_seconds);
/* Frees every watcher and queue (no round may be running). NULL-safe. */
void	watchers_free(struct watchers *);
int	watchers_poll_seconds(const struct watchers *);

/*
 * Add a watcher for session sid and append the tool's line ("[watching]
 * w<id> PR owner/repo#N — polled every <s>s") or why not (a bad repo,
 * too many watchers) to out. The first poll records a baseline.
 * until is "success" (default when NULL), "failure" or "change"; label
 * is shown instead of the command. cwd is where commands run.
 */
void	watchers_add_pr(struct watchers *, const char *sid, const char *repo,
	    long long number, struct sbuf *out);
void	watchers_add_branch(struct watchers *, const char *sid,
	    const char *repo, const char *branch, struct sbuf *out);
void	watchers_add_command(struct watchers *, const char *sid,
	    const char *command, const char *until, const char *label,
	    const char *cwd, struct sbuf *out);

/* sid's watchers, one line each, or a line saying there are none. */
void	watchers_list(struct watchers *, const char *sid,
	    struct sbuf *out);
/* Cancel sid's watcher id ("w3" or "3"): "[cancelled] w3" or not found. */
void	watchers_cancel(struct watchers *, const char *sid, const char *id,
	    struct sbuf *out);

/* sid is busy or idle (only an idle session is delivered to). */
void	watchers_status(struct watchers *, const char *sid, bool busy);
/* sid was deleted: its watchers and queue go. */
void	watchers_forget(struct watchers *, const char *sid);

/*
 * Poll every watcher once, WATCH_CONCURRENCY at a time, queueing the
 * events of what changed. A watcher cancelled meanwhile is dropped.
 */
void	watchers_poll(struct watchers *);

/*
 * The next idle session with queued events: its id and the joined
 * notification ("[thatch] watcher w2 (PR acme/api#41, polled every
 * 60s): …"), both new strings, its queue emptied. Returns false when no
 * idle session has any.
 */
bool	watchers_take(struct watchers *, char **sid, char **text);
/* The same for sid only (its idle event just came). */
bool	watchers_take_for(struct watchers *, const char *sid, char **text);

/* Whether any watcher exists (the host runs the timer only then). */
bool	watchers_any(struct watchers *);

/*
 * A pull request's state as the poll reads it from gh's JSON (outside
 * input; fuzz_watch): pull, check-runs, reviews, issue comments and
 * review comments, each a whole `gh api` stdout. Returns 0, or -1 when
 * pull is not a pull request object.
 */
struct watch_pr {
	char	 state[16];		/* "open", "closed" */
	bool	 merged, draft;
	char	 head[41];		/* sha, hex only */
	int	 checks_total, checks_done;
	int	 conclusions[8];	/* by watch_conclusions[] */
	int	 reviews[4];		/* by watch_review_states[] */
	char	 reviewers[128];	/* valid logins, comma-separated */
	int	 comments;
	char	 newest_url[256];	/* https://github.com/… or "" */
};
extern const char *const watch_conclusions[];
extern const char *const watch_review_states[];
int	watch_pr_parse(const char *pull, const char *checks,
	    const char *reviews, const char *icomments, const char *pcomments,
	    struct watch_pr *);

/*
 * What changed from old to now, in event words ("checks finished —
 * success 5, failure 1", "new head a1b2c3d→e4f5a6b", ...) joined by
 * ". ", appended to out. Returns true when the pull request is merged or
 * closed (the watcher ends).
 */
bool	watch_pr_diff(const struct watch_pr *old, const struct watch_pr *now,
	    struct sbuf *out);

#endif
