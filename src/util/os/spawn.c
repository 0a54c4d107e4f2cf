/*
 * spawn.c — run a program and capture its output.
 *
 * Used for git probes (store identity, branch listing) and agent CLIs.
 * posix_spawn would not let us change the child's directory portably, so
 * this forks; the child only calls async-signal-safe functions before exec.
 * A missing cwd or program is reported through a pipe as an errno value so
 * the caller can tell "could not run" from "ran and failed". A child's
 * input is handed over as a file, never a pipe we write, so a child that
 * exits early cannot raise SIGPIPE in a process that has not ignored it.
 * Threads make their pipes and fork one at a time (fork_lock).
 */
#include "util/os/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/os/clock.h"
#include "util/err.h"
#include "util/path.h"
#include "util/sbuf.h"
#include "util/xmalloc.h"

/*
 * Held from the making of a child's pipes until they are close-on-exec
 * and the child is forked: a child that another thread (a watcher round,
 * an alert) forks meanwhile cannot inherit them, which would hold a pipe
 * open and keep this one's end of file from coming until it exits.
 */
static pthread_mutex_t	fork_lock = PTHREAD_MUTEX_INITIALIZER;

static void
child_exec(const char *const argv[], const char *dir, int infd, int outfd,
    int errfd, int errpipe)
{
	int	null, e;

	null = open("/dev/null", O_RDWR | O_CLOEXEC);	/* dup2 keeps its copies */
	dup2(infd >= 0 ? infd : null, 0);
	dup2(errfd >= 0 ? errfd : null, 2);
	dup2(outfd, 1);
	if (dir != NULL && chdir(dir) != 0)
		goto fail;
	execvp(argv[0], (char *const *)argv);
fail:
	e = errno;
	if (write(errpipe, &e, sizeof(e)) < 0) {
		/* nothing more to do in a doomed child */
	}
	_exit(127);
}

/* Stdin as an unlinked temporary file, so that a child which stops
 * reading can neither block us nor raise SIGPIPE. -1 for /dev/null. */
static int
input_fd(const struct spawn_io *io, struct err *err)
{
	FILE	*fp;
	int	 fd;

	if (io == NULL || io->in == NULL)
		return -1;
	if ((fp = tmpfile()) == NULL ||
	    fwrite(io->in, 1, io->inlen, fp) != io->inlen || fflush(fp) != 0) {
		err_errno(err, "cannot buffer a child's input");
		if (fp != NULL)
			fclose(fp);
		return -2;
	}
	fd = dup(fileno(fp));
	fclose(fp);
	if (fd < 0 || lseek(fd, 0, SEEK_SET) != 0) {
		err_errno(err, "cannot buffer a child's input");
		if (fd >= 0)
			close(fd);
		return -2;
	}
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	return fd;
}

/* Read what is ready on fd into sb; 0 at end of file. */
static ssize_t
drain(int fd, struct sbuf *sb)
{
	ssize_t	n;

	sbuf_grow(sb, 4096);
	n = read(fd, sb->buf + sb->len, sb->cap - sb->len - 1);
	if (n > 0) {
		sb->len += (size_t)n;
		sb->buf[sb->len] = '\0';
	}
	return n < 0 && errno == EINTR ? 1 : n;
}

int
spawn_run(const char *const argv[], const char *dir, int timeout_ms,
    const struct spawn_io *io, int *status, struct err *err)
{
	int		 outp[2] = { -1, -1 }, errp[2] = { -1, -1 };
	int		 stdp[2] = { -1, -1 }, infd = -1, e, wst;
	int64_t		 deadline = clock_mono_ms() + timeout_ms;
	struct sbuf	 discard = SBUF_INIT;
	struct sbuf	*sinks[2];
	struct pollfd	 pfd[2];
	pid_t		 pid;
	int		 rc = -1, killed = 0, open_fds = 2;

	sinks[0] = io != NULL && io->out != NULL ? io->out : &discard;
	sinks[1] = io != NULL && io->errout != NULL ? io->errout : &discard;
	pid = -1;
	pthread_mutex_lock(&fork_lock);
	if ((infd = input_fd(io, err)) == -2)
		;
	else if (pipe(outp) != 0 || pipe(errp) != 0 || pipe(stdp) != 0)
		err_errno(err, "cannot create a pipe");
	else {
		for (int i = 0; i < 2; i++) {
			fcntl(outp[i], F_SETFD, FD_CLOEXEC);
			fcntl(errp[i], F_SETFD, FD_CLOEXEC);
			fcntl(stdp[i], F_SETFD, FD_CLOEXEC);
		}
		if ((pid = fork()) == 0)
			child_exec(argv, dir, infd, outp[1], stdp[1],
			    errp[1]);
		if (pid < 0)
			err_errno(err, "cannot run '%s'", argv[0]);
	}
	pthread_mutex_unlock(&fork_lock);
	if (pid < 0)
		goto out;
	close(outp[1]);
	close(errp[1]);
	close(stdp[1]);
	outp[1] = errp[1] = stdp[1] = -1;

	pfd[0].fd = outp[0];
	pfd[1].fd = stdp[0];
	pfd[0].events = pfd[1].events = POLLIN;
	while (open_fds > 0) {
		int64_t	left = deadline - clock_mono_ms();
		if (left <= 0) {
			kill(pid, SIGKILL);
			killed = 1;
			break;
		}
		if (poll(pfd, 2, (int)left) < 0 && errno != EINTR)
			break;
		for (int i = 0; i < 2; i++) {
			if (pfd[i].fd < 0 || pfd[i].revents == 0)
				continue;
			if (drain(pfd[i].fd, sinks[i]) <= 0) {
				pfd[i].fd = -1;		/* poll skips it */
				open_fds--;
			}
		}
	}
	while (waitpid(pid, &wst, 0) < 0 && errno == EINTR)
		;
	if (read(errp[0], &e, sizeof(e)) == (ssize_t)sizeof(e)) {
		errno = e;
		err_errno(err, "cannot run '%s'%s%s", argv[0],
		    dir ? " in " : "", dir ? dir : "");
		goto out;
	}
	if (killed)
		*status = 128 + SIGKILL;
	else if (WIFEXITED(wst))
		*status = WEXITSTATUS(wst);
	else
		*status = 128 + WTERMSIG(wst);
	rc = 0;
out:
	for (int i = 0; i < 2; i++) {
		if (outp[i] >= 0)
			close(outp[i]);
		if (errp[i] >= 0)
			close(errp[i]);
		if (stdp[i] >= 0)
			close(stdp[i]);
	}
	if (infd >= 0)
		close(infd);
	sbuf_release(&discard);
	return rc;
}

