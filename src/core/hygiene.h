/* hygiene.h — the store hygiene report (hygiene.c). */
#ifndef THATCH_CORE_HYGIENE_H
#define THATCH_CORE_HYGIENE_H

#include <stddef.h>
#include <stdint.h>

struct err;
struct sbuf;
struct store;

/* Memories untouched for this many days count as stale (§6). */
#define HYGIENE_STALE_DAYS	90

/*
 * The report of store-and-tools §6 / hosts-hooks-cli §7.2 for the project
 * store repo, as of now_ms: appends the one line
 * `Store "<repo>": <part>; <part>.` to out, or nothing when the store is
 * healthy. live names the worktree's local branches; nlive 0 means they
 * are unknown (not a git repository, git failed), which skips the orphan
 * signal rather than calling every branch deleted. Reads only. Returns 0,
 * or -1 with err set (out unchanged).
 */
int	hygiene_report(struct store *, const char *repo,
	    const char *const *live, size_t nlive, int64_t now_ms,
	    struct sbuf *out, struct err *);

#endif
