/*
 * fuzz.h — what every harness in tests/fuzz/ shares: the two libFuzzer
 * entry points, and one private environment per process.
 *
 * A harness is one fuzz_<name>.c defining LLVMFuzzerTestOneInput (and, for
 * state built once, LLVMFuzzerInitialize). It builds two ways: with
 * clang's libFuzzer (make fuzz, tests/fuzz/smoke.sh), and with replay.c's
 * main() as the unit test test_fuzz_<name>, which feeds it every file of
 * corpus/<name>/ and regress/<name>/ (make test, also under ASan/UBSan).
 *  1. A harness aborts (abort(), so both builds report it) when a property
 *     the code promises fails; memory errors are the sanitizers' to find.
 *  2. Nothing reaches the user's files, the network or the terminal:
 *     fuzz_env points HOME, the XDG dirs, the database, the queue and
 *     TMPDIR into one temporary directory, removed at exit, and the model
 *     at the tiny fixture.
 */
#ifndef THATCH_TESTS_FUZZ_H
#define THATCH_TESTS_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int	LLVMFuzzerInitialize(int *argc, char ***argv);
int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Abort with a message: the property of invariant 1 does not hold. */
#define FUZZ_ASSERT(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "%s:%d: property failed: %s\n",		\
		    __FILE__, __LINE__, #cond);				\
		abort();						\
	}								\
} while (0)

static char	*fuzz_root;

static inline void
fuzz_cleanup(void)
{
	char	cmd[256];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fuzz_root);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", fuzz_root);
}

/* tests/fixtures/<rel>: THATCH_FIXTURES (tests/run sets it), else the
 * fixtures of the source tree from its top or from tests/. New string. */
static inline char *
fuzz_fixture(const char *rel)
{
	const char	*top = getenv("THATCH_FIXTURES");
	size_t		 n;
	char		*p, *abs;
	FILE		*f;

	if (top == NULL || *top == '\0') {
		top = "tests/fixtures";
		if ((f = fopen("tests/fixtures/embed/tiny-bert/config.json",
		    "r")) != NULL)
			fclose(f);
		else
			top = "fixtures";
	}
	n = strlen(top) + strlen(rel) + 2;
	if ((p = malloc(n)) == NULL)
		abort();
	snprintf(p, n, "%s/%s", top, rel);
	if ((abs = realpath(p, NULL)) == NULL)
		return p;	/* the harness then fails to load it, and says so */
	free(p);
	return abs;
}

/*
 * The private environment of invariant 2, made once; returns its
 * directory. Hooks and servers started here see no host (no
 * CLAUDE_PROJECT_DIR, no CURSOR_*) and no sideband.
 */
static inline const char *
fuzz_env(void)
{
	static const char *const	unset[] = { "CLAUDE_PROJECT_DIR",
		"CURSOR_PROJECT_DIR", "CLAUDE_CONFIG_DIR", "CURSOR_CONFIG_DIR",
		"CURSOR_VERSION", "THATCH_QUEUE_DIR", "THATCH_DEBUG", "HF_HOME",
		"HF_TOKEN", "XDG_RUNTIME_DIR", NULL };
	static char			 tmpl[] = "/tmp/thatch-fuzz.XXXXXX";
	char				 buf[512], *model;
	size_t				 i;

	if (fuzz_root != NULL)
		return fuzz_root;
	if ((fuzz_root = mkdtemp(tmpl)) == NULL) {
		perror("mkdtemp");
		abort();
	}
	atexit(fuzz_cleanup);
	for (i = 0; unset[i] != NULL; i++)
		unsetenv(unset[i]);
#define FUZZ_SETENV(var, fmt) do {					\
	snprintf(buf, sizeof(buf), fmt, fuzz_root);			\
	setenv(var, buf, 1);						\
} while (0)
	FUZZ_SETENV("HOME", "%s/home");
	FUZZ_SETENV("XDG_CONFIG_HOME", "%s/home/.config");
	FUZZ_SETENV("XDG_CACHE_HOME", "%s/home/.cache");
	FUZZ_SETENV("THATCH_DB_PATH", "%s/home/.config/thatch/thatch.db");
	FUZZ_SETENV("TMPDIR", "%s");
#undef FUZZ_SETENV
	setenv("HF_ENDPOINT", "http://127.0.0.1:9", 1);	/* nobody there */
	setenv("THATCH_WARMUP", "0", 1);
	model = fuzz_fixture("embed/tiny-bert");
	setenv("THATCH_MODEL", model, 1);
	free(model);
	return fuzz_root;
}

/* The next NUL-terminated piece of an input (a new string), or NULL past
 * its end: how harnesses cut one input into the fields of a record. */
static inline char *
fuzz_piece(const uint8_t **p, const uint8_t *end)
{
	const uint8_t	*z;
	char		*s;
	size_t		 n;

	if (*p >= end)
		return NULL;
	if ((z = memchr(*p, '\0', (size_t)(end - *p))) == NULL)
		z = end;
	n = (size_t)(z - *p);
	if ((s = malloc(n + 1)) == NULL)
		abort();
	memcpy(s, *p, n);
	s[n] = '\0';
	*p = z + (z < end);
	return s;
}

#endif
