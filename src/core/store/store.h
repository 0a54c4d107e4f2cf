/*
 * store.h — the SQLite store: connection, schema, memories, search
 * (store.c and the store_*.c files beside it; store_int.h maps them).
 */
#ifndef THATCH_CORE_STORE_H
#define THATCH_CORE_STORE_H

#include <stdbool.h>
#include <stddef.h>

#include <sqlite3.h>

struct err;

/* An open connection to the thatch database. Opaque. */
struct store;

/*
 * Open (creating when missing) the database at path: create the parent
 * directory (0700), set WAL, busy_timeout=5000 and foreign_keys=ON, create
 * the schema idempotently and run the column migrations (store-and-tools
 * §1.2-§1.5). A file that is not a SQLite database, an unwritable
 * directory or a database locked past the timeout fails with one line in
 * err and leaves the file untouched. Returns 0 and *out, or -1.
 */
int	 store_open(const char *path, struct store **out, struct err *);

/*
 * Open the database at path for reading only, creating and changing
 * nothing: no directory, file, schema, migration or -shm (without a -wal,
 * where nobody is writing through WAL, it is opened immutable). For
 * `thatch doctor`. A missing file fails. Returns 0 and *out, or -1.
 */
int	 store_open_readonly(const char *path, struct store **out,
	    struct err *);

/*
 * PRAGMA quick_check: 0 when the file is sound, 1 when it is not (why
 * gets SQLite's first complaint, n bytes at most), -1 with err set when
 * the check could not run (a file that is not a database).
 */
int	 store_quick_check(struct store *, char *why, size_t n, struct err *);

/* Close the connection; accepts NULL. */
void	 store_close(struct store *);

/*
 * The raw handle, for the other core modules that own tables in the same
 * file (prediction/behavior engines, repo_paths cache). Only core/ calls
 * this; borrowed for the life of the store.
 */
sqlite3	*store_db(struct store *);

/*
 * Per-connection state of a core module (engine.c's matcher caches, the
 * store's own search cache), under a key that module owns: store_attached
 * returns the data or NULL; store_attach sets it (freeing data it
 * replaces), and store_close frees it with free_fn before it closes the
 * connection. Returns -1, attaching nothing, when all STORE_ATTACH_MAX
 * slots are taken. For core/ modules only.
 */
void	*store_attached(struct store *, const void *key);
int	 store_attach(struct store *, const void *key, void *data,
	    void (*free_fn)(void *));

/* The path the store was opened with (borrowed). */
const char *store_path(const struct store *);

/* PRAGMA data_version: moves when another connection commits (what a
 * cache of this connection's reads must watch). 0, or -1 with err. */
int	 store_data_version(struct store *, int *, struct err *);

/*
 * Prepare sql on the connection; on failure err says which statement and
 * why. For core/ modules only.
 */
int	 store_prepare(struct store *, sqlite3_stmt **, const char *sql,
	    struct err *);

/*
 * Call fn for every store name in byte order (SELECT name FROM stores ORDER
 * BY name). fn returning non-zero stops the walk. Returns 0 or -1.
 */
int	 store_list_stores(struct store *, int (*fn)(const char *, void *),
	    void *, struct err *);

/*
 * Whether a write could start right now: takes the write lock without
 * waiting and drops it. For work that can wait (seeding), so that it never
 * holds a server up behind another process's write transaction.
 */
bool	 store_can_write(struct store *);

/*
 * The connection's busy timeout in ms. STORE_BUSY_MS is §1.2's; writes
 * that may be lost (caches, seeding) wait STORE_BEST_EFFORT_MS instead,
 * so that they never hold a reader up behind another process's write.
 */
#define STORE_BUSY_MS		5000
#define STORE_BEST_EFFORT_MS	250
void	 store_busy_timeout(struct store *, int ms);

/* Run one or more statements without results (BEGIN, COMMIT, DDL). */
int	 store_exec(struct store *, const char *sql, struct err *);

