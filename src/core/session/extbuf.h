/* extbuf.h — opencode's extraction buffer on disk, with its lifecycle (extbuf.c). */
#ifndef THATCH_CORE_EXTBUF_H
#define THATCH_CORE_EXTBUF_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

struct err;

/*
 * The original keeps this buffer in the plugin's memory (seed 000,
 * "Buffer lifecycle"); thatch keeps it in one file per session so that a
 * plugin reload, a core restart or an opencode crash loses nothing. Each
 * entry is pending (buffered, waiting for an extraction) or accepted
 * (handed to an extraction child, held until the child completes); a
 * child's payload fetch records a claim (exactly the entries it received),
 * and the snapshot is what was accepted at dispatch. Every operation
 * locks the directory, reads the file, changes it and replaces it, so
 * two processes never interleave; a session's file is touched only by
 * operations naming that session.
 */

/* Pending entries kept per session (accepted ones are a child's). */
#define EXTBUF_CAP		20
/* Accepted entries older than this go back to pending (§9.3 reaper). */
#define EXTBUF_STALE_MS		(15 * 60 * 1000)

/* The child's extraction metrics (§9.5 toast). */
enum extbuf_metric { EXTBUF_NEW, EXTBUF_UPDATED, EXTBUF_DELETED };

struct extbuf_state {
	size_t	 pending, accepted;
	int	 extracting;	/* a child is being dispatched or runs */
	char	*child;		/* owned; the extraction child, or NULL */
	int	 metrics[3];	/* enum extbuf_metric */
};

void	extbuf_state_release(struct extbuf_state *);

/*
 * Buffer rec (a tool interaction record; a copy is stored) for session sid
 * in dir. Keeps at most EXTBUF_CAP pending entries, dropping the oldest;
 * accepted entries are never dropped (a child holds them).
 */
int	extbuf_push(const char *dir, const char *sid, const json_t *rec,
	    struct err *);

/* What the session's file says now; a missing file is all zero. */
int	extbuf_state(const char *dir, const char *sid, struct extbuf_state *,
	    struct err *);

/*
 * The stale reaper: accepted entries accepted before now - EXTBUF_STALE_MS
 * go back to pending, and a dispatch mark as old is cleared (its child
 * never reported). Returns the number of entries requeued, or -1.
 */
int	extbuf_reap(const char *dir, const char *sid, int64_t now,
	    struct err *);

/*
 * Mark the session as extracting when it has pending entries and is not
 * already: 1 marked (the caller dispatches a child), 0 nothing to do, -1.
 */
int	extbuf_begin(const char *dir, const char *sid, int64_t now,
	    struct err *);

/*
 * The child was created: every pending entry becomes accepted (the
 * snapshot), child is recorded and linked to sid. Returns how many were
 * accepted, or -1.
 */
int	extbuf_accept(const char *dir, const char *sid, const char *child,
	    int64_t now, struct err *);

/*
 * The payload fetch: *recs is a new array of the records of every entry
 * (accepted, then pending, oldest first), and the claim is set to exactly
 * those entries. Returns the count, or -1.
 */
int	extbuf_claim(const char *dir, const char *sid, json_t **recs,
	    struct err *);

/*
 * A memory write or extraction_done in the child: the claimed entries are
 * removed (whatever their state now) and the claim cleared; entries
 * buffered after the fetch survive. metric >= 0 counts one for the toast.
 * Returns the number removed, or -1.
 */
int	extbuf_complete(const char *dir, const char *sid, int metric,
	    struct err *);

/*
 * The child went idle: the snapshot's remaining entries are removed (the
 * no-save drain runs unconditionally), then every accepted entry; child,
 * claim and mark are cleared. metrics gets the run's counts. Returns the
 * number removed, or -1.
 */
int	extbuf_finish(const char *dir, const char *sid, int metrics[3],
	    struct err *);

/*
 * The child errored or was deleted: accepted entries go back to pending;
 * child, claim, snapshot and mark are cleared. Returns the count, or -1.
 */
int	extbuf_requeue(const char *dir, const char *sid, struct err *);

/*
 * A memory write in the session itself: its pending entries are removed
 * (accepted ones stay with their child). Returns the count, or -1.
 */
int	extbuf_consume(const char *dir, const char *sid, struct err *);

/* The session was deleted: its file (and its child link) go. */
int	extbuf_drop(const char *dir, const char *sid, struct err *);

/* The parent an extraction child belongs to (new string), or NULL. */
char	*extbuf_parent(const char *dir, const char *child);

#endif
