/*
 * tool_fold.c — recall hits that repeat a better hit are one line each
 * (issue 27): a near-duplicate costs the agent its whole content again
 * and tells it nothing new but that it exists.
 *  1. A hit folds under the first hit above it, itself printed in full,
 *     whose vector has a cosine of at least TOOL_FOLD_COSINE with its
 *     own; so folding never hides a hit under one that is hidden too,
 *     and the best of a group is the one printed.
 *  2. Only vectors of the model in use compare (README: vectors from
 *     different models do not): a hit without one, or whose vector another
 *     model wrote, is never folded and never folds another; nothing is
 *     hidden on a guess.
 *  3. The line keeps what finds the memory again: label and store, fenced
 *     (issue 31), and its score.
 */
#include "tools/budget/tool_fold.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/store/store.h"
#include "core/vector.h"
#include "text/fence.h"
#include "util/num.h"
#include "util/sbuf.h"
#include "util/xmalloc.h"

/* Invariant 2. */
static bool
comparable(const struct store_entry *e, const char *tag, int dim)
{
	return e->vec != NULL && e->dim == dim && e->model != NULL &&
	    strcmp(e->model, tag) == 0;
}

void
tool_fold_hits(const struct store_hits *hits, const char *tag, int dim,
    size_t *into)
{
	double	*norm = xcalloc(hits->n ? hits->n : 1, sizeof(*norm));
	size_t	 i, j;

	for (i = 0; i < hits->n; i++) {
		const struct store_entry	*e = &hits->v[i].e;

		into[i] = TOOL_FOLD_NONE;
		if (!comparable(e, tag, dim))
			continue;
		norm[i] = vector_norm(e->vec, e->dim);
		for (j = 0; j < i; j++) {
			const struct store_entry	*b = &hits->v[j].e;

			if (into[j] != TOOL_FOLD_NONE ||
			    !comparable(b, tag, dim))
				continue;
			if (vector_cosine(e->vec, norm[i], b->vec, norm[j],
			    e->dim) >= TOOL_FOLD_COSINE) {
				into[i] = j;
				break;
			}
		}
	}
	free(norm);
}

void
tool_fold_line(struct sbuf *out, const struct store_hit *h)
{
	char	num[NUM_BUFSZ];

	sbuf_adds(out, "\nalso: \"");
	text_fence_inner(out, h->e.label);
	sbuf_adds(out, "\" [store:");
	text_fence_field(out, h->e.store);
	sbuf_addf(out, "] [score:%s] (nearly the same)",
	    num_fixed(h->score, 3, num));
}
