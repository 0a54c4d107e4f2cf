/*
 * test_isa.c — THATCH_ISA picks the kernels (util/isa.c): every ISA this
 * CPU has can be forced and then core/vector.c's float and int8 dots
 * (the search's and dedup's scans) give the exact dot to float rounding,
 * and the band's double dots (store_nearest.c) to double rounding,
 * at lengths that leave every kind of tail; generic is always there; an
 * unknown name, or an ISA this CPU or build lacks, is refused with a
 * reason that names the variable.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/vector.h"
#include "util/err.h"
#include "util/isa.h"

#define MAXD	400

/* Deterministic values in [-1, 1). */
static float
noise(unsigned *s)
{
	*s = *s * 1103515245u + 12345u;
	return (float)((*s >> 8) & 0xffff) / 32768.0f - 1.0f;
}

/* The dots of the ISA in effect against double sums, at length d. */
static void
check_dots(size_t d)
{
	static float		a[4 * MAXD], b[MAXD];
	static signed char	m[4 * MAXD];
	unsigned		s = (unsigned)d;
	float			out[4];
	double			want, dd[2];
	size_t			i;
	int			r;

	for (i = 0; i < 4 * d; i++) {
		a[i] = noise(&s);
		m[i] = (signed char)(noise(&s) * 127);
	}
	for (i = 0; i < d; i++)
		b[i] = noise(&s);
	vector_sdot4(a, d, b, out);
	for (r = 0; r < 4; r++) {
		want = vector_dot(a + r * d, b, (int)d);
		CHECK_NEAR(out[r], want, 1e-4);
	}
	vector_dot_int8(b, m, 4, (int)d, out);
	for (r = 0; r < 4; r++) {
		for (want = 0, i = 0; i < d; i++)
			want += (double)b[i] * m[r * d + i];
		CHECK_NEAR(out[r], want, 1e-2);	/* sums up to ~100 */
	}
	/* the band's double dots: exact products, so ~dim ulps of a sum */
	vector_ddot2_int8(b, m, m + d, (int)d, dd);
	for (r = 0; r < 2; r++) {
		for (want = 0, i = 0; i < d; i++)
			want += (double)b[i] * m[r * d + i];
		CHECK_NEAR(dd[r], want, 1e-10);
	}
}

static void
test_every_available_isa_computes_the_dots(void)
{
	static const size_t	ds[] = { 1, 3, 4, 7, 8, 15, 16, 17, 31, 32,
				    33, 384, MAXD };
	struct err		err;
	enum isa		isa;
	size_t			j;
	int			i;

	CHECK(isa_available(ISA_GENERIC));
	for (i = 0; i < ISA_COUNT; i++) {
		if (!isa_available((enum isa)i))
			continue;
		setenv("THATCH_ISA", isa_name((enum isa)i), 1);
		CHECK_INT(isa_select(&isa, &err), 0);
		CHECK_INT(isa, i);
		CHECK_INT(isa_current(), i);
		for (j = 0; j < sizeof(ds) / sizeof(ds[0]); j++)
			check_dots(ds[j]);
	}
	unsetenv("THATCH_ISA");
	CHECK_INT(isa_select(&isa, &err), 0);
	CHECK_INT(isa, isa_best());
}

static void
test_unknown_or_unavailable_isas_are_refused(void)
{
	struct err	err;
	enum isa	isa;
	int		i;

	setenv("THATCH_ISA", "sparc", 1);
	CHECK_INT(isa_select(&isa, &err), -1);
	CHECK(strstr(err.msg, "THATCH_ISA=sparc: unknown") != NULL);
	for (i = 0; i < ISA_COUNT; i++) {
		if (isa_available((enum isa)i))
			continue;
		setenv("THATCH_ISA", isa_name((enum isa)i), 1);
		CHECK_INT(isa_select(&isa, &err), -1);
		CHECK(strstr(err.msg, "cannot run it") != NULL);
	}
	unsetenv("THATCH_ISA");
	CHECK_INT(isa_current(), isa_best());	/* refusals change nothing */
}

CHECK_MAIN(
	TEST(test_every_available_isa_computes_the_dots),
	TEST(test_unknown_or_unavailable_isas_are_refused)
)
