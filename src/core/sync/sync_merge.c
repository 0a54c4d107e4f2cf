/*
 * sync_merge.c — the per-memory three-way merge of `thatch sync`, over
 * abstract sides (blob ids and times), so that the rules can be tested
 * without git or a database; and the names and tombstones of the tree,
 * which come from the remote (outside input, tests/fuzz/fuzz_sync.c).
 *
 * Invariants:
 *  1. Nothing is lost silently: when both sides edited a memory, the
 *     loser is kept (as an archived copy, which sync.c makes); an edit
 *     beats a forget.
 *  2. The decision depends only on the three sides, never on which
 *     machine runs it, so two machines merging the same states agree and
 *     a second sync converges.
 *  3. A forgotten memory is "deleted" whether its side has a tombstone or
 *     nothing: the two only differ in the time a tombstone carries.
 *  4. A path is ours only if its slug is a plain file name (no '/', no
 *     leading '.', no control or quoting characters), so a slug from the
 *     remote can go into a fast-import line and a SQL row unescaped.
 *  5. Sync never deletes what it did not share: only a base (a commit
 *     this database merged) can say a memory was shared, so without one
 *     a tombstone, however dated, removes nothing (issue 31).
 */
#include "core/sync/sync_merge.h"

#include <stdlib.h>
#include <string.h>

#include "util/sbuf.h"
#include "util/xmalloc.h"

#define TOMB_KEY	"forgotten_at: "
#define TIME_MAX	40

static bool
deleted(const struct sync_side *s)
{
	return s->kind != SYNC_LIVE;
}

bool
sync_side_same(const struct sync_side *a, const struct sync_side *b)
{
	if (deleted(a) || deleted(b))
		return deleted(a) && deleted(b);
	return strcmp(a->oid, b->oid) == 0;
}

/* Whether local's edit is the later one (invariant 2's tie-break). */
static bool
local_later(const struct sync_side *l, const struct sync_side *r)
{
	int	c = strcmp(l->time != NULL ? l->time : "",
		    r->time != NULL ? r->time : "");

	return c != 0 ? c > 0 : strcmp(l->oid, r->oid) > 0;
}

enum sync_action
sync_merge_one(const struct sync_item *it)
{
	const struct sync_side	*b = &it->base, *l = &it->local;
	const struct sync_side	*r = &it->remote;

	if (it->held || sync_side_same(l, r))
		return SYNC_KEEP;
	/* a tombstone for a memory this database never shared (no base)
	 * removes nothing, whatever its date: issue 31, invariant 5 */
	if (b->kind == SYNC_NONE && r->kind == SYNC_TOMB)
		return SYNC_SEND;
	if (sync_side_same(l, b))
		return deleted(r) ? SYNC_DROP : SYNC_TAKE;
	if (sync_side_same(r, b))
		return deleted(l) ? SYNC_SEND_TOMB : SYNC_SEND;
	if (deleted(l))
		return SYNC_TAKE;
	if (deleted(r))
		return SYNC_SEND;
	return local_later(l, r) ? SYNC_WIN_LOCAL : SYNC_WIN_REMOTE;
}

bool
sync_action_sends(enum sync_action a)
{
	return a == SYNC_SEND || a == SYNC_SEND_TOMB || a == SYNC_WIN_LOCAL ||
	    a == SYNC_WIN_REMOTE;
}

bool
sync_action_takes(enum sync_action a)
{
	return a == SYNC_TAKE || a == SYNC_DROP || a == SYNC_WIN_LOCAL ||
	    a == SYNC_WIN_REMOTE;
}

bool
sync_slug_ok(const char *s)
{
	size_t	n = strlen(s);

	if (n == 0 || n > 200 || *s == '.')
		return false;
	for (; *s != '\0'; s++)
		if (!((unsigned char)*s >= 0x80 || (*s >= 'a' && *s <= 'z') ||
		    (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		    *s == '_' || *s == '-' || *s == '.'))
			return false;
	return true;
}

enum sync_kind
sync_path_parse(const char *path, const char **slug, size_t *len)
{
	size_t		 n = strlen(path), dir = strlen(SYNC_MEM_DIR);
	size_t		 ext = strlen(SYNC_MEM_EXT);
	enum sync_kind	 kind = SYNC_NONE;
	char		*copy;
	bool		 ok;

	if (strncmp(path, SYNC_MEM_DIR, dir) == 0 && n > dir + ext &&
	    strcmp(path + n - ext, SYNC_MEM_EXT) == 0) {
		*slug = path + dir;
		*len = n - dir - ext;
		kind = SYNC_LIVE;
	} else if (strncmp(path, SYNC_TOMB_DIR, strlen(SYNC_TOMB_DIR)) == 0) {
		*slug = path + strlen(SYNC_TOMB_DIR);
		*len = n - strlen(SYNC_TOMB_DIR);
		kind = SYNC_TOMB;
	} else
		return SYNC_NONE;
	copy = xstrndup(*slug, *len);
	ok = sync_slug_ok(copy);
	free(copy);
	return ok ? kind : SYNC_NONE;
}

char *
sync_tomb_parse(const char *buf, size_t n)
{
	size_t	k = strlen(TOMB_KEY), t;

	if (n <= k + 1 || memcmp(buf, TOMB_KEY, k) != 0 || buf[n - 1] != '\n')
		return NULL;
	t = n - k - 1;
	if (t > TIME_MAX || strspn(buf + k, "0123456789-:.TZ") < t)
		return NULL;
	return xstrndup(buf + k, t);
}

void
sync_tomb_render(const char *time, struct sbuf *out)
{
	sbuf_addf(out, TOMB_KEY "%s\n", time);
}
