/*
 * st.c — safetensors files: an 8-byte little-endian header length, a JSON
 * header naming each tensor's dtype, shape and byte range, then the data.
 *
 * The file is mapped read-only and never copied: F32 tensors are used in
 * place. Everything in the header is untrusted input (downloads can be cut,
 * caches can rot), so parsing is total: any file either yields a table of
 * tensors that all lie inside the mapping or a one-line error.
 *  1. Every tensor's [begin, end) lies within the data area, and end -
 *     begin equals count * dtype size, computed without overflow.
 *  2. Only F32, F16 and BF16 are accepted; anything else is refused by name.
 *  3. Nothing is read outside [map, map + size).
 *  4. The mapping starts on a 2 MB boundary with MADV_HUGEPAGE
 *     (util/os/hugemap.c: each 2 MB of weights one page-table entry).
 *  5. The mapping is guarded from before the header is read until it is
 *     unmapped (util/os/mapguard.c): a file cut under a running process
 *     reads as zeros and st_intact turns false, where the read would
 *     have raised SIGBUS. A cut while st_open parses fails the open.
 */
#include "embed/st.h"

#include <sys/mman.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "util/err.h"
#include "util/os/hugemap.h"
#include "util/jsonx.h"
#include "util/os/mapguard.h"
#include "util/os/plat.h"
#include "util/xmalloc.h"

/* A larger header is not a model thatch can run (bge-base: 20 KB). */
#define ST_MAX_HEADER	(64u << 20)

static const char *const dtype_names[] = {
	[ST_F32] = "F32",
	[ST_F16] = "F16",
	[ST_BF16] = "BF16",
};

size_t
st_dtype_size(enum st_dtype d)
{
	return d == ST_F32 ? 4 : 2;
}

const char *
st_dtype_name(enum st_dtype d)
{
	return dtype_names[d];
}

static int
parse_dtype(const char *s, enum st_dtype *d)
{
	size_t	i;

	for (i = 0; i < sizeof(dtype_names) / sizeof(dtype_names[0]); i++) {
		if (strcmp(s, dtype_names[i]) == 0) {
			*d = (enum st_dtype)i;
			return 0;
		}
	}
	return -1;
}

/* A JSON integer in [0, max], else -1. */
static int64_t
json_count(const json_t *v, int64_t max)
{
	json_int_t	i;

	if (!json_is_integer(v))
		return -1;
	i = json_integer_value(v);
	return i < 0 || i > max ? -1 : (int64_t)i;
}

static int
parse_tensor(const char *name, const json_t *desc, size_t data_size,
    const unsigned char *data, struct st_tensor *t, struct err *err)
{
	const json_t	*shape, *offs, *v;
	const char	*dtype;
	int64_t		 begin, end, dim;
	size_t		 i;

	if (!json_is_object(desc))
		return err_set(err, "tensor '%s' is not an object", name);
	dtype = jsonx_str(desc, "dtype");
	if (dtype == NULL)
		return err_set(err, "tensor '%s' has no dtype", name);
	if (parse_dtype(dtype, &t->dtype) != 0)
		return err_set(err, "tensor '%s' has dtype %s; thatch reads "
		    "F32, F16 and BF16", name, dtype);
	shape = json_object_get(desc, "shape");
	if (!json_is_array(shape) || json_array_size(shape) > ST_MAX_DIMS)
		return err_set(err, "tensor '%s' has no valid shape", name);
	t->ndim = (int)json_array_size(shape);
	t->count = 1;
	json_array_foreach(shape, i, v) {
		dim = json_count(v, INT32_MAX);
		if (dim < 0)
			return err_set(err, "tensor '%s' has a bad dimension",
			    name);
		t->shape[i] = dim;
		/* dims < 2^31 and at most 4 of them: check before multiplying */
		if (dim != 0 && t->count > (int64_t)(data_size / dim))
			return err_set(err, "tensor '%s' is larger than the "
			    "file (truncated download?)", name);
		t->count *= dim;
	}
	offs = json_object_get(desc, "data_offsets");
	if (!json_is_array(offs) || json_array_size(offs) != 2)
		return err_set(err, "tensor '%s' has no data_offsets", name);
	begin = json_count(json_array_get(offs, 0), (int64_t)data_size);
	end = json_count(json_array_get(offs, 1), (int64_t)data_size);
	if (begin < 0 || end < 0 || begin > end)
		return err_set(err, "tensor '%s' lies outside the file "
		    "(truncated download?)", name);
	if ((uint64_t)(end - begin) !=
	    (uint64_t)t->count * st_dtype_size(t->dtype))
		return err_set(err, "tensor '%s': %lld bytes for %lld "
		    "elements of %s", name, (long long)(end - begin),
		    (long long)t->count, dtype);
	t->data = data + begin;
	t->name = xstrdup(name);
	return 0;
}

