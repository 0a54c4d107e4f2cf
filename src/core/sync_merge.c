/*
 * sync_merge.c — the per-memory three-way merge of `thatch sync`, over
 * abstract sides (blob ids and times), so that the rules can be tested
 * without git or a database.
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
 */
#include "core/sync_merge.h"

#include <string.h>

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
	/* first sync of a memory the team has forgotten since */
	if (b->kind == SYNC_NONE && r->kind == SYNC_TOMB) {
		if (strcmp(l->time != NULL ? l->time : "", r->time) <= 0)
			return SYNC_DROP;
		return SYNC_SEND;
	}
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
