/*
 * check.h — the unit-test harness: a test is a function, a check is a
 * macro that records a failure with file, line and both values, and
 * CHECK_MAIN runs the listed tests and prints one summary line that
 * tests/run adds up:  "unit <file>: N passed, N failed".
 */
#ifndef THATCH_TESTS_CHECK_H
#define THATCH_TESTS_CHECK_H

#include <math.h>
#include <stdio.h>
#include <string.h>

static int	check_passed, check_failed, check_test_failed;
static const char *check_current;

#define CHECK_FAIL(...) do {						\
	fprintf(stderr, "FAIL %s (%s:%d): ", check_current, __FILE__,	\
	    __LINE__);							\
	fprintf(stderr, __VA_ARGS__);					\
	fputc('\n', stderr);						\
	check_test_failed = 1;						\
} while (0)

#define CHECK(cond) do {						\
	if (!(cond))							\
		CHECK_FAIL("%s", #cond);				\
} while (0)

#define CHECK_INT(got, want) do {					\
	long long g_ = (long long)(got), w_ = (long long)(want);	\
	if (g_ != w_)							\
		CHECK_FAIL("%s == %lld, want %lld", #got, g_, w_);	\
} while (0)

#define CHECK_STR(got, want) do {					\
	const char *g_ = (got), *w_ = (want);				\
	if (g_ == NULL || w_ == NULL ? g_ != w_ : strcmp(g_, w_) != 0)	\
		CHECK_FAIL("%s\n  got:  \"%s\"\n  want: \"%s\"", #got,	\
		    g_ ? g_ : "(null)", w_ ? w_ : "(null)");		\
} while (0)

#define CHECK_NEAR(got, want, eps) do {					\
	double g_ = (got), w_ = (want);					\
	if (!(fabs(g_ - w_) <= (eps)))					\
		CHECK_FAIL("%s == %.9g, want %.9g (+-%g)", #got, g_, w_,	\
		    (double)(eps));					\
} while (0)

struct check_test {
	const char	*name;
	void		(*fn)(void);
};

#define TEST(fn)	{ #fn, fn }

static inline int
check_run(const char *file, const struct check_test *t)
{
	for (; t->name != NULL; t++) {
		check_current = t->name;
		check_test_failed = 0;
		t->fn();
		if (check_test_failed)
			check_failed++;
		else
			check_passed++;
	}
	printf("unit %s: %d passed, %d failed\n", file, check_passed,
	    check_failed);
	return check_failed != 0;
}

#define CHECK_MAIN(...)							\
int main(void) {							\
	static const struct check_test tests_[] = { __VA_ARGS__,	\
	    { NULL, NULL } };						\
	return check_run(__FILE__, tests_);				\
}

#endif
