/*
 * store_matrix.c — one store's vectors as a matrix, for find_duplicates
 * and the hygiene count (store-and-tools §5.5; core/dedup.c scans it).
 *
 * Invariants:
 *  1. Rows are in slug order (ORDER BY slug, BINARY, §5.5 step 1), so
 *     pair indexes and the verdicts matched against them are stable.
 *  2. Only rows whose BLOB is exactly dim floats are read (§5.1); a dim of
 *     0 is the most common whole-float dimension (ties: the larger).
 *  3. Vectors are decoded by core/vector.c, little-endian on every host.
 */
#include "core/store/store.h"

#include <stdlib.h>
#include <string.h>

#include "core/store/store_int.h"
#include "core/vector.h"
#include "util/err.h"
#include "util/xmalloc.h"

void
store_matrix_release(struct store_matrix *mx)
{
	size_t	i;

	for (i = 0; i < mx->n; i++) {
		free(mx->slugs[i]);
		free(mx->labels[i]);
	}
	free(mx->slugs);
	free(mx->labels);
	free(mx->v);
	memset(mx, 0, sizeof(*mx));
}

/* dim 0: the most common whole-float dimension of the eligible rows. */
static int
common_dim(struct store *st, const char *store, bool include_archived,
    int *dim, struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	int		 step;

	if (store_prepare(st, &stmt, include_archived ?
	    "SELECT length(embedding) / 4 AS d FROM entries WHERE store = ? "
	    "AND embedding IS NOT NULL AND length(embedding) % 4 = 0 "
	    "GROUP BY d ORDER BY COUNT(*) DESC, d DESC LIMIT 1" :
	    "SELECT length(embedding) / 4 AS d FROM entries WHERE store = ? "
	    "AND embedding IS NOT NULL AND length(embedding) % 4 = 0 "
	    "AND archived = 0 "
	    "GROUP BY d ORDER BY COUNT(*) DESC, d DESC LIMIT 1", err) != 0)
		return -1;
	sqlite3_bind_text(stmt, 1, store, -1, SQLITE_STATIC);
	step = sqlite3_step(stmt);
	*dim = step == SQLITE_ROW ? sqlite3_column_int(stmt, 0) : 0;
	sqlite3_finalize(stmt);
	if (step != SQLITE_ROW && step != SQLITE_DONE)
		return store_fail(st, err, "cannot read embeddings");
	return 0;
}

int
store_vectors(struct store *st, const char *store, int dim,
    bool include_archived, struct store_matrix *mx, struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	size_t		 cap = 0;
	int		 step;

	memset(mx, 0, sizeof(*mx));
	if (dim == 0 && common_dim(st, store, include_archived, &dim, err) != 0)
		return -1;
	mx->dim = dim;
	if (dim <= 0)
		return 0;
	if (store_prepare(st, &stmt, "SELECT slug, label, embedding "
	    "FROM entries WHERE store = ?1 AND embedding IS NOT NULL "
	    "AND length(embedding) = ?2 AND (?3 OR archived = 0) "
	    "ORDER BY slug", err) != 0)
		return -1;
	sqlite3_bind_text(stmt, 1, store, -1, SQLITE_STATIC);
	sqlite3_bind_int(stmt, 2, dim * 4);
	sqlite3_bind_int(stmt, 3, include_archived);
	while ((step = sqlite3_step(stmt)) == SQLITE_ROW) {
		if (mx->n == cap) {
			cap = cap ? cap * 2 : 64;
			mx->v = xreallocarray(mx->v, cap, (size_t)dim *
			    sizeof(float));
			mx->slugs = xreallocarray(mx->slugs, cap,
			    sizeof(char *));
			mx->labels = xreallocarray(mx->labels, cap,
			    sizeof(char *));
		}
		vector_decode(sqlite3_column_blob(stmt, 2), (size_t)dim,
		    mx->v + mx->n * (size_t)dim);
		mx->slugs[mx->n] = xstrdup((const char *)
		    sqlite3_column_text(stmt, 0));
		mx->labels[mx->n++] = xstrdup((const char *)
		    sqlite3_column_text(stmt, 1));
	}
	sqlite3_finalize(stmt);
	if (step != SQLITE_DONE)
		return store_fail(st, err, "cannot read embeddings");
	return 0;
}
