/*
 * store_cache.c — the search's int8 cache of the stored vectors, kept
 * exactly what the table holds (store_nearest.c searches it).
 *
 * Each (store, dimension) gets an in-memory matrix of its rows in rowid
 * order: an int8 copy of every vector less the matrix's centre (one scale
 * per row, a quarter of the float bytes; core/quant.h) and an int8 copy
 * of what that copy misses (the residual, which narrows the error 254-fold
 * for the rows a search must decide), rowids, a signature of each BLOB,
 * branches and archived flags, and counts of the store's rows in other
 * embedding spaces. The cache attaches itself to the connection
 * (store_attach) on first use and is freed with it.
 *
 * Invariants:
 *  1. The cache is what this connection would read from entries: our own
 *     writes patch it where they commit (store_cache_put/_remove, called
 *     by store_entries.c; the update hook (store_db.c) marks it stale on any
 *     other write of ours to entries, and the rollback hook drops it if it
 *     was patched or loaded inside a transaction that rolls back). Commits
 *     by other connections move PRAGMA data_version; unless the
 *     database's key (store_sidecar.c: a generation the triggers redraw on
 *     every change to a cached column) is the one the cache was last made
 *     exact at, the cache then re-reads every (rowid, archived, branch,
 *     BLOB) of its stores and re-quantises only rows whose BLOB signature
 *     changed, adds new rowids and drops vanished ones, in the buffers it
 *     already has.
 *  2. A cold cache is mapped from the vector file when the file's key is
 *     the snapshot's (store_sidecar.c); its matrices borrow the mapping
 *     and are copied out (store_mat_own) before any change. A cold cache
 *     read from the table is saved to the file after the search.
 *  3. Rows whose BLOB length is not a multiple of 4 are skipped with one
 *     warning per process; rows of another dimension are skipped silently
 *     (§1.6, §5.1).
 *  4. How a row is copied, and about which centre, is store_rows.c's (its
 *     invariant 1); this file decides which rows a matrix holds.
 */
#include "core/store/store.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/store/store_int.h"
#include "core/vector.h"
#include "util/err.h"
#include "util/log.h"
#include "util/xmalloc.h"

/* ---- The cache, attached to the connection ------------------------------- */

void
store_cache_drop(struct store_cache *c)
{
	struct store_mat	*m, *next;

	for (m = c->mats; m != NULL; m = next) {
		next = m->next;
		store_mat_free(m);
	}
	c->mats = NULL;
	store_sidecar_unmap(&c->map);
}

/* The connection closes (store_close frees its attachments, its hooks
 * already removed). */
static void
cache_free(void *arg)
{
	struct store_cache	*c = arg;

	store_cache_drop(c);
	free(c->scratch);
	free(c);
}

/* The key the cache is attached to the connection under. */
static const char	cache_key;

static struct store_cache *
cache_of(struct store *st)
{
	return store_attached(st, &cache_key);
}

/* Invariant 1: a write to entries that no patching writer announced. */
static void
cache_updated(void *arg, const char *table, sqlite3_int64 rowid)
{
	struct store_cache	*c = arg;

	(void)rowid;
	if (!c->expect && strcmp(table, "entries") == 0)
		c->stale = true;
}

/* Invariant 1: the rows cached inside the transaction may be gone; the
 * next validation drops the matrices (not here: a search may hold them). */
static void
cache_rolled_back(void *arg)
{
	struct store_cache	*c = arg;

	if (c->txn_touched)
		c->invalid = true;
	c->txn_touched = false;
}

struct store_cache *
store_cache_get(struct store *st)
{
	struct store_cache	*c = cache_of(st);

	if (c == NULL) {
		c = xcalloc(1, sizeof(*c));
		c->db = st->db;
		/* a bug, not a condition: STORE_ATTACH_MAX counts every
		 * module that attaches (store_int.h) */
		if (store_attach(st, &cache_key, c, cache_free) != 0)
			abort();
		store_watch(st, &cache_key, cache_updated, cache_rolled_back);
	}
	if (sqlite3_get_autocommit(st->db))
		c->txn_touched = false;	/* the last transaction committed */
	return c;
}

