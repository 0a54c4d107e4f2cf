/*
 * test_sync_merge.c — the per-memory merge rules of `thatch sync`
 * (docs/sync.md "Merging") as a table: each row is base, local and
 * remote in a small notation and the action expected.
 *
 * A side is "-" (nothing), "~T" (a tombstone forgotten at time T) or
 * "oT" (a document with blob id o, updated at time T); one letter stands
 * for a blob id and one digit for a time.
 */
#include "check.h"

#include <string.h>

#include "core/sync_merge.h"

static void
side(const char *spec, struct sync_side *s, char *time)
{
	memset(s, 0, sizeof(*s));
	if (strcmp(spec, "-") == 0)
		return;
	time[0] = '2';
	time[1] = spec[1];
	time[2] = '\0';
	s->time = time;
	if (spec[0] == '~') {
		s->kind = SYNC_TOMB;
		memset(s->oid, 't', SYNC_OID_LEN);
		s->oid[SYNC_OID_LEN - 1] = spec[1];
		return;
	}
	s->kind = SYNC_LIVE;
	memset(s->oid, spec[0], SYNC_OID_LEN);
}

static const struct {
	const char		*what, *base, *local, *remote;
	enum sync_action	 want;
} rows[] = {
	{ "nothing anywhere", "-", "-", "-", SYNC_KEEP },
	{ "unchanged on both sides", "a1", "a1", "a1", SYNC_KEEP },
	{ "new on local is sent", "-", "a1", "-", SYNC_SEND },
	{ "new on remote is taken", "-", "-", "a1", SYNC_TAKE },
	{ "edited on local alone is sent", "a1", "b2", "a1", SYNC_SEND },
	{ "edited on remote alone is taken", "a1", "a1", "b2", SYNC_TAKE },
	{ "the same edit on both is nothing", "a1", "b2", "b2", SYNC_KEEP },
	{ "forgotten on local alone sends a tombstone", "a1", "-", "a1",
	  SYNC_SEND_TOMB },
	{ "forgotten on remote alone drops local", "a1", "a1", "~2",
	  SYNC_DROP },
	{ "forgotten on remote without tombstone drops local", "a1", "a1",
	  "-", SYNC_DROP },
	{ "forgotten on both is nothing", "a1", "-", "~2", SYNC_KEEP },
	{ "a tombstone already synced stays", "~1", "-", "~1", SYNC_KEEP },
	{ "forgotten local, edited remote: the edit wins", "a1", "-", "b2",
	  SYNC_TAKE },
	{ "edited local, forgotten remote: the edit wins", "a1", "b3", "~2",
	  SYNC_SEND },
	{ "edited local, forgotten remote later: the edit still wins", "a1",
	  "b2", "~5", SYNC_SEND },
	{ "edited on both, local later", "a1", "b3", "c2", SYNC_WIN_LOCAL },
	{ "edited on both, remote later", "a1", "b2", "c3", SYNC_WIN_REMOTE },
	{ "edited on both at once: the greater blob id wins", "a1", "c2",
	  "b2", SYNC_WIN_LOCAL },
	{ "the tie-break agrees from the other side", "a1", "b2", "c2",
	  SYNC_WIN_REMOTE },
	{ "no base, both hold different documents", "-", "b2", "c3",
	  SYNC_WIN_REMOTE },
	{ "no base, the same document", "-", "b2", "b2", SYNC_KEEP },
	{ "no base, a newer tombstone removes an old copy", "-", "a1", "~2",
	  SYNC_DROP },
	{ "no base, an edit after the tombstone survives", "-", "a3", "~2",
	  SYNC_SEND },
	{ "recreated locally after a synced forget", "~1", "a2", "~1",
	  SYNC_SEND },
	{ "recreated remotely after a synced forget", "~1", "-", "a2",
	  SYNC_TAKE },
};

static void
test_rules(void)
{
	struct sync_item	it;
	char			tb[3], tl[3], tr[3];
	size_t			i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		memset(&it, 0, sizeof(it));
		side(rows[i].base, &it.base, tb);
		side(rows[i].local, &it.local, tl);
		side(rows[i].remote, &it.remote, tr);
		if (sync_merge_one(&it) != rows[i].want)
			CHECK_FAIL("%s: got %d, want %d", rows[i].what,
			    (int)sync_merge_one(&it), (int)rows[i].want);
	}
}

/* Invariant 2: swapping local and remote mirrors the decision, so the
 * two machines of a conflict agree on the winner. */
static void
test_symmetric(void)
{
	static const enum sync_action mirror[] = {
		[SYNC_KEEP] = SYNC_KEEP, [SYNC_SEND] = SYNC_TAKE,
		[SYNC_TAKE] = SYNC_SEND, [SYNC_WIN_LOCAL] = SYNC_WIN_REMOTE,
		[SYNC_WIN_REMOTE] = SYNC_WIN_LOCAL,
	};
	static const char *const sides[] = { "a1", "b2", "c2", "d3" };
	struct sync_item	x, y;
	char			t[4][3];
	enum sync_action	ax, ay;
	size_t			i, j;

	for (i = 0; i < 4; i++)
		for (j = 0; j < 4; j++) {
			memset(&x, 0, sizeof(x));
			side("-", &x.base, t[0]);
			side(sides[i], &x.local, t[1]);
			side(sides[j], &x.remote, t[2]);
			y = x;
			y.local = x.remote;
			y.remote = x.local;
			ax = sync_merge_one(&x);
			ay = sync_merge_one(&y);
			if (mirror[ax] != ay)
				CHECK_FAIL("%s vs %s: %d and %d", sides[i],
				    sides[j], (int)ax, (int)ay);
		}
}

static void
test_held(void)
{
	struct sync_item	it;
	char			t[3][3];

	memset(&it, 0, sizeof(it));
	side("a1", &it.base, t[0]);
	side("b2", &it.local, t[1]);
	side("-", &it.remote, t[2]);
	it.held = true;
	CHECK_INT(sync_merge_one(&it), SYNC_KEEP);
}

static void
test_counts(void)
{
	CHECK(sync_action_sends(SYNC_SEND));
	CHECK(sync_action_sends(SYNC_SEND_TOMB));
	CHECK(!sync_action_sends(SYNC_TAKE));
	CHECK(sync_action_takes(SYNC_DROP));
	CHECK(!sync_action_takes(SYNC_KEEP));
	CHECK(sync_action_takes(SYNC_WIN_LOCAL) &&
	    sync_action_sends(SYNC_WIN_REMOTE));
}

CHECK_MAIN(TEST(test_rules), TEST(test_symmetric), TEST(test_held),
    TEST(test_counts))
