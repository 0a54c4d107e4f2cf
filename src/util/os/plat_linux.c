/*
 * plat_linux.c — plat.h with Linux's own calls (SO_PEERCRED, accept4,
 * getrandom, /proc/self/exe, MADV_HUGEPAGE, ppoll). Compiled empty when
 * PLAT_LINUX is 0, so that a PORTABLE binary holds none of them
 * (scripts/check-portable checks with nm), except the SO_PEERCRED peer
 * check, which a PORTABLE build on Linux needs as well.
 */
#define _GNU_SOURCE		/* struct ucred, accept4, ppoll */
#include "util/os/plat.h"

#ifdef __linux__
#include <errno.h>
#include <sys/socket.h>

/* The one peer check Linux has (glibc has no getpeereid), so the PORTABLE
 * build uses it too: getsockopt is POSIX, only the option is Linux's. */
int
plat_peer_uid(int fd, uid_t *uid)
{
	struct ucred	cr;
	socklen_t	len = sizeof(cr);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) != 0)
		return -1;
	if (len != sizeof(cr)) {
		errno = EPROTO;
		return -1;
	}
	*uid = cr.uid;
	return 0;
}
#endif

#if PLAT_LINUX
#include <fcntl.h>
#include <limits.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <unistd.h>

#include "util/xmalloc.h"

int
plat_unix_socket(void)
{
	return socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
}

int
plat_accept(int fd)
{
	return accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
}

int
plat_random(void *b, size_t n)
{
	unsigned char	*p = b;
	ssize_t		 got;

	while (n > 0) {
		if ((got = getrandom(p, n, 0)) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += got;
		n -= (size_t)got;
	}
	return 0;
}

void
plat_set_argv0(const char *argv0)
{
	(void)argv0;	/* /proc/self/exe knows better */
}

char *
plat_exe_path(void)
{
	char	buf[PATH_MAX];
	ssize_t	n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);

	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	return xstrdup(buf);
}

void
plat_hugepage(void *p, size_t n)
{
	madvise(p, n, MADV_HUGEPAGE);
}

void
plat_random_pages(void *p, size_t n)
{
	madvise(p, n, MADV_NOHUGEPAGE);
	madvise(p, n, MADV_RANDOM);
}

void
plat_drop_cache(int fd)
{
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
}

int
plat_ppoll(struct pollfd *pfd, nfds_t n, const struct timespec *ts,
    const sigset_t *mask)
{
	return ppoll(pfd, n, ts, mask);
}

void
plat_ppoll_wake(void)
{
	/* ppoll unmasks and waits atomically: nothing to wake */
}
#else
typedef int	plat_linux_unused;	/* ISO C: no empty translation unit */
#endif
