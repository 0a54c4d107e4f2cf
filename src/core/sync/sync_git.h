/* sync_git.h — the git plumbing `thatch sync` runs (sync_git.c). */
#ifndef THATCH_CORE_SYNC_GIT_H
#define THATCH_CORE_SYNC_GIT_H

#include <stdbool.h>
#include <stddef.h>

#include "core/sync/sync_merge.h"

struct err;
struct sbuf;

/* Where git runs (the project directory) and which remote it talks to.
 * Borrowed. */
struct sync_git {
	const char	*dir;
	const char	*remote;
};

/*
 * The commit the remote's ref points at: *exists false (oid "") when the
 * remote has no such ref, which is not an error. An unreachable remote
 * fails with git's own first line of complaint in err.
 */
int	sync_git_remote_head(const struct sync_git *, const char *ref,
	    char oid[SYNC_OID_LEN + 1], bool *exists, struct err *);

/* Fetch the remote's ref into local (forced): `git fetch --no-tags
 * --no-write-fetch-head <remote> +ref:local`. */
int	sync_git_fetch(const struct sync_git *, const char *ref,
	    const char *local, struct err *);

/* The commit a local ref names; *exists false when there is none. */
int	sync_git_ref(const struct sync_git *, const char *ref,
	    char oid[SYNC_OID_LEN + 1], bool *exists, struct err *);

/* Whether oid names a commit in this repository. */
bool	sync_git_has_commit(const struct sync_git *, const char *oid);

/* Whether commit a is commit b or one of its ancestors. */
bool	sync_git_is_ancestor(const struct sync_git *, const char *a,
	    const char *b);

/*
 * Call fn(path, blob oid, arg) for every blob of commit's tree (ls-tree
 * -r), in git's path order. fn returning non-zero stops the walk.
 */
int	sync_git_tree(const struct sync_git *, const char *commit,
	    int (*fn)(const char *, const char *, void *), void *,
	    struct err *);

/*
 * Call fn(path, commit, author mail, arg) for each file under dir that a
 * commit of range (git log's: "base..head" or "head") changed, newest
 * commit first, so a path's first call names the commit that last
 * changed it and that commit's author (issue 31's provenance). fn
 * returning non-zero stops the walk.
 */
int	sync_git_authors(const struct sync_git *, const char *range,
	    const char *dir, int (*fn)(const char *, const char *,
	    const char *, void *), void *, struct err *);

/*
 * Read the n blobs oids (cat-file --batch, one process) and call fn(i,
 * bytes, len, arg) for each in order; bytes are borrowed for the call.
 */
int	sync_git_blobs(const struct sync_git *, const char *const *oids,
	    size_t n, int (*fn)(size_t, const char *, size_t, void *), void *,
	    struct err *);

/*
 * Run fast-import over stream (which names its commit's ref itself, with
 * `commit <ref>` and mark :1 on the commit; dates are "now") and return
 * the commit's oid.
 * Objects the stream gives inline are written to the repository.
 */
int	sync_git_import(const struct sync_git *, const struct sbuf *stream,
	    char oid[SYNC_OID_LEN + 1], struct err *);

/* The user's committer identity, "Name <mail>" (git var), or NULL when
 * git has none. New string. */
char	*sync_git_ident(const struct sync_git *);

/*
 * Push commit to the remote's ref with a lease: the ref must still be at
 * expect ("": must not exist). *rejected true (rc 0) when someone pushed
 * first; an unreachable remote is an error.
 */
int	sync_git_push(const struct sync_git *, const char *commit,
	    const char *ref, const char *expect, bool *rejected, struct err *);

/* Point a local ref at oid (update-ref), or delete it when oid is "". */
int	sync_git_set_ref(const struct sync_git *, const char *ref,
	    const char *oid, struct err *);

/* Whether name is usable as the last part of a ref (check-ref-format). */
bool	sync_git_ref_ok(const struct sync_git *, const char *ref);

#endif
