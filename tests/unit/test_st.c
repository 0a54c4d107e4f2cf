/*
 * test_st.c — the safetensors reader takes good files, refuses bad ones
 * with a reason, and never reads outside the image whatever the header
 * says: targeted corruptions, then thousands of deterministic mutations
 * (run under ASan by `make test`); and a file cut under its mapping
 * reads as zeros and says so instead of killing the process.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "embed/st.h"
#include "util/err.h"
#include "util/sbuf.h"
#include "util/xmalloc.h"

/* A safetensors image: 8-byte length, header, then `data` bytes of 0x3c. */
static void
image(struct sbuf *sb, const char *header, size_t data)
{
	uint64_t	n = strlen(header);
	unsigned char	len[8];
	int		i;

	for (i = 0; i < 8; i++)
		len[i] = (unsigned char)(n >> (8 * i));
	sbuf_reset(sb);
	sbuf_add(sb, len, 8);
	sbuf_adds(sb, header);
	for (; data > 0; data--)
		sbuf_addc(sb, 0x3c);
}

/* Parse a private exact-size copy so that ASan sees any overread. */
static int
parse(const void *p, size_t n, struct st **st, struct err *err)
{
	const struct st_tensor	*t;
	char			*copy = xmalloc(n ? n : 1);
	size_t			 i;
	int			 rc;

	memcpy(copy, p, n);
	rc = st_parse(copy, n, st, err);
	if (rc == 0) {
		/* invariant 1: every tensor inside the image */
		for (i = 0; i < (*st)->n; i++) {
			t = &(*st)->tensors[i];
			CHECK((const char *)t->data >= copy &&
			    (const char *)t->data + t->count *
			    (int64_t)st_dtype_size(t->dtype) <= copy + n);
		}
		st_close(*st);
	}
	free(copy);
	return rc;
}

#define GOOD	"{\"__metadata__\":{\"format\":\"pt\"}," \
	"\"a\":{\"dtype\":\"F32\",\"shape\":[2,3],\"data_offsets\":[0,24]}," \
	"\"b\":{\"dtype\":\"F16\",\"shape\":[4],\"data_offsets\":[24,32]}," \
	"\"c\":{\"dtype\":\"BF16\",\"shape\":[],\"data_offsets\":[32,34]}}"

static void
test_good_file(void)
{
	struct sbuf		 sb = SBUF_INIT;
	struct st		*st = NULL;
	struct err		 err;
	const struct st_tensor	*t;

	image(&sb, GOOD, 34);
	CHECK_INT(st_parse(sb.buf, sb.len, &st, &err), 0);
	if (st != NULL) {
		CHECK_INT(st->n, 3);
		t = st_find(st, "a");
		CHECK(t != NULL && t->ndim == 2 && t->count == 6 &&
		    t->dtype == ST_F32);
		CHECK(st_find(st, "c") != NULL && st_find(st, "c")->count == 1);
		CHECK(st_find(st, "__metadata__") == NULL);
	}
	st_close(st);
	sbuf_release(&sb);
}

static void
check_refused(const char *header, size_t data, const char *why)
{
	struct sbuf	 sb = SBUF_INIT;
	struct st	*st = NULL;
	struct err	 err;

	image(&sb, header, data);
	err.msg[0] = '\0';
	CHECK_INT(parse(sb.buf, sb.len, &st, &err), -1);
	if (strstr(err.msg, why) == NULL)
		CHECK_FAIL("'%s': error '%s' lacks '%s'", header, err.msg, why);
	sbuf_release(&sb);
}

static void
test_bad_files(void)
{
	struct sbuf	 sb = SBUF_INIT;
	struct st	*st;
	struct err	 err;

	check_refused("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],"
	    "\"data_offsets\":[0,8]}}", 4, "outside the file");
	check_refused("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],"
	    "\"data_offsets\":[8,0]}}", 8, "outside the file");
	check_refused("{\"a\":{\"dtype\":\"F32\",\"shape\":[3],"
	    "\"data_offsets\":[0,8]}}", 8, "elements");
	check_refused("{\"a\":{\"dtype\":\"I64\",\"shape\":[1],"
	    "\"data_offsets\":[0,8]}}", 8, "I64");
	check_refused("{\"a\":{\"dtype\":\"F32\",\"shape\":[-1],"
	    "\"data_offsets\":[0,0]}}", 0, "dimension");
	check_refused("{\"a\":{\"dtype\":\"F32\",\"shape\":[2147483647,"
	    "2147483647,2147483647,2147483647],\"data_offsets\":[0,0]}}", 0,
	    "larger than the file");
	check_refused("{\"a\":{\"dtype\":\"F32\",\"shape\":[1,1,1,1,1],"
	    "\"data_offsets\":[0,4]}}", 4, "shape");
	check_refused("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],"
	    "\"data_offsets\":[0]}}", 4, "data_offsets");
	check_refused("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],"
	    "\"data_offsets\":[0.5,4]}}", 4, "outside");
	check_refused("{\"a\":{\"shape\":[1],\"data_offsets\":[0,4]}}", 4,
	    "dtype");
	check_refused("{\"a\":7}", 0, "not an object");
	check_refused("[1,2]", 0, "not a JSON object");
	check_refused("{\"a\":", 0, "header");
	/* a length field larger than the file, and a tiny file */
	image(&sb, GOOD, 34);
	sb.buf[0] = (char)0xff;
	sb.buf[5] = 0x01;
	CHECK_INT(parse(sb.buf, sb.len, &st, &err), -1);
	CHECK(strstr(err.msg, "truncated") != NULL);
	CHECK_INT(parse(sb.buf, 7, &st, &err), -1);
	CHECK(strstr(err.msg, "too short") != NULL);
	CHECK_INT(parse(sb.buf, 0, &st, &err), -1);
	sbuf_release(&sb);
}

