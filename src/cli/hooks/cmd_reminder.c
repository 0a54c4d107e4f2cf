/*
 * cmd_reminder.c — `thatch reminder [--json]`: the session-start hook
 * (Claude Code SessionStart plain, Cursor sessionStart with --json). The
 * recall instructions for the project store, the digest of its stores
 * (core/digest.c, issue 27) and, when the store needs care, the hygiene
 * line (hosts-hooks-cli §7.1). Reads no stdin; a failed hygiene report or
 * digest (or a database that will not open) costs only that part.
 *
 * The hook has a budget of milliseconds and the report's facts cost a
 * second on 10,000 memories, so they come from hygiene_cache. When the
 * cache is behind the database the reminder prints the last known facts
 * and starts a refresher: this program again, as
 * `thatch reminder --refresh-hygiene <store>`, detached (double fork,
 * setsid, standard streams on /dev/null, so the host waits only for us).
 *  1. The refresher inherits the cache's lock, taken before the fork and
 *     held until it exits: at most one refresher per cache at a time, and
 *     a reminder that cannot take the lock starts none.
 *  2. Queue files no session has touched for QUEUE_MAX_AGE are removed
 *     after the reply is out: the original never cleans them up.
 *  3. The database is opened once, for the digest's few indexed queries
 *     and the drift count; the store name comes from the same
 *     per-directory cache as flush-tools' (hook_repo_get), and git is
 *     asked for the branches only when the store has branch-scoped
 *     memories (the line cannot name an orphan otherwise).
 */
#include "cli/cmd.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/digest.h"
#include "core/hygiene.h"
#include "core/hygiene_cache.h"
#include "core/session/queue.h"
#include "core/repo.h"
#include "core/repo_cache.h"
#include "host/hook.h"
#include "text/nudge.h"
#include "util/log.h"
#include "util/num.h"
#include "util/os/plat.h"
#include "util/sbuf.h"
#include "util/xmalloc.h"

#define REFRESH_FLAG	"--refresh-hygiene"

