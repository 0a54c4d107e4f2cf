/*
 * store_int.h — what the store's files share and nobody else may see: the
 * struct behind the opaque `struct store`, the search cache's structures,
 * and the functions one store file offers another. A deliberate second
 * header for one module (like SQLite's sqliteInt.h): the memory API is
 * split over several files to keep each one readable, but they are one
 * module. Its files are layered so that none calls one that calls it
 * back: each calls only files above it in this list (symbols read from
 * the objects), and vecfile.c and core/vector.c lie below them all.
 *
 *	store_db.c	the connection
 *	store_sidecar.c	the vector file and the generation that keys it
 *	store_origin.c	where each memory came from (thatch_origin)
 *	store_cache.c	the int8 search cache, mapped from the vector file
 *	store_entries.c	memories one at a time, reported to the cache
 *	store_phrases.c	the rows of recent queries' phrases, while the
 *			index stays as it was
 *	store_bm25.c	the exact best rows of an OR of phrases, by bm25
 *	store_fts.c	the full-text index and the lexical ranking
 *	store_matrix.c	a store's vectors for core/dedup.c
 *	store_nearest.c	the bounded exact cosine search over the cache
 *	store_space.c	embedding spaces, counted from the cache when it can
 *	store_search.c	store_search: the two rankings fused; recall stamps
 *	store.c		opening: pragmas, the schema and its setup steps
 *
 * Its users are those thirteen files and two white-box tests of the query
 * tokenizer, tests/unit/test_fts.c and tests/fuzz/fuzz_query.c. Nothing
 * else may include it.
 */
#ifndef THATCH_CORE_STORE_INT_H
#define THATCH_CORE_STORE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "core/vecfile.h"
#include "util/sbuf.h"

struct err;
struct store_entry;
struct store_query;
struct store_hits;
struct store_space;

/* ---- The connection (store_db.c) ---------------------------------------- */

/*
 * Per-connection state of a core module (store_attach): the search cache
 * (store_cache.c), the kept phrases (store_phrases.c) and engine.c's
 * matcher caches, one per engine; one slot spare.
 */
#define STORE_ATTACH_MAX	5
struct store_attachment {
	const void	*key;
	void		*data;		/* owned, freed by free_fn */
	void		(*free_fn)(void *);
	void		(*on_update)(void *, const char *, sqlite3_int64);
	void		(*on_rollback)(void *);	/* store_watch */
};

struct store {
	sqlite3			*db;
	char			*path;		/* owned */
	struct store_attachment	 attached[STORE_ATTACH_MAX];
	bool			 hooked;	/* store_watch */
};

/*
 * Have the attachment under key told, with its data, of every change
 * this connection makes to a row of main's tables (on_update: the table
 * and the rowid) and of every rollback (either may be NULL). SQLite has
 * one update and one rollback hook a connection: store_db.c sets them
 * once and calls each watching attachment.
 */
void	 store_watch(struct store *, const void *key,
	    void (*on_update)(void *, const char *table, sqlite3_int64 rowid),
	    void (*on_rollback)(void *));

/* This connection's FTS5 API (its tokenizers, auxiliary functions;
 * store_db.c), or NULL when SQLite has no FTS5 of version 2 or later. */
fts5_api *store_fts5_api(struct store *);

/* Set err from the connection's last error: "<what>: <sqlite message>". */
int	 store_fail(struct store *, struct err *, const char *what);

/* Roll back an open transaction, if any; keeps err as it is. */
void	 store_rollback(struct store *);

/* Whether the schema holds an object (table, index, trigger) named name. */
int	 store_has_object(struct store *, const char *name, bool *found,
	    struct err *);

/* ---- Entries (store_entries.c) ------------------------------------------ */

/*
 * The entry columns every reader selects, in struct store_entry order;
 * store_entry_read copies them out of a statement starting at column col.
 */
#define STORE_ENTRY_COLS						\
	"slug, store, label, content, model, branch, confidence, "	\
	"archived, created_at, updated_at, recall_count, last_recalled_at"
#define STORE_ENTRY_NCOLS	12

void	 store_entry_read(sqlite3_stmt *, int col, struct store_entry *);

/* ---- The vector file (store_sidecar.c) ---------------------------------- */

/* The vector file, mapped read-only and guarded (util/os/mapguard.h). */
struct store_map {
	void		*p;		/* owned mapping, or NULL */
	size_t		 len;
	int		 guard;
};

/* Setup step (store.c): thatch_origin and its triggers (store_origin.c). */
int	 store_origin_setup(struct store *, bool write, int *todo,
	    struct err *);

/* Setup step (store.c): the generation table, its triggers, the list
 * index. */