static uint64_t
next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/*
 * 20,000 deterministic mutations of a good image: flipped bytes in the
 * header (digits swapped for digits half the time, so offsets and shapes
 * move), a rewritten length field, truncation. Each either parses with all
 * tensors inside the image or is refused; never a crash or overread.
 */
static void
test_mutations_never_read_outside(void)
{
	static const char	 digits[] = "0123456789";
	struct sbuf		 sb = SBUF_INIT;
	struct st		*st;
	struct err		 err;
	char			*buf;
	uint64_t		 seed = 0x9e3779b97f4a7c15ull, r;
	size_t			 len, pos, hlen = strlen(GOOD);
	int			 i, k, ok = 0;

	image(&sb, GOOD, 34);
	buf = xmalloc(sb.len);
	for (i = 0; i < 20000; i++) {
		memcpy(buf, sb.buf, sb.len);
		len = sb.len;
		for (k = 0; k < 1 + (int)(next(&seed) % 4); k++) {
			r = next(&seed);
			pos = 8 + r % hlen;
			switch (r >> 60) {
			case 0:
				buf[r % 8] = (char)(r >> 32);
				break;
			case 1:
				len = (size_t)(r >> 32) % sb.len;
				break;
			case 2: case 3: case 4: case 5: case 6: case 7:
			case 8: case 9:
				if (buf[pos] >= '0' && buf[pos] <= '9')
					buf[pos] = digits[(r >> 40) % 10];
				break;
			default:
				buf[pos] = (char)(r >> 40);
				break;
			}
		}
		if (parse(buf, len, &st, &err) == 0)
			ok++;
	}
	/* the mutations must reach both outcomes to mean anything */
	CHECK(ok > 100);
	CHECK(ok < 19000);
	free(buf);
	sbuf_release(&sb);
}

static void
test_widening(void)
{
	static const unsigned char	 f16[] = {
		0x00, 0x3c, 0x00, 0xc0, 0x01, 0x00, 0x00, 0x7c,	/* 1 -2 2^-24 inf */
	};
	static const unsigned char	 bf16[] = { 0x80, 0x3f, 0x20, 0xc1 };
	struct st_tensor		 t = { 0 };
	float				 out[4];

	t.dtype = ST_F16;
	t.count = 4;
	t.data = f16;
	st_read(&t, 0, 4, out);
	CHECK_NEAR(out[0], 1.0, 0);
	CHECK_NEAR(out[1], -2.0, 0);
	CHECK_NEAR(out[2], 5.9604644775390625e-08, 0);
	CHECK(isinf(out[3]) && out[3] > 0);
	t.dtype = ST_BF16;
	t.count = 2;
	t.data = bf16;
	st_read(&t, 1, 1, out);
	CHECK_NEAR(out[0], -10.0, 0);
}

/*
 * A file cut in place under st_open's mapping: the next read of a lost
 * page gives zeros instead of SIGBUS, and st_intact says so for good.
 */
static void
test_a_file_cut_under_its_mapping(void)
{
	struct sbuf		 sb = SBUF_INIT;
	struct st		*st = NULL;
	struct err		 err;
	const struct st_tensor	*t;
	char			 path[] = "/tmp/thatch-test-st.XXXXXX";
	float			*row = xreallocarray(NULL, 16384, sizeof(float));
	int			 fd = mkstemp(path);

	/* 64 KB of weights, 0x3c3c3c3c each: pages well past the header */
	image(&sb, "{\"w\":{\"dtype\":\"F32\",\"shape\":[16384],"
	    "\"data_offsets\":[0,65536]}}", 65536);
	CHECK(write(fd, sb.buf, sb.len) == (ssize_t)sb.len);
	close(fd);
	CHECK_INT(st_open(path, &st, &err), 0);
	if (st == NULL)
		return;
	t = st_find(st, "w");
	st_read(t, 0, t->count, row);
	CHECK(row[16383] > 0.01f && st_intact(st));
	CHECK_INT(truncate(path, 1000), 0);
	st_read(t, 0, t->count, row);
	CHECK(row[16383] == 0.0f);
	CHECK(!st_intact(st));
	st_close(st);
	/* and a cut inside the last page: no fault, but the size tells */
	CHECK_INT(truncate(path, 0), 0);
	fd = open(path, O_WRONLY);
	CHECK(write(fd, sb.buf, sb.len) == (ssize_t)sb.len);
	close(fd);
	CHECK_INT(st_open(path, &st, &err), 0);
	CHECK(st != NULL && st_intact(st));
	CHECK_INT(truncate(path, (off_t)sb.len - 1), 0);
	CHECK(st != NULL && !st_intact(st));
	st_close(st);
	/* an image st_parse was given has nothing to lose */
	CHECK_INT(st_parse(sb.buf, sb.len, &st, &err), 0);
	CHECK(st != NULL && st_intact(st));
	st_close(st);
	unlink(path);
	free(row);
	sbuf_release(&sb);
}

CHECK_MAIN(
	TEST(test_good_file),
	TEST(test_bad_files),
	TEST(test_mutations_never_read_outside),
	TEST(test_widening),
	TEST(test_a_file_cut_under_its_mapping)
)
