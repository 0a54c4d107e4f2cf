/*
 * store_hitvec.c — the vectors of a search's few hits, read from their
 * rows (issue 27: recall folds a hit that repeats a better one, which
 * takes the hits' own vectors, not the query's scores).
 *
 *  1. Only the hits' rows are read, one BLOB each by (store, slug);
 *     nothing is written and the search cache is left alone, so the
 *     ranking that produced the hits is untouched.
 *  2. A hit whose row has no vector, or a BLOB that is not whole floats,
 *     keeps vec NULL and dim 0; that is not an error.
 */
#include "core/store/store.h"

#include <stdlib.h>

#include "core/store/store_int.h"
#include "core/vector.h"
#include "util/err.h"
#include "util/xmalloc.h"

int
store_hits_vectors(struct store *st, struct store_hits *hits,
    struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	size_t		 i;
	int		 step = SQLITE_DONE, n;

	if (hits->n == 0)
		return 0;
	if (store_prepare(st, &stmt, "SELECT embedding FROM entries "
	    "WHERE slug = ? AND store = ?", err) != 0)
		return -1;
	for (i = 0; i < hits->n; i++) {
		struct store_entry	*e = &hits->v[i].e;

		if (e->vec != NULL)
			continue;
		sqlite3_reset(stmt);
		sqlite3_bind_text(stmt, 1, e->slug, -1, SQLITE_STATIC);
		sqlite3_bind_text(stmt, 2, e->store, -1, SQLITE_STATIC);
		if ((step = sqlite3_step(stmt)) != SQLITE_ROW) {
			if (step != SQLITE_DONE)
				break;
			continue;
		}
		n = sqlite3_column_bytes(stmt, 0);
		if (sqlite3_column_type(stmt, 0) != SQLITE_BLOB || n == 0 ||
		    n % 4 != 0)
			continue;
		e->dim = n / 4;
		e->vec = xcalloc((size_t)e->dim, sizeof(*e->vec));
		vector_decode(sqlite3_column_blob(stmt, 0), (size_t)e->dim,
		    e->vec);
		step = SQLITE_DONE;
	}
	sqlite3_finalize(stmt);
	if (step != SQLITE_ROW && step != SQLITE_DONE)
		return store_fail(st, err, "cannot read the hits' vectors");
	return 0;
}
