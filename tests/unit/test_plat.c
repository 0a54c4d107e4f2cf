/*
 * test_plat.c — the platform layer (util/os/plat.h) keeps its contract on
 * whichever implementation this build compiled (Linux's, or the POSIX one
 * under `make PORTABLE=1`): a signal the wait mask lets through ends
 * plat_ppoll at once even when it arrived before the wait began (the
 * POSIX path's self-pipe: the MCP server stops on SIGTERM instead of
 * waiting for input that never comes); input ends it as poll would; the
 * peer of a socket pair is this process's user; a send to a closed peer
 * fails with EPIPE instead of killing the process (where send takes
 * MSG_NOSIGNAL; macOS's sockets carry SO_NOSIGPIPE instead, set by
 * plat_unix_socket, which a socket pair lacks); random bytes vary.
 */
#include <sys/socket.h>

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "util/os/plat.h"

static volatile sig_atomic_t	got;

static void
on_usr1(int sig)
{
	(void)sig;
	got = 1;
	plat_ppoll_wake();
}

/* SIGUSR1 handled by on_usr1 and blocked; *wait: the mask without it. */
static void
block_usr1(sigset_t *old, sigset_t *wait)
{
	struct sigaction	sa;
	sigset_t		block;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &block, old);
	*wait = *old;
	sigdelset(wait, SIGUSR1);
}

static double
now_s(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
test_a_signal_pending_before_the_wait_ends_it(void)
{
	struct timespec	 ts = { 30, 0 };
	struct pollfd	 pfd;
	sigset_t	 old, wait;
	double		 t0;
	int		 p[2], r;

	CHECK(pipe(p) == 0);
	block_usr1(&old, &wait);
	got = 0;
	raise(SIGUSR1);		/* pending: lands as the wait unmasks it */
	pfd = (struct pollfd){ p[0], POLLIN, 0 };
	t0 = now_s();
	r = plat_ppoll(&pfd, 1, &ts, &wait);
	CHECK_INT(r, -1);
	CHECK_INT(errno, EINTR);
	CHECK(got == 1);
	CHECK(now_s() - t0 < 10);	/* not the 30 s timeout */
	/* the next wait is not ended by the old signal: input ends it */
	CHECK(write(p[1], "x", 1) == 1);
	r = plat_ppoll(&pfd, 1, &ts, &wait);
	CHECK_INT(r, 1);
	CHECK(pfd.revents & POLLIN);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	signal(SIGUSR1, SIG_DFL);
	close(p[0]);
	close(p[1]);
}

static void
test_a_wait_with_nothing_times_out(void)
{
	struct timespec	 ts = { 0, 20 * 1000 * 1000 };
	struct pollfd	 pfd;
	sigset_t	 old, wait;
	int		 p[2];

	CHECK(pipe(p) == 0);
	block_usr1(&old, &wait);
	pfd = (struct pollfd){ p[0], POLLIN, 0 };
	CHECK_INT(plat_ppoll(&pfd, 1, &ts, &wait), 0);
	CHECK_INT(pfd.revents, 0);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	signal(SIGUSR1, SIG_DFL);
	close(p[0]);
	close(p[1]);
}

static void
test_the_peer_of_a_socket_pair_is_this_user(void)
{
	uid_t	uid = (uid_t)-1;
	int	sv[2];

	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	CHECK_INT(plat_peer_uid(sv[0], &uid), 0);
	CHECK_INT(uid, geteuid());
	close(sv[0]);
	close(sv[1]);
}

static void
test_a_send_to_a_closed_peer_fails_without_sigpipe(void)
{
#ifdef MSG_NOSIGNAL
	int	sv[2];

	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	close(sv[1]);
	signal(SIGPIPE, SIG_DFL);	/* it would kill this test */
	CHECK(send(sv[0], "x", 1, PLAT_MSG_NOSIGNAL) == -1);
	CHECK_INT(errno, EPIPE);
	close(sv[0]);
#endif
}

static void
test_random_bytes_vary(void)
{
	unsigned char	a[300], b[300];	/* past getentropy's 256 */

	CHECK_INT(plat_random(a, sizeof(a)), 0);
	CHECK_INT(plat_random(b, sizeof(b)), 0);
	CHECK(memcmp(a, b, sizeof(a)) != 0);
}

CHECK_MAIN(
	TEST(test_a_signal_pending_before_the_wait_ends_it),
	TEST(test_a_wait_with_nothing_times_out),
	TEST(test_the_peer_of_a_socket_pair_is_this_user),
	TEST(test_a_send_to_a_closed_peer_fails_without_sigpipe),
	TEST(test_random_bytes_vary)
)