int
st_parse(const void *buf, size_t size, struct st **out, struct err *err)
{
	const unsigned char	*p = buf;
	json_t			*hdr = NULL, *desc;
	const char		*name;
	struct st		*st = NULL;
	uint64_t		 hlen = 0;
	size_t			 data_size;
	int			 i, rc = -1;

	*out = NULL;
	if (size < 8) {
		err_set(err, "file too short (%zu bytes)", size);
		goto out;
	}
	for (i = 7; i >= 0; i--)
		hlen = hlen << 8 | p[i];
	if (hlen < 2 || hlen > ST_MAX_HEADER || hlen > size - 8) {
		err_set(err, "header length %llu does not fit the file "
		    "(%zu bytes; truncated download?)",
		    (unsigned long long)hlen, size);
		goto out;
	}
	hdr = jsonx_parse((const char *)p + 8, (size_t)hlen, "header", err);
	if (hdr == NULL)
		goto out;
	if (!json_is_object(hdr)) {
		err_set(err, "header is not a JSON object");
		goto out;
	}
	data_size = size - 8 - (size_t)hlen;
	st = xcalloc(1, sizeof(*st));
	st->size = size;
	st->tensors = xcalloc(json_object_size(hdr) + 1,
	    sizeof(*st->tensors));
	json_object_foreach(hdr, name, desc) {
		if (strcmp(name, "__metadata__") == 0)
			continue;
		if (parse_tensor(name, desc, data_size, p + 8 + hlen,
		    &st->tensors[st->n], err) != 0)
			goto out;
		st->n++;
	}
	*out = st;
	st = NULL;
	rc = 0;
out:
	st_close(st);
	json_decref(hdr);
	return rc;
}

int
st_open(const char *path, struct st **out, struct err *err)
{
	struct stat	 sb;
	void		*map = MAP_FAILED;
	int		 fd, guard = 0, rc = -1;

	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return err_errno(err, "cannot open '%s'", path);
	if (fstat(fd, &sb) != 0) {
		err_errno(err, "cannot stat '%s'", path);
		goto out;
	}
	if (sb.st_size < 8) {
		err_set(err, "'%s': file too short (%lld bytes; truncated "
		    "download?)", path, (long long)sb.st_size);
		goto out;
	}
	map = hugemap_file(fd, (size_t)sb.st_size);
	if (map == MAP_FAILED) {
		err_errno(err, "cannot map '%s'", path);
		goto out;
	}
	guard = mapguard_add(fd, map, (size_t)sb.st_size);
	if (st_parse(map, (size_t)sb.st_size, out, err) != 0) {
		err_wrap(err, "'%s'", path);
		goto out;
	}
	if (!mapguard_intact(guard)) {
		st_close(*out);
		*out = NULL;
		err_set(err, "'%s' was cut while being read", path);
		goto out;
	}
	(*out)->map = map;
	(*out)->guard = guard;
	map = MAP_FAILED;
	rc = 0;
out:
	if (map != MAP_FAILED) {
		mapguard_remove(guard);
		munmap(map, (size_t)sb.st_size);
	}
	close(fd);
	return rc;
}

void
st_close(struct st *st)
{
	size_t	i;

	if (st == NULL)
		return;
	for (i = 0; i < st->n; i++)
		free(st->tensors[i].name);
	free(st->tensors);
	mapguard_remove(st->guard);
	if (st->map != NULL)
		munmap(st->map, st->size);
	free(st);
}

void
st_unmap_pages(const struct st *st, const struct st_tensor *sparse)
{
	uintptr_t	page = (uintptr_t)sysconf(_SC_PAGESIZE), lo, hi;

	if (st->map == NULL)
		return;
	/* a read-only private mapping has no pages of its own to lose */
	madvise(st->map, st->size, MADV_DONTNEED);
	if (sparse == NULL)
		return;
	lo = (uintptr_t)sparse->data & ~(page - 1);
	hi = ((uintptr_t)sparse->data + (uintptr_t)sparse->count *
	    st_dtype_size(sparse->dtype) + page - 1) & ~(page - 1);
	plat_random_pages((void *)lo, hi - lo);
}

bool
st_intact(const struct st *st)
{
	return mapguard_intact(st->guard);
}

const struct st_tensor *
st_find(const struct st *st, const char *name)
{
	size_t	i;

	for (i = 0; i < st->n; i++) {
		if (strcmp(st->tensors[i].name, name) == 0)
			return &st->tensors[i];
	}
	return NULL;
}

/* IEEE half to single, exactly, subnormals and NaN included. */
static float
half_to_float(uint16_t h)
{
	uint32_t	sign = (uint32_t)(h & 0x8000) << 16;
	uint32_t	exp = (h >> 10) & 0x1f, mant = h & 0x3ff, bits;
	float		f;

	if (exp == 0x1f)
		bits = sign | 0x7f800000 | mant << 13;
	else if (exp != 0)
		bits = sign | (exp + 112) << 23 | mant << 13;
	else if (mant == 0)
		bits = sign;
	else {
		exp = 113;
		while (!(mant & 0x400)) {
			mant <<= 1;
			exp--;
		}
		bits = sign | exp << 23 | (mant & 0x3ff) << 13;
	}
	memcpy(&f, &bits, sizeof(f));
	return f;
}

void
st_read(const struct st_tensor *t, int64_t off, int64_t count, float *out)
{
	const unsigned char	*p = t->data;
	uint16_t		 h;
	uint32_t		 bits;
	int64_t			 i;

	if (t->dtype == ST_F32) {
		memcpy(out, p + off * 4, (size_t)count * 4);
		return;
	}
	p += off * 2;
	for (i = 0; i < count; i++, p += 2) {
		/* memcpy: the data need not be aligned */
		memcpy(&h, p, 2);
		if (t->dtype == ST_F16)
			out[i] = half_to_float(h);
		else {
			bits = (uint32_t)h << 16;
			memcpy(&out[i], &bits, 4);
		}
	}
}