/* The cache changed; inside a caller's transaction a rollback must drop
 * it. */
static void
cache_changed(struct store_cache *c)
{
	if (!sqlite3_get_autocommit(c->db) && !c->reading)
		c->txn_touched = true;
}

int
store_data_version(struct store *st, int *dv, struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	int		 rc = -1;

	if (store_prepare(st, &stmt, "PRAGMA data_version", err) != 0)
		return -1;
	if (sqlite3_step(stmt) == SQLITE_ROW) {
		*dv = sqlite3_column_int(stmt, 0);
		rc = 0;
	} else
		store_fail(st, err, "cannot read data_version");
	sqlite3_finalize(stmt);
	return rc;
}

static void
warn_bad_blob(struct store_cache *c, const char *store, sqlite3_int64 rowid)
{
	if (c->warned)
		return;
	c->warned = true;
	log_warn("skipping a memory (rowid %lld) in store '%s': its embedding "
	    "is not a whole number of float32 values (further ones not "
	    "reported)", (long long)rowid, store);
}

/* ---- Refreshing from the table (invariant 1) ----------------------------- */

/*
 * The statements that read rows for the cache select rowid, archived,
 * branch, embedding, store, model, in that order. The pending matrix
 * this row belongs to (its store, and a BLOB of its dimension), or NULL
 * (invariant 3). Every pending matrix of the row's store counts it in
 * its stats.
 */
static struct store_mat *
row_mat(struct store_cache *c, sqlite3_stmt *stmt)
{
	const char		*store = (const char *)sqlite3_column_text(stmt,
				    4);
	const char		*model = (const char *)sqlite3_column_text(stmt,
				    5);
	int			 bytes = sqlite3_column_bytes(stmt, 3);
	struct store_mat	*m, *found = NULL;
	bool			 searched = false;

	for (m = c->mats; m != NULL && store != NULL; m = m->next) {
		if (!m->pending || strcmp(m->store, store) != 0)
			continue;
		searched = true;
		if (bytes != m->dim * 4 ||
		    sqlite3_column_type(stmt, 3) == SQLITE_NULL) {
			m->nother++;
			continue;
		}
		store_mat_tag(m, model);
		found = found != NULL ? found : m;
	}
	if (found == NULL && searched && bytes % 4 != 0)
		warn_bad_blob(c, store, sqlite3_column_int64(stmt, 0));
	return found;
}

/* Bring row pos up to date with the statement's row; fresh: a new row. */
static void
row_read(struct store_mat *m, size_t pos, sqlite3_stmt *stmt, bool fresh,
    float *tmp)
{
	const void	*blob = sqlite3_column_blob(stmt, 3);
	uint64_t	 sig = store_blob_sig(blob, (size_t)m->dim * 4);

	if (fresh || m->sig[pos] != sig)
		store_mat_blob(m, pos, blob, sig, tmp);
	store_mat_attrs(m, pos, sqlite3_column_int(stmt, 1) != 0,
	    (const char *)sqlite3_column_text(stmt, 2));
	m->flags[pos] |= ROW_SEEN;
}

/* A new row whose rowid fell between cached ones: a rowid below the
 * largest is new only when rowids are chosen explicitly. */
struct late {
	struct store_mat	*m;
	sqlite3_int64		 rowid;
};

