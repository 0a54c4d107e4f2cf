/*
 * fuzz_watch.c — gh's JSON as the watchers read it (src/core/session/watch_pr.c).
 * An input is five `gh api` answers separated by NUL bytes: the pull
 * request, its check runs, reviews, issue comments and review comments.
 * It is parsed twice (the second time with the answers' halves swapped
 * in, so two states differ) and the diff is taken both ways.
 *
 * Properties (watch.h): the state's strings are bounded and NUL-ended;
 * the head is hex; logins and the URL are only of their allowed
 * characters; counts are not negative; the diff text holds none of the
 * input's other strings' characters beyond those (it is built only from
 * the state) — checked as: no '"', '<', '\n' or control character.
 */
#include <ctype.h>

#include "fuzz.h"

#include "core/session/watch.h"
#include "util/sbuf.h"

static void
split(const uint8_t *data, size_t size, char *part[5], char *copy)
{
	size_t	i, k = 0;

	memcpy(copy, data, size);
	copy[size] = '\0';
	part[0] = copy;
	for (i = 0; i < size && k < 4; i++)
		if (copy[i] == '\0')
			part[++k] = copy + i + 1;
	while (k < 4)
		part[++k] = NULL;
}

static void
check_state(const struct watch_pr *pr)
{
	size_t	i;

	FUZZ_ASSERT(memchr(pr->head, '\0', sizeof(pr->head)) != NULL);
	for (i = 0; pr->head[i] != '\0'; i++)
		FUZZ_ASSERT(isxdigit((unsigned char)pr->head[i]));
	for (i = 0; pr->reviewers[i] != '\0'; i++)
		FUZZ_ASSERT(isalnum((unsigned char)pr->reviewers[i]) ||
		    strchr("-,", pr->reviewers[i]) != NULL);
	FUZZ_ASSERT(pr->newest_url[0] == '\0' ||
	    strncmp(pr->newest_url, "https://github.com/", 19) == 0);
	FUZZ_ASSERT(pr->checks_done <= pr->checks_total && pr->comments >= 0);
}

static void
check_diff(const struct watch_pr *a, const struct watch_pr *b)
{
	struct sbuf	 sb = SBUF_INIT;
	const char	*p;

	sbuf_init(&sb);
	watch_pr_diff(a, b, &sb);
	for (p = sb.buf; *p != '\0'; p++)
		FUZZ_ASSERT(*p != '"' && *p != '<' && (unsigned char)*p >= 0x20);
	sbuf_release(&sb);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct watch_pr	 a, b;
	char		*part[5], *copy = malloc(size + 1);
	bool		 okb;

	if (copy == NULL)
		abort();
	split(data, size, part, copy);
	if (watch_pr_parse(part[0], part[1], part[2], part[3], part[4],
	    &a) == 0) {
		check_state(&a);
		okb = watch_pr_parse(part[0], part[2], part[1], part[4],
		    part[3], &b) == 0;
		FUZZ_ASSERT(okb);
		check_state(&b);
		check_diff(&a, &b);
		check_diff(&b, &a);
	}
	free(copy);
	return 0;
}
