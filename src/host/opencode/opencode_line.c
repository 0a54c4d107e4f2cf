/*
 * opencode_line.c — the request lines `thatch opencode` reads from the
 * plugin, capped, and the id of a line that does not parse, so that every
 * request gets an answer the plugin can match (opencode.c invariant 2).
 *  1. No line is held past OPENCODE_LINE_MAX bytes: from then on its bytes
 *     are counted and dropped as they arrive, and only its head is kept;
 *     the next line starts after its newline as if nothing happened.
 *  2. An id is recovered only from a line's first member, and only when
 *     the value is whole (a ',' or '}' follows it): a head cut inside a
 *     number never names another request.
 */
#include "host/opencode/opencode_line.h"

#include <string.h>

void
opencode_lines_init(struct opencode_lines *l)
{
	sbuf_init(&l->in);
	sbuf_init(&l->head);
	l->off = 0;
	l->over = 0;
}

void
opencode_lines_release(struct opencode_lines *l)
{
	sbuf_release(&l->in);
	sbuf_release(&l->head);
}

void
opencode_lines_add(struct opencode_lines *l, const char *p, size_t n)
{
	if (l->off > 0 && l->off * 2 >= l->in.len) {
		memmove(l->in.buf, l->in.buf + l->off, l->in.len - l->off);
		sbuf_setlen(&l->in, l->in.len - l->off);
		l->off = 0;
	}
	sbuf_add(&l->in, p, n);
}

/* The head of a line found over the cap at p (invariant 1). */
static void
keep_head(struct opencode_lines *l, const char *p)
{
	sbuf_reset(&l->head);
	sbuf_add(&l->head, p, OPENCODE_LINE_HEAD);
}

bool
opencode_lines_next(struct opencode_lines *l, bool eof,
    struct opencode_line *line)
{
	const char	*p = l->in.buf + l->off, *nl;
	size_t		 avail = l->in.len - l->off, len;

	nl = memchr(p, '\n', avail);
	if (nl == NULL && eof && (avail > 0 || l->over > 0))
		nl = p + avail;
	if (nl == NULL) {
		/* invariant 1: the line so far goes, its head stays */
		if (l->over == 0 && avail > OPENCODE_LINE_MAX)
			keep_head(l, p);
		if (l->over > 0 || avail > OPENCODE_LINE_MAX) {
			l->over += avail;
			sbuf_reset(&l->in);
			l->off = 0;
		}
		return false;
	}
	len = (size_t)(nl - p);
	l->off += len + (nl < p + avail);
	line->p = p;
	line->len = len;
	line->over = 0;
	if (l->over == 0 && len <= OPENCODE_LINE_MAX)
		return true;
	if (l->over == 0)
		keep_head(l, p);
	line->over = l->over + len;
	line->p = l->head.buf;
	line->len = l->head.len;
	l->over = 0;
	return true;
}

/* p past JSON white space up to end. */
static const char *
ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' ||
	    *p == '\n'))
		p++;
	return p;
}

json_t *
opencode_line_id(const char *p, size_t len)
{
	static const char	 key[] = "\"id\"";
	const char		*end = p + len;
	json_error_t		 e;
	json_t			*id;

	p = ws(p, end);
	if (p == end || *p != '{')
		return NULL;
	p = ws(p + 1, end);
	if ((size_t)(end - p) < sizeof(key) - 1 ||
	    memcmp(p, key, sizeof(key) - 1) != 0)
		return NULL;
	p = ws(p + sizeof(key) - 1, end);
	if (p == end || *p != ':')
		return NULL;
	p = ws(p + 1, end);
	id = json_loadb(p, (size_t)(end - p), JSON_DECODE_ANY |
	    JSON_DISABLE_EOF_CHECK, &e);
	if (id == NULL)
		return NULL;
	p = ws(p + e.position, end);	/* invariant 2 */
	if ((!json_is_integer(id) && !json_is_string(id)) || p == end ||
	    (*p != ',' && *p != '}')) {
		json_decref(id);
		return NULL;
	}
	return id;
}