int
spawn_capture(const char *const argv[], const char *dir, int timeout_ms,
    struct sbuf *out, int *status, struct err *err)
{
	struct spawn_io	io = { NULL, 0, out, NULL };

	return spawn_run(argv, dir, timeout_ms, &io, status, err);
}

/*
 * Wait until pid has exited or deadline (monotonic ms) passes, without
 * reaping it: while it is a zombie its id, and so its process group's, is
 * not reused, so killing the group afterwards cannot hit a stranger.
 * False when it is still running.
 */
static bool
exited_by(pid_t pid, int64_t deadline)
{
	struct timespec	nap = { 0, 1000000L };	/* 1 ms, doubling to 64 */
	siginfo_t	info;

	for (;;) {
		memset(&info, 0, sizeof(info));
		if (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG |
		    WNOWAIT) == 0 ? info.si_pid == pid : errno != EINTR)
			return true;
		if (clock_mono_ms() >= deadline)
			return false;
		nanosleep(&nap, NULL);
		if (nap.tv_nsec < 64000000L)
			nap.tv_nsec *= 2;
	}
}

int
spawn_quiet(const char *const argv[], const char *dir, int timeout_ms,
    int *status, struct err *err)
{
	int	 errp[2], e, wst = 0, null;
	int64_t	 deadline = clock_mono_ms() + timeout_ms;
	pid_t	 pid;
	bool	 exited;

	pthread_mutex_lock(&fork_lock);
	if (pipe(errp) != 0) {
		pthread_mutex_unlock(&fork_lock);
		return err_errno(err, "cannot create a pipe");
	}
	fcntl(errp[0], F_SETFD, FD_CLOEXEC);
	fcntl(errp[1], F_SETFD, FD_CLOEXEC);
	if ((pid = fork()) == 0) {
		setpgid(0, 0);
		null = open("/dev/null", O_RDWR | O_CLOEXEC);
		child_exec(argv, dir, -1, null, -1, errp[1]);
	}
	pthread_mutex_unlock(&fork_lock);
	if (pid < 0) {
		close(errp[0]);
		close(errp[1]);
		return err_errno(err, "cannot run '%s'", argv[0]);
	}
	setpgid(pid, pid);	/* both sides: no race with the kill below */
	close(errp[1]);
	exited = exited_by(pid, deadline);
	kill(-pid, SIGKILL);	/* what it left behind, or all of it */
	while (waitpid(pid, &wst, 0) < 0 && errno == EINTR)
		;
	e = 0;
	if (read(errp[0], &e, sizeof(e)) == (ssize_t)sizeof(e)) {
		close(errp[0]);
		errno = e;
		return err_errno(err, "cannot run '%s'%s%s", argv[0],
		    dir ? " in " : "", dir ? dir : "");
	}
	close(errp[0]);
	if (!exited)
		*status = SPAWN_TIMED_OUT;
	else if (WIFEXITED(wst))
		*status = WEXITSTATUS(wst);
	else
		*status = 128 + WTERMSIG(wst);
	return 0;
}

char *
spawn_which(const char *name)
{
	const char	*path = path_env("PATH"), *s, *e;
	struct stat	 st;
	char		*dir, *cand;

	if (path == NULL || strchr(name, '/') != NULL)
		return NULL;
	for (s = path; ; s = e + 1) {
		e = strchr(s, ':');
		if (e == NULL)
			e = s + strlen(s);
		dir = xstrndup(s, (size_t)(e - s));
		cand = xasprintf("%s/%s", *dir ? dir : ".", name);
		free(dir);
		if (stat(cand, &st) == 0 && S_ISREG(st.st_mode) &&
		    access(cand, X_OK) == 0)
			return cand;
		free(cand);
		if (*e == '\0')
			return NULL;
	}
}
