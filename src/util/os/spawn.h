/* spawn.h — run a program and capture its output (spawn.c). */
#ifndef THATCH_UTIL_SPAWN_H
#define THATCH_UTIL_SPAWN_H

#include <stddef.h>

struct err;
struct sbuf;

/*
 * Run argv[0] (looked up in PATH, no shell) with cwd `dir` (NULL: ours),
 * stdin from /dev/null, stderr discarded, stdout appended to out. The child
 * is killed after timeout_ms. Returns 0 with *status the exit code (128 +
 * signal if killed), or -1 with err set when it could not be started at all
 * (missing program, missing cwd).
 */
int	spawn_capture(const char *const argv[], const char *dir, int timeout_ms,
	    struct sbuf *out, int *status, struct err *);

/*
 * What spawn_run connects: in (inlen bytes; NULL: /dev/null) is the
 * child's stdin, its stdout and stderr are appended to out and errout
 * (NULL: discarded). Borrowed.
 */
struct spawn_io {
	const char	*in;
	size_t		 inlen;
	struct sbuf	*out;
	struct sbuf	*errout;
};

/* spawn_capture with stdin and stderr as io says (git plumbing). */
int	spawn_run(const char *const argv[], const char *dir, int timeout_ms,
	    const struct spawn_io *io, int *status, struct err *);

/*
 * Run argv[0] (PATH, no shell) in dir for its exit status only: stdin,
 * stdout and stderr are /dev/null, so nothing it prints is read or kept.
 * It runs as the leader of a process group of its own, and that whole
 * group is killed once it exits or timeout_ms passes: what it started in
 * the background ends with it, and nothing outlives the call. Returns 0
 * with *status the exit code (128 + signal if a signal ended it, 124 if
 * it ran past timeout_ms, as timeout(1) says), or -1 with err set when it
 * could not be started (missing program, missing dir).
 */
#define SPAWN_TIMED_OUT	124
int	spawn_quiet(const char *const argv[], const char *dir, int timeout_ms,
	    int *status, struct err *);

/* Search PATH for an executable regular file; new string or NULL. */
char	*spawn_which(const char *name);

#endif
