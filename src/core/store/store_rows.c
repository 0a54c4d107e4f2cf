/*
 * store_rows.c — one cached matrix's rows (store_int.h, struct
 * store_mat): growing and moving them, copying a borrowed matrix out of
 * the vector file's mapping, and copying each vector about the matrix's
 * centre (core/quant.h). store_cache.c decides which rows a matrix holds;
 * this file keeps each row what its vector makes it.
 *
 * Invariants:
 *  1. A matrix's centre changes only while it holds no copied row
 *     (store_mat_centre, after store_mat_refill): every row is always
 *     copied about the centre its matrix holds, which the search's bounds
 *     (store_nearest.c) take as given.
 *  2. A borrowed matrix (its arrays in the read-only mapping) is copied
 *     out (store_mat_own) before anything here writes to it.
 */
#include "core/store/store.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/quant.h"
#include "core/store/store_int.h"
#include "core/vector.h"
#include "util/os/plat.h"
#include "util/xmalloc.h"

void
store_mat_tags_free(struct store_mat *m)
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

	store_mat_tags_free(m);
	free(m->store);
	if (!m->borrowed) {
		for (i = 0; i < m->n; i++)
			free(m->branch[i]);
		free(m->c);
		free(m->k);
		free(m->e);
		free(m->r);
		free(m->k2);
		free(m->w);
		free(m->mu);
		free(m->rowid);
		free(m->sig);
		free(m->flags);
	}
	free(m->branch);
	free(m->hold);
	free(m);
}

/*
 * A 64-bit signature of a BLOB's bytes (multiply-xorshift over 8-byte
 * words): equal BLOBs have equal signatures, and a changed vector changes
 * it but with odds of 2^-64.
 */
uint64_t
store_blob_sig(const void *blob, size_t len)
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

