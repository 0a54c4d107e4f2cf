/*
 * fuzz_vecfile.c — the vector file's parser (src/core/vecfile.c). An
 * input is a whole file; it is parsed as it is, then sealed (size and
 * checksums set, vecfile_seal) and parsed again, so that mutations reach
 * the structural checks behind the checksums.
 *
 * Properties (vecfile.c invariant 1): every array and string a parsed
 * file hands out lies inside the image (ASan: the image is an exact-size
 * copy), rowids ascend, flags and branches are in range, the centre and
 * every 1 / |b| are finite; and the parse round-trips: building a file
 * from the parsed sections and parsing that gives the same sections, row
 * for row.
 */
#include "fuzz.h"

#include <math.h>
#include <stdlib.h>

#include "core/vecfile.h"

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

static bool
in_image(const void *p, size_t len, const uint8_t *img, size_t size)
{
	const uint8_t	*q = p;

	return q >= img && len <= size && q - img <= (ptrdiff_t)(size - len);
}

static void
check_section(const struct vecfile_section *s, int dim, const uint8_t *img,
    size_t size)
{
	size_t	i;

	FUZZ_ASSERT(in_image(s->store, strlen(s->store) + 1, img, size));
	FUZZ_ASSERT(s->n <= size);
	FUZZ_ASSERT(in_image(s->c, s->n * (size_t)dim, img, size));
	FUZZ_ASSERT(in_image(s->k, s->n * 4, img, size));
	FUZZ_ASSERT(in_image(s->e, s->n * 4, img, size));
	FUZZ_ASSERT(in_image(s->r, s->n * (size_t)dim, img, size));
	FUZZ_ASSERT(in_image(s->k2, s->n * 4, img, size));
	FUZZ_ASSERT(in_image(s->w, s->n * 4, img, size));
	FUZZ_ASSERT(in_image(s->mu, (size_t)dim * 4, img, size));
	for (i = 0; i < (size_t)dim; i++)
		FUZZ_ASSERT(isfinite(s->mu[i]));
	FUZZ_ASSERT(in_image(s->rowid, s->n * 8, img, size));
	FUZZ_ASSERT(in_image(s->sig, s->n * 8, img, size));
	FUZZ_ASSERT(in_image(s->flags, s->n, img, size));
	for (i = 0; i < s->n; i++) {
		FUZZ_ASSERT((s->flags[i] & ~VECFILE_ARCHIVED) == 0);
		FUZZ_ASSERT(i == 0 || s->rowid[i] > s->rowid[i - 1]);
		FUZZ_ASSERT(s->w[i] >= 0 && isfinite(s->w[i]));
		FUZZ_ASSERT(s->branch[i] == NULL || in_image(s->branch[i],
		    strlen(s->branch[i]) + 1, img, size));
	}
	for (i = 0; i < s->ntags; i++)
		FUZZ_ASSERT(s->tags[i].tag == NULL || in_image(s->tags[i].tag,
		    strlen(s->tags[i].tag) + 1, img, size));
}

static bool
same_str(const char *a, const char *b)
{
	return a == NULL || b == NULL ? a == b : strcmp(a, b) == 0;
}

static void
check_same(const struct vecfile_section *a, const struct vecfile_section *b,
    int dim)
{
	size_t	i;

	FUZZ_ASSERT(strcmp(a->store, b->store) == 0 && a->n == b->n &&
	    a->nother == b->nother && a->ntags == b->ntags);
	FUZZ_ASSERT(memcmp(a->c, b->c, a->n * (size_t)dim) == 0 &&
	    memcmp(a->r, b->r, a->n * (size_t)dim) == 0);
	FUZZ_ASSERT(memcmp(a->k2, b->k2, a->n * 4) == 0 &&
	    memcmp(a->w, b->w, a->n * 4) == 0 &&
	    memcmp(a->mu, b->mu, (size_t)dim * 4) == 0);
	FUZZ_ASSERT(memcmp(a->k, b->k, a->n * 4) == 0 &&
	    memcmp(a->e, b->e, a->n * 4) == 0);
	FUZZ_ASSERT(memcmp(a->rowid, b->rowid, a->n * 8) == 0 &&
	    memcmp(a->sig, b->sig, a->n * 8) == 0);
	for (i = 0; i < a->n; i++)
		FUZZ_ASSERT(a->flags[i] == b->flags[i] &&
		    same_str(a->branch[i], b->branch[i]));
	for (i = 0; i < a->ntags; i++)
		FUZZ_ASSERT(a->tags[i].count == b->tags[i].count &&
		    same_str(a->tags[i].tag, b->tags[i].tag));
}

/* Parse image; when it parses, check it and its round trip. */
static void
run(const uint8_t *img, size_t size)
{
	struct vecfile	 vf, again;
	size_t		 i, n;
	void		*copy;

	if (vecfile_parse(img, size, &vf) != 0)
		return;
	for (i = 0; i < vf.nsec; i++)
		check_section(&vf.sec[i], vf.dim, img, size);
	copy = vecfile_build(&vf.key, vf.dim, vf.sec, vf.nsec, &n);
	FUZZ_ASSERT(vecfile_parse(copy, n, &again) == 0);
	FUZZ_ASSERT(again.nsec == vf.nsec && again.dim == vf.dim &&
	    again.key.gen == vf.key.gen && again.key.schema == vf.key.schema);
	for (i = 0; i < vf.nsec; i++)
		check_same(&vf.sec[i], &again.sec[i], vf.dim);
	vecfile_release(&again);
	vecfile_release(&vf);
	free(copy);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t	*img = malloc(size > 0 ? size : 1);	/* 16-aligned */

	memcpy(img, data, size);
	run(img, size);
	vecfile_seal(img, size);
	run(img, size);
	free(img);
	return 0;
}
