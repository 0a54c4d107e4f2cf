/*
 * fence.c — stored text made safe to put in an agent's context: every
 * field and body that comes out of the store (and may have come from a
 * teammate through sync, an import or a chat peer) is rendered here before
 * it sits beside thatch's own sentences (issue 31).
 *
 * It knows nothing of memories: it sees strings.
 *  1. Output is a pure function of the input string.
 *  2. What thatch wrote never changes for ordinary text: a plain field or
 *     body is appended byte for byte; only text that could end thatch's
 *     framing or pass for it is quoted or fenced.
 *  3. A quoted field holds no raw quote, backslash, control or line break;
 *     a fenced body's closing line cannot occur inside it.
 */
#include "text/fence.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "util/sbuf.h"
#include "util/utf8.h"

/* One code point of s: its length, and whether it is a real one. */
static size_t
next_cp(const char *s, size_t n, int32_t *cp, bool *valid)
{
	size_t	len = utf8_decode(s, n, cp);

	*valid = !(*cp == 0xFFFD && len == 1);
	return len;
}

static bool
is_control(int32_t cp)
{
	return cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f) ||
	    cp == 0x2028 || cp == 0x2029;
}

/*
 * Append s with controls and bad bytes escaped; in a quoted field also
 * quotes, backslashes, newlines and tabs, which a body keeps.
 */
static void
escape(struct sbuf *out, const char *s, bool quoted)
{
	size_t	i, n, len;
	int32_t	cp;
	bool	valid;

	n = s != NULL ? strlen(s) : 0;
	for (i = 0; i < n; i += len) {
		len = next_cp(s + i, n - i, &cp, &valid);
		if (!valid)
			sbuf_addf(out, "\\x%02X", (unsigned char)s[i]);
		else if (quoted && (cp == '"' || cp == '\\'))
			sbuf_addf(out, "\\%c", (char)cp);
		else if (quoted && cp == '\n')
			sbuf_adds(out, "\\n");
		else if (quoted && cp == '\t')
			sbuf_adds(out, "\\t");
		else if (cp == '\r')
			sbuf_adds(out, "\\r");
		else if (is_control(cp) && cp != '\n' && cp != '\t')
			sbuf_addf(out, "\\u%04X", (unsigned)cp);
		else
			sbuf_add(out, s + i, len);
	}
}

void
text_fence_inner(struct sbuf *out, const char *s)
{
	escape(out, s, true);
}

void
text_fence_quoted(struct sbuf *out, const char *s)
{
	sbuf_addc(out, '"');
	text_fence_inner(out, s);
	sbuf_addc(out, '"');
}

/* Valid UTF-8 with no control, except newline and tab when text is set. */
static bool
clean(const char *s, bool text)
{
	size_t	i, n = strlen(s), len;
	int32_t	cp;
	bool	valid;

	for (i = 0; i < n; i += len) {
		len = next_cp(s + i, n - i, &cp, &valid);
		if (!valid || (is_control(cp) &&
		    !(text && (cp == '\n' || cp == '\t'))))
			return false;
	}
	return true;
}

void
text_fence_field(struct sbuf *out, const char *s)
{
	if (s == NULL)
		s = "";
	if (clean(s, false) && strpbrk(s, "\"\\[]`") == NULL)
		sbuf_adds(out, s);
	else
		text_fence_quoted(out, s);
}

/* Does the line at s start the way one of thatch's frame lines does? */
static bool
framing_line(const char *s)
{
	static const char *const	starts[] = { "[", "---", "```", "~~~" };
	size_t				i;

	s += strspn(s, " \t");
	for (i = 0; i < sizeof(starts) / sizeof(starts[0]); i++)
		if (strncmp(s, starts[i], strlen(starts[i])) == 0)
			return true;
	return false;
}

static bool
plain_body(const char *s)
{
	const char	*line;

	if (!clean(s, true))
		return false;
	for (line = s; line != NULL; line = strchr(line, '\n'))
		if (framing_line(*line == '\n' ? ++line : line))
			return false;
	return true;
}

/* The longest run of backquotes in s. */
static size_t
longest_tick_run(const char *s)
{
	size_t	best = 0, run;

	while ((s = strchr(s, '`')) != NULL) {
		run = strspn(s, "`");
		if (run > best)
			best = run;
		s += run;
	}
	return best;
}

void
text_fence_body(struct sbuf *out, const char *s)
{
	size_t	i, ticks;

	if (s == NULL)
		s = "";
	if (plain_body(s)) {
		sbuf_adds(out, s);
		return;
	}
	ticks = longest_tick_run(s) + 1;
	if (ticks < 3)
		ticks = 3;
	for (i = 0; i < ticks; i++)
		sbuf_addc(out, '`');
	sbuf_addc(out, '\n');
	escape(out, s, false);
	if (*s == '\0' || s[strlen(s) - 1] != '\n')
		sbuf_addc(out, '\n');
	for (i = 0; i < ticks; i++)
		sbuf_addc(out, '`');
}
