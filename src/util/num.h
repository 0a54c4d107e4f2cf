/* num.h — numbers printed the way the original's JavaScript prints them (num.c). */
#ifndef THATCH_UTIL_NUM_H
#define THATCH_UTIL_NUM_H

#include <stddef.h>

/* Room for any output of these functions, terminator included. */
#define NUM_BUFSZ	32

/*
 * JavaScript's String(x) / JSON.stringify(x): the shortest decimal that
 * reads back as the same double, no trailing zeros ("1", "0.5", "0.857",
 * "1e-7", "1e+21"). NaN and infinities print as "null" (JSON's choice).
 * Returns buf.
 */
char	*num_js(double, char buf[NUM_BUFSZ]);

/*
 * JavaScript's x.toFixed(d) for 0 <= d <= 10: exact ties round away from
 * zero, where printf("%.*f") rounds half to even ("0.125" -> "0.13" here,
 * "0.12" in C). Returns buf.
 */
char	*num_fixed(double, int, char buf[NUM_BUFSZ]);

/* floor(x * 1000 + 0.5) / 1000, the original's round3 (store-and-tools §4.1). */
double	 num_round3(double);

/*
 * Parse a threshold from the environment: strtod on the whole value; the
 * default when the variable is unset, empty, unparseable or not finite
 * (hosts-hooks-cli §1.2 deviation from parseFloat).
 */
double	 num_env(const char *name, double dflt);

#endif
