/*
 * vecfile.c — the vector file's bytes: laid out from the search cache's
 * arrays (vecfile_build) and checked before anything trusts them
 * (vecfile_parse). See vecfile.h and docs/store.md, "The vector file".
 *
 * Layout (host byte order: the file never leaves the machine that wrote
 * it; a byte-order mark refuses another's):
 *
 *	header		HEAD_SIZE bytes: magic, version, dim, key, nsec,
 *			total size, checksums of the body and of the header
 *	descriptors	nsec x DESC_SIZE bytes, one per section
 *	per section	strings (store, branches, non-NULL tags, each
 *			NUL-ended), tag counts, then the row arrays c, k, e,
 *			rowid, sig, bid (branch index + 1, 0 = NULL), flags,
 *			r, k2, w, and the centre mu (dim floats), each
 *			starting on a 64-byte boundary
 *
 * Version 1 had no r and k2, version 2 no w and mu (its rows were copied
 * about zero); either fails the version check like any file this build
 * cannot use, so the next search rebuilds it from the table.
 *
 * Invariants:
 *  1. vecfile_parse reads nothing outside the image and accepts only what
 *     vecfile_build can produce: every offset and size is checked with
 *     overflow-safe arithmetic before use, strings end inside their
 *     block, branch indexes and flags are in range, rowids strictly
 *     ascend (the cache binary-searches them), stores are distinct, the
 *     centre and every row's 1 / |b| are finite (the search's bounds
 *     multiply by them: a NaN there would hide rows).
 *  2. Both checksums cover every byte (the body's is checked first, the
 *     header's covers the body's), so a file changed or cut after it was
 *     written is refused, not half-used: the int8 rows decide which rows
 *     get an exact score, so a flipped byte could hide a hit.
 *  3. Nothing here decides whether a file is current; the key is only
 *     carried (store_sidecar.c compares it).
 */
#include "core/vecfile.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/vector.h"
#include "util/xmalloc.h"

#define MAGIC		"thatchVF"
#define VERSION		3	/* 2: the residual rows; 3: the centre */
#define BOM		0x01020304u
#define HEAD_SIZE	64
#define DESC_SIZE	64
#define ALIGN		64
#define TAG_SIZE	16
#define NARRAYS		11	/* c, k, e, rowid, sig, bid, flags, r, k2, w,
				   mu */
#define MU		(NARRAYS - 1)	/* the one array not per row */

struct head {
	char		magic[8];
	uint32_t	version, dim;
	int64_t		gen;
	uint32_t	schema, nsec;
	uint64_t	size, body_sum;
	uint32_t	bom, zero;
	uint64_t	head_sum;	/* of the bytes before it */
};

struct desc {
	uint64_t	n, rows_off, strs_off, strs_len;
	uint32_t	nbranch, ntags;
	uint64_t	nother, tags_off, zero;
};

struct tag_rec {
	uint64_t	count;
	uint32_t	is_null, zero;
};

_Static_assert(sizeof(struct head) == HEAD_SIZE, "header layout");
_Static_assert(sizeof(struct desc) == DESC_SIZE, "descriptor layout");
_Static_assert(sizeof(struct tag_rec) == TAG_SIZE, "tag layout");

/*
 * A checksum fast enough to run over every byte of every load (the load
 * reads the pages anyway; 40 MB at 100,000 memories): XXH3's accumulator
 * over 64-byte stripes — each 8-byte word is added to its neighbour lane
 * and, keyed, multiplied half by half into its own — then every lane and
 * the tail mixed into one value. A change to any word changes the sum but
 * with odds of about 2^-64. The stripes are summed by vector_stripe_sum
 * (core/vector.c, with the other SIMD kernels), the same on every machine.
 */
#define STRIPE	64

static const uint64_t	lane_key[8] = {
	0xbe4ba423396cfeb8ull, 0x1cad21f72c81017cull, 0xdb979083e96dd4deull,
	0x1f67b3b7a4a44072ull, 0x78e5c0cc4ee679cbull, 0x2172ffcc7dd05a82ull,
	0x8e2443f7744608b8ull, 0x4c263a81e69035e0ull,
};

