/* sync_merge.h — the per-memory merge of `thatch sync` and its tree format (sync_merge.c). */
#ifndef THATCH_CORE_SYNC_MERGE_H
#define THATCH_CORE_SYNC_MERGE_H

#include <stdbool.h>
#include <stddef.h>

struct sbuf;

/* A git object id in hex (SHA-1) and its terminating NUL. */
#define SYNC_OID_LEN	40

/*
 * One memory as one side holds it: nothing, a memory document, or a
 * tombstone. oid is the blob's id ("" for SYNC_NONE) and says whether two
 * sides hold the same bytes; time is the document's updated_at or the
 * tombstone's forgotten_at (ISO-8601, compared as text; NULL for
 * SYNC_NONE). Borrowed.
 */
enum sync_kind { SYNC_NONE, SYNC_LIVE, SYNC_TOMB };
struct sync_side {
	enum sync_kind	 kind;
	char		 oid[SYNC_OID_LEN + 1];
	const char	*time;
};

/*
 * One slug as the last synced state (base), this database (local) and
 * the remote ref hold it. held: local must neither be sent nor replaced
 * (private, secret-looking, global); the remote's side is kept as it is.
 */
struct sync_item {
	struct sync_side	base, local, remote;
	bool			held;
};

/*
 * What to do with one slug. The result tree holds remote's side for
 * KEEP, TAKE and DROP, local's for SEND, a new tombstone for SEND_TOMB;
 * WIN_LOCAL and WIN_REMOTE (both sides edited) hold the winner's document
 * plus the loser's as a new archived memory.
 */
enum sync_action {
	SYNC_KEEP,		/* nothing changes (or held) */
	SYNC_SEND,		/* local's document goes out */
	SYNC_SEND_TOMB,		/* local forgot it: a tombstone goes out */
	SYNC_TAKE,		/* remote's document comes in */
	SYNC_DROP,		/* remote forgot it: local's copy goes */
	SYNC_WIN_LOCAL,		/* both edited, local's is later */
	SYNC_WIN_REMOTE,	/* both edited, remote's is later */
};

/*
 * Decide one slug (docs/sync.md "Merging"): a side that did not change
 * since base takes the other's; forgotten on one side and edited on the
 * other, the edit wins; edited on both, the later updated_at wins (equal
 * times: the greater oid, so every machine decides alike). Without a
 * base, a tombstone removes nothing: local's copy goes out. Pure.
 */
enum sync_action sync_merge_one(const struct sync_item *);

/* Whether two sides hold the same thing (forgotten counts as one). */
bool	sync_side_same(const struct sync_side *, const struct sync_side *);

/* Whether an action sends to / takes from the remote (--status counts). */
bool	sync_action_sends(enum sync_action);
bool	sync_action_takes(enum sync_action);

/* ---- The tree (docs/sync.md "What lands on the remote") --------------- */

#define SYNC_MEM_DIR	"memories/"
#define SYNC_MEM_EXT	".md"
#define SYNC_TOMB_DIR	"tombstones/"

/*
 * What a tree path holds: SYNC_LIVE for memories/<slug>.md, SYNC_TOMB for
 * tombstones/<slug>, with *slug (borrowed from path) and *len set; else
 * SYNC_NONE (a file that is not ours). The slug passes sync_slug_ok.
 */
enum sync_kind sync_path_parse(const char *path, const char **slug,
	    size_t *len);

/* Whether slug can be a file name of the tree: what slug_make gives
 * (letters, digits, '_', '-') and '.', not leading, at most 200 bytes. */
bool	sync_slug_ok(const char *slug);

/*
 * A tombstone is "forgotten_at: <time>\n". parse returns the time (a new
 * string) or NULL for bytes that are not one; render appends one.
 */
char	*sync_tomb_parse(const char *buf, size_t n);
void	 sync_tomb_render(const char *time, struct sbuf *out);

#endif
