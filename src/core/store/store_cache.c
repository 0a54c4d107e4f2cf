/*
 * store_cache.c — the search's int8 cache of the stored vectors, kept
 * exactly what the table holds (store_nearest.c searches it).
 *
 * Each (store, dimension) gets an in-memory matrix of its rows in rowid
 * order: an int8 copy of every vector (one scale per row, a quarter of the
 * float bytes) and an int8 copy of what that copy misses (the residual,
 * which narrows the error 254-fold for the rows a search must decide),
 * rowids, a signature of each BLOB, branches and archived
 * flags, and counts of the store's rows in other embedding spaces. The
 * cache attaches itself to the connection (store_attach) on first use and
 * is freed with it.
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
 *  2. A cold cache is mapped from the vector file when the file's key is
 *     the snapshot's (store_sidecar.c); its matrices borrow the mapping
 *     and are copied out (mat_own) before any change. A cold cache read
 *     from the table is saved to the file after the search.
 *  3. Rows whose BLOB length is not a multiple of 4 are skipped with one
 *     warning per process; rows of another dimension are skipped silently
 *     (§1.6, §5.1).
 */
#include "core/store/store.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "core/store/store_int.h"
#include "core/vector.h"
#include "util/err.h"
#include "util/log.h"
#include "util/os/plat.h"
#include "util/xmalloc.h"

/* ---- The cache, attached to the connection ------------------------------- */

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

static void
mat_free(struct store_mat *m)
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
		free(m->r);
		free(m->k2);
		free(m->rowid);
		free(m->sig);
		free(m->flags);
	}
	free(m->branch);
	free(m);
}

void
store_cache_drop(struct store_cache *c)
{
	struct store_mat	*m, *next;

	for (m = c->mats; m != NULL; m = next) {
		next = m->next;
		mat_free(m);
	}
	c->mats = NULL;
	store_sidecar_unmap(&c->map);
}

/* The connection closes (store_close frees its attachments): unhook
 * first, so that its closing rollback calls nothing freed. */
static void
cache_free(void *arg)
{
	struct store_cache	*c = arg;

	sqlite3_update_hook(c->db, NULL, NULL);
	sqlite3_rollback_hook(c->db, NULL, NULL);
	store_cache_drop(c);
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

/* The key the cache is attached to the connection under. */
static const char	cache_key;

static struct store_cache *
cache_of(struct store *st)
{
	return store_attached(st, &cache_key);
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

/* ---- The matrices -------------------------------------------------------- */

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
 * Row i's residual: r_j = round(d_j / s2) for d_j = b_j - s c_j (exact in
 * double) and s2 = max|d_j| / 127, so |b_j - s c_j - s2 r_j| <= s2 / 2,
 * about 1/254 of the first copy's error (store_nearest.c's second pass).
 */
static void
quantise_residual(struct store_mat *m, size_t i, const float *b, float s,
    double norm)
{
	const signed char	*c = m->c + i * (size_t)m->dim;
	signed char		*r = m->r + i * (size_t)m->dim;
	double			 mx = 0, d, s2;
	int			 j;

	for (j = 0; j < m->dim; j++) {
		d = fabs((double)b[j] - (double)s * c[j]);
		mx = d > mx ? d : mx;
	}
	s2 = mx / 127;
	for (j = 0; j < m->dim; j++)
		r[j] = (signed char)(s2 == 0 ? 0 :
		    lrint(((double)b[j] - (double)s * c[j]) / s2));
	m->k2[i] = (float)(s2 / norm);
}

/*
 * Row i's int8 copy of b: c_j = round(b_j / s) with s = max|b_j| / 127, so
 * |b_j - s c_j| <= s / 2, and its residual copy. A row that is zero or
 * not finite gets k = e = k2 = 0 (e and k2 infinite for non-finite) and
 * is left to the exact pass.
 */
static void
quantise(struct store_mat *m, size_t i, const float *b)
{
	signed char	*c = m->c + i * (size_t)m->dim;
	double		 norm = vector_norm(b, m->dim);
	float		 mx = 0, s;
	int		 j;

	for (j = 0; j < m->dim; j++)
		mx = fabsf(b[j]) > mx ? fabsf(b[j]) : mx;
	if (mx == 0 || !isfinite(mx) || !isfinite(norm)) {
		memset(c, 0, (size_t)m->dim);
		memset(m->r + i * (size_t)m->dim, 0, (size_t)m->dim);
		m->k[i] = 0;
		m->e[i] = m->k2[i] = mx == 0 ? 0 : INFINITY;
		return;
	}
	s = mx / 127;
	for (j = 0; j < m->dim; j++)	/* |b_j / s| <= 127 by choice of s */
		c[j] = (signed char)lrintf(b[j] / s);
	m->k[i] = (float)(s / norm);
	m->e[i] = (float)(s / (2 * norm));
	quantise_residual(m, i, b, s, norm);
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
	plat_hugepage(p, size);
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
	m->r = big_regrow(m->r, m->n * (size_t)m->dim, cap * (size_t)m->dim);
	m->k = xreallocarray(m->k, cap, sizeof(float));
	m->e = xreallocarray(m->e, cap, sizeof(float));
	m->k2 = xreallocarray(m->k2, cap, sizeof(float));
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
	m->c = m->r = NULL;
	m->k = m->e = m->k2 = NULL;
	m->rowid = NULL;
	m->sig = NULL;
	m->branch = NULL;
	m->flags = NULL;
	m->n = m->cap = 0;	/* nothing of its own to keep yet */
	m->borrowed = false;
	mat_reserve(m, 2 * b.n + 64);
	m->n = b.n;
	memcpy(m->c, b.c, b.n * d);
	memcpy(m->r, b.r, b.n * d);
	memcpy(m->k, b.k, b.n * sizeof(*m->k));
	memcpy(m->e, b.e, b.n * sizeof(*m->e));
	memcpy(m->k2, b.k2, b.n * sizeof(*m->k2));
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
	memmove(m->r + to * d, m->r + from * d, n * d);
	memmove(m->k + to, m->k + from, n * sizeof(*m->k));
	memmove(m->e + to, m->e + from, n * sizeof(*m->e));
	memmove(m->k2 + to, m->k2 + from, n * sizeof(*m->k2));
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
	vector_decode(blob, (size_t)m->dim, tmp);
	quantise(m, pos, tmp);
	m->sig[pos] = sig;
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
		tag_count(m, model);
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
		if ((m = row_mat(c, stmt)) == NULL)
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
	for (m = c->mats; m != NULL; m = m->next)
		if (m->pending)
			mat_sweep(m);
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
	m->pending = true;
	mat_reserve(m, 2 * entries_count(st) + 64);
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

/* Borrow matrices of dim from the vector file: as they are when its key
 * is txn_key, pending a refresh when it is older; nothing when there is
 * no file, or it does not parse or is of another dimension. */
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
		borrow(c, dim, &vf.sec[i])->pending = !current;
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
		    m->k, m->e, m->r, m->k2, (const int64_t *)(const void *)m->rowid,
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
store_cache_mats(struct store *st, const struct store_query *q,
    struct store_mat **mats, size_t *nout, struct err *err)
{
	struct store_cache	*c = cache_of(st);
	struct store_mat	*m;
	size_t			 i, j, n = 0;
	bool			 cold = false, pending = false;

	*nout = 0;
	if (cache_validate(st, c, err) != 0)
		return -1;
	if (!c->file_tried && c->mats == NULL) {
		cold = c->file_tried = true;
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
		blob = vector_encode(vec, (size_t)dim, &scratch);
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