/* Row i's copies of b about the matrix's centre (core/quant.h). */
void
store_mat_quantise(struct store_mat *m, size_t i, const float *b)
{
	struct quant_row	q;

	quant_row(b, m->mu, m->dim, m->c + i * (size_t)m->dim,
	    m->r + i * (size_t)m->dim, &q);
	m->k[i] = q.k;
	m->e[i] = q.e;
	m->k2[i] = q.k2;
	m->w[i] = q.w;
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

void
store_mat_reserve(struct store_mat *m, size_t cap)
{
	if (cap <= m->cap)
		return;
	m->c = big_regrow(m->c, m->n * (size_t)m->dim, cap * (size_t)m->dim);
	m->r = big_regrow(m->r, m->n * (size_t)m->dim, cap * (size_t)m->dim);
	m->k = xreallocarray(m->k, cap, sizeof(float));
	m->e = xreallocarray(m->e, cap, sizeof(float));
	m->k2 = xreallocarray(m->k2, cap, sizeof(float));
	m->w = xreallocarray(m->w, cap, sizeof(float));
	m->rowid = xreallocarray(m->rowid, cap, sizeof(sqlite3_int64));
	m->sig = xreallocarray(m->sig, cap, sizeof(uint64_t));
	m->branch = xreallocarray(m->branch, cap, sizeof(char *));
	m->flags = xreallocarray(m->flags, cap, 1);
	m->cap = cap;
}

/* Before a borrowed matrix changes: its rows, copied into its own
 * memory (the mapping is read-only). */
void
store_mat_own(struct store_mat *m)
{
	struct store_mat	b = *m;
	size_t			i, d = (size_t)m->dim;

	if (!m->borrowed)
		return;
	m->c = m->r = NULL;
	m->k = m->e = m->k2 = m->w = NULL;
	m->mu = xmalloc(d * sizeof(*m->mu));
	memcpy(m->mu, b.mu, d * sizeof(*m->mu));
	m->rowid = NULL;
	m->sig = NULL;
	m->branch = NULL;
	m->flags = NULL;
	m->n = m->cap = 0;	/* nothing of its own to keep yet */
	m->borrowed = false;
	store_mat_reserve(m, 2 * b.n + 64);
	m->n = b.n;
	memcpy(m->c, b.c, b.n * d);
	memcpy(m->r, b.r, b.n * d);
	memcpy(m->k, b.k, b.n * sizeof(*m->k));
	memcpy(m->e, b.e, b.n * sizeof(*m->e));
	memcpy(m->k2, b.k2, b.n * sizeof(*m->k2));
	memcpy(m->w, b.w, b.n * sizeof(*m->w));
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
	memmove(m->w + to, m->w + from, n * sizeof(*m->w));
	memmove(m->rowid + to, m->rowid + from, n * sizeof(*m->rowid));
	memmove(m->sig + to, m->sig + from, n * sizeof(*m->sig));
	memmove(m->branch + to, m->branch + from, n * sizeof(*m->branch));
	memmove(m->flags + to, m->flags + from, n);
}

/* Open an empty row at pos (rows from pos move up) for rowid. */
void
store_mat_open(struct store_mat *m, size_t pos, sqlite3_int64 rowid)
{
	if (m->n == m->cap)
		store_mat_reserve(m, m->cap * 2 + 64);
	mat_move(m, pos + 1, pos, m->n - pos);
	m->n++;
	m->rowid[pos] = rowid;
	m->branch[pos] = NULL;
	m->flags[pos] = 0;
}

void
store_mat_close(struct store_mat *m, size_t pos)
{
	free(m->branch[pos]);
	mat_move(m, pos, pos + 1, m->n - pos - 1);
	m->n--;
}

/* Whether rowid is cached; *pos is its row or where it would go. */
bool
store_mat_find(const struct store_mat *m, sqlite3_int64 rowid,
    size_t *pos)
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
void
store_mat_attrs(struct store_mat *m, size_t pos, bool archived,
    const char *branch)
{
	m->flags[pos] = (unsigned char)((m->flags[pos] & ~ROW_ARCHIVED) |
	    (archived ? ROW_ARCHIVED : 0));
	if (branch == NULL ? m->branch[pos] == NULL :
	    m->branch[pos] != NULL && strcmp(branch, m->branch[pos]) == 0)
		return;
	free(m->branch[pos]);
	m->branch[pos] = branch == NULL ? NULL : xstrdup(branch);
}

/*
 * A matrix's centre (core/quant.h) is the mean of the first
 * STORE_CENTRE_ROWS rows it is filled with from the table: their vectors
 * are held until then and copied once it is known. A sample is enough, as
 * any centre keeps the bounds exact and one near the store's mean keeps
 * them tight. A matrix of fewer rows is refilled whole at a refresh (it
 * costs little), so a store that grew from nothing gets its centre from
 * its rows, not the zero it started with.
 */
void
store_mat_centre(struct store_mat *m)
{
	size_t	i;

	if (m->hold == NULL)
		return;
	quant_centre(m->hold, m->held, m->dim, m->mu);
	m->mu_norm = vector_norm(m->mu, m->dim);
	for (i = 0; i < m->held; i++)
		store_mat_quantise(m, i, m->hold + i * (size_t)m->dim);
	free(m->hold);
	m->hold = NULL;
	m->held = 0;
}

/* Row pos's vector, from its (unaligned, little-endian) BLOB: copied, or
 * held while the matrix waits for its centre (a fill appends, so pos is
 * the count held). */
void
store_mat_blob(struct store_mat *m, size_t pos, const void *blob,
    uint64_t sig, float *tmp)
{
	size_t	d = (size_t)m->dim;

	m->sig[pos] = sig;
	if (m->hold == NULL) {
		vector_decode(blob, d, tmp);
		store_mat_quantise(m, pos, tmp);
		return;
	}
	vector_decode(blob, d, m->hold + m->held++ * d);
	if (m->held == STORE_CENTRE_ROWS)
		store_mat_centre(m);
}

/* One more of m's rows of its dimension carries model (stats). */
void
store_mat_tag(struct store_mat *m, const char *model)
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

/* Empty m to be filled whole, holding its first rows for its centre. */
void
store_mat_refill(struct store_mat *m)
{
	size_t	i;

	for (i = 0; i < m->n; i++)
		free(m->branch[i]);
	m->n = 0;
	m->held = 0;
	m->hold = xreallocarray(m->hold, STORE_CENTRE_ROWS *
	    (size_t)m->dim, sizeof(float));
}

/* Drop the rows cache_refresh did not see. */
void
store_mat_sweep(struct store_mat *m)
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
