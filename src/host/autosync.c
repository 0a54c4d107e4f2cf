/*
 * autosync.c — the MCP server's background sync: a child `thatch sync
 * --background` at start and after writes, never on a hook's path and
 * never in the server's own thread (docs/sync.md "Automatic sync").
 *
 * The child is this executable run again (fork and exec), so it has its
 * own database connection and its own process: a slow remote never holds
 * a tool call up, and the server only learns that the child ended.
 *  1. At most one child runs; writes during a run queue exactly one
 *     more, which sees all of them.
 *  2. The child's stdin and stdout are /dev/null (stdout is the MCP
 *     transport) and its stderr is DB_DIR/sync.log (0600, appended), so
 *     its failures are logged; it runs in a session of its own, so that
 *     neither git nor ssh can prompt on the user's terminal. A log past
 *     SYNC_LOG_MAX is renamed sync.log.1 (one old generation) before a
 *     child starts: each child opens the log anew, so a rename loses no
 *     line (a child of another server still writing goes on into .1),
 *     and both files are made 0600 whoever made them.
 *  3. The end of a child is seen through a pipe the server watches (the
 *     child holds its write end), so no signal handler is involved.
 *  4. A failed run is logged through log_warn and retried at the next
 *     write (or the next server start).
 */
#include "host/autosync.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host/mcp.h"
#include "util/log.h"
#include "util/os/plat.h"
#include "util/path.h"
#include "util/xmalloc.h"

extern char **environ;

/* How far sync.log grows before it is rotated: thousands of failed runs'
 * lines, and a bound on what a run that fails every write leaves. */
#define SYNC_LOG_MAX	(1 << 20)

struct autosync {
	struct mcp_server	*srv;
	const struct paths	*paths;
	char			*store, *remote;	/* owned */
	char			*exe;			/* owned */
	char			*log;			/* owned */
	pid_t			 pid;		/* the running child, or 0 */
	int			 fd;		/* its pipe, or -1 */
	bool			 queued;	/* a write since it started */
};

static void run_child(struct autosync *);

static void
child_done(void *arg, int fd)
{
	struct autosync	*a = arg;
	char		 buf[64];
	int		 st = 0;

	if (read(fd, buf, sizeof(buf)) > 0)
		return;			/* the child writes nothing; EOF is all */
	mcp_unwatch(a->srv, fd);
	close(fd);
	a->fd = -1;
	while (waitpid(a->pid, &st, 0) < 0 && errno == EINTR)
		;
	a->pid = 0;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		log_warn("background sync of %s failed (see %s); it runs "
		    "again after the next write", a->store, a->log);
		return;
	}
	log_debug("sync:auto", "%s synced", a->store);
	if (a->queued)
		run_child(a);
}

/* In the child: only async-signal-safe calls until exec (invariant 2). */
static void
exec_child(const struct autosync *a, char *const argv[], char *const envp[],
    int logfd, int donefd)
{
	int	null = open("/dev/null", O_RDWR);

	setsid();
	dup2(null, 0);
	dup2(null, 1);
	dup2(logfd >= 0 ? logfd : null, 2);
	fcntl(donefd, F_SETFD, 0);	/* held until the child exits */
	execve(a->exe, argv, envp);
	_exit(127);
}

static char **
child_env(void)
{
	size_t	n = 0, i;
	char	**envp;

	while (environ[n] != NULL)
		n++;
	envp = xcalloc(n + 2, sizeof(*envp));
	for (i = 0; i < n; i++)
		envp[i] = environ[i];
	envp[n] = (char *)"GIT_TERMINAL_PROMPT=0";
	return envp;
}

/* Invariant 2: the log for the next child, rotated and private; -1 when
 * it cannot be opened (the child's stderr is then /dev/null). */
static int
open_log(const struct autosync *a)
{
	struct stat	 sb;
	char		*old;
	int		 fd;

	if (stat(a->log, &sb) == 0 && sb.st_size > SYNC_LOG_MAX) {
		old = xasprintf("%s.1", a->log);
		if (rename(a->log, old) != 0 || chmod(old, 0600) != 0)
			log_warn("cannot rotate %s: %s", a->log,
			    strerror(errno));
		free(old);
	}
	fd = open(a->log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (fd >= 0 && fchmod(fd, 0600) != 0)
		log_warn("cannot make %s private: %s", a->log,
		    strerror(errno));
	return fd;
}

static void
run_child(struct autosync *a)
{
	char	*argv[] = { a->exe, (char *)"sync", (char *)"--background",
		    (char *)"--remote", a->remote, (char *)"--", a->store,
		    NULL };
	char	**envp = child_env();
	int	  p[2] = { -1, -1 }, logfd;
	pid_t	  pid;

	a->queued = false;
	logfd = open_log(a);
	if (pipe(p) != 0 || fcntl(p[0], F_SETFD, FD_CLOEXEC) != 0 ||
	    fcntl(p[1], F_SETFD, FD_CLOEXEC) != 0 || (pid = fork()) < 0) {
		log_warn("cannot start the background sync of %s: %s",
		    a->store, strerror(errno));
		a->queued = true;
		goto out;
	}
	if (pid == 0)
		exec_child(a, argv, envp, logfd, p[1]);
	a->pid = pid;
	a->fd = p[0];
	p[0] = -1;
	mcp_watch(a->srv, a->fd, child_done, a);
out:
	for (int i = 0; i < 2; i++)
		if (p[i] >= 0)
			close(p[i]);
	if (logfd >= 0)
		close(logfd);
	free(envp);
}

static void
wrote(void *arg)
{
	struct autosync	*a = arg;

	if (a->pid != 0)
		a->queued = true;	/* invariant 1 */
	else
		run_child(a);
}

/* This executable, so that the child is the same thatch (PATH's
 * thatch when the system cannot say). */
static char *
self_exe(void)
{
	char	*exe = plat_exe_path();

	return exe != NULL ? exe : xstrdup("thatch");
}

struct autosync *
autosync_start(struct mcp_server *srv, const struct paths *paths,
    const char *store, const char *remote)
{
	struct autosync	*a = xcalloc(1, sizeof(*a));

	a->srv = srv;
	a->paths = paths;
	a->store = xstrdup(store);
	a->remote = xstrdup(remote);
	a->exe = self_exe();
	a->log = path_join(paths->db_dir, "sync.log");
	a->fd = -1;
	mcp_after_write(srv, wrote, a);
	run_child(a);
	return a;
}

void
autosync_free(struct autosync *a)
{
	if (a == NULL)
		return;
	mcp_after_write(a->srv, NULL, NULL);
	if (a->fd >= 0) {
		mcp_unwatch(a->srv, a->fd);
		close(a->fd);
	}
	/* a running child finishes on its own; a queued write gets its run
	 * now, which outlives the server */
	if (a->queued) {
		run_child(a);
		if (a->fd >= 0) {
			mcp_unwatch(a->srv, a->fd);
			close(a->fd);
		}
	}
	free(a->store);
	free(a->remote);
	free(a->exe);
	free(a->log);
	free(a);
}
