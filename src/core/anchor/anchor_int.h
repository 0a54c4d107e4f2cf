/*
 * anchor_int.h — what the anchor files share and nobody else may see:
 * the tables' rows (anchor.c), the worktree found natively
 * (anchor_git.c), the git commands anchors need, and the fingerprints
 * (anchor_span.c).
 */
#ifndef THATCH_CORE_ANCHOR_INT_H
#define THATCH_CORE_ANCHOR_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "util/gitoid.h"

struct anchors;
struct err;
struct sbuf;
struct store;

#define ANCHOR_OID_LEN	GITOID_HEX_LEN

/* Create thatch's anchor tables and triggers if they are not there
 * (anchor.c invariant 1). Returns 0 or -1. */
int	anchor_tables(struct store *, struct err *);

/* Replace the rows of (store, slug) with as, in the caller's transaction
 * (anchor.c). Returns 0 or -1. */
int	anchor_rows_replace(struct store *, const char *store,
	    const char *slug, const struct anchors *as, struct err *);

/* The worktree holding a directory. All owned. */
struct anchor_repo {
	char	*root;		/* the worktree's top directory */
	char	*branch;	/* checked out; NULL: detached or unknown */
};

/*
 * Find the worktree holding dir by walking up to a ".git" (directory or
 * gitfile) and read its branch from HEAD, without running git (recall
 * must stay cheap). Returns 0, or -1 when dir is in no worktree.
 */
int	anchor_repo_find(const char *dir, struct anchor_repo *);
void	anchor_repo_release(struct anchor_repo *);

/* `git rev-parse HEAD` in root: a new string, or NULL (no commit yet). */
char	*anchor_git_head(const char *root);

/*
 * Where path went since commit head, as `git diff -M --name-status`
 * between head and the worktree says (renames and moves, the way `git
 * log --follow` follows them): a new string, or NULL when it was not
 * renamed (deleted, or git could not say).
 */
char	*anchor_git_renamed(const char *root, const char *head,
	    const char *path);

/* The commits since head that touched path, "<abbrev> <subject>" joined
 * by "; ", appended to out (nothing when none or git failed). */
void	anchor_git_log(const char *root, const char *head, const char *path,
	    struct sbuf *out);

/*
 * The blob id of the text of symbol's definition in the len bytes at s
 * (anchor_span.c): true, or false when no definition is found.
 */
bool	anchor_span(const char *s, size_t len, const char *symbol,
	    char oid[ANCHOR_OID_LEN]);

#endif
