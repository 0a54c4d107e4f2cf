/*
 * clock.c — the time source, injectable for tests.
 *
 * Millisecond timestamps are truncated, not rounded, as the original's
 * Date#toISOString does.
 */
#include "util/os/clock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int64_t
system_now(const struct clock *c)
{
	struct timespec	ts;

	(void)c;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int64_t
fixed_now(const struct clock *c)
{
	return c->fixed_ms;
}

struct clock
clock_system(void)
{
	const char	*fake = getenv("THATCH_FAKE_NOW");
	char		*end;
	long long	 ms;

	if (fake != NULL && *fake != '\0') {
		ms = strtoll(fake, &end, 10);
		if (*end == '\0')
			return clock_fixed(ms);
	}
	return (struct clock){ system_now, 0 };
}

struct clock
clock_fixed(int64_t ms)
{
	return (struct clock){ fixed_now, ms };
}

int64_t
clock_now(const struct clock *c)
{
	return c->now_ms(c);
}

char *
clock_iso(int64_t ms, char buf[CLOCK_ISO_LEN])
{
	time_t		secs = (time_t)(ms / 1000);
	struct tm	tm;
	char		wide[96];	/* silences truncation warnings for
					   years past 9999, which never occur */

	gmtime_r(&secs, &tm);
	snprintf(wide, sizeof(wide), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
	    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
	    tm.tm_min, tm.tm_sec, (int)(ms % 1000));
	memcpy(buf, wide, CLOCK_ISO_LEN - 1);
	buf[CLOCK_ISO_LEN - 1] = '\0';
	return buf;
}

int64_t
clock_mono_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