static int
insert_late(struct store *st, const struct late *late, size_t nlate,
    float *tmp, struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	size_t		 i, pos;
	int		 rc = 0;

	if (nlate == 0)
		return 0;
	if (store_prepare(st, &stmt, "SELECT rowid, archived, branch, "
	    "embedding, store, model FROM entries WHERE rowid = ?", err) != 0)
		return -1;
	for (i = 0; i < nlate && rc == 0; i++) {
		sqlite3_reset(stmt);
		sqlite3_bind_int64(stmt, 1, late[i].rowid);
		if (sqlite3_step(stmt) != SQLITE_ROW)
			rc = store_fail(st, err, "cannot read embeddings");
		else if (!store_mat_find(late[i].m, late[i].rowid, &pos)) {
			store_mat_open(late[i].m, pos, late[i].rowid);
			row_read(late[i].m, pos, stmt, true, tmp);
		}
	}
	sqlite3_finalize(stmt);
	return rc;
}

/*
 * Invariant 1: make every pending matrix what the table holds, in place,
 * in one pass over entries in rowid order. Each matrix walks its cached
 * rowids alongside: a cached rowid is refreshed (re-quantised only if its
 * BLOB's signature moved), a rowid past the last cached one is appended,
 * cached rows not seen are dropped. On failure the matrices are
 * half-updated and the caller drops the cache.
 */
static int
cache_refresh(struct store *st, struct store_cache *c, struct err *err)
{
	struct store_mat	*m;
	struct late		*late = NULL;
	sqlite3_stmt		*stmt = NULL;
	sqlite3_int64		 rowid;
	size_t			 nlate = 0, i;
	float			*tmp;
	int			 step, rc = -1, dim = 0;

	for (m = c->mats; m != NULL; m = m->next) {
		if (!m->pending)
			continue;
		store_mat_own(m);
		store_mat_tags_free(m);
		m->stats = false;
		if (m->n < STORE_CENTRE_ROWS)
			store_mat_refill(m);
		for (i = 0; i < m->n; i++)
			m->flags[i] &= ~ROW_SEEN;
		m->old_n = m->n;
		m->cur = 0;
		dim = m->dim > dim ? m->dim : dim;
	}
	if (dim == 0)
		return 0;
	tmp = xcalloc((size_t)dim, sizeof(float));
	/* every row: the stats count those without a vector too */
	if (store_prepare(st, &stmt, "SELECT rowid, archived, branch, "
	    "embedding, store, model FROM entries ORDER BY rowid", err) != 0)
		goto out;
	while ((step = sqlite3_step(stmt)) == SQLITE_ROW) {
		if ((m = row_mat(c, stmt)) == NULL)
			continue;
		rowid = sqlite3_column_int64(stmt, 0);
		while (m->cur < m->old_n && m->rowid[m->cur] < rowid)
			m->cur++;
		if (m->cur == m->old_n) {
			store_mat_open(m, m->n, rowid);
			row_read(m, m->n - 1, stmt, true, tmp);
		} else if (m->rowid[m->cur] == rowid)
			row_read(m, m->cur, stmt, false, tmp);
		else {
			late = xreallocarray(late, nlate + 1, sizeof(*late));
			late[nlate++] = (struct late){ m, rowid };
		}
	}
	if (step != SQLITE_DONE) {
		store_fail(st, err, "cannot read embeddings");
		goto out;
	}
	for (m = c->mats; m != NULL; m = m->next) {
		store_mat_centre(m);
		if (m->pending)
			store_mat_sweep(m);
	}
	if (insert_late(st, late, nlate, tmp, err) != 0)
		goto out;
	for (m = c->mats; m != NULL; m = m->next) {
		m->stats = m->stats || m->pending;
		m->pending = false;
	}
	cache_changed(c);
	rc = 0;
out:
	sqlite3_finalize(stmt);
	free(late);
	free(tmp);
	return rc;
}

/*
 * Whether the matrices are still what the table holds although another
 * connection committed: the database's key (store_sidecar_key) has not
 * moved since they were last made exact, so no commit since changed a
 * row's vector, store, branch, archived flag or model (a recall stamp,
 * a write to another table).
 */