/* Pages this connection has read from the file so far (SQLite's cache
 * misses): what a search costs in I/O, for tests and benchmarks. */
long long store_pages_read(struct store *);

/* ---- Memories (entries): store-and-tools §4.3-§4.8, §5 ---------------- */

/*
 * One row of entries. Strings are owned (NULL for SQL NULL); confidence is
 * 0 when NULL. vec is filled only by calls that say so (dim 0 otherwise).
 * Release with store_entry_release.
 */
struct store_entry {
	char	*slug, *store, *label, *content, *model, *branch;
	char	*created_at, *updated_at, *last_recalled_at;
	int	 confidence;
	bool	 archived;
	int	 recall_count;
	float	*vec;		/* owned, dim floats */
	int	 dim;
	char	*anchors;	/* owned: the anchors as they travel with the
				   memory (anchor_doc.c's JSON text), set by
				   export, import and sync only; NULL: none */
};

void	 store_entry_release(struct store_entry *);

/* What memory_remember asks for (§4.3 step 7). Everything is borrowed. */
struct store_write {
	const char	*store, *slug, *label, *content;
	const float	*vec;
	int		 dim;
	const char	*model;
	const char	*branch;	/* NULL: absent */
	int		 confidence;	/* 0: absent */
	int		 archived;	/* -1 absent, 0, 1 */
	bool		 overwrite;
	const char	*now;		/* ISO-8601 with milliseconds */
};

enum store_write_result {
	STORE_SAVED,
	STORE_EXISTS,		/* plain insert hit the primary key */
	STORE_ARCHIVED,		/* overwrite of an archived row without
				   the archived argument */
};

/*
 * Insert or overwrite one memory exactly as §4.3 step 6-7 says (stores row
 * first; overwrite in one BEGIN IMMEDIATE transaction that also clears the
 * slug's dedup verdicts). A refusal is a result, not an error.
 */
int	 store_remember(struct store *, const struct store_write *,
	    enum store_write_result *, struct err *);

/* Fetch (store, slug) without its vector. *found false is not an error. */
int	 store_get(struct store *, const char *store, const char *slug,
	    struct store_entry *, bool *found, struct err *);

/* Delete (store, slug) and its verdicts in one transaction (§4.7). */
int	 store_forget(struct store *, const char *store, const char *slug,
	    bool *found, struct err *);

enum store_move_result {
	STORE_MOVED,
	STORE_MOVE_MISSING,	/* no (from, slug) */
	STORE_MOVE_TAKEN,	/* (to, slug) exists: nothing moved */
};

/*
 * memory_move: give (from, slug) the store `to`, every other field as it
 * was (label, content, embedding, branch, confidence, archived, the
 * timestamps and recall telemetry), in one BEGIN IMMEDIATE transaction
 * that creates the stores row of `to` and clears the slug's verdicts in
 * both stores (a pair names two memories of one store). A missing source
 * or a taken target is a result, not an error. Returns 0 or -1.
 */
int	 store_move(struct store *, const char *from, const char *slug,
	    const char *to, enum store_move_result *, struct err *);

/*
 * Call fn for each entry of store ordered by label (BINARY, §4.5), without
 * vector or content (content is NULL). The entry is borrowed for the call;
 * fn returning non-zero stops the walk.
 */
int	 store_list(struct store *, const char *store,
	    int (*fn)(const struct store_entry *, void *), void *,
	    struct err *);

/*
 * store_list for a listing line: only store, label, branch, confidence,
 * archived and updated_at are filled (slug, model, created_at and
 * last_recalled_at are NULL, recall_count 0). They are read from an index
 * holding just those columns in that order, about a twentieth of the
 * table's pages (the rows carry their 1.5 KB vectors).
 */
int	 store_list_lines(struct store *, const char *store,
	    int (*fn)(const struct store_entry *, void *), void *,
	    struct err *);

