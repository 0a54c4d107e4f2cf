/*
 * plat.h — the operating-system calls thatch needs that POSIX leaves
 * open: peer credentials of a Unix socket, nonblocking close-on-exec
 * sockets, random bytes, the running executable's path, memory and
 * file-cache advice and a poll that waits with a signal mask.
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
#include <sys/socket.h>
#include <sys/types.h>
#include <time.h>

#if defined(__linux__) && !defined(THATCH_PORTABLE)
#define PLAT_LINUX	1
#else
#define PLAT_LINUX	0
#endif

/* send(2)'s flag that keeps a write to a closed peer from raising
 * SIGPIPE; 0 where the system lacks it (macOS), whose sockets from
 * plat_unix_socket and plat_accept carry SO_NOSIGPIPE instead. */
#ifdef MSG_NOSIGNAL
#define PLAT_MSG_NOSIGNAL	MSG_NOSIGNAL
#else
#define PLAT_MSG_NOSIGNAL	0
#endif

/* The effective uid of the process at the other end of the Unix socket
 * fd: 0, or -1 with errno (ENOSYS: this system cannot tell). */
int	plat_peer_uid(int fd, uid_t *uid);

/* A nonblocking, close-on-exec AF_UNIX stream socket that never raises
 * SIGPIPE when sent PLAT_MSG_NOSIGNAL, or -1. */
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

/* Advise that [p, p + n) is read at random, in small pages (no huge
 * pages where the system has them). */
void	plat_random_pages(void *p, size_t n);

/* Drop the page cache of fd's file (its data already on disk); a hint
 * that does nothing where the system takes no such advice. */
void	plat_drop_cache(int fd);

/* poll(2) that waits with the signal mask mask (ppoll's contract): a
 * signal the mask lets through ends the wait with EINTR. The POSIX path
 * swaps the mask around poll and polls a self-pipe beside pfd, so the
 * handler of every such signal must call plat_ppoll_wake. */
int	plat_ppoll(struct pollfd *pfd, nfds_t n, const struct timespec *ts,
	    const sigset_t *mask);

/* From a signal handler (async-signal-safe): end a plat_ppoll wait. */
void	plat_ppoll_wake(void);

#endif
