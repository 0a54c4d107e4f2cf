/* dedup.h — near-duplicate pairs and their clusters (dedup.c). */
#ifndef THATCH_CORE_DEDUP_H
#define THATCH_CORE_DEDUP_H

#include <stddef.h>

#include "core/store/store.h"

struct err;

/* The default duplicate threshold (store-and-tools Appendix B). */
#define DEDUP_THRESHOLD	0.85

/* One candidate: rows a < b of the matrix (so slug a sorts first). */
struct dedup_pair {
	size_t	a, b;
	double	score;		/* round3 of the exact cosine */
};

/*
 * The candidates of one store (§5.5): pairs of non-archived memories whose
 * exact cosine is >= threshold and that carry no verdict, sorted by
 * rounded score descending, ties in generation (row-major) order. m holds
 * the memories the pairs index (slugs, labels). All owned; release with
 * dedup_result_release.
 */
struct dedup_result {
	struct store_matrix	 m;
	struct dedup_pair	*pairs;
	size_t			 npairs;
};

/* A connected component of candidates: indices into result.pairs, in
 * candidate order, and the number of distinct memories it joins. */
struct dedup_cluster {
	size_t	*pairs;		/* owned */
	size_t	 npairs;
	size_t	 nmembers;
};

struct dedup_clusters {
	struct dedup_cluster	*v;	/* owned */
	size_t			 n;
};

/*
 * find_duplicates(store, threshold) of §5.5. Rows of a vector dimension
 * other than the store's most common one are not compared (§5.1). Returns
 * 0 (npairs 0 is "no candidates"), or -1 with err set.
 */
int	dedup_find(struct store *, const char *store, double threshold,
	    struct dedup_result *, struct err *);
void	dedup_result_release(struct dedup_result *);

/*
 * The number of candidates dedup_find would return, without keeping them
 * (the hygiene count, §6 signal 1; a store of near-identical memories has
 * n²/2 of them). Returns 0 or -1.
 */
int	dedup_count(struct store *, const char *store, double threshold,
	    size_t *n, struct err *);

/*
 * Group r's candidates into connected components (§5.5 clustering):
 * clusters in order of first appearance in candidate order, pairs in
 * candidate order. Release with dedup_clusters_release.
 */
void	dedup_cluster(const struct dedup_result *, struct dedup_clusters *);
void	dedup_clusters_release(struct dedup_clusters *);

#endif
