/*
 * store_int.h — what store.c, store_entries.c and store_search.c share and
 * nobody else may see: the struct behind the opaque `struct store`, and
 * the helpers the three files have in common. A deliberate second header
 * for one module (like SQLite's sqliteInt.h): the memory API is split over
 * three files to keep each one readable, but they are one module.
 */
#ifndef THATCH_CORE_STORE_INT_H
#define THATCH_CORE_STORE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "util/sbuf.h"

struct err;
struct store_entry;
struct store_query;
struct store_hits;
struct store_cache;

/* Another core module's per-connection state (store_attach). */
#define STORE_ATTACH_MAX	4
struct store_attachment {
	const void	*key;
	void		*data;		/* owned, freed by free_fn */
	void		(*free_fn)(void *);
};

struct store {
	sqlite3			*db;
	char			*path;		/* owned */
	struct store_cache	*cache;		/* owned; store_search.c */
	struct store_attachment	 attached[STORE_ATTACH_MAX];
};

/*
 * The entry columns every reader selects, in struct store_entry order;
 * store_entry_read copies them out of a statement starting at column col.
 */
#define STORE_ENTRY_COLS						\
	"slug, store, label, content, model, branch, confidence, "	\
	"archived, created_at, updated_at, recall_count, last_recalled_at"
#define STORE_ENTRY_NCOLS	12

void	 store_entry_read(sqlite3_stmt *, int col, struct store_entry *);

/* Set err from the connection's last error: "<what>: <sqlite message>". */
int	 store_fail(struct store *, struct err *, const char *what);

/* Roll back an open transaction, if any; keeps err as it is. */
void	 store_rollback(struct store *);

/*
 * Embedding BLOBs (store-and-tools §1.6): little-endian float32 in index
 * order. store_blob_decode copies n floats out of the (possibly unaligned)
 * column bytes; store_blob_encode returns bytes to bind, which are either
 * vec itself or *scratch (a new buffer to free) on big-endian hosts.
 */
void	 store_blob_decode(const void *blob, size_t n, float *out);
const void *store_blob_encode(const float *vec, size_t n, void **scratch);

/*
 * The search's vector cache (store_search.c). store_cache_free drops it
 * and unhooks the connection (store_search.c owns the connection's
 * sqlite3 update and rollback hooks); accepts NULL.
 *
 * Every writer of entries keeps the cache exact without a reload: it
 * brackets its statement with store_cache_expect(st, true) ...
 * store_cache_expect(st, false) (any other write of this connection to
 * entries makes the next search re-read the table), and once the write
 * has committed, or has succeeded inside the caller's transaction,
 * reports the row it left: store_cache_put (inserted or overwritten;
 * vec NULL for a row without embedding) or store_cache_remove (deleted).
 * A write that failed or was rolled back reports nothing.
 */
void	 store_cache_free(struct store_cache *);
void	 store_cache_expect(struct store *, bool on);
void	 store_cache_put(struct store *, const char *store,
	    sqlite3_int64 rowid, const float *vec, int dim, bool archived,
	    const char *branch);
void	 store_cache_remove(struct store *, const char *store,
	    sqlite3_int64 rowid);

/* store_search's cosine side (store_search.c), the full-text index's
 * setup step for store.c's §1.5 steps and the query's FTS5 MATCH
 * expressions (store_fts.c; exposed for tests through store.h users). */
int	 store_vector_search(struct store *, const struct store_query *,
	    struct store_hits *, struct err *);

/* The same search, which also gives each probe (a cosine) the rank it
 * would have in the cosine ranking of every row the search may return,
 * estimated from the int8 pass (fusion reads that ranking to its end). */
struct store_probe {
	double	score;		/* in */
	size_t	rank;		/* out, 1-based */
};
int	 store_vector_probe(struct store *, const struct store_query *,
	    struct store_probe *, size_t, struct store_hits *, struct err *);
int	 store_fts_setup(struct store *, bool write, int *todo, struct err *);
struct fts_terms {
	struct sbuf	idents;		/* FTS5 MATCH: the names it holds */
	struct sbuf	parts;		/* FTS5 MATCH: all parts of a name */
	struct sbuf	words;		/* FTS5 MATCH: every token worth it */
	struct sbuf	shorts;		/* 2-character CJK words, one a line */
};
void	 store_fts_match(const char *text, struct fts_terms *);
void	 store_fts_terms_release(struct fts_terms *);

#endif