int	 store_sidecar_setup(struct store *, bool write, int *todo,
	    struct err *);

/* The key of the snapshot being read: 0, or 1 when this database cannot
 * have one (no or altered triggers, another byte order, no file name). */
int	 store_sidecar_key(struct store *, struct vecfile_key *);

/*
 * Map the vector file into *map and parse it into *vf (whose sections
 * point into the mapping): 0 when it is whole and of dim (0: of any),
 * *current set when its key is want; else -1 with nothing mapped (no file, or a
 * damaged one). Release vf with vecfile_release, map with
 * store_sidecar_unmap once nothing borrows from it.
 */
int	 store_sidecar_read(struct store *, int dim,
	    const struct vecfile_key *want, struct store_map *,
	    struct vecfile *vf, bool *current);

/* Write sections s[0 .. n) of dim at key to the vector file; best effort
 * (a read-only folder keeps searching through SQLite). */
void	 store_sidecar_write(struct store *, const struct vecfile_key *,
	    int dim, const struct vecfile_section *s, size_t n);

/* Drop the mapping, if any. */
void	 store_sidecar_unmap(struct store_map *);

/* ---- The search cache (store_cache.c) ----------------------------------- */

#define ROW_ARCHIVED	VECFILE_ARCHIVED
#define ROW_SEEN	2	/* cache_refresh: still in the table */

/* How many of a store's rows of one dimension carry a model tag. */
struct mat_tag {
	char		*tag;		/* owned; NULL: SQL NULL */
	uint64_t	 count;
};

/*
 * The cached rows of one (store, dim), in ascending rowid order, copied
 * about the matrix's centre mu (core/quant.h). A borrowed matrix's
 * arrays c, k, e, r, k2, w, mu, rowid, sig, flags and its branch strings
 * lie in the vector file's read-only mapping (branch, the array of
 * pointers, is owned); store_mat_own copies them before any change.
 */
struct store_mat {
	char			*store;		/* owned */
	int			 dim;
	size_t			 n, cap;
	signed char		*c;		/* n * dim, b - mu ~ s * c */
	float			*k;		/* s / |b| */
	float			*e;		/* s / (2 |b|) */
	signed char		*r;		/* n * dim, b - mu - s c ~ s2 r */
	float			*k2;		/* s2 / |b| */
	float			*w;		/* 1 / |b| */
	float			*mu;		/* dim: the centre (quant.h) */
	double			 mu_norm;	/* |mu| */
	float			*hold;		/* rows waiting for mu */
	size_t			 held;
	sqlite3_int64		*rowid;
	uint64_t		*sig;		/* blob_sig */
	char			**branch;	/* NULL: SQL NULL */
	unsigned char		*flags;		/* ROW_* */
	bool			 borrowed;
	bool			 pending;	/* cache_refresh it */
	size_t			 old_n, cur;	/* cache_refresh's walk */
	/* the store's rows in other spaces, exact while stats is set */
	bool			 stats;
	uint64_t		 nother;	/* NULL or another length */
	struct mat_tag		*tags;		/* owned */
	size_t			 ntags;
	struct store_mat	*next;		/* owned */
};

struct store_cache {
	sqlite3			*db;		/* borrowed; hooks set on it */
	struct store_mat	*mats;		/* owned */
	int			 data_version;
	bool			 stale;		/* unannounced own write */
	bool			 expect;	/* announced write running */
	bool			 reading;	/* in store_search's txn */
	bool			 txn_touched;	/* changed in a transaction */
	bool			 invalid;	/* which rolled back */
	bool			 warned;
	float			*scratch;	/* owned; approximate scores */
	size_t			 scratch_cap;
	size_t			 band;		/* the last search's */
	/* the database's key (store_sidecar_key) read in this search's
	 * snapshot, and the one the matrices were last made exact at */
	struct vecfile_key	 txn_key, key;
	bool			 txn_key_read, txn_key_ok, key_ok;
	/* the vector file */
	bool			 file_tried;	/* looked for once */
	bool			 searched;	/* by store_cache_mats */
	bool			 file_save;	/* save after this search */
	struct store_map	 map;		/* the matrices borrow from */
};

/* ---- One matrix's rows (store_rows.c) ----------------------------------- */

/* A matrix filled from the table takes its centre from its first rows;
 * one holding fewer at a refresh is refilled whole (store_rows.c). */
#define STORE_CENTRE_ROWS	256

/* A 64-bit signature of a BLOB's bytes: equal BLOBs sign alike, and a
 * changed vector changes it but with odds of 2^-64. */
uint64_t store_blob_sig(const void *blob, size_t len);

