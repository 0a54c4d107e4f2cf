/*
 * store_search.c — exact cosine search over memories (store-and-tools §5),
 * recall telemetry, and the vector export find_duplicates reads.
 *
 * A warm process (the MCP server) must answer a recall over 100,000
 * memories in milliseconds, so it cannot read 100,000 BLOBs per query.
 * Each (store, dimension) gets an in-memory cache of its rows in rowid
 * order: an int8 copy of every vector (one scale per row, a quarter of
 * the float bytes), rowids, a signature of each BLOB, branches and
 * archived flags. A query scores every eligible row on the int8 copy with
 * a SIMD dot product, which gives each row an interval its exact cosine
 * must lie in; only rows whose interval reaches the limit-th best lower
 * end are rescored exactly, from their BLOBs fetched by rowid, best upper
 * end first, until no remaining row can reach the limit-th exact score.
 *
 * Invariants:
 *  1. The cache is what this connection would read from entries: our own
 *     writes patch it where they commit (store_cache_put/_remove, called
 *     by store_entries.c; an sqlite3 update hook marks it stale on any
 *     other write of ours to entries, and a rollback hook drops it if it
 *     was patched or loaded inside a transaction that rolls back). Commits
 *     by other connections move PRAGMA data_version; unless the
 *     database's key (store_sidecar.c: a generation the triggers redraw on
 *     every change to a cached column) is the one the cache was last made
 *     exact at, the cache then re-reads every (rowid, archived, branch,
 *     BLOB) of its stores and re-quantises only rows whose BLOB signature
 *     changed, adds new rowids and drops vanished ones, in the buffers it
 *     already has.
 *  1a. A cold cache is mapped from the vector file when the file's key is
 *     the snapshot's (store_sidecar.c); its matrices borrow the mapping
 *     and are copied out (mat_own) before any change. A cold cache read
 *     from the table is saved to the file after the search. A mapping cut
 *     under a search (mapguard) drops the cache and the search is redone
 *     from the table.
 *  2. A search runs in one read transaction (unless the caller has one
 *     open), so validation, the int8 pass and the BLOB fetches see one
 *     snapshot.
 *  3. Results are exact: the int8 pass only chooses which rows get the
 *     exact §5.1 score, its per-row error bound (quantisation plus float
 *     rounding, see row_err) is rigorous, and the exact pass stops only
 *     when the next row's upper bound is below the limit-th exact key.
 *     Rows whose exact score is not a number (a foreign BLOB holding NaN)
 *     are skipped.
 *  4. Equal scores keep table (rowid) order: the original scans the table
 *     and sorts stably (§5.2 step 4).
 *  5. Rows whose BLOB length is not a multiple of 4 are skipped with one
 *     warning per process; rows of another dimension are skipped silently
 *     (§1.6, §5.1).
 */
#include "core/store/store.h"

#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/store/store_cache.h"
#include "core/store/store_int.h"
#include "util/err.h"
#include "util/log.h"
#include "util/os/mapguard.h"
#include "util/num.h"
#include "util/sbuf.h"
#include "util/xmalloc.h"

static void
tags_free(struct store_mat *m)
{
	size_t	i;

	for (i = 0; i < m->ntags; i++)
		free(m->tags[i].tag);
	free(m->tags);
	m->tags = NULL;
	m->ntags = 0;
	m->nother = 0;
}

void
store_mat_free(struct store_mat *m)
{
	size_t	i;

	tags_free(m);
	free(m->store);
	if (!m->borrowed) {
		for (i = 0; i < m->n; i++)
			free(m->branch[i]);
		free(m->c);
		free(m->k);
		free(m->e);
		free(m->rowid);
		free(m->sig);
		free(m->flags);
	}
	free(m->branch);
	free(m);
}

static void
cache_drop(struct store_cache *c)
{
	struct store_mat	*m, *next;

	for (m = c->mats; m != NULL; m = next) {
		next = m->next;
		store_mat_free(m);
	}
	c->mats = NULL;
	store_sidecar_unmap(c);
}

void
store_cache_free(struct store_cache *c)
{
	if (c == NULL)
		return;
	sqlite3_update_hook(c->db, NULL, NULL);
	sqlite3_rollback_hook(c->db, NULL, NULL);
	cache_drop(c);
	free(c->scratch);
	free(c);
}

/* Invariant 1: a write to entries that no patching writer announced. */
static void
hook_update(void *arg, int op, const char *db, const char *table,
    sqlite3_int64 rowid)
{
	struct store_cache	*c = arg;

	(void)op;
	(void)rowid;
	if (!c->expect && strcmp(db, "main") == 0 &&
	    strcmp(table, "entries") == 0)
		c->stale = true;
}

/* Invariant 1: the rows cached inside the transaction may be gone; the
 * next validation drops the matrices (not here: a search may hold them). */
static void
hook_rollback(void *arg)
{
	struct store_cache	*c = arg;

	if (c->txn_touched)
		c->invalid = true;
	c->txn_touched = false;
}