static void
txn_key(struct store *st, struct store_cache *c)
{
	c->txn_key_ok = store_sidecar_key(st, &c->txn_key) == 0;
	c->txn_key_read = true;
}

static bool
key_unmoved(const struct store_cache *c)
{
	return c->key_ok && c->txn_key_ok && c->key.gen == c->txn_key.gen &&
	    c->key.schema == c->txn_key.schema;
}

/* Invariant 1: drop what a rollback invalidated; mark every matrix for
 * refreshing if anyone else wrote entries since we looked. */
static int
cache_validate(struct store *st, struct store_cache *c, struct err *err)
{
	struct store_mat	*m;
	int			 dv;
	bool			 moved;

	if (c->invalid) {
		store_cache_drop(c);
		c->invalid = false;
	}
	if (store_data_version(st, &dv, err) != 0)
		return -1;
	moved = dv != c->data_version || c->stale;
	c->txn_key_read = false;
	if (moved || c->mats == NULL)
		txn_key(st, c);
	if (moved && (c->stale || !key_unmoved(c)))
		for (m = c->mats; m != NULL; m = m->next)
			m->pending = true;
	c->data_version = dv;
	c->stale = false;
	return 0;
}

/*
 * Rows in entries, any store. A new matrix reserves twice that: growing
 * the int8 array copies it, which at 100,000 rows costs a peak of 38 MB
 * more resident memory, and capacity never touched is address space,
 * not memory.
 */
static size_t
entries_count(struct store *st)
{
	sqlite3_stmt	*stmt = NULL;
	struct err	 ignored;
	size_t		 n = 0;

	if (store_prepare(st, &stmt, "SELECT COUNT(*) FROM entries",
	    &ignored) != 0)
		return 0;
	if (sqlite3_step(stmt) == SQLITE_ROW)
		n = (size_t)sqlite3_column_int64(stmt, 0);
	sqlite3_finalize(stmt);
	return n;
}

/* A new empty matrix of (store, dim), linked in; nothing reserved. */
static struct store_mat *
mat_new(struct store_cache *c, const char *store, int dim)
{
	struct store_mat	*m = xcalloc(1, sizeof(*m));

	m->store = xstrdup(store);
	m->dim = dim;
	m->next = c->mats;
	c->mats = m;
	return m;
}

/* The matrix of (store, dim); a new one is empty and pending. */
static struct store_mat *
mat_get(struct store *st, struct store_cache *c, const char *store, int dim)
{
	struct store_mat	*m;

	for (m = c->mats; m != NULL; m = m->next)
		if (m->dim == dim && strcmp(m->store, store) == 0)
			return m;
	m = mat_new(c, store, dim);
	m->mu = xcalloc((size_t)dim, sizeof(*m->mu));
	m->pending = true;
	store_mat_reserve(m, 2 * entries_count(st) + 64);
	return m;
}

/* ---- The vector file (invariant 2) --------------------------------------- */

/* A borrowed matrix over section s (its branch array moves to it). */
static struct store_mat *
borrow(struct store_cache *c, int dim, struct vecfile_section *s)
{
	struct store_mat	*m = mat_new(c, s->store, dim);
	size_t			 i;

	m->borrowed = true;
	m->n = m->cap = s->n;
	m->c = (signed char *)(uintptr_t)s->c;
	m->k = (float *)(uintptr_t)s->k;
	m->e = (float *)(uintptr_t)s->e;
	m->r = (signed char *)(uintptr_t)s->r;
	m->k2 = (float *)(uintptr_t)s->k2;
	m->w = (float *)(uintptr_t)s->w;
	m->mu = (float *)(uintptr_t)s->mu;
	m->mu_norm = vector_norm(m->mu, dim);
	m->rowid = (sqlite3_int64 *)(uintptr_t)s->rowid;
	m->sig = (uint64_t *)(uintptr_t)s->sig;
	m->flags = (unsigned char *)(uintptr_t)s->flags;
	m->branch = (char **)(uintptr_t)s->branch;
	s->branch = NULL;
	m->stats = true;
	m->nother = s->nother;
	m->tags = xcalloc(s->ntags + 1, sizeof(*m->tags));
	for (m->ntags = 0, i = 0; i < s->ntags; i++)
		m->tags[m->ntags++] = (struct mat_tag){ s->tags[i].tag == NULL ?
		    NULL : xstrdup(s->tags[i].tag), s->tags[i].count };
	return m;
}

