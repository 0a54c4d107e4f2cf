/*
 * num.c — numbers printed the way the original's JavaScript prints them.
 *
 * The original formats with Number#toString and Number#toFixed; C's printf
 * differs in two places that users see: %g keeps no shortest form, and %.Nf
 * rounds exact binary ties to even. Both are fixed here, in one place.
 */
#include "util/num.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Strip a %e exponent's leading zeros and add JS's explicit '+'. */
static void
js_exponent(char *buf)
{
	char	*e = strchr(buf, 'e'), *d;
	char	 sign;
	int	 exp;

	if (e == NULL)
		return;
	exp = (int)strtol(e + 1, NULL, 10);
	sign = exp < 0 ? '-' : '+';
	d = e;
	/* drop trailing zeros of the mantissa */
	if (strchr(buf, '.') != NULL && strchr(buf, '.') < e) {
		char	*t = e;
		while (t[-1] == '0')
			t--;
		if (t[-1] == '.')
			t--;
		d = t;
	}
	snprintf(d, NUM_BUFSZ - (size_t)(d - buf), "e%c%d", sign,
	    exp < 0 ? -exp : exp);
}

char *
num_js(double x, char buf[NUM_BUFSZ])
{
	int	prec;
	double	ax = fabs(x);

	if (!isfinite(x)) {
		memcpy(buf, "null", 5);
		return buf;
	}
	if (x == 0) {
		memcpy(buf, "0", 2);
		return buf;
	}
	for (prec = 1; prec <= 17; prec++) {
		snprintf(buf, NUM_BUFSZ, "%.*e", prec - 1, x);
		if (strtod(buf, NULL) == x)
			break;
	}
	if (ax >= 1e21 || ax < 1e-6) {
		js_exponent(buf);
		return buf;
	}
	/* Re-print positionally with exactly the digits needed. */
	{
		int	exp10, decimals;

		exp10 = (int)strtol(strchr(buf, 'e') + 1, NULL, 10);
		decimals = prec - 1 - exp10;
		if (decimals < 0)
			decimals = 0;
		snprintf(buf, NUM_BUFSZ, "%.*f", decimals, x);
		if (strchr(buf, '.') != NULL) {
			size_t	n = strlen(buf);
			while (buf[n - 1] == '0')
				buf[--n] = '\0';
			if (buf[n - 1] == '.')
				buf[--n] = '\0';
		}
	}
	return buf;
}

char *
num_fixed(double x, int d, char buf[NUM_BUFSZ])
{
	char		 exact[400], *dot;
	const char	*rest, *r;
	double		 scaled, lo;
	int		 tie;

	if (!isfinite(x)) {
		memcpy(buf, "null", 5);
		return buf;
	}
	/*
	 * toFixed rounds the exact binary value, so ties only occur when the
	 * double sits exactly halfway; %.60f shows every digit of it, which
	 * tells a true tie from a near one.
	 */
	snprintf(buf, NUM_BUFSZ, "%.*f", d, x);
	scaled = fabs(x) * pow(10, d);
	lo = floor(scaled);
	if (scaled - lo == 0.5) {
		snprintf(exact, sizeof(exact), "%.60f", fabs(x));
		dot = strchr(exact, '.');
		rest = dot + 1 + d;
		tie = rest[0] == '5';
		for (r = rest + 1; tie && *r; r++)
			if (*r != '0')
				tie = 0;
		if (tie) {
			double	up = (lo + 1) / pow(10, d);
			snprintf(buf, NUM_BUFSZ, "%s%.*f", x < 0 ? "-" : "",
			    d, up);
		}
	}
	return buf;
}

double
num_round3(double x)
{
	return floor(x * 1000 + 0.5) / 1000;
}

double
num_env(const char *name, double dflt)
{
	const char	*v = getenv(name);
	char		*end;
	double		 x;

	if (v == NULL || *v == '\0')
		return dflt;
	x = strtod(v, &end);
	if (end == v || !isfinite(x))
		return dflt;
	return x;
}
