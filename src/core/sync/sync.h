/* sync.h — a project store exchanged through the project's git remote (sync.c). */
#ifndef THATCH_CORE_SYNC_H
#define THATCH_CORE_SYNC_H

#include <stdbool.h>
#include <stddef.h>

#include "core/sync/sync_merge.h"
#include "util/sbuf.h"

struct err;
struct store;
struct store_space;

/*
 * How incoming memories get their vectors (vectors never travel): open
 * names the model in effect as a space (called once, only when something
 * needs a vector; sp->tag borrowed until the sync returns), and embed
 * turns n texts into n x sp->dim floats in out, as passages. NULL open:
 * no model, and what came in stays without a vector.
 */
struct sync_embedder {
	int	(*open)(void *arg, struct store_space *sp, struct err *);
	int	(*embed)(void *arg, const char *const *texts, size_t n,
		    float *out, struct err *);
	void	*arg;
};

/* What `thatch sync` is asked to do. Borrowed. */
struct sync_opts {
	const char		*store;		/* never "global" */
	const char		*dir;		/* the project's checkout */
	const char		*remote;	/* "origin", or a URL */
	const char		*now;		/* ISO time of tombstones */
	bool			 status;	/* --status: change nothing */
	bool			 force;		/* send secret-looking ones */
	struct sync_embedder	 embedder;
};

/* What a sync did (or, with status, would do). Release with
 * sync_report_release. */
struct sync_report {
	size_t		sent, received, archived, held, unembedded;
	bool		pushed;		/* a commit went out */
	int		attempts;	/* pushes tried (a race retries) */
	char		commit[SYNC_OID_LEN + 1];	/* the ref now, or "" */
	struct sbuf	notes;		/* owned: one line each, held back */
	struct sbuf	secrets;	/* owned: the same, secret-looking */
	struct sbuf	plan;		/* owned: "send|take|... <label>" */
	struct sbuf	embed_err;	/* owned: why embedding stopped */
};

void	sync_report_init(struct sync_report *);
void	sync_report_release(struct sync_report *);

/*
 * Exchange o->store with refs/thatch/<store> of o->remote (docs/sync.md):
 * fetch, merge per memory against the last synced commit, apply the
 * result to the database in one transaction, commit and push with a
 * lease, and on a lost race fetch and merge again (up to a few times).
 * Then embed what came in without a vector, in batches; a model that
 * cannot be loaded is a note in the report, not a failure. An
 * unreachable remote or a failed git fails before anything changes.
 * Returns 0 or -1 with err set.
 */
int	sync_run(struct store *, const struct sync_opts *,
	    struct sync_report *, struct err *);

/*
 * What sync_run does last: give o->store's memories without a vector one
 * (o->embedder), in batches; rep->unembedded and rep->embed_err say what
 * is left and why. For memories accepted from review, too.
 */
void	sync_embed_missing(struct store *, const struct sync_opts *,
	    struct sync_report *);

/* --auto: whether store syncs with remote in the background (MCP). */
int	sync_auto_set(struct store *, const char *store, const char *remote,
	    bool on, struct err *);

/*
 * The remote store auto-syncs with (a new string), or NULL when auto is
 * off or was never set; a database without thatch's sync tables is off.
 */
char	*sync_auto_remote(struct store *, const char *store);

/* Mark slug of store private (never sent) or shareable again. */
int	sync_private_set(struct store *, const char *store, const char *slug,
	    bool private, struct err *);

#endif