/* Borrow matrices of dim (0: the file's) from the vector file: as they
 * are when its key is txn_key, pending a refresh when it is older;
 * nothing when there is no file, or it does not parse or is of another
 * dimension. */
static void
file_load(struct store *st, struct store_cache *c, int dim)
{
	struct vecfile	vf;
	size_t		i;
	bool		current;

	_Static_assert(sizeof(sqlite3_int64) == sizeof(int64_t), "rowids");
	if (store_sidecar_read(st, dim, &c->txn_key, &c->map, &vf,
	    &current) != 0)
		return;
	for (i = 0; i < vf.nsec; i++)
		borrow(c, vf.dim, &vf.sec[i])->pending = !current;
	if (current) {
		c->key = vf.key;
		c->key_ok = true;
	}
	vecfile_release(&vf);
}

/* Section views of the matrices of dim whose stats are exact. */
static struct vecfile_section *
sections(struct store_cache *c, int dim, size_t *n)
{
	struct vecfile_section	*s = NULL;
	struct vecfile_tag	*t;
	struct store_mat	*m;
	size_t			 i;

	*n = 0;
	for (m = c->mats; m != NULL; m = m->next) {
		if (m->dim != dim || !m->stats || m->pending)
			continue;
		s = xreallocarray(s, *n + 1, sizeof(*s));
		t = xcalloc(m->ntags + 1, sizeof(*t));
		for (i = 0; i < m->ntags; i++)
			t[i] = (struct vecfile_tag){ m->tags[i].tag,
			    m->tags[i].count };
		s[(*n)++] = (struct vecfile_section){ m->store, m->n, m->c,
		    m->k, m->e, m->r, m->k2, m->w, m->mu,
		    (const int64_t *)(const void *)m->rowid,
		    m->sig, m->flags, (const char *const *)m->branch,
		    m->nother, t, m->ntags };
	}
	return s;
}

void
store_cache_save(struct store *st, int dim)
{
	struct store_cache	*c = cache_of(st);
	struct vecfile_section	*s;
	size_t			 n, i;

	if (!c->key_ok)
		return;
	s = sections(c, dim, &n);
	store_sidecar_write(st, &c->key, dim, s, n);
	for (i = 0; i < n; i++)
		free((void *)(uintptr_t)s[i].tags);
	free(s);
}

/* ---- What a search reads ------------------------------------------------- */

int
store_cache_preload(struct store *st, struct err *err)
{
	struct store_cache	*c = store_cache_get(st);

	if (c->file_tried || c->mats != NULL)
		return 0;
	if (cache_validate(st, c, err) != 0)
		return -1;
	c->file_tried = true;
	if (c->txn_key_ok)
		file_load(st, c, 0);
	return 0;
}

int
store_cache_mats(struct store *st, const struct store_query *q,
    struct store_mat **mats, size_t *nout, struct err *err)
{
	struct store_cache	*c = cache_of(st);
	struct store_mat	*m;
	size_t			 i, j, n = 0;
	bool			 cold = !c->searched, pending = false;