static uint64_t
mix(uint64_t h, uint64_t w)
{
	h = (h ^ w) * 0xff51afd7ed558ccdull;
	return h ^ h >> 29;
}

static uint64_t
sum_bytes(const void *data, size_t len)
{
	const unsigned char	*p = data;
	uint64_t		 acc[8], h = 0x9e3779b97f4a7c15ull ^ len, w;
	size_t			 n = len / STRIPE, i;
	int			 j;

	memcpy(acc, lane_key, sizeof(acc));
	vector_stripe_sum(acc, lane_key, p, n);
	for (j = 0; j < 8; j++)
		h = mix(h, acc[j]);
	for (i = n * STRIPE; i + 8 <= len; i += 8) {
		memcpy(&w, p + i, 8);
		h = mix(h, w);
	}
	for (w = 0; i < len; i++)
		w = w << 8 | p[i];
	return mix(mix(h, w), len);
}

static bool
add_ok(uint64_t a, uint64_t b, uint64_t *r)
{
	return !__builtin_add_overflow(a, b, r);
}

/* x rounded up to ALIGN; false on overflow. */
static bool
align_ok(uint64_t x, uint64_t *r)
{
	return add_ok(x, ALIGN - 1, r) && ((*r &= ~(uint64_t)(ALIGN - 1)),
	    true);
}

/*
 * Offsets of the row arrays of n rows of dim starting at rows, and where
 * they end; false if any of it overflows.
 */
static bool
rows_layout(uint64_t rows, uint64_t n, uint64_t dim, uint64_t off[NARRAYS],
    uint64_t *end)
{
	/* bytes a row; 0: dim of them (the int8 rows c and r); mu is
	 * dim floats whatever n */
	static const uint64_t	width[NARRAYS] = { 0, 4, 4, 8, 8, 4, 1, 0,
				    4, 4, 4 };
	uint64_t		at = rows, bytes;
	int			i;

	for (i = 0; i < NARRAYS; i++) {
		if (i > 0 && !align_ok(at, &at))
			return false;
		off[i] = at;
		if (__builtin_mul_overflow(i == MU ? dim : n, width[i] == 0 ?
		    dim : width[i], &bytes) || !add_ok(at, bytes, &at))
			return false;
	}
	*end = at;
	return true;
}

/* ---- Building ----------------------------------------------------------- */

/* A section's string block: store, branches, non-NULL tags. */
struct strings {
	char		 *buf;		/* owned */
	size_t		  len;
	const char	**branch;	/* owned; distinct branches */
	uint32_t	  nbranch;
	uint32_t	 *bid;		/* owned; per row */
};

static void
strings_add(struct strings *s, const char *str)
{
	size_t	n = strlen(str) + 1;

	s->buf = xrealloc(s->buf, s->len + n);
	memcpy(s->buf + s->len, str, n);
	s->len += n;
}

/* Branch ids per row; the few distinct branches are found by scanning
 * (the last one found first: rows of one branch come in runs). */
static void
strings_make(const struct vecfile_section *sec, struct strings *s)
{
	size_t		i;
	uint32_t	b, last = 0;

	memset(s, 0, sizeof(*s));
	strings_add(s, sec->store);
	s->bid = xcalloc(sec->n + 1, sizeof(*s->bid));
	for (i = 0; i < sec->n; i++) {
		if (sec->branch[i] == NULL)
			continue;
		if (last > 0 && strcmp(s->branch[last - 1], sec->branch[i]) ==
		    0) {
			s->bid[i] = last;
			continue;
		}
		for (b = 0; b < s->nbranch; b++)
			if (strcmp(s->branch[b], sec->branch[i]) == 0)
				break;
		if (b == s->nbranch) {
			s->branch = xreallocarray(s->branch, s->nbranch + 1,
			    sizeof(*s->branch));
			s->branch[s->nbranch++] = sec->branch[i];
			strings_add(s, sec->branch[i]);
		}
		s->bid[i] = last = b + 1;
	}
	for (i = 0; i < sec->ntags; i++)
		if (sec->tags[i].tag != NULL)
			strings_add(s, sec->tags[i].tag);
}