void	 store_mat_free(struct store_mat *);
void	 store_mat_tags_free(struct store_mat *);
/* Room for cap rows; a borrowed matrix's rows copied into its own memory
 * (before any change: the mapping is read-only). */
void	 store_mat_reserve(struct store_mat *, size_t cap);
void	 store_mat_own(struct store_mat *);
/* Whether rowid is held; *pos is its row or where it would go. */
bool	 store_mat_find(const struct store_mat *, sqlite3_int64 rowid,
	    size_t *pos);
/* Open an empty row at pos for rowid (rows from pos move up); close one. */
void	 store_mat_open(struct store_mat *, size_t pos, sqlite3_int64 rowid);
void	 store_mat_close(struct store_mat *, size_t pos);
/* Row pos's archived flag and branch (copied). */
void	 store_mat_attrs(struct store_mat *, size_t pos, bool archived,
	    const char *branch);
/* Row pos's copies of vector b about the matrix's centre. */
void	 store_mat_quantise(struct store_mat *, size_t pos, const float *b);
/* Row pos's vector from its BLOB (of signature sig): copied, or held
 * while a refilled matrix waits for its centre. tmp: dim floats. */
void	 store_mat_blob(struct store_mat *, size_t pos, const void *blob,
	    uint64_t sig, float *tmp);
/* Empty a matrix to be refilled whole, taking a new centre; fix the
 * centre from the rows held so far and copy them (no-op if none wait). */
void	 store_mat_refill(struct store_mat *);
void	 store_mat_centre(struct store_mat *);
/* Drop the rows not marked ROW_SEEN. */
void	 store_mat_sweep(struct store_mat *);
/* One more row of the matrix's dimension carries model (its stats). */
void	 store_mat_tag(struct store_mat *, const char *model);

/* ---- The cache (store_cache.c) ------------------------------------------ */

/* The connection's cache, attached to it (store_attach) on first use. */
struct store_cache *store_cache_get(struct store *);

/*
 * Inside the search's snapshot: drop what a rollback invalidated, then
 * fill mats (room for q->nstores) with the matrices of q's distinct
 * stores in q's dimension, each exactly what the table holds (from the
 * vector file when the cache is cold, re-read where another connection
 * wrote). On failure the cache is dropped. Returns 0 or -1.
 */
int	 store_cache_mats(struct store *, const struct store_query *q,
	    struct store_mat **mats, size_t *n, struct err *);

/* Empty the cache and drop its mapping (a vector file cut under it). */
void	 store_cache_drop(struct store_cache *);

/* A cold cache (no matrix, no file looked for): the vector file's
 * matrices, of whatever dimension it holds, mapped as store_cache_mats
 * would map them, in the caller's read transaction. 0 or -1. */
int	 store_cache_preload(struct store *, struct err *);

/* Write the matrices of dim with exact stats to the vector file, at the
 * key they were made exact at (after a cold search, c->file_save). */
void	 store_cache_save(struct store *, int dim);

/*
 * Every writer of entries keeps the cache exact without a reload: it
 * brackets its statement with store_cache_expect(st, true) ...
 * store_cache_expect(st, false) (any other write of this connection to
 * entries makes the next search re-read the table), and once the write
 * has committed, or has succeeded inside the caller's transaction,
 * reports the row it left: store_cache_put (inserted or overwritten;
 * vec NULL for a row without embedding) or store_cache_remove (deleted).
 * A write that failed or was rolled back reports nothing.
 */
void	 store_cache_expect(struct store *, bool on);
void	 store_cache_put(struct store *, const char *store,
	    sqlite3_int64 rowid, const float *vec, int dim, bool archived,
	    const char *branch);
void	 store_cache_remove(struct store *, const char *store,
	    sqlite3_int64 rowid);

/*
 * The store's memories in another space than sp (store_space.c's count of
 * entries) from the cache, when its matrix of sp's dimension has exact
 * stats and nobody has written since: true and *n, or false (count with
 * SQL).
 */
bool	 store_cache_other_space(struct store *, const char *store,
	    const struct store_space *sp, long long *n);

/* ---- The rows of recent phrases (store_phrases.c) ---------------------- */

/*
 * Every row holding one phrase, in rowid order: its count weighted by
 * column (STORE_BM25_WEIGHTS) and where its last instance ends in each of
 * the two columns (end[2 * i], end[2 * i + 1]), in tokens.
 */
struct bm25_postings {
	sqlite3_int64	*rowid;
	uint32_t	*freq;
	uint32_t	*end;
	size_t		 n, cap;
};
void	 store_postings_release(struct bm25_postings *);

