/* st.h — safetensors files: validated, memory-mapped tensors (st.c). */
#ifndef THATCH_EMBED_ST_H
#define THATCH_EMBED_ST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct err;

enum st_dtype {
	ST_F32,
	ST_F16,
	ST_BF16,
};

#define ST_MAX_DIMS	4

/* One tensor: data points into the file's mapping (borrowed from the st). */
struct st_tensor {
	char		*name;		/* owned */
	enum st_dtype	 dtype;
	int		 ndim;
	int64_t		 shape[ST_MAX_DIMS];
	int64_t		 count;		/* product of shape */
	const void	*data;		/* count elements of dtype */
};

/* An opened safetensors file. */
struct st {
	void		*map;		/* owned: mmap of the file, or NULL */
	size_t		 size;
	int		 guard;		/* owned: the map's mapguard, or 0 */
	struct st_tensor *tensors;	/* owned */
	size_t		 n;
};

/*
 * Map the file at path read-only and parse it with st_parse. Fails on any
 * I/O error or anything st_parse refuses, with the path in the message.
 * The mapping is guarded (util/os/mapguard.h): check st_intact after reading
 * tensors. Close with st_close.
 */
int	st_open(const char *path, struct st **, struct err *);

/*
 * Parse a safetensors image of size bytes (borrowed: it must outlive the
 * result). Checks the header length, that the header is a JSON object of
 * tensors with a supported dtype (F32, F16, BF16), a shape of at most
 * ST_MAX_DIMS non-negative dimensions and data_offsets inside the data
 * area that match the shape. Other dtypes are refused by name. Never reads
 * outside the image, whatever it holds.
 */
int	st_parse(const void *, size_t size, struct st **, struct err *);
void	st_close(struct st *);

/*
 * Drop this process's page mappings of the file (MADV_DONTNEED): reads
 * fault them back in from the page cache, so nothing is lost, but pages
 * read once (weights packed elsewhere) stop counting in the resident set.
 * Reads of sparse (or NULL) will touch a row here and there: its pages
 * are then mapped 4 KB at a time, without read-around, where one 2 MB
 * page per row read would map a whole embedding table in a few hundred
 * texts.
 */
void	st_unmap_pages(const struct st *, const struct st_tensor *sparse);

/*
 * Whether every read of the mapping so far saw the file: false for good
 * once the file was cut under it (what was read is then zeros, not
 * weights, and the st should be closed). True for an st_parse image.
 */
bool	st_intact(const struct st *);

/* The tensor called name, or NULL. */
const struct st_tensor *st_find(const struct st *, const char *name);

/* Bytes per element of a dtype, and its name ("F32"). */
size_t	st_dtype_size(enum st_dtype);
const char *st_dtype_name(enum st_dtype);

/* Copy count elements of t from element off into out, widening F16 and
 * BF16 exactly; the caller keeps off + count <= t->count. */
void	st_read(const struct st_tensor *, int64_t off, int64_t count,
	    float *out);

#endif
