/*
 * vecfile.h — the vector file's format (vecfile.c): a persisted copy of
 * the search cache's int8 rows, which a cold process maps instead of
 * reading every embedding BLOB (docs/store.md, "The vector file").
 *
 * This module knows bytes only: it lays a file out from arrays and checks
 * that a file's bytes are one it could have laid out. Whether a file
 * belongs to the database's current state (its key) is store_sidecar.c's.
 */
#ifndef THATCH_CORE_VECFILE_H
#define THATCH_CORE_VECFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VECFILE_ARCHIVED	1	/* the only row flag */
#define VECFILE_MAX_DIM		65536

/* The database state a file was built from (store_sidecar.c). */
struct vecfile_key {
	int64_t		gen;		/* entries_vecgen.gen */
	uint32_t	schema;		/* PRAGMA schema_version */
};

/* A model tag and how many rows of the section's dimension carry it. */
struct vecfile_tag {
	const char	*tag;		/* NULL: SQL NULL */
	uint64_t	 count;
};

/*
 * One store's rows of the file's dimension, ascending by rowid, as the
 * search cache holds them (store_cache.c, core/quant.h): int8 rows c
 * (n x dim), k and e per row, the int8 residual rows r (n x dim), k2 and
 * w per row, the centre mu (dim floats, finite), rowids, BLOB
 * signatures, VECFILE_ARCHIVED flags, branches.
 * nother counts the store's rows of another dimension or none; tags the
 * model tags of its rows of this dimension (for tool_space_notice).
 */
struct vecfile_section {
	const char		*store;
	size_t			 n;
	const signed char	*c;
	const float		*k, *e;
	const signed char	*r;
	const float		*k2, *w;
	const float		*mu;
	const int64_t		*rowid;
	const uint64_t		*sig;
	const unsigned char	*flags;
	const char *const	*branch;	/* per row; NULL: SQL NULL */
	uint64_t		 nother;
	const struct vecfile_tag *tags;
	size_t			 ntags;
};

/* A parsed file: sections point into the image (branch and tags are
 * owned arrays of pointers into it). */
struct vecfile {
	struct vecfile_key	 key;
	int			 dim;
	struct vecfile_section	*sec;		/* owned */
	size_t			 nsec;
};

/*
 * Check every byte of image (size bytes, 8-aligned) — header, checksums,
 * offsets, sizes, strings, flags, branch indexes, rowid order, distinct
 * stores — and fill vf. Returns 0, or -1 with vf empty: the file is not
 * one vecfile_build wrote, whole.
 */
int	vecfile_parse(const void *image, size_t size, struct vecfile *vf);
void	vecfile_release(struct vecfile *);

/* The file's bytes for sections sec[0 .. nsec) of dim: new memory of
 * *size bytes (free it). */
void	*vecfile_build(const struct vecfile_key *, int dim,
	    const struct vecfile_section *sec, size_t nsec, size_t *size);

/* Set the size and both checksums of an image of size bytes (the last
 * step of vecfile_build; the fuzz harness seals mutated images so that
 * what it feeds vecfile_parse gets past the checksums). */
void	vecfile_seal(void *image, size_t size);

#endif
