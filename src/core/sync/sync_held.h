/* sync_held.h — the memories sync held for the user's review (sync_held.c). */
#ifndef THATCH_CORE_SYNC_HELD_H
#define THATCH_CORE_SYNC_HELD_H

#include <stdbool.h>
#include <stddef.h>

#include "core/store/store.h"

struct err;

/* A document's review, by the blob id it was made on. */
enum sync_held_state {
	SYNC_HELD_NONE,		/* never held, or another version was */
	SYNC_HELD_PENDING,	/* held, waiting for the user */
	SYNC_HELD_ACCEPTED,
	SYNC_HELD_REJECTED,
};

/* One held memory: e's strings and the others are borrowed for the call
 * (e.vec is NULL). */
struct sync_held {
	long long		 id;		/* what --accept/--reject name */
	struct store_entry	 e;
	const char		*reason, *author, *ref;
};

/* Create thatch_sync_held when missing (the first sync does). */
int	sync_held_setup(struct store *, struct err *);

/* The review of (store, slug) as the document oid. */
int	sync_held_state(struct store *, const char *store, const char *slug,
	    const char *oid, enum sync_held_state *, struct err *);

/*
 * Hold e (store and slug set), the document oid, for review: why it is
 * held, who sent it (author, commit; NULL when unknown keeps a known
 * one). Replaces what the slug held before. Inside the caller's
 * transaction.
 */
int	sync_held_put(struct store *, const struct store_entry *e,
	    const char *oid, const char *reason, const char *author,
	    const char *ref, struct err *);

/* Call fn for each memory of store still held, oldest first; fn
 * returning non-zero stops the walk. */
int	sync_held_walk(struct store *, const char *store,
	    int (*fn)(const struct sync_held *, void *), void *,
	    struct err *);

/*
 * Accept (into entries, with its provenance) or reject the held memory id
 * of store, or every held one when id is 0, in one transaction; *n gets
 * how many were decided (0: no such held memory).
 */
int	sync_held_decide(struct store *, const char *store, long long id,
	    bool accept, size_t *n, struct err *);

#endif
