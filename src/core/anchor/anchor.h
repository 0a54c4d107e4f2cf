/*
 * anchor.h — anchors: the files (and symbols) a memory describes, the
 * fingerprint each had when the memory was written, and whether the code
 * has drifted since (anchor.c records, anchor_drift.c judges,
 * anchor_git.c finds the worktree, anchor_span.c a symbol's text,
 * anchor_show.c prints them, anchor_doc.c carries them through export,
 * import and sync, anchor_path.c turns a tool call's path into one).
 *
 * Anchors live in thatch's own tables beside the original's schema
 * (thatch_anchors, thatch_anchor_files); triggers on entries drop a
 * memory's anchors when anyone (the original included) deletes it, and
 * carry them when memory_move changes its store.
 */
#ifndef THATCH_CORE_ANCHOR_H
#define THATCH_CORE_ANCHOR_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

struct err;
struct sbuf;
struct store;
struct store_entry;

/*
 * One anchor as recorded. spec is what the caller gave: a repo-relative
 * path, optionally "#symbol" or ":L<lo>-L<hi>". blob is git's blob id of
 * the file's content then (NULL: the file did not exist), span the blob id
 * of the symbol's definition text (NULL: no symbol, or not found), head
 * the commit checked out then (NULL: none). All owned.
 */
struct anchor {
	char	*spec, *path, *symbol;
	char	*blob, *span, *head, *recorded_at;
};

struct anchors {
	struct anchor	*v;
	size_t		 n;
};

void	anchors_release(struct anchors *);

/*
 * Split spec into path and symbol (a line range stays on the path's
 * fingerprint). A path that is empty, absolute or climbs out with ".."
 * fails with err saying so.
 */
int	anchor_parse(const char *spec, char **path, char **symbol,
	    struct err *);

/*
 * Replace the anchors of (store, slug) with specs[0 .. n), fingerprinted
 * against the worktree holding dir, at now (ISO-8601). specs NULL keeps
 * the memory's specs and records them again (an overwrite re-checks the
 * code); n 0 with specs set drops them. Outside a git worktree, paths are
 * relative to dir. Creates the tables on first use. Returns 0 or -1.
 */
int	anchor_record(struct store *, const char *store, const char *slug,
	    const char *const *specs, size_t n, const char *dir,
	    const char *now, struct err *);

/* The anchors of (store, slug) in the order given; none (not an error)
 * when the database has no anchor table. */
int	anchor_get(struct store *, const char *store, const char *slug,
	    struct anchors *, struct err *);

/* ---- Drift (anchor_drift.c) ------------------------------------------- */

enum anchor_state {
	ANCHOR_FRESH,		/* the code is as it was */
	ANCHOR_CHANGED,		/* the file (or the symbol's text) changed */
	ANCHOR_GONE,		/* the file is gone, not renamed */
};

/*
 * A judge of anchors against the worktree holding dir, for one request:
 * it remembers each file's answer, and keeps fingerprints in
 * thatch_anchor_files by stat (size, mtime, inode) so that a file is read
 * again only when its stat changed, and git is asked only about files
 * that are gone (renames). NULL when dir is in no git worktree: nothing is
 * judged.
 */
struct anchor_check;

struct anchor_check *anchor_check_open(struct store *, const char *dir);
void	anchor_check_close(struct anchor_check *);

/*
 * The state of one anchor; *moved gets the path it was renamed to when
 * the file was followed (NULL otherwise; borrowed from the check).
 */
enum anchor_state anchor_judge(struct anchor_check *, const struct anchor *,
	    const char **moved);

/*
 * Whether e is judged here: a memory scoped to another branch than the
 * one checked out is not (its code lives on that branch).
 */
bool	anchor_judged(const struct anchor_check *, const char *branch);

/*
 * The marks of memory e for recall output: " [code changed: a, b]" and
 * " [code gone: c]" appended to out, or nothing when its code is as it
 * was, it has no anchors, or it is not judged here. ck NULL: nothing.
 */
void	anchor_marks(struct anchor_check *, const struct store_entry *e,
	    struct sbuf *out);

/* One memory whose code drifted, for hygiene. All owned. */
struct anchor_drift {
	char	*label, *branch;
	char	*files;		/* "a.c (changed), b.c (gone)" */
	char	*commits;	/* the commits since, "abc1234 subject; ..."
				   or NULL when not asked or none */
};

struct anchor_drifts {
	struct anchor_drift	*v;
	size_t			 n;
};

void	anchor_drifts_release(struct anchor_drifts *);

/*
 * The non-archived memories of store whose code drifted, by label; with
 * commits, also the commits since each was recorded that touched its
 * files (`git log`). None when ck is NULL. Returns 0 or -1.
 */
int	anchor_drifted(struct anchor_check *, const char *store, bool commits,
	    struct anchor_drifts *, struct err *);

/* ---- Showing them (anchor_show.c) -------------------------------------- */

/* The anchors of (store, slug) for memory_show and `thatch show`, judged
 * against the worktree holding dir: "\n\nAnchors:" and one line each
 * with its state, or nothing when it has none. */
void	anchor_show(struct store *, const char *dir, const char *store,
	    const char *slug, struct sbuf *out);

/* The same as a JSON array of {spec, blob, head, recorded_at, state}
 * (new reference; state null when not judged), or NULL when it has
 * none. */
json_t	*anchor_json(struct store *, const char *dir, const char *store,
	    const char *slug);

/* ---- Paths from tool calls (anchor_path.c) ----------------------------- */

/* The top directory of the worktree holding dir, resolved (a new
 * string), or NULL when dir is in none. */
char	*anchor_root(const char *dir);

/*
 * path (absolute, or relative to base) as a path relative to root (from
 * anchor_root): a new string, or NULL when it is outside root, is root, or
 * would not read back as the same anchor.
 */
char	*anchor_relpath(const char *root, const char *base, const char *path);

/* ---- Anchors as they travel (anchor_doc.c) ----------------------------- */

/* Caps on the anchors of one memory that arrives from outside. */
#define ANCHOR_MAX		256
#define ANCHOR_SPEC_MAX		4096

/*
 * The anchors of (store, slug) as export and sync carry them: a compact
 * JSON array text, one {spec, blob, span, head, recorded_at} each (keys in
 * that order, a null one left out; the fingerprints are git's, the paths
 * repository-relative, so they mean the same on another clone), as a new
 * string, or NULL when it has none.
 */
char	*anchor_doc_get(struct store *, const char *store, const char *slug);

/*
 * Why text may not be stored as a memory's anchors (a static reason), or
 * NULL: a JSON array of at most ANCHOR_MAX objects, each with a spec that
 * anchor_parse takes (relative, not climbing out), of at most
 * ANCHOR_SPEC_MAX bytes and no control character, blob, span and head
 * absent, null or git ids (40 lowercase hex digits), and a recorded_at
 * time.
 */
const char *anchor_doc_check(const char *text);

/*
 * Replace the anchors of (store, slug) with text (passed by
 * anchor_doc_check), fingerprints as they came, in the caller's
 * transaction; text NULL drops them. Returns 0 or -1.
 */
int	anchor_doc_put(struct store *, const char *store, const char *slug,
	    const char *text, struct err *);

#endif
