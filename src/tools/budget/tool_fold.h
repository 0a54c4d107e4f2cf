/* tool_fold.h — folding recall hits that repeat a better one
 * (tool_fold.c). */
#ifndef THATCH_TOOLS_BUDGET_TOOL_FOLD_H
#define THATCH_TOOLS_BUDGET_TOOL_FOLD_H

#include <stddef.h>

struct sbuf;
struct store_hit;
struct store_hits;

/* Two memories this close (cosine of their vectors) say the same thing. */
#define TOOL_FOLD_COSINE	0.95
#define TOOL_FOLD_NONE		((size_t)-1)

/*
 * For each hit i, into[i] is the better hit it repeats, or TOOL_FOLD_NONE
 * when it is printed in full. hits must carry their vectors
 * (store_hits_vectors); only those of the model in use (tag, dim) are
 * compared. into has hits->n slots.
 */
void	tool_fold_hits(const struct store_hits *, const char *tag, int dim,
	    size_t *into);

/* The one line a folded hit takes under the hit it repeats. */
void	tool_fold_line(struct sbuf *, const struct store_hit *);

#endif
