/*
 * load.c — the load generator of the benchmarks under load (issue 17;
 * bench/b150-load.sh): N processes that each keep a core busy with
 * arithmetic, standing in for the editor, the agent, a build and its
 * tests beside thatch. Local CPU only: no memory traffic to speak of, no
 * files, no network.
 *
 *   load [-n PROCS] [-t SECONDS] [-p PID]
 *
 * PROCS defaults to the online cores, SECONDS to 600 (at most 3600). It
 * always stops by itself: at the deadline; when PID (default: the
 * process that started it) is gone, so a benchmark killed with SIGKILL
 * does not leave it running; on SIGTERM, SIGINT or SIGHUP. The workers
 * die with it (PR_SET_PDEATHSIG) and check the deadline themselves, so
 * even a SIGKILL of load stops them.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

#define MAX_PROCS	64

static volatile sig_atomic_t	stop;

static void
on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* A worker: arithmetic until the deadline or until load is gone. */
static void
burn(pid_t parent, double deadline)
{
	volatile double	x = 1.0;
	long		i;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	while (getppid() == parent && bench_now_ms() < deadline)
		for (i = 0; i < 1000000; i++)
			x = x * 1.0000001 + 1e-9;
	_exit(0);
}

/*
 * Is pid still there? A process killed while its parent does not reap it
 * stays a zombie, which kill(pid, 0) still finds: /proc tells.
 */
static int
alive(pid_t pid)
{
	char	 path[64], buf[512], *paren;
	size_t	 n;
	FILE	*fp;

	if (kill(pid, 0) != 0 && errno != EPERM)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((fp = fopen(path, "r")) == NULL)
		return 1;
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	fclose(fp);
	buf[n] = '\0';
	paren = strrchr(buf, ')');	/* "pid (comm) S ...": comm may hold ')' */
	return paren == NULL || paren[1] == '\0' || paren[2] != 'Z';
}

int
main(int argc, char **argv)
{
	long		 procs = sysconf(_SC_NPROCESSORS_ONLN), secs = 600;
	pid_t		 watch = getppid(), self = getpid(), kids[MAX_PROCS];
	double		 deadline;
	int		 opt, i, n = 0;

	while ((opt = getopt(argc, argv, "n:t:p:")) != -1) {
		switch (opt) {
		case 'n':
			procs = atol(optarg);
			break;
		case 't':
			secs = atol(optarg);
			break;
		case 'p':
			watch = (pid_t)atol(optarg);
			break;
		default:
			fputs("usage: load [-n PROCS] [-t SECONDS] [-p PID]\n",
			    stderr);
			return 2;
		}
	}
	if (procs < 1 || procs > MAX_PROCS || secs < 1 || secs > 3600) {
		fputs("load: PROCS must be 1-64 and SECONDS 1-3600\n", stderr);
		return 2;
	}
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	signal(SIGHUP, on_signal);
	deadline = bench_now_ms() + secs * 1e3;
	for (i = 0; i < procs; i++) {
		pid_t	pid = fork();

		if (pid == 0)
			burn(self, deadline);
		if (pid > 0)
			kids[n++] = pid;
	}
	fprintf(stderr, "load: %d busy processes for at most %ld s\n", n,
	    secs);
	while (!stop && bench_now_ms() < deadline && alive(watch))
		nanosleep(&(struct timespec){ 0, 100000000L }, NULL);
	for (i = 0; i < n; i++)
		kill(kids[i], SIGKILL);
	for (i = 0; i < n; i++)
		waitpid(kids[i], NULL, 0);
	return 0;
}
