/*
 * anchor_span.c — the text of a symbol's definition, found by a scan of
 * lines rather than a parser, so that a symbol anchor stays fresh when the
 * file changed elsewhere.
 *
 *  1. The definition starts on the first line naming the symbol as a
 *     whole word after a defining keyword (def, class, fn, func, struct,
 *     #define ...), or first on its line, or unindented and followed by
 *     "(" (C's "type name(args)" without the ";" of a declaration).
 *  2. It runs to the next non-blank line indented no deeper than its start
 *     ("{" on its own line continues it; a closing "}", ")" or "end" is
 *     its last line): C braces and Python blocks alike.
 *  3. No definition found answers false: the caller calls that changed.
 */
#define _GNU_SOURCE		/* memmem */
#include "core/anchor/anchor_int.h"

#include <string.h>

#include "util/ascii.h"

static const char *const keywords[] = {
	"def", "class", "fn", "func", "function", "struct", "enum", "union",
	"type", "interface", "trait", "impl", "module", "#define", "const",
	"let", "var", "typedef", "sub", "macro", NULL,
};

static bool
word_char(char c)
{
	return ascii_is_upper(c) || ascii_is_lower(c) || (c >= '0' &&
	    c <= '9') || c == '_' || c == '$';
}

static size_t
indent(const char *l, const char *end)
{
	const char	*p = l;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return (size_t)(p - l);
}

/* Whether the word before position w on line l is a defining keyword. */
static bool
after_keyword(const char *l, const char *w)
{
	const char *const	*k;
	const char		*e = w, *b;

	while (e > l && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '*'))
		e--;
	for (b = e; b > l && (word_char(b[-1]) || b[-1] == '#'); b--)
		;
	for (k = keywords; *k != NULL; k++)
		if ((size_t)(e - b) == strlen(*k) &&
		    memcmp(b, *k, (size_t)(e - b)) == 0)
			return true;
	return false;
}

/* Invariant 1 for the line [l, end). */
static bool
defines(const char *l, const char *end, const char *sym, size_t n)
{
	const char	*w, *p;

	for (w = l; (w = memmem(w, (size_t)(end - w), sym, n)) != NULL;
	    w += n) {
		if ((w > l && word_char(w[-1])) || (w + n < end &&
		    word_char(w[n])))
			continue;
		if (after_keyword(l, w) || w == l + indent(l, end))
			return true;
		for (p = w + n; p < end && *p == ' '; p++)
			;
		if (indent(l, end) == 0 && p < end && *p == '(' &&
		    end[-1] != ';')
			return true;
	}
	return false;
}

static const char *
line_end(const char *l, const char *end)
{
	const char	*nl = memchr(l, '\n', (size_t)(end - l));

	return nl != NULL ? nl : end;
}

bool
anchor_span(const char *s, size_t len, const char *symbol,
    char oid[ANCHOR_OID_LEN])
{
	const char	*end = s + len, *l, *le, *start = NULL, *stop;
	size_t		 n = strlen(symbol), ind = 0, in;

	for (l = s; l < end && start == NULL; l = le + 1) {
		le = line_end(l, end);
		if (defines(l, le, symbol, n)) {
			start = l;
			ind = indent(l, le);
		}
	}
	if (start == NULL)
		return false;
	for (stop = l; stop < end; stop = le + 1) {	/* invariant 2 */
		le = line_end(stop, end);
		in = indent(stop, le);
		if (stop + in == le || in > ind || stop[in] == '{')
			continue;
		if (stop[in] == '}' || stop[in] == ')' ||
		    (le - stop - in >= 3 && memcmp(stop + in, "end", 3) == 0))
			stop = le;
		break;
	}
	if (stop > end)
		stop = end;
	gitoid_blob(start, (size_t)(stop - start), oid);
	return true;
}