/*
 * The connection's phrases for the index as it is now (its key read in
 * the caller's read transaction), or NULL (no index of FTS5's making).
 * store_phrases_get: a phrase's postings, borrowed until the next put,
 * and the index's row and token counts when known; NULL when not kept.
 * store_phrases_put takes p (nrow < 0: totals unknown).
 */
struct store_phrases;
struct store_phrases *store_phrases_open(struct store *);
const struct bm25_postings *store_phrases_get(struct store_phrases *,
	    const char *phrase, sqlite3_int64 *nrow, sqlite3_int64 *ntoken);
void	 store_phrases_put(struct store_phrases *, const char *phrase,
	    struct bm25_postings *p, sqlite3_int64 nrow, sqlite3_int64 ntoken);

/* Every row's length in tokens, by rowid ascending, for c's key: read
 * once a key when read is set; NULL when not read (or it cannot be). */
struct store_lengths {
	sqlite3_int64	*rowid;
	uint32_t	*len;
	size_t		 n, cap;
	sqlite3_int64	 sum;		/* of len[0..n) */
};
const struct store_lengths *store_phrases_lengths(struct store *,
	    struct store_phrases *c, bool read);

/* A row's length in tokens, its ncol columns summed as FTS5's
 * xColumnSize(-1) sums them, from its entries_fts_docsize blob: 0, or -1
 * when the blob ends early. */
int	 store_docsize_len(const unsigned char *sz, int n, int ncol,
	    uint32_t *len);

/* ---- The bm25 ranking of an OR of phrases (store_bm25.c) --------------- */

/*
 * Rank the rows matching match, an FTS5 expression that is an OR of
 * phrases (an AND is not: its IDFs are not the pass's), by
 * bm25(entries_fts, STORE_BM25_WEIGHTS) then rowid: 0 and *out; 1 when
 * this connection cannot (no index, no FTS5 API: bm25() must); -1 with
 * err. store_bm25_next gives the next row and its bm25 (1), or 0 at the
 * end, or -1 with err; it scores only the rows that may come next.
 */
#define STORE_BM25_WEIGHTS	"4.0, 1.0"
#define STORE_BM25_NCOL		2	/* label, content */
/* Column c's weight as a whole number, as STORE_BM25_WEIGHTS has it: what
 * one instance of a phrase there adds to the phrase's count in the row. */
#define STORE_BM25_WEIGHT(c)	((c) == 0 ? 4u : 1u)
struct bm25_rank;
int	 store_bm25_rank(struct store *, const char *match,
	    struct bm25_rank **out, struct err *);
int	 store_bm25_next(struct store *, struct bm25_rank *,
	    sqlite3_int64 *rowid, double *bm25, struct err *);
/* How many rows' lengths were looked up so far (the tests' and bench's). */
size_t	 store_bm25_scored(const struct bm25_rank *);
void	 store_bm25_free(struct bm25_rank *);

/* ---- The full-text side (store_fts.c) ----------------------------------- */

/* Setup step (store.c): the index and its triggers. */
int	 store_fts_setup(struct store *, bool write, int *todo, struct err *);

/* The query's FTS5 MATCH expressions (exposed for the tests). */
struct fts_terms {
	struct sbuf	idents;		/* FTS5 MATCH: the names it holds */
	struct sbuf	parts;		/* FTS5 MATCH: all parts of a name */
	struct sbuf	words;		/* FTS5 MATCH: every token worth it */
	struct sbuf	shorts;		/* 2-character CJK words, one a line */
};
void	 store_fts_match(const char *text, struct fts_terms *);
void	 store_fts_terms_release(struct fts_terms *);

/* A row of the lexical ranking and what matched in it. */
struct store_lex {
	sqlite3_int64	rowid;
	int		kind;		/* STORE_LEX_* */
};

/*
 * The lexical ranking of q->text under q's store, branch and archived
 * rules, best first, at most max rows into lx (*n of them). A database
 * without the index ranks nothing. Returns 0 or -1.
 */
int	 store_fts_rank(struct store *, const struct store_query *q,
	    struct store_lex *lx, size_t max, size_t *n, struct err *);

/* ---- The cosine side (store_nearest.c) ---------------------------------- */

/* store_search without text: the exact cosine ranking. */
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

/* The matrices q's search would read, made current without searching: a
 * lexical search leaves them ready for the count of rows under another
 * model that follows it (store_space.c), which else reads every row. */
int	 store_vector_prepare(struct store *, const struct store_query *,
	    struct err *);

/* How many rows the last vector search on this connection had to narrow
 * (its band: the rows the int8 pass could not rule out; for tests). */
size_t	 store_vector_band(struct store *);

#endif
