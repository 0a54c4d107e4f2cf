/* hygiene.h — the store hygiene report (hygiene.c). */
#ifndef THATCH_CORE_HYGIENE_H
#define THATCH_CORE_HYGIENE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/anchor/anchor.h"
#include "core/dedup.h"
#include "util/os/clock.h"

struct err;
struct sbuf;
struct store;

/* Memories untouched for this many days count as stale (§6). */
#define HYGIENE_STALE_DAYS	90

/* One distinct branch of the store's entries, archived ones included. */
struct hygiene_branch {
	char	*name;		/* owned */
	int	 nlive;		/* its non-archived entries */
};

/*
 * What the report of one store is made of, read at one instant: the
 * database part of §6 (the worktree's branches are joined in only when
 * the line is written), so it can be kept between processes
 * (hygiene_cache.c). All owned; release with hygiene_facts_release.
 */
struct hygiene_facts {
	bool			 dups_known;	/* false: say nothing of them */
	size_t			 dups;
	char			 cutoff[CLOCK_ISO_LEN];	/* stale: touched before */
	int			 stale;
	char			*next_stale;	/* earliest touch >= cutoff */
	struct hygiene_branch	*branches;	/* ORDER BY branch */
	size_t			 nbranches;
	/* memories whose anchored code drifted: judged against the
	 * worktree, not the database, so never cached (hygiene_drift) */
	size_t			 drifted;
};

/*
 * Read the facts of store repo as of now_ms; dups false skips the
 * duplicate count (the expensive part: an all-pairs scan). Reads only.
 * Returns 0, or -1 with err set and f empty.
 */
int	hygiene_scan(struct store *, const char *repo, int64_t now_ms,
	    bool dups, struct hygiene_facts *, struct err *);
void	hygiene_facts_release(struct hygiene_facts *);

/*
 * True if f, read at some earlier instant from a database that has not
 * changed since, still gives the stale count at now_ms: no memory has
 * aged past HYGIENE_STALE_DAYS in between (and the clock did not go back).
 */
bool	hygiene_current(const struct hygiene_facts *, int64_t now_ms);

/*
 * The report of store-and-tools §6 / hosts-hooks-cli §7.2 from f: appends
 * the one line `Store "<repo>": <part>; <part>.` to out, or nothing when
 * the store is healthy. live names the worktree's local branches; nlive 0
 * means they are unknown (not a git repository, git failed), which skips
 * the orphan signal rather than calling every branch deleted.
 */
void	hygiene_format(const struct hygiene_facts *, const char *repo,
	    const char *const *live, size_t nlive, struct sbuf *out);

/* hygiene_scan (with duplicates) then hygiene_format: the exact report as
 * of now_ms. Returns 0, or -1 with err set (out unchanged). */
int	hygiene_report(struct store *, const char *repo,
	    const char *const *live, size_t nlive, int64_t now_ms,
	    struct sbuf *out, struct err *);

/* One memory behind a signal, as the list names it. All owned. */
struct hygiene_memory {
	char	*label, *branch, *updated_at, *last_recalled_at;
};

struct hygiene_memories {
	struct hygiene_memory	*v;
	size_t			 n;
};

/*
 * The memories behind each signal of the report (`thatch hygiene --list`,
 * store_hygiene with list: true), from the same reads as the report so
 * that its counts are the list's lengths: facts as hygiene_scan (with
 * duplicates), the duplicate pairs of dedup_find, the stale memories
 * oldest touch first, and the non-archived memories of each branch that
 * is not in live, by branch then label (none when nlive is 0: unknown).
 * All owned; release with hygiene_list_release.
 */
struct hygiene_list {
	struct hygiene_facts	 facts;
	struct dedup_result	 dups;
	struct hygiene_memories	 stale;
	struct hygiene_memories	 orphaned;
	struct anchor_drifts	 drifted;	/* hygiene_drift */
};

int	hygiene_list(struct store *, const char *repo, const char *const *live,
	    size_t nlive, int64_t now_ms, struct hygiene_list *, struct err *);
void	hygiene_list_release(struct hygiene_list *);

/*
 * The fourth signal: the non-archived memories of repo whose anchored code
 * changed or is gone in the worktree holding dir (anchor_drifted), counted
 * into f->drifted; with list, named there with their files and the
 * commits since. A failure to judge is logged and counts none.
 */
void	hygiene_drift(struct store *, const char *repo, const char *dir,
	    struct hygiene_facts *f, struct anchor_drifts *list);

/*
 * The list as text, one section per non-empty signal (labels with their
 * control characters escaped), appended to out; nothing when all four
 * are empty.
 */
void	hygiene_list_format(const struct hygiene_list *, struct sbuf *out);

#endif