static void
strings_release(struct strings *s)
{
	free(s->buf);
	free(s->branch);
	free(s->bid);
}

/* Section i's descriptor, with its strings placed at *at; advances *at. */
static struct desc
place(const struct vecfile_section *sec, const struct strings *s, int dim,
    uint64_t *at, uint64_t off[NARRAYS])
{
	struct desc	d = { 0 };

	d.n = sec->n;
	d.nbranch = s->nbranch;
	d.ntags = (uint32_t)sec->ntags;
	d.nother = sec->nother;
	d.strs_off = *at;
	d.strs_len = s->len;
	align_ok(*at + s->len, &d.tags_off);
	align_ok(d.tags_off + (uint64_t)TAG_SIZE * sec->ntags, &d.rows_off);
	rows_layout(d.rows_off, sec->n, (uint64_t)dim, off, at);
	align_ok(*at, at);
	return d;
}

static void
fill_section(unsigned char *img, const struct vecfile_section *sec,
    const struct strings *s, const struct desc *d, int dim,
    const uint64_t off[NARRAYS])
{
	struct tag_rec	t;
	size_t		i, n = sec->n;

	memcpy(img + d->strs_off, s->buf, s->len);
	for (i = 0; i < sec->ntags; i++) {
		t = (struct tag_rec){ sec->tags[i].count,
		    sec->tags[i].tag == NULL, 0 };
		memcpy(img + d->tags_off + i * TAG_SIZE, &t, TAG_SIZE);
	}
	memcpy(img + off[MU], sec->mu, (size_t)dim * sizeof(float));
	if (n == 0)
		return;
	memcpy(img + off[0], sec->c, n * (size_t)dim);
	memcpy(img + off[1], sec->k, n * sizeof(float));
	memcpy(img + off[2], sec->e, n * sizeof(float));
	memcpy(img + off[3], sec->rowid, n * sizeof(int64_t));
	memcpy(img + off[4], sec->sig, n * sizeof(uint64_t));
	memcpy(img + off[5], s->bid, n * sizeof(uint32_t));
	for (i = 0; i < n; i++)
		img[off[6] + i] = sec->flags[i] & VECFILE_ARCHIVED;
	memcpy(img + off[7], sec->r, n * (size_t)dim);
	memcpy(img + off[8], sec->k2, n * sizeof(float));
	memcpy(img + off[9], sec->w, n * sizeof(float));
}

void *
vecfile_build(const struct vecfile_key *key, int dim,
    const struct vecfile_section *sec, size_t nsec, size_t *size)
{
	struct strings	*s = xcalloc(nsec + 1, sizeof(*s));
	struct desc	*d = xcalloc(nsec + 1, sizeof(*d));
	uint64_t	(*off)[NARRAYS] = xcalloc(nsec + 1, sizeof(*off));
	struct head	 h = { MAGIC, VERSION, (uint32_t)dim, key->gen,
			    key->schema, (uint32_t)nsec, 0, 0, BOM, 0, 0 };
	unsigned char	*img;
	uint64_t	 at;
	size_t		 i;

	align_ok(HEAD_SIZE + (uint64_t)DESC_SIZE * nsec, &at);
	for (i = 0; i < nsec; i++) {
		strings_make(&sec[i], &s[i]);
		d[i] = place(&sec[i], &s[i], dim, &at, off[i]);
	}
	img = xcalloc(1, (size_t)at);
	for (i = 0; i < nsec; i++) {
		fill_section(img, &sec[i], &s[i], &d[i], dim, off[i]);
		memcpy(img + HEAD_SIZE + i * DESC_SIZE, &d[i], DESC_SIZE);
		strings_release(&s[i]);
	}
	memcpy(img, &h, HEAD_SIZE);
	vecfile_seal(img, (size_t)at);
	free(s);
	free(d);
	free(off);
	*size = (size_t)at;
	return img;
}

