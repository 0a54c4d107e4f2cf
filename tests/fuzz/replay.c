/*
 * replay.c — the main() that turns a libFuzzer harness into a unit test:
 * test_fuzz_<name> feeds LLVMFuzzerTestOneInput every file of
 * corpus/<name>/ and regress/<name>/ under tests/fuzz (found from the top
 * of the tree or from tests/, where tests/run starts units), each in a
 * child process of its own, and prints the line tests/run adds up:
 * "unit fuzz-<name>: N passed, N failed".
 *
 *  1. An input passes when its child exits 0: a crash, a sanitizer report
 *     (ASan, UBSan and LeakSanitizer exit non-zero), a failed property
 *     (abort) or a hang past REPLAY_TIMEOUT seconds fails it, by name,
 *     and the other inputs still run.
 *  2. A child starts from the parent's clean state: LLVMFuzzerInitialize
 *     runs in each child, so no input depends on another's leftovers, as
 *     a crash found by libFuzzer must be reproducible from its file alone.
 *  3. tests/fuzz/known-crashes lists inputs of defects still open in code
 *     this suite does not own ("regress/<name>/<file> <why>"). Such an
 *     input that crashes is reported and not counted; one that passes
 *     counts as passed, with a note to remove its line.
 *  4. No input at all is a failure: a harness that replays nothing
 *     cannot fail.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fuzz.h"

#define REPLAY_TIMEOUT	60

int	LLVMFuzzerInitialize(int *, char ***) __attribute__((weak));

static int	passed, failed;

/* The whole file at path in a buffer of exactly its size (so ASan sees a
 * read past the input), or NULL. */
static uint8_t *
slurp(const char *path, size_t *n)
{
	FILE		*f = fopen(path, "rb");
	struct stat	 sb;
	uint8_t		*buf = NULL;

	if (f == NULL || fstat(fileno(f), &sb) != 0)
		goto out;
	*n = (size_t)sb.st_size;
	if ((buf = malloc(*n ? *n : 1)) == NULL ||
	    fread(buf, 1, *n, f) != *n) {
		free(buf);
		buf = NULL;
	}
out:
	if (f != NULL)
		fclose(f);
	return buf;
}

/* Run one input in a child; true when it exited 0 (invariant 1), else
 * what went wrong in how[len]. */
static bool
run_one(const char *path, int argc, char **argv, char *how, size_t len)
{
	uint8_t	*buf;
	size_t	 n = 0;
	pid_t	 pid;
	int	 status;

	if ((buf = slurp(path, &n)) == NULL) {
		snprintf(how, len, "cannot read: %s", strerror(errno));
		return false;
	}
	fflush(NULL);
	if ((pid = fork()) == 0) {
		alarm(REPLAY_TIMEOUT);
		if (LLVMFuzzerInitialize != NULL)
			LLVMFuzzerInitialize(&argc, &argv);
		LLVMFuzzerTestOneInput(buf, n);
		free(buf);
		exit(0);
	}
	free(buf);
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		snprintf(how, len, "cannot fork: %s", strerror(errno));
	else if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return true;
	else if (WIFSIGNALED(status))
		snprintf(how, len, "%s", strsignal(WTERMSIG(status)));
	else
		snprintf(how, len, "exit %d", WEXITSTATUS(status));
	return false;
}

/* The reason known-crashes gives for rel ("regress/<name>/<file>"), or
 * NULL when it is not listed (invariant 3). */
static char *
known_crash(const char *base, const char *rel)
{
	char	 path[4096], line[1024], *why = NULL;
	size_t	 n = strlen(rel);
	FILE	*f;

	snprintf(path, sizeof(path), "%s/known-crashes", base);
	if ((f = fopen(path, "r")) == NULL)
		return NULL;
	while (why == NULL && fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, rel, n) == 0 && (line[n] == ' ' ||
		    line[n] == '\t')) {
			line[strcspn(line, "\n")] = '\0';
			why = strdup(line + n + 1);
		}
	fclose(f);
	return why;
}

static int
by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static void
replay_dir(const char *base, const char *kind, const char *name, int argc,
    char **argv)
{
	struct dirent	**ents;
	char		  rel[1024], path[4096], how[256], *why;
	bool		  ok;
	int		  i, n;

	snprintf(path, sizeof(path), "%s/%s/%s", base, kind, name);
	if ((n = scandir(path, &ents, NULL, by_name)) < 0)
		return;
	for (i = 0; i < n; i++) {
		if (ents[i]->d_name[0] == '.')
			goto next;
		snprintf(rel, sizeof(rel), "%s/%s/%s", kind, name,
		    ents[i]->d_name);
		snprintf(path, sizeof(path), "%s/%s", base, rel);
		ok = run_one(path, argc, argv, how, sizeof(how));
		why = known_crash(base, rel);
		if (why != NULL && !ok)
			fprintf(stderr, "known crash, not counted: %s: %s (%s)\n",
			    rel, how, why);
		else if (ok)
			passed++;
		else {
			fprintf(stderr, "FAIL %s: %s\n", path, how);
			failed++;
		}
		if (why != NULL && ok)
			fprintf(stderr, "%s passes now: remove its line from "
			    "%s/known-crashes\n", rel, base);
		free(why);
next:
		free(ents[i]);
	}
	free(ents);
}

int
main(int argc, char **argv)
{
	const char	*name = strrchr(argv[0], '/'), *base = "tests/fuzz";
	struct stat	 sb;

	name = name != NULL ? name + 1 : argv[0];
	if (strncmp(name, "test_fuzz_", 10) == 0)
		name += 10;
	if (stat(base, &sb) != 0)
		base = "fuzz";
	replay_dir(base, "corpus", name, argc, argv);
	replay_dir(base, "regress", name, argc, argv);
	if (passed + failed == 0) {
		fprintf(stderr, "FAIL no inputs in %s/corpus/%s or "
		    "%s/regress/%s\n", base, name, base, name);
		failed++;
	}
	printf("unit fuzz-%s: %d passed, %d failed\n", name, passed, failed);
	return failed != 0;
}
