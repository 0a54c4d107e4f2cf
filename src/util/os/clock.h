/* clock.h — the time source, injectable for tests (clock.c). */
#ifndef THATCH_UTIL_CLOCK_H
#define THATCH_UTIL_CLOCK_H

#include <stdint.h>

/*
 * Code that stamps rows takes a struct clock instead of calling time(), so
 * tests can fix the time (DESIGN principle 5). THATCH_FAKE_NOW (milliseconds
 * since the epoch) makes clock_system() return a fixed time, for end-to-end
 * tests of the binary.
 */
struct clock {
	int64_t	(*now_ms)(const struct clock *);
	int64_t	  fixed_ms;	/* used by clock_fixed */
};

/* Wall-clock time (or THATCH_FAKE_NOW when set). */
struct clock	clock_system(void);
/* Always returns ms. */
struct clock	clock_fixed(int64_t ms);

/* Milliseconds since the epoch from c. */
int64_t	clock_now(const struct clock *);

/* Buffer for clock_iso: "YYYY-MM-DDTHH:MM:SS.mmmZ" and a NUL. */
#define CLOCK_ISO_LEN	25

/* Format ms as UTC ISO-8601 with milliseconds (store-and-tools §1.7). */
char	*clock_iso(int64_t ms, char buf[CLOCK_ISO_LEN]);

/* Monotonic milliseconds, for timeouts and deadlines. */
int64_t	clock_mono_ms(void);

#endif