void
vecfile_seal(void *image, size_t size)
{
	unsigned char	*img = image;
	struct head	 h;

	if (size < HEAD_SIZE)
		return;
	memcpy(&h, img, HEAD_SIZE);
	h.size = size;
	h.body_sum = sum_bytes(img + HEAD_SIZE, size - HEAD_SIZE);
	memcpy(img, &h, HEAD_SIZE);
	h.head_sum = sum_bytes(img, offsetof(struct head, head_sum));
	memcpy(img, &h, HEAD_SIZE);
}

/* ---- Parsing ------------------------------------------------------------ */

/* [off, off + len) lies inside size bytes. */
static bool
inside(uint64_t off, uint64_t len, uint64_t size)
{
	uint64_t	end;

	return add_ok(off, len, &end) && end <= size;
}

static bool
head_ok(const unsigned char *img, size_t size, struct head *h)
{
	if (size < HEAD_SIZE || (uintptr_t)img % 8 != 0)
		return false;
	memcpy(h, img, HEAD_SIZE);
	return memcmp(h->magic, MAGIC, 8) == 0 && h->version == VERSION &&
	    h->bom == BOM && h->size == size && h->zero == 0 &&
	    h->head_sum == sum_bytes(img, offsetof(struct head, head_sum)) &&
	    h->dim >= 1 && h->dim <= VECFILE_MAX_DIM &&
	    inside(HEAD_SIZE, (uint64_t)DESC_SIZE * h->nsec, size) &&
	    h->body_sum == sum_bytes(img + HEAD_SIZE, size - HEAD_SIZE);
}

/* Section strings: exactly 1 + nbranch + (non-NULL tags) NUL-ended
 * strings; their starts go to out (store, branches, tags in order). */
static bool
split_strings(const char *p, uint64_t len, const char **out, size_t nout)
{
	size_t		i;
	const char	*end = p + len, *z;

	for (i = 0; i < nout; i++) {
		if (p >= end || (z = memchr(p, '\0', (size_t)(end - p))) ==
		    NULL)
			return false;
		out[i] = p;
		p = z + 1;
	}
	return p == end;
}

/* The tag records of d; *nnull: how many name SQL NULL. */
static bool
tag_records(const unsigned char *img, const struct desc *d,
    struct tag_rec *t, size_t *nnull)
{
	size_t	i;

	*nnull = 0;
	for (i = 0; i < d->ntags; i++) {
		memcpy(&t[i], img + d->tags_off + i * TAG_SIZE, TAG_SIZE);
		if (t[i].is_null > 1 || t[i].zero != 0)
			return false;
		*nnull += t[i].is_null;
	}
	return true;
}

/* Rows as vecfile_build writes them, and a finite centre (invariant 1). */
static bool
rows_ok(const struct vecfile_section *s, int dim, const uint32_t *bid,
    uint32_t nbranch)
{
	size_t	i;

	for (i = 0; i < s->n; i++)
		if (bid[i] > nbranch || (s->flags[i] & ~VECFILE_ARCHIVED) ||
		    (i > 0 && s->rowid[i] <= s->rowid[i - 1]) ||
		    !(s->w[i] >= 0 && s->w[i] <= FLT_MAX))
			return false;
	for (i = 0; i < (size_t)dim; i++)
		if (!isfinite(s->mu[i]))
			return false;
	return true;
}

/* Section i's descriptor, checked against the image's size. */
static bool
desc_ok(const unsigned char *img, size_t size, int dim, size_t i,
    struct desc *d, uint64_t off[NARRAYS])
{
	uint64_t	end;

	memcpy(d, img + HEAD_SIZE + i * DESC_SIZE, DESC_SIZE);
	return d->zero == 0 && d->strs_len > 0 && d->n <= size &&
	    d->nbranch <= d->n && inside(d->strs_off, d->strs_len, size) &&
	    d->tags_off % 8 == 0 &&
	    inside(d->tags_off, (uint64_t)TAG_SIZE * d->ntags, size) &&
	    d->rows_off % ALIGN == 0 &&
	    rows_layout(d->rows_off, d->n, (uint64_t)dim, off, &end) &&
	    end <= size;
}

