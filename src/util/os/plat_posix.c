/*
 * plat_posix.c — plat.h with POSIX and BSD calls: getpeereid, accept +
 * fcntl, getentropy, argv[0] resolved through PATH, poll with a swapped
 * signal mask and a self-pipe, posix_madvise and posix_fadvise. Darwin
 * adds _NSGetExecutablePath (dyld(3)). Built where PLAT_LINUX is 0: on
 * macOS and the BSDs, and on Linux by `make PORTABLE=1`, which is how
 * this path is tested.
 *
 * Invariant (plat.h): without getpeereid plat_peer_uid fails with
 * ENOSYS; it never guesses. On Linux, where glibc has no getpeereid,
 * plat_linux.c's SO_PEERCRED version serves the PORTABLE build too.
 */
#include "util/os/plat.h"

#if !PLAT_LINUX
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>
#ifdef __APPLE__
#include <mach-o/dyld.h>
#include <sys/random.h>		/* getentropy(2) on Darwin */
#endif

#include "util/os/spawn.h"
#include "util/xmalloc.h"

/* The largest request getentropy(3) takes (POSIX.1-2024, OpenBSD). */
#define ENTROPY_MAX	256

static const char	*argv0;

/* Linux (PORTABLE): plat_linux.c's SO_PEERCRED, the kernel's one way. */
#if defined(__APPLE__) || defined(__FreeBSD__) || defined(__OpenBSD__) || \
    defined(__NetBSD__) || defined(__DragonFly__)
int
plat_peer_uid(int fd, uid_t *uid)
{
	gid_t	gid;

	return getpeereid(fd, uid, &gid);
}
#elif !defined(__linux__)
int
plat_peer_uid(int fd, uid_t *uid)
{
	(void)fd;
	(void)uid;
	errno = ENOSYS;
	return -1;
}
#endif

/* Make fd nonblocking and close-on-exec; closes it on failure. */
static int
nonblock_cloexec(int fd)
{
	int	fl;

	if (fd < 0)
		return -1;
#ifdef SO_NOSIGPIPE		/* the BSDs' and macOS's PLAT_MSG_NOSIGNAL */
	int	on = 1;

	if (fd >= 0 && setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &on,
	    sizeof(on)) != 0) {
		close(fd);
		return -1;
	}
#endif
	if ((fl = fcntl(fd, F_GETFL)) < 0 ||
	    fcntl(fd, F_SETFL, fl | O_NONBLOCK) != 0 ||
	    fcntl(fd, F_SETFD, FD_CLOEXEC) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

int
plat_unix_socket(void)
{
	return nonblock_cloexec(socket(AF_UNIX, SOCK_STREAM, 0));
}

int
plat_accept(int fd)
{
	return nonblock_cloexec(accept(fd, NULL, NULL));
}

int
plat_random(void *b, size_t n)
{
	unsigned char	*p = b;
	size_t		 k;

	for (; n > 0; p += k, n -= k) {
		k = n < ENTROPY_MAX ? n : ENTROPY_MAX;
		if (getentropy(p, k) != 0)
			return -1;
	}
	return 0;
}

void
plat_set_argv0(const char *a)
{
	argv0 = a;
}

char *
plat_exe_path(void)
{
	char	 buf[PATH_MAX], *found, *res;
#ifdef __APPLE__
	char	 raw[PATH_MAX];
	uint32_t size = sizeof(raw);

	if (_NSGetExecutablePath(raw, &size) == 0 &&
	    realpath(raw, buf) != NULL)
		return xstrdup(buf);
#endif
	if (argv0 == NULL)
		return NULL;
	if (strchr(argv0, '/') != NULL)
		return realpath(argv0, buf) != NULL ? xstrdup(buf) : NULL;
	if ((found = spawn_which(argv0)) == NULL)
		return NULL;
	res = realpath(found, buf) != NULL ? xstrdup(buf) : NULL;
	free(found);
	return res;
}

void
plat_hugepage(void *p, size_t n)
{
	(void)p;	/* 2 MB pages need Linux's advice; 4 KB ones work */
	(void)n;
}

void
plat_random_pages(void *p, size_t n)
{
	posix_madvise(p, n, POSIX_MADV_RANDOM);
}

void
plat_drop_cache(int fd)
{
#ifdef POSIX_FADV_DONTNEED	/* not in macOS */
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
#else
	(void)fd;
#endif
}

/* The self-pipe of plat_ppoll: a handler's plat_ppoll_wake writes a byte
 * to wake[1]; plat_ppoll polls wake[0] beside the caller's descriptors.
 * -1 until the first plat_ppoll creates it (never in a handler). */
static int	wake[2] = { -1, -1 };

static int
wake_open(void)
{
	int	i;

	if (wake[0] >= 0)
		return 0;
	if (pipe(wake) != 0)
		return -1;
	for (i = 0; i < 2; i++) {
		fcntl(wake[i], F_SETFD, FD_CLOEXEC);
		fcntl(wake[i], F_SETFL, fcntl(wake[i], F_GETFL) | O_NONBLOCK);
	}
	return 0;
}

/* Empty the pipe; returns whether it held a byte. */
static int
wake_drain(void)
{
	char	b[64];
	int	got = 0;

	while (read(wake[0], b, sizeof(b)) > 0)
		got = 1;
	return got;
}

void
plat_ppoll_wake(void)
{
	int	saved = errno;

	if (wake[1] >= 0)
		(void)!write(wake[1], "", 1);	/* full: a wake is pending */
	errno = saved;
}

int
plat_ppoll(struct pollfd *pfd, nfds_t n, const struct timespec *ts,
    const sigset_t *mask)
{
	struct pollfd	*all;
	sigset_t	 old;
	nfds_t		 i;
	int		 r, saved, ms = -1;

	if (wake_open() != 0)
		return -1;
	all = xreallocarray(NULL, n + 1, sizeof(*all));
	memcpy(all, pfd, n * sizeof(*pfd));
	all[n] = (struct pollfd){ wake[0], POLLIN, 0 };
	if (ts != NULL)
		ms = (int)(ts->tv_sec * 1000 + (ts->tv_nsec + 999999) /
		    1000000);
	/* a signal blocked until now is delivered by the unmask, before
	 * poll starts: its handler's byte makes the poll return at once */
	wake_drain();
	pthread_sigmask(SIG_SETMASK, mask, &old);
	r = poll(all, n + 1, ms);
	saved = errno;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r > 0 && wake_drain()) {
		r = -1;
		saved = EINTR;
	}
	for (i = 0; i < n; i++)
		pfd[i].revents = all[i].revents;
	free(all);
	errno = saved;
	return r;
}
#else
typedef int	plat_posix_unused;	/* ISO C: no empty translation unit */
#endif
