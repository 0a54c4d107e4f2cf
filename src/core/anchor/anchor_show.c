/*
 * anchor_show.c — a memory's anchors as memory_show, `thatch show` and
 * `thatch show --json` print them, each with its state judged here.
 *
 *  1. A state is a judgement, never a failure: outside a worktree, or for
 *     a memory of another branch, an anchor is "not judged here".
 */
#include "core/anchor/anchor.h"

#include <stdlib.h>
#include <string.h>

#include "core/store/store.h"
#include "util/sbuf.h"
#include "util/xmalloc.h"

static const char *const state_names[] = {
	[ANCHOR_FRESH] = "fresh",
	[ANCHOR_CHANGED] = "changed",
	[ANCHOR_GONE] = "gone",
};

/* The state of each of as, judged here (-1: not judged). */
static void
judge_all(struct store *st, const char *dir, const char *store,
    const char *slug, struct anchors *as, int **states)
{
	struct anchor_check	*ck;
	struct store_entry	 e;
	const char		*moved;
	bool			 found = false, judged;
	size_t			 i;

	*states = xcalloc(as->n > 0 ? as->n : 1, sizeof(**states));
	ck = anchor_check_open(st, dir);
	memset(&e, 0, sizeof(e));
	judged = ck != NULL && store_get(st, store, slug, &e, &found,
	    NULL) == 0 && found && anchor_judged(ck, e.branch);
	for (i = 0; i < as->n; i++)
		(*states)[i] = judged ? (int)anchor_judge(ck, &as->v[i],
		    &moved) : -1;
	if (found)
		store_entry_release(&e);
	anchor_check_close(ck);
}

void
anchor_show(struct store *st, const char *dir, const char *store,
    const char *slug, struct sbuf *out)
{
	struct anchors	 as;
	int		*states;
	size_t		 i;

	if (anchor_get(st, store, slug, &as, NULL) != 0 || as.n == 0)
		return;
	judge_all(st, dir, store, slug, &as, &states);
	sbuf_adds(out, "\n\nAnchors:");
	for (i = 0; i < as.n; i++) {
		sbuf_addf(out, "\n  %s (blob %.12s", as.v[i].spec,
		    as.v[i].blob ? as.v[i].blob : "none");
		if (as.v[i].head != NULL)
			sbuf_addf(out, " at %.12s", as.v[i].head);
		sbuf_addf(out, ", %s)", states[i] < 0 ? "not judged here" :
		    state_names[states[i]]);
	}
	free(states);
	anchors_release(&as);
}

json_t *
anchor_json(struct store *st, const char *dir, const char *store,
    const char *slug)
{
	struct anchors	 as;
	json_t		*arr;
	int		*states;
	size_t		 i;

	if (anchor_get(st, store, slug, &as, NULL) != 0 || as.n == 0)
		return NULL;
	judge_all(st, dir, store, slug, &as, &states);
	arr = json_array();
	for (i = 0; i < as.n; i++)
		json_array_append_new(arr, json_pack("{s:s, s:s?, s:s?, s:s?, "
		    "s:s?}", "spec", as.v[i].spec, "blob", as.v[i].blob,
		    "head", as.v[i].head, "recorded_at", as.v[i].recorded_at,
		    "state", states[i] < 0 ? NULL : state_names[states[i]]));
	free(states);
	anchors_release(&as);
	return arr;
}