static struct store_cache *
cache_get(struct store *st)
{
	struct store_cache	*c = st->cache;

	if (c == NULL) {
		c = st->cache = xcalloc(1, sizeof(*c));
		c->db = st->db;
		sqlite3_update_hook(st->db, hook_update, c);
		sqlite3_rollback_hook(st->db, hook_rollback, c);
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

static int
data_version(struct store *st, int *dv, struct err *err)
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

static double
norm_of(const float *v, int dim)
{
	double	s = 0;
	int	i;

	for (i = 0; i < dim; i++)
		s += (double)v[i] * (double)v[i];
	return sqrt(s);
}

/*
 * A 64-bit signature of a BLOB's bytes (multiply-xorshift over 8-byte
 * words): equal BLOBs have equal signatures, and a changed vector changes
 * it but with odds of 2^-64.
 */
static uint64_t
blob_sig(const void *blob, size_t len)
{
	const unsigned char	*p = blob;
	uint64_t		 h = 0x9e3779b97f4a7c15ull ^ len, w;
	size_t			 i;

	for (i = 0; i + 8 <= len; i += 8) {
		memcpy(&w, p + i, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	for (w = 0; i < len; i++)
		w = w << 8 | p[i];
	h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
	return h ^ h >> 29;
}

/*
 * Row i's int8 copy of b: c_j = round(b_j / s) with s = max|b_j| / 127, so
 * |b_j - s c_j| <= s / 2. A row that is zero or not finite gets k = e = 0
 * (e infinite for non-finite) and is left to the exact pass.
 */
static void
quantise(struct store_mat *m, size_t i, const float *b)
{
	signed char	*c = m->c + i * (size_t)m->dim;
	double		 norm = norm_of(b, m->dim);
	float		 mx = 0, s;
	int		 j;

	for (j = 0; j < m->dim; j++)
		mx = fabsf(b[j]) > mx ? fabsf(b[j]) : mx;
	if (mx == 0 || !isfinite(mx) || !isfinite(norm)) {
		memset(c, 0, (size_t)m->dim);
		m->k[i] = 0;
		m->e[i] = mx == 0 ? 0 : INFINITY;
		return;
	}
	s = mx / 127;
	for (j = 0; j < m->dim; j++)	/* |b_j / s| <= 127 by choice of s */
		c[j] = (signed char)lrintf(b[j] / s);
	m->k[i] = (float)(s / norm);
	m->e[i] = (float)(s / (2 * norm));
}

/*
 * The int8 array is first touched row by row as it fills, and on a
 * virtual machine every 4 KiB page fault is dear: it is allocated on
 * 2 MiB boundaries and offered to transparent huge pages, which makes a
 * 100,000-row load several times faster. Returns new memory holding the
 * first `keep` bytes of old (which is freed).
 */
static void *
big_regrow(void *old, size_t keep, size_t size)
{
	void	*p;

	if (size < ((size_t)2 << 20))
		return xrealloc(old, size);
	if (posix_memalign(&p, (size_t)2 << 20, size) != 0)
		return xrealloc(old, size);
	madvise(p, size, MADV_HUGEPAGE);
	if (keep > 0)
		memcpy(p, old, keep);
	free(old);
	return p;
}

static void
mat_reserve(struct store_mat *m, size_t cap)
{
	if (cap <= m->cap)
		return;
	m->c = big_regrow(m->c, m->n * (size_t)m->dim, cap * (size_t)m->dim);
	m->k = xreallocarray(m->k, cap, sizeof(float));
	m->e = xreallocarray(m->e, cap, sizeof(float));
	m->rowid = xreallocarray(m->rowid, cap, sizeof(sqlite3_int64));
	m->sig = xreallocarray(m->sig, cap, sizeof(uint64_t));
	m->branch = xreallocarray(m->branch, cap, sizeof(char *));
	m->flags = xreallocarray(m->flags, cap, 1);
	m->cap = cap;
}

/* Before a borrowed matrix changes: its rows, copied into its own
 * memory (the mapping is read-only). */
static void
mat_own(struct store_mat *m)
{
	struct store_mat	b = *m;
	size_t			i, d = (size_t)m->dim;

	if (!m->borrowed)
		return;
	m->c = NULL;
	m->k = m->e = NULL;
	m->rowid = NULL;
	m->sig = NULL;
	m->branch = NULL;
	m->flags = NULL;
	m->n = m->cap = 0;	/* nothing of its own to keep yet */
	m->borrowed = false;
	mat_reserve(m, 2 * b.n + 64);
	m->n = b.n;
	memcpy(m->c, b.c, b.n * d);
	memcpy(m->k, b.k, b.n * sizeof(*m->k));
	memcpy(m->e, b.e, b.n * sizeof(*m->e));
	memcpy(m->rowid, b.rowid, b.n * sizeof(*m->rowid));
	memcpy(m->sig, b.sig, b.n * sizeof(*m->sig));
	memcpy(m->flags, b.flags, b.n);
	for (i = 0; i < b.n; i++)
		m->branch[i] = b.branch[i] == NULL ? NULL :
		    xstrdup(b.branch[i]);
	free(b.branch);
}

/* Move rows [from, from + n) to start at row to (memmove semantics). */
static void
mat_move(struct store_mat *m, size_t to, size_t from, size_t n)
{
	size_t	d = (size_t)m->dim;

	memmove(m->c + to * d, m->c + from * d, n * d);
	memmove(m->k + to, m->k + from, n * sizeof(*m->k));
	memmove(m->e + to, m->e + from, n * sizeof(*m->e));
	memmove(m->rowid + to, m->rowid + from, n * sizeof(*m->rowid));
	memmove(m->sig + to, m->sig + from, n * sizeof(*m->sig));
	memmove(m->branch + to, m->branch + from, n * sizeof(*m->branch));
	memmove(m->flags + to, m->flags + from, n);
}

/* Open an empty row at pos (rows from pos move up) for rowid. */
static void
mat_open(struct store_mat *m, size_t pos, sqlite3_int64 rowid)
{
	if (m->n == m->cap)
		mat_reserve(m, m->cap * 2 + 64);
	mat_move(m, pos + 1, pos, m->n - pos);
	m->n++;
	m->rowid[pos] = rowid;
	m->branch[pos] = NULL;
	m->flags[pos] = 0;
}

static void
mat_close(struct store_mat *m, size_t pos)
{
	free(m->branch[pos]);
	mat_move(m, pos, pos + 1, m->n - pos - 1);
	m->n--;
}

/* Whether rowid is cached; *pos is its row or where it would go. */
static bool
mat_find(const struct store_mat *m, sqlite3_int64 rowid, size_t *pos)
{
	size_t	lo = 0, hi = m->n, mid;

	if (m->n > 0 && m->rowid[m->n - 1] < rowid)
		lo = m->n;	/* the common case: a new row */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (m->rowid[mid] < rowid)
			lo = mid + 1;
		else
			hi = mid;
	}
	*pos = lo;
	return lo < m->n && m->rowid[lo] == rowid;
}

/* Row pos's archived flag and branch (copied). */
static void
row_attrs(struct store_mat *m, size_t pos, bool archived, const char *branch)
{
	m->flags[pos] = (unsigned char)((m->flags[pos] & ~ROW_ARCHIVED) |
	    (archived ? ROW_ARCHIVED : 0));
	if (branch == NULL ? m->branch[pos] == NULL :
	    m->branch[pos] != NULL && strcmp(branch, m->branch[pos]) == 0)
		return;
	free(m->branch[pos]);
	m->branch[pos] = branch == NULL ? NULL : xstrdup(branch);
}

/* Row pos's vector, from its (unaligned, little-endian) BLOB. */
static void
row_blob(struct store_mat *m, size_t pos, const void *blob, uint64_t sig,
    float *tmp)
{
	store_blob_decode(blob, (size_t)m->dim, tmp);
	quantise(m, pos, tmp);
	m->sig[pos] = sig;
}

static void
warn_bad_blob(struct store *st, const char *store, sqlite3_int64 rowid)
{
	if (st->cache->warned)
		return;
	st->cache->warned = true;
	log_warn("skipping a memory (rowid %lld) in store '%s': its embedding "
	    "is not a whole number of float32 values (further ones not "
	    "reported)", (long long)rowid, store);
}

/* One more of m's rows of its dimension carries model (stats). */
static void
tag_count(struct store_mat *m, const char *model)
{
	size_t	i;

	for (i = 0; i < m->ntags; i++)
		if (model == NULL ? m->tags[i].tag == NULL :
		    m->tags[i].tag != NULL && strcmp(model, m->tags[i].tag) ==
		    0)
			break;
	if (i == m->ntags) {
		m->tags = xreallocarray(m->tags, m->ntags + 1,
		    sizeof(*m->tags));
		m->tags[m->ntags++] = (struct mat_tag){ model == NULL ? NULL :
		    xstrdup(model), 0 };
	}
	m->tags[i].count++;
}

/*
 * The statements that read rows for the cache select rowid, archived,
 * branch, embedding, store, model, in that order. The pending matrix
 * this row belongs to (its store, and a BLOB of its dimension), or NULL
 * (invariant 5). Every pending matrix of the row's store counts it in
 * its stats.
 */
static struct store_mat *
row_mat(struct store *st, sqlite3_stmt *stmt)
{
	const char		*store = (const char *)sqlite3_column_text(stmt,
				    4);
	const char		*model = (const char *)sqlite3_column_text(stmt,
				    5);
	int			 bytes = sqlite3_column_bytes(stmt, 3);
	struct store_mat	*m, *found = NULL;
	bool			 searched = false;

	for (m = st->cache->mats; m != NULL && store != NULL; m = m->next) {
		if (!m->pending || strcmp(m->store, store) != 0)
			continue;
		searched = true;
		if (bytes != m->dim * 4 ||
		    sqlite3_column_type(stmt, 3) == SQLITE_NULL) {
			m->nother++;
			continue;
		}
		tag_count(m, model);
		found = found != NULL ? found : m;
	}
	if (found == NULL && searched && bytes % 4 != 0)
		warn_bad_blob(st, store, sqlite3_column_int64(stmt, 0));
	return found;
}

/* Bring row pos up to date with the statement's row; fresh: a new row. */
static void
row_read(struct store_mat *m, size_t pos, sqlite3_stmt *stmt, bool fresh,
    float *tmp)
{
	const void	*blob = sqlite3_column_blob(stmt, 3);
	uint64_t	 sig = blob_sig(blob, (size_t)m->dim * 4);

	if (fresh || m->sig[pos] != sig)
		row_blob(m, pos, blob, sig, tmp);
	row_attrs(m, pos, sqlite3_column_int(stmt, 1) != 0,
	    (const char *)sqlite3_column_text(stmt, 2));
	m->flags[pos] |= ROW_SEEN;
}

/* Drop the rows cache_refresh did not see. */
static void
mat_sweep(struct store_mat *m)
{
	size_t	i, j = 0;

	for (i = 0; i < m->n; i++) {
		if (!(m->flags[i] & ROW_SEEN)) {
			free(m->branch[i]);
			continue;
		}
		if (i != j)
			mat_move(m, j, i, 1);
		j++;
	}
	m->n = j;
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
		else if (!mat_find(late[i].m, late[i].rowid, &pos)) {
			mat_open(late[i].m, pos, late[i].rowid);
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
cache_refresh(struct store *st, struct err *err)
{
	struct store_mat	*m;
	struct late		*late = NULL;
	sqlite3_stmt		*stmt = NULL;
	sqlite3_int64		 rowid;
	size_t			 nlate = 0, i;
	float			*tmp;
	int			 step, rc = -1, dim = 0;

	for (m = st->cache->mats; m != NULL; m = m->next) {
		if (!m->pending)
			continue;
		mat_own(m);
		tags_free(m);
		m->stats = false;
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
		if ((m = row_mat(st, stmt)) == NULL)
			continue;
		rowid = sqlite3_column_int64(stmt, 0);
		while (m->cur < m->old_n && m->rowid[m->cur] < rowid)
			m->cur++;
		if (m->cur == m->old_n) {
			mat_open(m, m->n, rowid);
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
	for (m = st->cache->mats; m != NULL; m = m->next)
		if (m->pending)
			mat_sweep(m);
	if (insert_late(st, late, nlate, tmp, err) != 0)
		goto out;
	for (m = st->cache->mats; m != NULL; m = m->next) {
		m->stats = m->stats || m->pending;
		m->pending = false;
	}
	cache_changed(st->cache);
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
txn_key(struct store *st)
{
	struct store_cache	*c = st->cache;

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
cache_validate(struct store *st, struct err *err)
{
	struct store_cache	*c = st->cache;
	struct store_mat	*m;
	int			 dv;
	bool			 moved;

	if (c->invalid) {
		cache_drop(c);
		c->invalid = false;
	}
	if (data_version(st, &dv, err) != 0)
		return -1;
	moved = dv != c->data_version || c->stale;
	c->txn_key_read = false;
	if (moved || c->mats == NULL)
		txn_key(st);
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

struct store_mat *
store_mat_new(struct store_cache *c, const char *store, int dim)
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
mat_get(struct store *st, const char *store, int dim)
{
	struct store_mat	*m;

	for (m = st->cache->mats; m != NULL; m = m->next)
		if (m->dim == dim && strcmp(m->store, store) == 0)
			return m;
	m = store_mat_new(st->cache, store, dim);
	m->pending = true;
	mat_reserve(m, 2 * entries_count(st) + 64);
	return m;
}

/* The cache to patch after one of our writes, or NULL. */
static struct store_cache *
cache_patchable(struct store *st)
{
	if (st->cache == NULL)
		return NULL;
	cache_get(st);
	return st->cache->invalid ? NULL : st->cache;
}

void
store_cache_expect(struct store *st, bool on)
{
	if (st->cache != NULL)
		st->cache->expect = on;
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
		mat_own(m);
		m->stats = false;
		found = mat_find(m, rowid, &pos);
		if (vec == NULL || dim != m->dim) {
			if (found)
				mat_close(m, pos);
			continue;
		}
		if (!found)
			mat_open(m, pos, rowid);
		quantise(m, pos, vec);
		blob = store_blob_encode(vec, (size_t)dim, &scratch);
		m->sig[pos] = blob_sig(blob, (size_t)dim * 4);
		row_attrs(m, pos, archived, branch);
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
		if (strcmp(m->store, store) == 0 && mat_find(m, rowid, &pos)) {
			mat_own(m);
			m->stats = false;
			mat_close(m, pos);
		}
	cache_changed(c);
}

/*
 * Dot products of the float query with each int8 row. The AVX-512 and
 * AVX2 versions widen 16 or 8 int8 at a time to floats (GCC scalarises
 * that conversion when written with vector extensions) and are chosen at
 * run time; the plain loop is for other machines. The order of the sums
 * differs between them, which ROUNDING_ERR allows for.
 */
static void
dot_rows_plain(const float *q, const signed char *m, size_t n, int dim,
    float *out)
{
	size_t	r;
	int	i;
	float	s;

	for (r = 0; r < n; r++, m += dim) {
		s = 0;
		for (i = 0; i < dim; i++)
			s += q[i] * m[i];
		out[r] = s;
	}
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

__attribute__((target("avx2,fma")))
static void
dot_rows_avx2(const float *q, const signed char *m, size_t n, int dim,
    float *out)
{
	size_t	r;
	int	i;
	__m256	a0, a1, y0, y1;
	__m128	h;
	float	s;

	for (r = 0; r < n; r++, m += dim) {
		a0 = _mm256_setzero_ps();
		a1 = _mm256_setzero_ps();
		for (i = 0; i + 16 <= dim; i += 16) {
			y0 = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(
			    _mm_loadl_epi64((const __m128i *)(m + i))));
			y1 = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(
			    _mm_loadl_epi64((const __m128i *)(m + i + 8))));
			a0 = _mm256_fmadd_ps(_mm256_loadu_ps(q + i), y0,
			    a0);
			a1 = _mm256_fmadd_ps(_mm256_loadu_ps(q + i + 8), y1,
			    a1);
		}
		a0 = _mm256_add_ps(a0, a1);
		h = _mm_add_ps(_mm256_castps256_ps128(a0),
		    _mm256_extractf128_ps(a0, 1));
		h = _mm_add_ps(h, _mm_movehl_ps(h, h));
		h = _mm_add_ss(h, _mm_shuffle_ps(h, h, 1));
		s = _mm_cvtss_f32(h);
		for (; i < dim; i++)
			s += q[i] * m[i];
		out[r] = s;
	}
}

/* Half the instructions of the AVX2 loop: 100,000 rows took 4 ms. */
__attribute__((target("avx512f")))
static void
dot_rows_avx512(const float *q, const signed char *m, size_t n, int dim,
    float *out)
{
	size_t	r;
	int	i;
	__m512	a0, a1, y0, y1;
	float	s;

	for (r = 0; r < n; r++, m += dim) {
		a0 = _mm512_setzero_ps();
		a1 = _mm512_setzero_ps();
		for (i = 0; i + 32 <= dim; i += 32) {
			y0 = _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(
			    _mm_loadu_si128((const __m128i *)(m + i))));
			y1 = _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(
			    _mm_loadu_si128((const __m128i *)(m + i + 16))));
			a0 = _mm512_fmadd_ps(_mm512_loadu_ps(q + i), y0, a0);
			a1 = _mm512_fmadd_ps(_mm512_loadu_ps(q + i + 16), y1,
			    a1);
		}
		s = _mm512_reduce_add_ps(_mm512_add_ps(a0, a1));
		for (; i < dim; i++)
			s += q[i] * m[i];
		out[r] = s;
	}
}

static void
dot_rows(const float *q, const signed char *m, size_t n, int dim, float *out)
{
	if (__builtin_cpu_supports("avx512f"))
		dot_rows_avx512(q, m, n, dim, out);
	else if (__builtin_cpu_supports("avx2") &&
	    __builtin_cpu_supports("fma"))
		dot_rows_avx2(q, m, n, dim, out);
	else
		dot_rows_plain(q, m, n, dim, out);
}
#else
#define dot_rows	dot_rows_plain
#endif

/*
 * From this many rows a second thread scans half of them: the scan is
 * bound by memory bandwidth, which a second core adds to (100,000 rows:
 * 3.7 ms on one thread), and a thread costs ~0.1 ms to start.
 */
#define DOT_MT_ROWS	32768

struct dot_half {
	const float		*q;
	const signed char	*m;
	size_t			 n;
	int			 dim;
	float			*out;
};

static void *
dot_half_main(void *arg)
{
	struct dot_half	*h = arg;

	dot_rows(h->q, h->m, h->n, h->dim, h->out);
	return NULL;
}

/* dot_rows, on two threads for large stores (one if the second fails). */
static void
dot_rows_split(const float *q, const signed char *m, size_t n, int dim,
    float *out)
{
	struct dot_half	 h;
	pthread_t	 tid;
	size_t		 half = n / 2;

	if (n < DOT_MT_ROWS || sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		dot_rows(q, m, n, dim, out);
		return;
	}
	h = (struct dot_half){ q, m + half * (size_t)dim, n - half, dim,
	    out + half };
	if (pthread_create(&tid, NULL, dot_half_main, &h) != 0) {
		dot_rows(q, m, n, dim, out);
		return;
	}
	dot_rows(q, m, half, dim, out);
	pthread_join(tid, NULL);
}

/* §5.1 exactly: double accumulation, 0 for a zero denominator. */
static double
cosine_exact(const float *q, double qnorm, const float *row, double rnorm,
    int dim)
{
	double	dot = 0;
	int	i;

	if (qnorm == 0 || rnorm == 0)
		return 0;
	for (i = 0; i < dim; i++)
		dot += (double)q[i] * (double)row[i];
	return dot / (qnorm * rnorm);
}

/*
 * How far row i's approximate cosine k * dot(q, c) / |q| may be from the
 * exact one: quantisation moves the dot by at most (s / 2) * |q|_1, i.e.
 * e * q1 in cosine units (q1 = |q|_1 / |q|); float rounding of a dim-term
 * dot errs by about dim * 2^-24 of |q||b|, and dim * 2^-20 covers it with
 * room to spare.
 */
#define ROUNDING_ERR(dim)	((double)(dim) / 1048576 + 1e-6)

static double
row_err(const struct store_mat *m, size_t i, double q1)
{
	return (double)m->e[i] * q1 + ROUNDING_ERR(m->dim);
}

/* One store's cached rows as a query sees them. */
struct qmat {
	struct store_mat	*m;
	float			*approx;	/* borrowed; NAN: ineligible */
	sqlite3_int64		 excl;		/* exclude_slug's rowid */
	bool			 has_excl;
};

/* A row in the band around the cut: its upper bound, then exact score. */
struct cand {
	struct store_mat	*m;
	size_t			 i;
	double			 upper, score, key;
};

/* Min-heap of the `k` best values pushed. */
struct topk {
	double	*v;	/* owned */
	size_t	 n, k;
};

static void
topk_push(struct topk *t, double s)
{
	size_t	i, c;

	if (t->n < t->k) {
		for (i = t->n++; i > 0 && t->v[(i - 1) / 2] > s;
		    i = (i - 1) / 2)
			t->v[i] = t->v[(i - 1) / 2];
		t->v[i] = s;
		return;
	}
	if (s <= t->v[0])
		return;
	for (i = 0; (c = 2 * i + 1) < t->n; i = c) {
		if (c + 1 < t->n && t->v[c + 1] < t->v[c])
			c++;
		if (t->v[c] >= s)
			break;
		t->v[i] = t->v[c];
	}
	t->v[i] = s;
}

static bool
row_eligible(const struct store_query *q, const struct qmat *qm, size_t i)
{
	const struct store_mat	*m = qm->m;

	if (!q->include_archived && (m->flags[i] & ROW_ARCHIVED))
		return false;
	if (q->branch != NULL && *q->branch != '\0' && m->branch[i] != NULL &&
	    strcmp(m->branch[i], q->branch) != 0)
		return false;
	return !qm->has_excl || m->rowid[i] != qm->excl;
}

static sqlite3_int64
cand_rowid(const struct cand *c)
{
	return c->m->rowid[c->i];
}

/* Descending by x, then table order (invariant 4). */
static int
cand_order(double x, double y, const struct cand *a, const struct cand *b)
{
	if (x != y)
		return x > y ? -1 : 1;
	return cand_rowid(a) < cand_rowid(b) ? -1 :
	    cand_rowid(a) > cand_rowid(b);
}

/* Final order: by key. */
static int
cand_cmp(const void *pa, const void *pb)
{
	const struct cand	*a = pa, *b = pb;

	return cand_order(a->key, b->key, a, b);
}

/* Rescoring order: most promising first. */
static int
cand_cmp_upper(const void *pa, const void *pb)
{
	const struct cand	*a = pa, *b = pb;

	return cand_order(a->upper, b->upper, a, b);
}

/* exclude_slug's rowid in qm's store (find_similar, §5.4). */
static int
exclude_rowid(struct store *st, const char *slug, struct qmat *qm,
    struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	int		 step;

	if (store_prepare(st, &stmt, "SELECT rowid FROM entries "
	    "WHERE slug = ? AND store = ?", err) != 0)
		return -1;
	sqlite3_bind_text(stmt, 1, slug, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 2, qm->m->store, -1, SQLITE_STATIC);
	step = sqlite3_step(stmt);
	if (step == SQLITE_ROW) {
		qm->excl = sqlite3_column_int64(stmt, 0);
		qm->has_excl = true;
	}
	sqlite3_finalize(stmt);
	if (step != SQLITE_ROW && step != SQLITE_DONE)
		return store_fail(st, err, "cannot read memory");
	return 0;
}

/* The query's distinct stores' matrices of its dimension. */
static int
query_mats(struct store *st, const struct store_query *q,
    struct qmat **out, size_t *nout, struct err *err)
{
	struct store_cache	*c = st->cache;
	struct store_mat	*m;
	struct qmat		*qm;
	size_t			 i, j, n = 0;
	bool			 cold = false, pending = false;

	qm = xcalloc(q->nstores + 1, sizeof(*qm));
	*out = qm;
	*nout = 0;
	if (!c->file_tried && c->mats == NULL) {
		cold = c->file_tried = true;
		if (c->txn_key_ok)
			store_sidecar_load(st, q->dim);
	}
	for (i = 0; i < q->nstores; i++) {
		for (j = 0; j < i; j++)
			if (strcmp(q->stores[i], q->stores[j]) == 0)
				break;
		if (j < i)
			continue;
		qm[n++].m = mat_get(st, q->stores[i], q->dim);
	}
	for (m = c->mats; m != NULL && !pending; m = m->next)
		pending = m->pending;
	if (pending && !c->txn_key_read)
		txn_key(st);
	if (cache_refresh(st, err) != 0) {
		cache_drop(st->cache);
		return -1;
	}
	if (pending) {
		c->key = c->txn_key;
		c->key_ok = c->txn_key_ok;
		/* a cold process that had to read the table saves what it
		 * read, for the next one (in its own snapshot only) */
		c->file_save = cold && c->key_ok && c->reading;
	}
	for (i = 0; i < n; i++)
		if (q->exclude_slug != NULL && exclude_rowid(st,
		    q->exclude_slug, &qm[i], err) != 0)
			return -1;
	*nout = n;
	return 0;
}

/*
 * The approximate pass: each matrix's approx gets every row's approximate
 * cosine (NAN for ineligible rows); the return is the limit-th best lower
 * bound of an exact score, below which no row can make the cut.
 */
static double
approx_scores(const struct store_query *q, double qnorm, double q1,
    struct qmat *qm, size_t nqm)
{
	struct topk	 t = { xcalloc((size_t)q->limit, sizeof(double)), 0,
			    (size_t)q->limit };
	struct store_mat *m;
	size_t		 k, i;
	double		 kth;
	float		*a;

	for (k = 0; k < nqm; k++) {
		m = qm[k].m;
		a = qm[k].approx;
		dot_rows_split(q->vec, m->c, m->n, q->dim, a);
		for (i = 0; i < m->n; i++) {
			if (!row_eligible(q, &qm[k], i)) {
				a[i] = NAN;
				continue;
			}
			a[i] = qnorm == 0 ? 0 : (float)(m->k[i] * a[i] / qnorm);
			topk_push(&t, a[i] - row_err(m, i, q1));
		}
	}
	kth = t.n < t.k ? -INFINITY : t.v[0];
	free(t.v);
	return kth;
}

/* The rows whose upper bound reaches the cut, most promising first. */
static void
band_collect(const struct store_query *q, double q1, struct qmat *qm,
    size_t nqm, double kth, struct cand **out, size_t *nout)
{
	/* round3 ranking: a score within a rounding step of the cut ties */
	double		 floor_ = fmax(kth - (q->rank_round3 ? 1e-3 : 0),
			    q->min_score);
	struct cand	*c = NULL;
	size_t		 n = 0, cap = 0, k, i;
	struct store_mat *m;
	double		 upper;

	for (k = 0; k < nqm; k++) {
		m = qm[k].m;
		for (i = 0; i < m->n; i++) {
			if (isnan(qm[k].approx[i]))
				continue;
			upper = qm[k].approx[i] + row_err(m, i, q1);
			if (upper < floor_)
				continue;
			if (n == cap) {
				cap = cap ? cap * 2 : 32;
				c = xreallocarray(c, cap, sizeof(*c));
			}
			c[n++] = (struct cand){ m, i, upper, 0, 0 };
		}
	}
	if (n > 0)
		qsort(c, n, sizeof(*c), cand_cmp_upper);
	*out = c;
	*nout = n;
}

/*
 * The exact pass (invariant 3): score candidates from their BLOBs, best
 * upper bound first, until the next one cannot reach the limit-th key
 * (a round3 key may exceed its score by half a step). c[0 .. *nc) are
 * left scored and in final order.
 */
static int
rescore(struct store *st, const struct store_query *q, double qnorm,
    struct cand *c, size_t *nc, struct err *err)
{
	struct topk	 t = { xcalloc((size_t)q->limit, sizeof(double)), 0,
			    (size_t)q->limit };
	sqlite3_stmt	*stmt = NULL;
	float		*row = xcalloc((size_t)q->dim, sizeof(float));
	const void	*blob;
	size_t		 j, n = 0;
	double		 s;
	int		 step, rc = -1;

	if (store_prepare(st, &stmt, "SELECT embedding FROM entries "
	    "WHERE rowid = ?", err) != 0)
		goto out;
	for (j = 0; j < *nc; j++) {
		if (t.n == t.k && c[j].upper + (q->rank_round3 ? 1e-3 : 0) <
		    t.v[0])
			break;
		sqlite3_reset(stmt);
		sqlite3_bind_int64(stmt, 1, cand_rowid(&c[j]));
		if ((step = sqlite3_step(stmt)) != SQLITE_ROW) {
			if (step == SQLITE_DONE)
				continue;	/* invariant 2: cannot happen */
			store_fail(st, err, "cannot read embeddings");
			goto out;
		}
		blob = sqlite3_column_blob(stmt, 0);
		if (sqlite3_column_bytes(stmt, 0) != q->dim * 4)
			continue;		/* invariant 2: cannot happen */
		store_blob_decode(blob, (size_t)q->dim, row);
		s = cosine_exact(q->vec, qnorm, row, norm_of(row, q->dim),
		    q->dim);
		if (isnan(s) || s < q->min_score)
			continue;
		c[n] = c[j];
		c[n].score = s;
		c[n].key = q->rank_round3 ? num_round3(s) : s;
		topk_push(&t, c[n++].key);
	}
	if (n > 0)
		qsort(c, n, sizeof(*c), cand_cmp);
	*nc = n;
	rc = 0;
out:
	sqlite3_finalize(stmt);
	free(row);
	free(t.v);
	return rc;
}

static int
fetch_hit(struct store *st, sqlite3_stmt *stmt, sqlite3_int64 rowid,
    double score, struct store_hits *hits, struct err *err)
{
	int	step;

	sqlite3_reset(stmt);
	sqlite3_bind_int64(stmt, 1, rowid);
	step = sqlite3_step(stmt);
	if (step == SQLITE_DONE)
		return 0;	/* invariant 2: cannot happen */
	if (step != SQLITE_ROW)
		return store_fail(st, err, "cannot read memory");
	store_entry_read(stmt, 0, &hits->v[hits->n].e);
	hits->v[hits->n++].score = score;
	return 0;
}

/* One score slot per row of every matrix, reusing the cache's buffer so a
 * warm query touches no fresh pages. */
static void
scratch_split(struct store_cache *c, struct qmat *qm, size_t nqm)
{
	size_t	k, total = 0;

	for (k = 0; k < nqm; k++)
		total += qm[k].m->n;
	if (total + 1 > c->scratch_cap) {
		free(c->scratch);
		c->scratch_cap = total + 1;
		c->scratch = xcalloc(c->scratch_cap, sizeof(float));
	}
	for (k = 0, total = 0; k < nqm; k++) {
		qm[k].approx = c->scratch + total;
		total += qm[k].m->n;
	}
}

/*
 * Each probe's rank among the eligible rows by their int8-pass scores:
 * 1 + how many score above it, read off a histogram of those scores in
 * PROBE_BINS bins over [-1, 1] (one pass, a counter per row, no BLOB
 * read: a binary search per row over the probes cost as much as the int8
 * pass itself). Rows in the probe's own bin count half. The int8 scores
 * and the bins are estimates; past the rows the search returns, a few
 * hundred rows either way move a reciprocal rank by less than 1/160^2.
 */
#define PROBE_BINS	8192

static size_t
probe_bin(double a)
{
	double	b = (a + 1) * (PROBE_BINS / 2);

	return b <= 0 ? 0 : b >= PROBE_BINS - 1 ? PROBE_BINS - 1 : (size_t)b;
}

static void
probe_ranks(const struct qmat *qm, size_t nqm, struct store_probe *p,
    size_t np)
{
	uint32_t	*cnt = xcalloc(PROBE_BINS, sizeof(*cnt));
	uint32_t	*above = xcalloc(PROBE_BINS, sizeof(*above));
	size_t		 k, i, b;
	float		 a;

	for (k = 0; k < nqm; k++)
		for (i = 0; i < qm[k].m->n; i++)
			if (!isnan(a = qm[k].approx[i]))
				cnt[probe_bin(a)]++;
	for (b = PROBE_BINS - 1; b-- > 0; )
		above[b] = above[b + 1] + cnt[b + 1];
	for (i = 0; i < np; i++) {
		b = probe_bin(p[i].score);
		p[i].rank = 1 + above[b] + cnt[b] / 2;
	}
	free(above);
	free(cnt);
}

/* store_search inside its snapshot (invariant 2). */
static int
search_snapshot(struct store *st, const struct store_query *q,
    struct store_probe *probe, size_t nprobe, struct store_hits *hits,
    struct err *err)
{
	struct qmat	*qm = NULL;
	struct cand	*c = NULL;
	sqlite3_stmt	*stmt = NULL;
	size_t		 nqm = 0, nc = 0, i;
	double		 qnorm, q1 = 0;
	int		 rc = -1;

	if (cache_validate(st, err) != 0 ||
	    query_mats(st, q, &qm, &nqm, err) != 0)
		goto out;
	qnorm = norm_of(q->vec, q->dim);
	for (i = 0; i < (size_t)q->dim; i++)
		q1 += fabs((double)q->vec[i]);
	q1 = qnorm == 0 ? 0 : q1 / qnorm;
	scratch_split(st->cache, qm, nqm);
	band_collect(q, q1, qm, nqm, approx_scores(q, qnorm, q1, qm, nqm),
	    &c, &nc);
	if (nprobe > 0)
		probe_ranks(qm, nqm, probe, nprobe);
	if (rescore(st, q, qnorm, c, &nc, err) != 0)
		goto out;
	if (nc > (size_t)q->limit)
		nc = (size_t)q->limit;
	if (nc == 0) {
		rc = 0;
		goto out;
	}
	if (store_prepare(st, &stmt, "SELECT " STORE_ENTRY_COLS
	    " FROM entries WHERE rowid = ?", err) != 0)
		goto out;
	hits->v = xcalloc(nc, sizeof(*hits->v));
	for (i = 0; i < nc; i++) {
		if (fetch_hit(st, stmt, cand_rowid(&c[i]), c[i].score, hits,
		    err) != 0)
			goto out;
	}
	rc = 0;
out:
	free(qm);
	free(c);
	sqlite3_finalize(stmt);
	return rc;
}

int
store_vector_search(struct store *st, const struct store_query *q,
    struct store_hits *hits, struct err *err)
{
	return store_vector_probe(st, q, NULL, 0, hits, err);
}

int
store_vector_probe(struct store *st, const struct store_query *q,
    struct store_probe *probe, size_t nprobe, struct store_hits *hits,
    struct err *err)
{
	struct store_cache	*c;
	bool			 began = false;
	int			 rc;

	memset(hits, 0, sizeof(*hits));
	if (q->nstores == 0 || q->limit <= 0 || q->dim <= 0)
		return 0;
	c = cache_get(st);
	if (sqlite3_get_autocommit(st->db)) {
		if (store_exec(st, "BEGIN", err) != 0)
			return -1;
		began = c->reading = true;
	}
	rc = search_snapshot(st, q, probe, nprobe, hits, err);
	if (c->map != NULL && !mapguard_intact(c->guard)) {
		/* the vector file was cut under us: what it gave is zeros */
		log_debug("store:vecfile", "vector file cut while mapped; "
		    "searching the table");
		store_hits_release(hits);
		cache_drop(c);
		rc = search_snapshot(st, q, probe, nprobe, hits, err);
	}
	if (began) {
		if (rc == 0 && store_exec(st, "COMMIT", err) != 0)
			rc = -1;
		store_rollback(st);
		c->reading = false;
	}
	if (c->file_save) {
		c->file_save = false;
		if (rc == 0)
			store_sidecar_save(st, q->dim);
	}
	return rc;
}

bool
store_cache_other_space(struct store *st, const char *store,
    const struct store_space *sp, long long *n)
{
	struct store_cache	*c = st->cache;
	struct store_mat	*m;
	struct err		 ignored;
	size_t			 i;
	int			 dv;

	if (c == NULL || c->stale || c->invalid ||
	    data_version(st, &dv, &ignored) != 0 || dv != c->data_version)
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

void
store_hits_release(struct store_hits *hits)
{
	size_t	i;

	for (i = 0; i < hits->n; i++)
		store_entry_release(&hits->v[i].e);
	free(hits->v);
	memset(hits, 0, sizeof(*hits));
}

int
store_stamp_recall(struct store *st, const struct store_hits *hits,
    const char *now, struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	struct sbuf	 sql = SBUF_INIT;
	size_t		 i;
	int		 step;
	int		 rc = -1;

	if (hits->n == 0)
		return 0;
	/*
	 * §5.3's "(store, slug) IN (VALUES ...)" scans the whole table (SQLite
	 * uses no index for a row-value IN list); the same rows as an OR of
	 * primary-key equalities are found through the key.
	 */
	sbuf_adds(&sql, "UPDATE entries SET recall_count = recall_count + 1, "
	    "last_recalled_at = ? WHERE ");
	for (i = 0; i < hits->n; i++)
		sbuf_adds(&sql, i == 0 ? "(store = ? AND slug = ?)" :
		    " OR (store = ? AND slug = ?)");
	/*
	 * Telemetry is not worth an fsync per recall: this one statement runs
	 * with synchronous=NORMAL (safe in WAL mode; a power cut may lose the
	 * stamp, never the database). Per connection, invisible to others.
	 */
	if (store_exec(st, "PRAGMA synchronous = NORMAL", err) != 0 ||
	    store_prepare(st, &stmt, sql.buf, err) != 0)
		goto out;
	sqlite3_bind_text(stmt, 1, now, -1, SQLITE_STATIC);
	for (i = 0; i < hits->n; i++) {
		sqlite3_bind_text(stmt, (int)(2 * i + 2), hits->v[i].e.store,
		    -1, SQLITE_STATIC);
		sqlite3_bind_text(stmt, (int)(2 * i + 3), hits->v[i].e.slug,
		    -1, SQLITE_STATIC);
	}
	/* Invariant 1: telemetry moves no vector; the cache stays valid */
	store_cache_expect(st, true);
	step = sqlite3_step(stmt);
	store_cache_expect(st, false);
	if (step != SQLITE_DONE) {
		store_fail(st, err, "recall not recorded");
		goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(stmt);
	sqlite3_exec(st->db, "PRAGMA synchronous = FULL", NULL, NULL, NULL);
	sbuf_release(&sql);
	return rc;
}

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
		store_blob_decode(sqlite3_column_blob(stmt, 2), (size_t)dim,
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