/*
 * A page of a store's listing for the agent (store_page.c): labels that
 * start with prefix (byte for byte; NULL: any), on branch (NULL: any),
 * newest-updated first then by label, limit rows from offset. Borrowed.
 */
struct store_page {
	const char	*prefix, *branch;
	long long	 limit, offset;
};

/*
 * Call fn for each entry of the page, filled as store_list_lines fills
 * them; *total gets how many entries match the filters in all.
 */
int	 store_list_page(struct store *, const char *store,
	    const struct store_page *,
	    int (*fn)(const struct store_entry *, void *), void *,
	    long long *total, struct err *);

/* Whether a stores row named name exists. */
int	 store_has_store(struct store *, const char *name, bool *,
	    struct err *);

/*
 * A ranked result of store_search: the entry (no vector), its cosine (0
 * for a row of another dimension the lexical side found), what the
 * lexical side matched in it, and whether the vector side alone would not
 * have shown it (outside its first limit rows).
 */
enum { STORE_LEX_NONE, STORE_LEX_WORD, STORE_LEX_IDENT };
struct store_hit {
	struct store_entry	e;
	double			score;
	int			lexical;	/* STORE_LEX_* */
	bool			lexical_only;
};

struct store_hits {
	struct store_hit	*v;	/* owned */
	size_t			 n;
};

void	 store_hits_release(struct store_hits *);

/* Fill the vec and dim of each hit from its row (store_search.c); a row
 * without a usable vector leaves vec NULL. Returns 0 or -1. */
int	 store_hits_vectors(struct store *, struct store_hits *, struct err *);

/* Which rankings a search with text fuses (docs/store.md). */
enum store_mode { STORE_HYBRID, STORE_VECTOR, STORE_LEXICAL };

/* "hybrid", "vector" or "lexical" to *mode; -1 for anything else. */
int	 store_mode_parse(const char *name, enum store_mode *mode);

/* §5.2 search parameters. Borrowed. */
struct store_query {
	const char *const	*stores;
	size_t			 nstores;
	const float		*vec;
	int			 dim;		/* other dims are skipped */
	const char		*branch;	/* NULL/"": no filter (§5.2) */
	int			 limit;
	bool			 include_archived;
	const char		*exclude_slug;	/* find_similar (§5.4) */
	double			 min_score;	/* -2: none */
	bool			 rank_round3;	/* §5.4: rank by round3 */
	const char		*text;		/* NULL: vector only */
	enum store_mode		 mode;
};

/*
 * Brute-force exact cosine search (§5.2) over the vectors of the given
 * stores, best first, at most limit hits. A warm process scans an
 * in-memory int8 copy of the vectors and reads only the BLOBs of the rows
 * that may make the cut; our own writes update the copy in place, and
 * another connection's commit makes the next search re-read the table
 * once, re-quantising only rows whose BLOB changed (docs/store.md).
 *
 * Scores are the exact cosine of §5.1 (double accumulation). Order: score
 * descending; equal scores keep the rows' table order (rowid), which is
 * the order the original's stable sort leaves them in. With rank_round3
 * (write-time similarity, §5.4) the key is round3(score) instead, ties
 * again in table order, and hit.score is the unrounded cosine. A stores
 * list naming a store twice searches it once. Rows are kept when score >=
 * min_score. hits is replaced (release it even on failure).
 *
 * With text set and mode not STORE_VECTOR (recall and the prompt nudge),
 * the order is instead the reciprocal-rank fusion of the cosine ranking
 * and a full-text ranking of text over label and content (store_fts.c),
 * or the full-text ranking alone (STORE_LEXICAL); scores are still the
 * cosine, and min_score, exclude_slug and rank_round3 do not apply. A
 * database without the full-text index is searched by vector alone.
 */
int	 store_search(struct store *, const struct store_query *,
	    struct store_hits *, struct err *);

