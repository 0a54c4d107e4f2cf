/*
 * spawn.c — run a program and capture its output.
 *
 * Used for git probes (store identity, branch listing) and agent CLIs.
 * posix_spawn would not let us change the child's directory portably, so
 * this forks; the child only calls async-signal-safe functions before exec.
 * A missing cwd or program is reported through a pipe as an errno value so
 * the caller can tell "could not run" from "ran and failed".
 */
#include "util/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/clock.h"
#include "util/err.h"
#include "util/path.h"
#include "util/sbuf.h"
#include "util/xmalloc.h"

static void
child_exec(const char *const argv[], const char *dir, int outfd, int errpipe)
{
	int	null, e;

	null = open("/dev/null", O_RDWR);
	if (null >= 0) {
		dup2(null, 0);
		dup2(null, 2);
	}
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

int
spawn_capture(const char *const argv[], const char *dir, int timeout_ms,
    struct sbuf *out, int *status, struct err *err)
{
	int		 outp[2] = { -1, -1 }, errp[2] = { -1, -1 }, e, wst;
	int64_t		 deadline = clock_mono_ms() + timeout_ms;
	pid_t		 pid;
	ssize_t		 n;
	struct pollfd	 pfd;
	int		 rc = -1, killed = 0;

	if (pipe(outp) != 0 || pipe(errp) != 0) {
		err_errno(err, "cannot create a pipe");
		goto out;
	}
	for (int i = 0; i < 2; i++) {
		fcntl(outp[i], F_SETFD, FD_CLOEXEC);
		fcntl(errp[i], F_SETFD, FD_CLOEXEC);
	}
	pid = fork();
	if (pid < 0) {
		err_errno(err, "cannot run '%s'", argv[0]);
		goto out;
	}
	if (pid == 0)
		child_exec(argv, dir, outp[1], errp[1]);
	close(outp[1]);
	close(errp[1]);
	outp[1] = errp[1] = -1;

	pfd.fd = outp[0];
	pfd.events = POLLIN;
	for (;;) {
		int64_t	left = deadline - clock_mono_ms();
		if (left <= 0) {
			kill(pid, SIGKILL);
			killed = 1;
			break;
		}
		if (poll(&pfd, 1, (int)left) < 0 && errno != EINTR)
			break;
		if (pfd.revents == 0)
			continue;
		sbuf_grow(out, 4096);
		n = read(outp[0], out->buf + out->len, out->cap - out->len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		out->len += (size_t)n;
		out->buf[out->len] = '\0';
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
	}
	return rc;
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
