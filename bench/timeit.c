/*
 * timeit.c — a command's cold latency as bench_record reports it: run
 * CMD ROUNDS times after one untimed run, and time each from fork to
 * exit, wall and the child's CPU (user + system, every thread, from
 * wait4). Output goes to /dev/null, but for the untimed run's stderr,
 * which tells why a command failed. For cold `thatch search` and
 * `thatch list` under load and quiet (bench/b150-load.sh).
 *
 *   timeit NAME ROUNDS CMD [ARG...]
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

/* One run of argv; its CPU ms in *cpu. Exits when it fails. */
static double
run(char **argv, bool quiet, double *cpu)
{
	struct rusage	ru;
	double		t0 = bench_now_ms();
	int		status;
	pid_t		pid = fork();

	if (pid == 0) {
		int	null = open("/dev/null", O_WRONLY);

		dup2(null, 1);
		if (quiet)
			dup2(null, 2);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (pid < 0 || wait4(pid, &status, 0, &ru) != pid ||
	    !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "timeit: %s failed\n", argv[0]);
		exit(1);
	}
	*cpu = ru.ru_utime.tv_sec * 1e3 + ru.ru_utime.tv_usec / 1e3 +
	    ru.ru_stime.tv_sec * 1e3 + ru.ru_stime.tv_usec / 1e3;
	return bench_now_ms() - t0;
}

int
main(int argc, char **argv)
{
	double	*wall, *cpu;
	int	 rounds, i;

	if (argc < 4 || (rounds = atoi(argv[2])) < 1) {
		fputs("usage: timeit NAME ROUNDS CMD [ARG...]\n", stderr);
		return 2;
	}
	wall = calloc((size_t)rounds, sizeof(*wall));
	cpu = calloc((size_t)rounds, sizeof(*cpu));
	run(argv + 3, false, &cpu[0]);
	for (i = 0; i < rounds; i++)
		wall[i] = run(argv + 3, true, &cpu[i]);
	bench_record(argv[1], wall, cpu, rounds);
	free(wall);
	free(cpu);
	return 0;
}
