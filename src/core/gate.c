/*
 * gate.c — the one check every memory that arrives from outside passes
 * (issue 31): what sync receives and import reads is held to what a
 * local memory_remember could have written, so that no record can make
 * the store unreadable or carry framing in a field.
 *
 * It knows the entries columns and slug_make, nothing of where a record
 * came from or of SQL.
 *  1. A record either passes whole or is refused with one reason; the
 *     only change the gate makes is clamping a future time to now.
 *  2. The rules are a table (rules[]), each a predicate and its reason.
 */
#include "core/gate.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/anchor/anchor.h"
#include "core/slug.h"
#include "core/store/store.h"
#include "util/utf8.h"
#include "util/xmalloc.h"

/* Valid UTF-8 of at most max bytes; with line, no control either. */
static bool
text_ok(const char *s, size_t max, bool line)
{
	size_t	i, n, len;
	int32_t	cp;

	if (s == NULL)
		return true;
	if ((n = strlen(s)) > max)
		return false;
	for (i = 0; i < n; i += len) {
		len = utf8_decode(s + i, n - i, &cp);
		if (cp == 0xFFFD && len == 1)
			return false;
		if (line && (cp < 0x20 || cp == 0x7f ||
		    (cp >= 0x80 && cp <= 0x9f) || cp == 0x2028 ||
		    cp == 0x2029))
			return false;
	}
	return true;
}

int
gate_branch_ok(const char *s)
{
	size_t	n = strlen(s);

	if (n == 0 || n > GATE_BRANCH_MAX || *s == '-' || *s == '/' ||
	    s[n - 1] == '/' || s[n - 1] == '.' || strcmp(s, "@") == 0 ||
	    strstr(s, "..") != NULL || strstr(s, "@{") != NULL ||
	    strstr(s, "//") != NULL || strstr(s, "/.") != NULL || *s == '.' ||
	    (n >= 5 && strcmp(s + n - 5, ".lock") == 0) ||
	    strstr(s, ".lock/") != NULL)
		return 0;
	for (; *s != '\0'; s++)
		if ((unsigned char)*s <= ' ' || *s == 0x7f ||
		    strchr("~^:?*[\\", *s) != NULL)
			return 0;
	return 1;
}

/* The two-digit number at s. */
static int
two(const char *s)
{
	return (s[0] - '0') * 10 + (s[1] - '0');
}

/* "YYYY-MM-DDTHH:MM:SS[.fraction]Z", each field in range. */
static bool
iso_ok(const char *s)
{
	static const char	pat[] = "dddd-dd-ddTdd:dd:dd";
	const char		*p;
	size_t			 i;

	if (s == NULL)
		return false;
	for (i = 0; pat[i] != '\0'; i++)
		if (pat[i] == 'd' ? !(s[i] >= '0' && s[i] <= '9') :
		    s[i] != pat[i])
			return false;
	if (two(s + 5) < 1 || two(s + 5) > 12 || two(s + 8) < 1 ||
	    two(s + 8) > 31 || two(s + 11) > 23 || two(s + 14) > 59 ||
	    two(s + 17) > 60)
		return false;
	p = s + i;
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++)
			;
	return strcmp(p, "Z") == 0;
}

/* A time after now becomes now (invariant 1). */
static void
clamp(char **t, const char *now)
{
	if (*t != NULL && now != NULL && strcmp(*t, now) > 0) {
		free(*t);
		*t = xstrdup(now);
	}
}

static bool
r_slug(const struct store_entry *e)
{
	char	*want = slug_make(e->label, strlen(e->label));
	bool	 ok = e->slug != NULL && strcmp(want, e->slug) == 0;

	free(want);
	return ok;
}

static bool
r_label(const struct store_entry *e)
{
	return e->label != NULL && *e->label != '\0' &&
	    text_ok(e->label, GATE_LABEL_MAX, true);
}

static bool
r_content(const struct store_entry *e)
{
	return text_ok(e->content, GATE_CONTENT_MAX, false);
}

static bool
r_branch(const struct store_entry *e)
{
	return e->branch == NULL || *e->branch == '\0' ||
	    gate_branch_ok(e->branch);
}

static bool
r_confidence(const struct store_entry *e)
{
	return e->confidence >= 0 && e->confidence <= 10;
}

static bool
r_times(const struct store_entry *e)
{
	return iso_ok(e->created_at) && iso_ok(e->updated_at) &&
	    (e->last_recalled_at == NULL || iso_ok(e->last_recalled_at));
}

static bool
r_anchors(const struct store_entry *e)
{
	return e->anchors == NULL || anchor_doc_check(e->anchors) == NULL;
}

static const struct {
	bool		(*ok)(const struct store_entry *);
	const char	*reason;
} rules[] = {
	{ r_label, "its label is empty, too long, not UTF-8 or holds a "
	    "control character" },
	{ r_slug, "its slug is not the one its label maps to" },
	{ r_content, "its content is too long or not UTF-8" },
	{ r_branch, "its branch is not a git branch name" },
	{ r_confidence, "its confidence is not between 1 and 10" },
	{ r_times, "a date of it is not an ISO-8601 UTC time" },
	{ r_anchors, "its anchors are not repository-relative paths with "
	    "git ids" },
};

const char *
gate_entry(struct store_entry *e, const char *now)
{
	size_t	i;

	for (i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
		if (!rules[i].ok(e))
			return rules[i].reason;
	clamp(&e->created_at, now);
	clamp(&e->updated_at, now);
	clamp(&e->last_recalled_at, now);
	return NULL;
}