/*
 * store_search in two steps, for a caller with other work to do while
 * the query's vector is being made (the model loading on another
 * thread, tool_memory.c): store_lexical_rank ranks q's text (it reads
 * neither q->vec nor q->dim; nothing for a query without text or of mode
 * STORE_VECTOR), store_search_ranked is store_search with that ranking
 * (q otherwise the same, its vector set). Free with store_lexical_free.
 */
struct store_lexical;
int	 store_lexical_rank(struct store *, const struct store_query *,
	    struct store_lexical **, struct err *);
int	 store_search_ranked(struct store *, const struct store_query *,
	    const struct store_lexical *, struct store_hits *, struct err *);
void	 store_lexical_free(struct store_lexical *);

/*
 * In a cold process, the vector side's first read made ahead: the vector
 * file mapped and checked (every byte summed: ~2 ms at 10,000 memories,
 * ~20 ms at 100,000), whatever its dimension, so that a caller waiting
 * for the query's vector spends that time now. A no-op once the
 * connection has searched. Failure costs nothing but the time: the
 * search reads as it would have. Returns 0 or -1.
 */
int	 store_search_preload(struct store *, struct err *);

/* Recall telemetry (§5.3): recall_count += 1, last_recalled_at = now on
 * exactly these rows, in one statement. */
int	 store_stamp_recall(struct store *, const struct store_hits *,
	    const char *now, struct err *);

/* ---- Duplicates (§5.5, §5.6) ----------------------------------------- */

/*
 * A row-major matrix of one store's vectors for find_duplicates: row i is
 * v[i * dim .. i * dim + dim), slugs[i] and labels[i] belong to it. All
 * owned; release with store_matrix_release.
 */
struct store_matrix {
	float	*v;
	int	 dim;
	size_t	 n;
	char	**slugs;
	char	**labels;
};

void	 store_matrix_release(struct store_matrix *);

/*
 * The vectors of store's entries with a non-NULL embedding of dimension
 * dim, in slug order (ORDER BY slug, BINARY, as §5.5 step 1), archived ones
 * only if include_archived. dim 0 picks the most common dimension among
 * those rows (ties: the larger), so a store written by one model gives all
 * its rows. Rows of other dimensions are left out (§5.1). An empty result
 * has n 0 and dim as asked (or 0). Returns 0 or -1.
 */
int	 store_vectors(struct store *, const char *store, int dim,
	    bool include_archived, struct store_matrix *, struct err *);

/*
 * Record a verdict on the pair {slug_x, slug_y} (dedup_mark_checked): the
 * two slugs are put in canonical order (slug_cmp, UTF-16 code units, §5.6)
 * and the row is inserted or replaced with checked_at = now. The store row
 * is not created (§8 #8). Returns 0 or -1.
 */
int	 store_verdict_set(struct store *, const char *store,
	    const char *slug_x, const char *slug_y, const char *status,
	    const char *now, struct err *);

/*
 * Call fn(slug_a, slug_b, status, arg) for every verdict of store, with
 * slug_a <= slug_b in canonical order even when the row was written the
 * other way round (§5.6: lookups canonicalise both sides). Strings are
 * borrowed for the call. fn returning non-zero stops the walk.
 */
int	 store_verdicts(struct store *, const char *store,
	    int (*fn)(const char *, const char *, const char *, void *),
	    void *, struct err *);

/* Verdicts are cleared by store_remember (overwrite) and store_forget. */

/* ---- Hygiene (§6) ------------------------------------------------------ */

/* Number of entries in store (archived included). */
int	 store_count(struct store *, const char *store, int *n, struct err *);

/*
 * §6 signal 2: non-archived entries of store neither updated nor recalled
 * since cutoff (ISO string, compared as text exactly as the original
 * does: max(updated_at, COALESCE(last_recalled_at, updated_at)) < cutoff).
 */
