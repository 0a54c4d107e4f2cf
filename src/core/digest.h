/* digest.h — the session-start digest of a project's memory (digest.c). */
#ifndef THATCH_CORE_DIGEST_H
#define THATCH_CORE_DIGEST_H

#include <stdint.h>

struct err;
struct sbuf;
struct store;

/* Memories in the "most recalled" list, labels only (issue 27). */
#define DIGEST_TOP	5

/*
 * Append the digest of stores repo and "global" to out: their memory
 * counts, how many of repo's memories are new or updated since the
 * previous session start of repo (a line only when there are some), and
 * the labels of the DIGEST_TOP memories recalled most. Records now_ms as
 * repo's session start, best effort. The text holds no time, so it is
 * the same at every start while the stores do not change. On an error
 * out is left as it was.
 */
int	digest_session_start(struct store *, const char *repo, int64_t now_ms,
	    struct sbuf *out, struct err *);

#endif