/* Start the detached refresher of c, unless one is running (invariant 1). */
static void
refresh_spawn(const struct hygiene_cache *c)
{
	char *const	argv[] = { (char *)"thatch", (char *)"reminder",
			    (char *)REFRESH_FLAG, c->repo, NULL };
	pid_t		pid;
	int		lock, fd;
	char		*exe;

	if ((lock = hygiene_cache_lock(c)) < 0) {
		log_debug("hygiene:cache", "no refresher started: %s is held "
		    "or cannot be made", c->lock);
		return;
	}
	if ((exe = plat_exe_path()) == NULL) {
		log_debug("hygiene:cache", "no refresher: no executable path");
		close(lock);
		return;
	}
	fflush(stdout);
	fflush(stderr);
	if ((pid = fork()) == 0) {
		if (setsid() < 0 || fork() != 0)
			_exit(0);
		if ((fd = open("/dev/null", O_RDWR)) >= 0) {
			dup2(fd, STDIN_FILENO);
			dup2(fd, STDOUT_FILENO);
			dup2(fd, STDERR_FILENO);
			if (fd > STDERR_FILENO)
				close(fd);
		}
		if (fcntl(lock, F_SETFD, 0) == 0)
			execv(exe, argv);
		_exit(127);
	}
	free(exe);
	close(lock);
	while (pid > 0 && waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

/* The refresher: bring the cache of store up to date, quietly. */
static int
refresh(struct cli_ctx *ctx, const char *store)
{
	struct hygiene_cache	c;

	if (cli_open_store(ctx) != 0) {
		log_debug("hygiene:cache", "refresh: %s", ctx->err.msg);
		return 0;
	}
	hygiene_cache_init(&c, ctx->paths.cache_home, ctx->paths.db_path,
	    store);
	log_debug("hygiene:cache", "refresher %ld: start", (long)getpid());
	if (hygiene_cache_update(&c, ctx->store, clock_now(&ctx->clock),
	    &ctx->err) != 0)
		log_debug("hygiene:cache", "refresh: %s", ctx->err.msg);
	log_debug("hygiene:cache", "refresher %ld: done", (long)getpid());
	hygiene_cache_release(&c);
	return 0;
}

/* Append the hygiene line of repo to out (nothing when healthy). */
static int
hygiene_line(struct cli_ctx *ctx, const char *repo, struct sbuf *out)
{
	struct hygiene_cache	 c;
	struct hygiene_facts	 f;
	struct repo_cache_sql	 cache;
	char			**live = NULL;
	size_t			 nlive = 0;
	double			 sync_max;
	bool			 behind;
	int			 rc;

	sync_max = num_env("THATCH_HYGIENE_SYNC_MAX", HYGIENE_CACHE_SYNC_MAX);
	hygiene_cache_init(&c, ctx->paths.cache_home, ctx->paths.db_path,
	    repo);
	behind = false;
	rc = 0;
	if (!hygiene_cache_current(&c, clock_now(&ctx->clock), &f))
		rc = cli_open_store(ctx) != 0 ? -1 :
		    hygiene_cache_facts(&c, ctx->store, clock_now(&ctx->clock),
		    sync_max > 0 ? (size_t)sync_max : 0, &f, &behind,
		    &ctx->err);
	if (rc == 0) {
		if (f.nbranches > 0) {
			if (cli_open_store(ctx) == 0)
				repo_cache_init(&cache, ctx->store,
				    &ctx->clock);
			repo_branches(ctx->paths.project_dir, ctx->store ?
			    &cache.cache : NULL, &live, &nlive);
		}
		if (cli_open_store(ctx) == 0)
			hygiene_drift(ctx->store, repo, ctx->paths.project_dir,
			    &f, NULL);
		hygiene_format(&f, repo, (const char *const *)live, nlive,
		    out);
		repo_branches_free(live, nlive);
		hygiene_facts_release(&f);
	}
	if (behind)
		refresh_spawn(&c);
	hygiene_cache_release(&c);
	return rc;
}

static int
cmd_reminder_exec(struct cli_ctx *ctx, int argc, char **argv)
{
	struct sbuf	 report = SBUF_INIT, digest = SBUF_INIT, out = SBUF_INIT;
	char		*repo;
	bool		 json = cli_flag(ctx, "--json");

	(void)argc;
	(void)argv;
	if (cli_opt(ctx, REFRESH_FLAG) != NULL)
		return refresh(ctx, cli_opt(ctx, REFRESH_FLAG));
	if (!json && hook_in_cursor(NULL))
		return 0;	/* host-contracts C6: the --json twin speaks */
	sbuf_init(&report);
	sbuf_init(&digest);
	sbuf_init(&out);
	if ((repo = hook_repo_get(&ctx->paths)) == NULL) {
		repo = xstrdup(cli_default_store(ctx));
		hook_repo_put(&ctx->paths, repo);
	}
	if (hygiene_line(ctx, repo, &report) != 0) {
		fprintf(stderr, "[thatch] hygiene report failed: %s\n",
		    ctx->err.msg);
		sbuf_reset(&report);
	}
	if (cli_open_store(ctx) != 0 || digest_session_start(ctx->store, repo,
	    clock_now(&ctx->clock), &digest, &ctx->err) != 0) {
		fprintf(stderr, "[thatch] digest failed: %s\n", ctx->err.msg);
		sbuf_reset(&digest);
	}
	text_nudge_reminder(&out, repo, digest.len > 0 ? digest.buf : NULL,
	    report.len > 0 ? report.buf : NULL);
	hook_emit(stdout, json ? HOOK_CURSOR : HOOK_PLAIN, NULL, out.buf);
	fflush(stdout);
	/* a new session is when old ones' leftovers can go */
	if (queue_prune(ctx->paths.queue_dir, QUEUE_MAX_AGE, (long)time(NULL),
	    &ctx->err) < 0)
		fprintf(stderr, "[thatch] %s\n", ctx->err.msg);
	free(repo);
	sbuf_release(&report);
	sbuf_release(&digest);
	sbuf_release(&out);
	return 0;
}

static const struct cmd_opt reminder_opts[] = {
	{ "--json", NULL, "print the Cursor hook's JSON instead of plain text" },
	{ "--refresh-hygiene", "<repo>", "(internal) recompute the cached "
	    "hygiene line of <repo>" },
	{ NULL, NULL, NULL },
};

const struct cmd_entry cmd_reminder_entry = {
	.name = "reminder",
	.args = "",
	.max_args = 0,
	.opts = reminder_opts,
	.reads = READS_PROJECT,
	.example = "thatch reminder --json",
	.summary = "session-start hook: recall instructions and hygiene",
	.flags = CMD_HOOK,	/* a broken store costs only the hygiene line */
	.exec = cmd_reminder_exec,
};