int	 store_count_stale(struct store *, const char *store,
	    const char *cutoff, int *n, struct err *);

/*
 * The entries store_count_stale counts, oldest touch first (ties by
 * label), without vector or content; borrowed for the call, fn returning
 * non-zero stops the walk.
 */
int	 store_list_stale(struct store *, const char *store,
	    const char *cutoff, int (*fn)(const struct store_entry *, void *),
	    void *, struct err *);

/*
 * The earliest touch time (the expression above) of store's non-archived
 * entries that is >= cutoff: when the next memory turns stale. *touched
 * is a new string, or NULL when no entry qualifies.
 */
int	 store_next_stale(struct store *, const char *store,
	    const char *cutoff, char **touched, struct err *);

/*
 * §6 signal 3: call fn for each distinct non-NULL branch of store's
 * entries, archived ones included, in ORDER BY branch order (the empty
 * string is a branch). Borrowed for the call; non-zero stops the walk.
 */
int	 store_branches(struct store *, const char *store,
	    int (*fn)(const char *, void *), void *, struct err *);

/* §6 signal 3: non-archived entries of store whose branch is one of the
 * nbranches names (0 when nbranches is 0). */
int	 store_count_in_branches(struct store *, const char *store,
	    const char *const *branches, size_t nbranches, int *n,
	    struct err *);

/* The non-archived entries of store on branch, by label, as store_list
 * walks them (the memories store_count_in_branches counts). */
int	 store_list_branch(struct store *, const char *store,
	    const char *branch, int (*fn)(const struct store_entry *, void *),
	    void *, struct err *);

/* ---- Sync (core/sync/sync.c) ------------------------------------------------ */

/*
 * Call fn for each entry of store in slug order, with content, without
 * vector. Borrowed for the call; fn returning non-zero stops the walk.
 */
int	 store_walk(struct store *, const char *store,
	    int (*fn)(const struct store_entry *, void *), void *,
	    struct err *);

/*
 * Write e as (e->store, e->slug) exactly: label, content, branch,
 * confidence (0: NULL), archived, created_at and updated_at as given,
 * keeping the row's recall telemetry, with no embedding until
 * store_set_embedding gives one; clears the slug's verdicts. store_drop
 * deletes a row and its verdicts. Both run inside the caller's
 * transaction (a sync applies hundreds of rows at once).
 */
int	 store_put_exact(struct store *, const struct store_entry *e,
	    struct err *);
int	 store_drop(struct store *, const char *store, const char *slug,
	    struct err *);

/* Set (store, slug)'s embedding and model; a missing row is no error. */
int	 store_set_embedding(struct store *, const char *store,
	    const char *slug, const float *vec, int dim, const char *model,
	    struct err *);

/* ---- Embedding spaces (store_space.c, issue 19) ------------------------ */

/* The model in effect, as the store sees it: a dimension and a tag. */
struct store_space {
	int		 dim;
	const char	*tag;		/* entries.model of its rows */
};

/* Rows in another space: memories, matchers and items of both engines. */
struct store_space_count {
	long long	memories, matchers, items;
};

/* The vector file beside the database (docs/store.md, store_sidecar.c). */
enum store_vecfile_state {
	STORE_VECFILE_NONE,	/* not written yet (the next search does) */
	STORE_VECFILE_CURRENT,	/* whole, and its key is the database's */
	STORE_VECFILE_STALE,	/* old or damaged: the next search rebuilds */
	STORE_VECFILE_UNKEYED,	/* the database has no generation yet */
};

/*
 * What the vector file is now, read-only (thatch doctor): its state, and
 * its path (new string, NULL for a database without a file) and size.
 */
enum store_vecfile_state store_vecfile_state(struct store *, char **path,
	    long long *bytes);

/*
 * Count the rows of store (NULL: every store) whose vector is not of the
 * space sp: NULL, another dimension, or another model tag (NULL too).
 * Read-only: safe beside running servers, for `model info`, `doctor` and
 * the one-line notice of recall and search. Returns 0 or -1.
 */
