/*
 * plat.h — the operating-system calls thatch needs that POSIX leaves
 * open: peer credentials of a Unix socket, nonblocking close-on-exec
 * sockets, random bytes, the running executable's path, memory advice
 * and a poll that waits with a signal mask.
 *
 * plat_linux.c implements them with Linux's calls (SO_PEERCRED, accept4,
 * getrandom, /proc/self/exe, MADV_HUGEPAGE, ppoll); plat_posix.c with
 * POSIX and BSD ones (getpeereid, accept + fcntl, getentropy, argv[0] and
 * PATH, poll), plus a few Darwin lines. PLAT_LINUX picks one at compile
 * time: Linux unless THATCH_PORTABLE is defined (`make PORTABLE=1`),
 * which is how the POSIX path is tested on Linux.
 *
 * Invariant: plat_peer_uid never reports a uid it did not get from the
 * kernel; where no such call exists it fails with ENOSYS and callers
 * refuse the peer (the sideband is never served unchecked).
 */
#ifndef THATCH_UTIL_PLAT_H
#define THATCH_UTIL_PLAT_H

#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

#if defined(__linux__) && !defined(THATCH_PORTABLE)
#define PLAT_LINUX	1
#else
#define PLAT_LINUX	0
#endif

/* The effective uid of the process at the other end of the Unix socket
 * fd: 0, or -1 with errno (ENOSYS: this system cannot tell). */
int	plat_peer_uid(int fd, uid_t *uid);

/* A nonblocking, close-on-exec AF_UNIX stream socket, or -1. */
int	plat_unix_socket(void);

/* Accept a connection on fd, nonblocking and close-on-exec, or -1. */
int	plat_accept(int fd);

/* Fill b with n bytes from the kernel's CSPRNG: 0, or -1 with errno. */
int	plat_random(void *b, size_t n);

/* Remember argv[0]: the POSIX path finds the executable from it. */
void	plat_set_argv0(const char *argv0);

/* The running executable's absolute path (malloc'd), or NULL. */
char	*plat_exe_path(void);

/* Ask for transparent huge pages over [p, p + n); a no-op elsewhere. */
void	plat_hugepage(void *p, size_t n);

/* poll(2) that waits with the signal mask mask (ppoll's contract; the
 * POSIX path swaps the mask around poll: a signal landing between the
 * swap and the poll waits for the timeout or the next input). */
int	plat_ppoll(struct pollfd *pfd, nfds_t n, const struct timespec *ts,
	    const sigset_t *mask);

#endif