	*nout = 0;
	if (cache_validate(st, c, err) != 0)
		return -1;
	c->searched = true;
	if (!c->file_tried && c->mats == NULL) {
		c->file_tried = true;
		if (c->txn_key_ok)
			file_load(st, c, q->dim);
	}
	for (i = 0; i < q->nstores; i++) {
		for (j = 0; j < i; j++)
			if (strcmp(q->stores[i], q->stores[j]) == 0)
				break;
		if (j < i)
			continue;
		mats[n++] = mat_get(st, c, q->stores[i], q->dim);
	}
	for (m = c->mats; m != NULL && !pending; m = m->next)
		pending = m->pending;
	if (pending && !c->txn_key_read)
		txn_key(st, c);
	if (cache_refresh(st, c, err) != 0) {
		store_cache_drop(c);
		return -1;
	}
	if (pending) {
		c->key = c->txn_key;
		c->key_ok = c->txn_key_ok;
		/* a cold process that had to read the table saves what it
		 * read, for the next one (in its own snapshot only) */
		c->file_save = cold && c->key_ok && c->reading;
	}
	*nout = n;
	return 0;
}

/* ---- Our own writes (invariant 1) ---------------------------------------- */

/* The cache to patch after one of our writes, or NULL. */
static struct store_cache *
cache_patchable(struct store *st)
{
	struct store_cache	*c = cache_of(st);

	if (c == NULL)
		return NULL;
	store_cache_get(st);
	return c->invalid ? NULL : c;
}

void
store_cache_expect(struct store *st, bool on)
{
	struct store_cache	*c = cache_of(st);

	if (c != NULL)
		c->expect = on;
}

void
store_cache_put(struct store *st, const char *store, sqlite3_int64 rowid,
    const float *vec, int dim, bool archived, const char *branch)
{
	struct store_cache	*c = cache_patchable(st);
	struct store_mat	*m;
	const void		*blob;
	void			*scratch = NULL;
	size_t			 pos;
	bool			 found;

	if (c == NULL)
		return;
	for (m = c->mats; m != NULL; m = m->next) {
		if (strcmp(m->store, store) != 0)
			continue;
		store_mat_own(m);
		m->stats = false;
		found = store_mat_find(m, rowid, &pos);
		if (vec == NULL || dim != m->dim) {
			if (found)
				store_mat_close(m, pos);
			continue;
		}
		if (!found)
			store_mat_open(m, pos, rowid);
		store_mat_quantise(m, pos, vec);
		blob = vector_encode(vec, (size_t)dim, &scratch);
		m->sig[pos] = store_blob_sig(blob, (size_t)dim * 4);
		store_mat_attrs(m, pos, archived, branch);
	}
	free(scratch);
	cache_changed(c);
}

void
store_cache_remove(struct store *st, const char *store, sqlite3_int64 rowid)
{
	struct store_cache	*c = cache_patchable(st);
	struct store_mat	*m;
	size_t			 pos;

	if (c == NULL)
		return;
	for (m = c->mats; m != NULL; m = m->next)
		if (strcmp(m->store, store) == 0 && store_mat_find(m, rowid, &pos)) {
			store_mat_own(m);
			m->stats = false;
			store_mat_close(m, pos);
		}
	cache_changed(c);
}


/* ---- Counts for store_space.c -------------------------------------------- */

bool
store_cache_other_space(struct store *st, const char *store,
    const struct store_space *sp, long long *n)
{
	struct store_cache	*c = cache_of(st);
	struct store_mat	*m;
	struct err		 ignored;
	size_t			 i;
	int			 dv;

	if (c == NULL || c->stale || c->invalid ||
	    store_data_version(st, &dv, &ignored) != 0 || dv != c->data_version)
		return false;
	for (m = c->mats; m != NULL; m = m->next) {
		if (m->dim != sp->dim || !m->stats || m->pending ||
		    strcmp(m->store, store) != 0)
			continue;
		*n = (long long)m->nother;
		for (i = 0; i < m->ntags; i++)	/* model IS NOT tag */
			if (m->tags[i].tag == NULL || sp->tag == NULL ?
			    m->tags[i].tag != sp->tag :
			    strcmp(m->tags[i].tag, sp->tag) != 0)
				*n += (long long)m->tags[i].count;
		return true;
	}
	return false;
}