int	 store_count_other_space(struct store *, const char *store,
	    const struct store_space *sp, struct store_space_count *,
	    struct err *);

/*
 * Rows of store (NULL: every store) with no vector at all, such as the
 * memories a sync brought (their vectors never travel). Returns 0 or -1.
 */
int	 store_count_missing(struct store *, const char *store, long long *n,
	    struct err *);

/* The rows store_reembed takes. */
enum store_rows {
	STORE_ROWS_OTHER,	/* in another space than the one in effect */
	STORE_ROWS_ALL,		/* every row (`reembed --all`) */
	STORE_ROWS_MISSING,	/* with no vector at all (a sync's arrivals) */
};

/*
 * What store_reembed does: the rows of store (NULL: every store) that
 * rows names, embedded batch texts
 * at a time by embed (passages, n texts to n x space.dim floats in out;
 * non-zero stops the run with err set). progress, if set, is called with
 * the rows done and the total after every batch. now stamps the
 * matchers' updated_at (their caches reload on it).
 */
struct store_reembed {
	const char		*store;
	struct store_space	 space;
	enum store_rows		 rows;
	size_t			 batch;		/* >= 1 */
	int			(*embed)(void *arg, const char *const *texts,
				    size_t n, float *out, struct err *);
	void			(*progress)(void *arg, long long done,
				    long long total);
	void			*arg;		/* for embed and progress */
	const char		*now;
};

/*
 * Re-embed as r says: each batch read without a transaction, embedded,
 * and written in one short transaction, each row's embedding and model
 * in one UPDATE, so that a killed run leaves every row wholly old or
 * wholly new and a rerun finishes the job. *done is the rows written.
 */
int	 store_reembed(struct store *, const struct store_reembed *r,
	    long long *done, struct err *);

/* ---- Provenance (store_origin.c, issue 31) ------------------------------ */

struct sbuf;

/* How a memory reached this database. NONE: the user's own, path unknown
 * (written before provenance was kept, or by the original). */
enum store_origin_kind {
	STORE_ORIGIN_NONE,
	STORE_ORIGIN_AGENT,	/* memory_remember over MCP or opencode */
	STORE_ORIGIN_CLI,	/* thatch remember / edit */
	STORE_ORIGIN_IMPORT,	/* thatch import; source: the file */
	STORE_ORIGIN_SYNC,	/* thatch sync; source: git author's mail,
				   ref: the commit that last changed it */
};

/* One memory's provenance. Strings owned (NULL: not known). */
struct store_origin {
	enum store_origin_kind	 kind;
	char			*source, *ref;
};

/* Record (store, slug)'s provenance, replacing any; inside the caller's
 * transaction when there is one. source and ref may be NULL. */
int	 store_origin_set(struct store *, const char *store, const char *slug,
	    enum store_origin_kind, const char *source, const char *ref,
	    struct err *);

/* Read it into *o (kind NONE when none is recorded); release with
 * store_origin_release. */
int	 store_origin_get(struct store *, const char *store, const char *slug,
	    struct store_origin *o, struct err *);
void	 store_origin_release(struct store_origin *);

/* "agent", "cli", "import", "sync" ("" for NONE). */
const char *store_origin_kind_name(enum store_origin_kind);

/* Whether the memory is not the user's own (an import or a sync). */
bool	 store_origin_foreign(const struct store_origin *);

/* Append "[from <source> via sync|import]" for a foreign memory, the
 * source fenced (a teammate picks it); nothing for the user's own. */
void	 store_origin_tag(const struct store_origin *, struct sbuf *);

/* store_origin_tag for (store, slug), read first; whether it appended.
 * A provenance that cannot be read appends nothing. */
bool	 store_origin_lookup_tag(struct store *, const char *store,
	    const char *slug, struct sbuf *);

#endif