/* Section i of the image into s (its branch and tags arrays owned). */
static bool
section_ok(const unsigned char *img, size_t size, int dim, size_t i,
    struct vecfile_section *s)
{
	struct desc		 d;
	uint64_t		 off[NARRAYS];
	const char		**strs = NULL, **br;
	const uint32_t		*bid;
	struct tag_rec		*t = NULL;
	struct vecfile_tag	*tags;
	size_t			 nnull, next, j;
	bool			 ok = false;

	if (!desc_ok(img, size, dim, i, &d, off))
		return false;
	t = xcalloc((size_t)d.ntags + 1, sizeof(*t));
	if (!tag_records(img, &d, t, &nnull))
		goto out;
	strs = xcalloc(1 + (size_t)d.nbranch + d.ntags, sizeof(*strs));
	if (!split_strings((const char *)img + d.strs_off, d.strs_len, strs,
	    1 + (size_t)d.nbranch + d.ntags - nnull))
		goto out;
	s->store = strs[0];
	s->n = d.n;
	s->c = (const signed char *)img + off[0];
	s->k = (const float *)(const void *)(img + off[1]);
	s->e = (const float *)(const void *)(img + off[2]);
	s->rowid = (const int64_t *)(const void *)(img + off[3]);
	s->sig = (const uint64_t *)(const void *)(img + off[4]);
	bid = (const uint32_t *)(const void *)(img + off[5]);
	s->flags = img + off[6];
	s->r = (const signed char *)img + off[7];
	s->k2 = (const float *)(const void *)(img + off[8]);
	s->w = (const float *)(const void *)(img + off[9]);
	s->mu = (const float *)(const void *)(img + off[MU]);
	s->nother = d.nother;
	if (!rows_ok(s, dim, bid, d.nbranch))
		goto out;
	s->tags = tags = xcalloc((size_t)d.ntags + 1, sizeof(*tags));
	s->ntags = d.ntags;
	for (j = 0, next = 1 + d.nbranch; j < d.ntags; j++) {
		tags[j].count = t[j].count;
		tags[j].tag = t[j].is_null ? NULL : strs[next++];
	}
	s->branch = br = xcalloc(d.n + 1, sizeof(*br));
	for (j = 0; j < d.n; j++)
		br[j] = bid[j] == 0 ? NULL : strs[bid[j]];
	ok = true;
out:
	free(strs);
	free(t);
	return ok;
}

static void
sections_free(struct vecfile_section *sec, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		free((void *)(uintptr_t)sec[i].branch);
		free((void *)(uintptr_t)sec[i].tags);
	}
	free(sec);
}

int
vecfile_parse(const void *image, size_t size, struct vecfile *vf)
{
	const unsigned char	*img = image;
	struct head		 h;
	size_t			 i, j;

	memset(vf, 0, sizeof(*vf));
	if (!head_ok(img, size, &h))
		return -1;
	vf->sec = xcalloc((size_t)h.nsec + 1, sizeof(*vf->sec));
	for (i = 0; i < h.nsec; i++) {
		if (!section_ok(img, size, (int)h.dim, i, &vf->sec[i]))
			goto bad;
		for (j = 0; j < i; j++)
			if (strcmp(vf->sec[j].store, vf->sec[i].store) == 0)
				goto bad;
	}
	vf->nsec = h.nsec;
	vf->dim = (int)h.dim;
	vf->key = (struct vecfile_key){ h.gen, h.schema };
	return 0;
bad:
	sections_free(vf->sec, i + 1);
	memset(vf, 0, sizeof(*vf));
	return -1;
}

void
vecfile_release(struct vecfile *vf)
{
	sections_free(vf->sec, vf->nsec);
	memset(vf, 0, sizeof(*vf));
}
