/*
 * test_mapguard.c — a file cut under its guarded mapping reads as zeros
 * and reports the loss, on every thread at once, where the read would
 * have raised SIGBUS; the loss is never forgotten; and a SIGBUS that is
 * not the guard's still kills the process, as it did without one.
 */
#include <sys/mman.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "util/os/mapguard.h"

#define PAGES	64

static size_t	page;

/* A file of PAGES pages of 0x5a, mapped read-only: its fd, *map, *path. */
static int
mapped_file(unsigned char **map, char path[32])
{
	unsigned char	*buf;
	size_t		 len;
	int		 fd;

	page = (size_t)sysconf(_SC_PAGESIZE);
	len = PAGES * page;
	memcpy(path, "/tmp/thatch-mapguard.XXXXXX", 28);
	fd = mkstemp(path);
	CHECK(fd >= 0);
	buf = malloc(len);
	memset(buf, 0x5a, len);
	CHECK(write(fd, buf, len) == (ssize_t)len);
	free(buf);
	*map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	CHECK(*map != MAP_FAILED);
	return fd;
}

/* The sum of one byte per page: reads every page of the mapping. */
static unsigned
touch(const unsigned char *map)
{
	unsigned	sum = 0;
	size_t		i;

	for (i = 0; i < PAGES; i++)
		sum += *(const volatile unsigned char *)(map + i * page);
	return sum;
}

static void
test_a_cut_reads_zeros_and_is_reported(void)
{
	unsigned char	*map;
	char		 path[32];
	int		 fd = mapped_file(&map, path), g;

	/* what a process has without a sanitizer's handler (see below) */
	signal(SIGBUS, SIG_DFL);
	g = mapguard_add(fd, map, PAGES * page);
	close(fd);
	CHECK(g > 0);
	CHECK_INT(touch(map), PAGES * 0x5a);
	CHECK(mapguard_intact(g));
	/* the first 10 pages stay; the rest faults without the guard */
	CHECK_INT(truncate(path, (off_t)(10 * page)), 0);
	CHECK_INT(touch(map), 10 * 0x5a);
	CHECK(!mapguard_intact(g));
	/* restoring the size does not bring the weights back */
	CHECK_INT(truncate(path, (off_t)(PAGES * page)), 0);
	CHECK(!mapguard_intact(g));
	mapguard_remove(g);
	munmap(map, PAGES * page);
	unlink(path);
}

static void
test_a_cut_inside_the_last_page_is_seen_by_its_size(void)
{
	unsigned char	*map;
	char		 path[32];
	int		 fd = mapped_file(&map, path), g;

	g = mapguard_add(fd, map, PAGES * page);
	close(fd);
	CHECK(mapguard_intact(g));
	/* no page goes missing: only the size tells */
	CHECK_INT(truncate(path, (off_t)(PAGES * page - 1)), 0);
	CHECK_INT(touch(map), PAGES * 0x5a);
	CHECK(!mapguard_intact(g));
	mapguard_remove(g);
	munmap(map, PAGES * page);
	unlink(path);
}

/* Read the mapping until the cut shows: only the first page is left. */
static void *
reader(void *arg)
{
	uintptr_t	rounds = 1;

	while (touch(arg) != 0x5a)
		rounds++;
	return (void *)rounds;
}

/* gemm.c's workers read packed weights: each survives its own fault. */
static void
test_threads_faulting_together_all_survive(void)
{
	unsigned char	*map;
	pthread_t	 t[4];
	char		 path[32];
	int		 fd = mapped_file(&map, path), g, i;

	g = mapguard_add(fd, map, PAGES * page);
	close(fd);
	for (i = 0; i < 4; i++)
		CHECK_INT(pthread_create(&t[i], NULL, reader, map), 0);
	CHECK_INT(truncate(path, (off_t)page), 0);
	for (i = 0; i < 4; i++)
		pthread_join(t[i], NULL);	/* each saw the cut, and lives */
	CHECK_INT(touch(map), 0x5a);
	CHECK(!mapguard_intact(g));
	mapguard_remove(g);
	munmap(map, PAGES * page);
	unlink(path);
}

/* A child's death: the signal that killed it, or 0. */
static int
death_of(pid_t pid)
{
	int	status;

	if (waitpid(pid, &status, 0) != pid || !WIFSIGNALED(status))
		return 0;
	return WTERMSIG(status);
}

/* SIG_DFL came before the first guard (the first test): not ours, die. */
static void
test_other_sigbus_still_kills(void)
{
	unsigned char	*map, *other;
	char		 path[32];
	pid_t		 pid;
	int		 fd, g;

	if (getenv("THATCH_VALGRIND") != NULL) {
		/* valgrind makes some of these faults SIGSEGV at address 0 */
		printf("%s: skipped under valgrind\n", __func__);
		return;
	}
	fd = mapped_file(&map, path);
	/* guard the first half: the second half is someone else's */
	g = mapguard_add(fd, map, PAGES / 2 * page);
	other = map + PAGES / 2 * page;
	CHECK_INT(truncate(path, 0), 0);
	if ((pid = fork()) == 0) {
		touch(map);	/* guarded: survives, reads zeros */
		_exit(*(volatile unsigned char *)other);	/* dies */
	}
	CHECK_INT(death_of(pid), SIGBUS);
	if ((pid = fork()) == 0) {
		raise(SIGBUS);
		_exit(0);
	}
	CHECK_INT(death_of(pid), SIGBUS);
	mapguard_remove(g);
	munmap(map, PAGES * page);
	close(fd);
	unlink(path);
}

static void
test_slots_run_out_gracefully(void)
{
	unsigned char	*map;
	char		 path[32];
	int		 fd = mapped_file(&map, path), g[MAPGUARD_SLOTS + 1], i;

	for (i = 0; i <= MAPGUARD_SLOTS; i++)
		g[i] = mapguard_add(fd, map, page);
	CHECK(g[0] > 0 && g[MAPGUARD_SLOTS - 1] > 0);
	CHECK_INT(g[MAPGUARD_SLOTS], 0);	/* unguarded: intact, as before */
	CHECK(mapguard_intact(g[MAPGUARD_SLOTS]));
	for (i = 0; i <= MAPGUARD_SLOTS; i++)
		mapguard_remove(g[i]);
	g[0] = mapguard_add(fd, map, page);	/* freed slots are reused */
	CHECK(g[0] > 0);
	mapguard_remove(g[0]);
	munmap(map, PAGES * page);
	close(fd);
	unlink(path);
}

CHECK_MAIN(
	TEST(test_a_cut_reads_zeros_and_is_reported),
	TEST(test_a_cut_inside_the_last_page_is_seen_by_its_size),
	TEST(test_threads_faulting_together_all_survive),
	TEST(test_other_sigbus_still_kills),
	TEST(test_slots_run_out_gracefully)
)
