/*
 * memdoc.c — one memory as a markdown document: front matter holding every
 * column of its entries row, then its content. The one format of
 * `thatch export --format markdown` and of the team-sync tree, so that a
 * memory reads the same wherever it is kept (docs/export.md).
 *
 * It knows the entries columns (struct store_entry), plus the memory's
 * anchors as one JSON text it checks only for being JSON (the gate judges
 * them), and nothing of files, stores or SQL.
 *  1. Deterministic: the keys are those of memdoc_fields[], always all of
 *     them and always in that order; a string has one spelling (the
 *     escapes render_str writes), a vector one base64.
 *  2. Exact: parse(render(e)) == e, byte for byte, whatever the strings
 *     hold (control characters, invalid UTF-8, "---" lines in content).
 *     Only content can hold a newline unescaped, and it comes last.
 *  3. The parser takes any bytes and fails with the line it stopped at;
 *     it never reads past n and builds only NUL-free strings.
 *  4. The front matter is a subset of YAML (double-quoted scalars, null,
 *     true/false, integers) so that other tools read it as YAML; the one
 *     departure is \xHH, which here is the raw byte HH (a label that is
 *     not UTF-8 survives) where YAML would read U+00HH. The anchors are a
 *     JSON array on one line, which YAML reads as a flow sequence.
 */
#include "core/sync/memdoc.h"

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "core/slug.h"
#include "core/store/store.h"
#include "util/b64.h"
#include "util/err.h"
#include "util/sbuf.h"
#include "util/utf8.h"
#include "util/xmalloc.h"

enum memdoc_kind {
	MD_STR,		/* char *, NULL is `null` */
	MD_CONF,	/* int, 0 is `null` */
	MD_BOOL,
	MD_INT,
	MD_JSON,	/* char *, a JSON text as it is; only when set */
	MD_VEC,		/* vec/dim, only when dim > 0 */
};

static const struct memdoc_field {
	const char		*key;
	enum memdoc_kind	 kind;
	size_t			 off;
} memdoc_fields[] = {
	{ "label", MD_STR, offsetof(struct store_entry, label) },
	{ "slug", MD_STR, offsetof(struct store_entry, slug) },
	{ "store", MD_STR, offsetof(struct store_entry, store) },
	{ "branch", MD_STR, offsetof(struct store_entry, branch) },
	{ "confidence", MD_CONF, offsetof(struct store_entry, confidence) },
	{ "archived", MD_BOOL, offsetof(struct store_entry, archived) },
	{ "created_at", MD_STR, offsetof(struct store_entry, created_at) },
	{ "updated_at", MD_STR, offsetof(struct store_entry, updated_at) },
	{ "recall_count", MD_INT, offsetof(struct store_entry, recall_count) },
	{ "last_recalled_at", MD_STR,
	    offsetof(struct store_entry, last_recalled_at) },
	{ "model", MD_STR, offsetof(struct store_entry, model) },
	{ "anchors", MD_JSON, offsetof(struct store_entry, anchors) },
	{ "embedding", MD_VEC, 0 },
};
#define MEMDOC_NFIELDS	(sizeof(memdoc_fields) / sizeof(memdoc_fields[0]))

#define FIELD(e, f, type)	((type *)((char *)(e) + (f)->off))

/* A string as a double-quoted scalar: one spelling per string. */
static void
render_str(struct sbuf *out, const char *s)
{
	size_t	n = strlen(s), k;
	int32_t	cp;

	sbuf_addc(out, '"');
	while (n > 0) {
		k = utf8_decode(s, n, &cp);
		if (cp == 0xfffd && k == 1)
			sbuf_addf(out, "\\x%02X", (unsigned char)*s);
		else if (*s == '"' || *s == '\\')
			sbuf_addf(out, "\\%c", *s);
		else if (*s == '\n')
			sbuf_adds(out, "\\n");
		else if (*s == '\t')
			sbuf_adds(out, "\\t");
		else if (*s == '\r')
			sbuf_adds(out, "\\r");
		else if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0) ||
		    cp == 0x2028 || cp == 0x2029 || cp == 0xfeff)
			sbuf_addf(out, "\\u%04X", (unsigned)cp);
		else
			sbuf_add(out, s, k);
		s += k;
		n -= k;
	}
	sbuf_addc(out, '"');
}

static void
render_vec(struct sbuf *out, const float *vec, int dim)
{
	sbuf_addc(out, '"');
	b64_encode_f32(out, vec, dim);
	sbuf_addc(out, '"');
}

void
memdoc_render(const struct store_entry *e, struct sbuf *out)
{
	const struct memdoc_field	*f;
	const char			*s;
	int				 v;

	sbuf_adds(out, "---\n");
	for (f = memdoc_fields; f < memdoc_fields + MEMDOC_NFIELDS; f++) {
		if ((f->kind == MD_VEC && e->dim <= 0) ||
		    (f->kind == MD_JSON && *FIELD(e, f, char *const) == NULL))
			continue;
		sbuf_addf(out, "%s: ", f->key);
		switch (f->kind) {
		case MD_STR:
			if ((s = *FIELD(e, f, char *const)) == NULL)
				sbuf_adds(out, "null");
			else
				render_str(out, s);
			break;
		case MD_CONF:
		case MD_INT:
			v = *FIELD(e, f, const int);
			if (f->kind == MD_CONF && v == 0)
				sbuf_adds(out, "null");
			else
				sbuf_addf(out, "%d", v);
			break;
		case MD_BOOL:
			sbuf_adds(out, *FIELD(e, f, const bool) ? "true" :
			    "false");
			break;
		case MD_JSON:
			sbuf_adds(out, *FIELD(e, f, char *const));
			break;
		case MD_VEC:
			render_vec(out, e->vec, e->dim);
			break;
		}
		sbuf_addc(out, '\n');
	}
	sbuf_adds(out, "---\n");
	if (e->content != NULL)
		sbuf_adds(out, e->content);
	sbuf_addc(out, '\n');
}

/* ---- parsing ------------------------------------------------------------ */

struct memdoc_parser {
	const char	*p, *end;	/* the rest of the input */
	int		 line;
	struct err	*err;
};

static int
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* n hex digits at s, or -1 */
static long
hexn(const char *s, const char *end, int n)
{
	long	v = 0;
	int	d, i;

	if (end - s < n)
		return -1;
	for (i = 0; i < n; i++) {
		if ((d = hexval(s[i])) < 0)
			return -1;
		v = v * 16 + d;
	}
	return v;
}

static void
add_utf8(struct sbuf *sb, uint32_t c)
{
	if (c < 0x80)
		sbuf_addc(sb, (char)c);
	else if (c < 0x800) {
		sbuf_addc(sb, (char)(0xc0 | c >> 6));
		sbuf_addc(sb, (char)(0x80 | (c & 0x3f)));
	} else if (c < 0x10000) {
		sbuf_addc(sb, (char)(0xe0 | c >> 12));
		sbuf_addc(sb, (char)(0x80 | (c >> 6 & 0x3f)));
		sbuf_addc(sb, (char)(0x80 | (c & 0x3f)));
	} else {
		sbuf_addc(sb, (char)(0xf0 | c >> 18));
		sbuf_addc(sb, (char)(0x80 | (c >> 12 & 0x3f)));
		sbuf_addc(sb, (char)(0x80 | (c >> 6 & 0x3f)));
		sbuf_addc(sb, (char)(0x80 | (c & 0x3f)));
	}
}

/* One escape after the backslash at *s; advances *s past it. */
static int
parse_escape(struct memdoc_parser *mp, const char **s, const char *end,
    struct sbuf *out)
{
	static const char	simple[] = "\"\"\\\\//n\nt\tr\rb\bf\f";
	const char		*q;
	long			 v, lo;

	if (*s >= end)
		return err_set(mp->err, "line %d: unfinished escape", mp->line);
	for (q = simple; *q != '\0'; q += 2)
		if (**s == q[0]) {
			sbuf_addc(out, q[1]);
			(*s)++;
			return 0;
		}
	if (**s == 'x') {
		if ((v = hexn(*s + 1, end, 2)) <= 0)
			return err_set(mp->err, "line %d: bad \\x escape",
			    mp->line);
		sbuf_addc(out, (char)v);
		*s += 3;
		return 0;
	}
	if (**s != 'u' || (v = hexn(*s + 1, end, 4)) <= 0)
		return err_set(mp->err, "line %d: bad escape", mp->line);
	*s += 5;
	if (v >= 0xdc00 && v < 0xe000)
		return err_set(mp->err, "line %d: lone surrogate", mp->line);
	if (v >= 0xd800 && v < 0xdc00) {
		if (end - *s < 6 || (*s)[0] != '\\' || (*s)[1] != 'u' ||
		    (lo = hexn(*s + 2, end, 4)) < 0xdc00 || lo >= 0xe000)
			return err_set(mp->err, "line %d: lone surrogate",
			    mp->line);
		v = 0x10000 + ((v - 0xd800) << 10) + (lo - 0xdc00);
		*s += 6;
	}
	add_utf8(out, (uint32_t)v);
	return 0;
}

/*
 * A string value [s, end): `null` (*out stays NULL), a double-quoted
 * scalar, or a plain one taken as it is.
 */
static int
parse_str(struct memdoc_parser *mp, const char *s, const char *end,
    char **out)
{
	struct sbuf	sb = SBUF_INIT;

	if (end - s == 4 && memcmp(s, "null", 4) == 0)
		return 0;
	sbuf_init(&sb);
	if (s == end || *s != '"') {
		sbuf_add(&sb, s, (size_t)(end - s));
		*out = sbuf_detach(&sb, NULL);
		return 0;
	}
	for (s++; s < end && *s != '"';) {
		if (*s == '\\') {
			s++;
			if (parse_escape(mp, &s, end, &sb) != 0)
				goto bad;
		} else
			sbuf_addc(&sb, *s++);
	}
	if (s + 1 != end) {
		err_set(mp->err, "line %d: %s", mp->line, s == end ?
		    "unterminated string" : "text after the closing quote");
		goto bad;
	}
	*out = sbuf_detach(&sb, NULL);
	return 0;
bad:
	sbuf_release(&sb);
	return -1;
}

static int
parse_int(struct memdoc_parser *mp, const char *s, const char *end, int *v)
{
	long long	n = 0;
	bool		neg = s < end && *s == '-';
	const char	*d = s + neg;

	if (d == end || end - d > 10)
		return err_set(mp->err, "line %d: not an integer", mp->line);
	for (; d < end; d++) {
		if (*d < '0' || *d > '9')
			return err_set(mp->err, "line %d: not an integer",
			    mp->line);
		n = n * 10 + (*d - '0');
	}
	if (neg)
		n = -n;
	if (n < INT_MIN || n > INT_MAX)
		return err_set(mp->err, "line %d: integer out of range",
		    mp->line);
	*v = (int)n;
	return 0;
}

static int
parse_vec(struct memdoc_parser *mp, const char *s, const char *end,
    struct store_entry *e)
{
	if (end - s < 2 || *s != '"' || end[-1] != '"' ||
	    (e->vec = b64_decode_f32(s + 1, (size_t)(end - s - 2),
	    &e->dim)) == NULL)
		return err_set(mp->err, "line %d: embedding is not base64 "
		    "float32s", mp->line);
	return 0;
}

/* A JSON value on one line, kept as its text (render gives it back). */
static int
parse_json(struct memdoc_parser *mp, const char *s, const char *end,
    char **out)
{
	json_t	*v = json_loadb(s, (size_t)(end - s), 0, NULL);

	if (v == NULL)
		return err_set(mp->err, "line %d: not JSON", mp->line);
	json_decref(v);
	*out = xstrndup(s, (size_t)(end - s));
	return 0;
}

static int
parse_value(struct memdoc_parser *mp, const struct memdoc_field *f,
    const char *s, const char *end, struct store_entry *e)
{
	switch (f->kind) {
	case MD_STR:
		return parse_str(mp, s, end, FIELD(e, f, char *));
	case MD_CONF:
		if (end - s == 4 && memcmp(s, "null", 4) == 0)
			return 0;
		if (parse_int(mp, s, end, FIELD(e, f, int)) != 0)
			return -1;
		if (*FIELD(e, f, int) == 0)
			return err_set(mp->err, "line %d: confidence 0 is "
			    "written null", mp->line);
		return 0;
	case MD_INT:
		return parse_int(mp, s, end, FIELD(e, f, int));
	case MD_BOOL:
		if (end - s == 4 && memcmp(s, "true", 4) == 0)
			*FIELD(e, f, bool) = true;
		else if (!(end - s == 5 && memcmp(s, "false", 5) == 0))
			return err_set(mp->err, "line %d: %s is true or false",
			    mp->line, f->key);
		return 0;
	case MD_JSON:
		return parse_json(mp, s, end, FIELD(e, f, char *));
	case MD_VEC:
		return parse_vec(mp, s, end, e);
	}
	return 0;
}

/* The next line [*ls, *le) without its "\n" or "\r\n"; false at the end. */
static bool
next_line(struct memdoc_parser *mp, const char **ls, const char **le)
{
	const char	*nl;

	if (mp->p >= mp->end)
		return false;
	*ls = mp->p;
	if ((nl = memchr(mp->p, '\n', (size_t)(mp->end - mp->p))) == NULL) {
		*le = mp->p = mp->end;
	} else {
		*le = nl;
		mp->p = nl + 1;
	}
	if (*le > *ls && (*le)[-1] == '\r')
		(*le)--;
	mp->line++;
	return true;
}

static bool
is_fence(const char *ls, const char *le)
{
	return le - ls == 3 && memcmp(ls, "---", 3) == 0;
}

/* One "key: value" line; seen[] catches repeats. */
static int
parse_line(struct memdoc_parser *mp, const char *ls, const char *le,
    struct store_entry *e, bool *seen)
{
	const char	*colon, *v;
	size_t		 klen, i;

	if (ls == le || *ls == '#')
		return 0;
	for (colon = ls; colon < le && ((*colon >= 'a' && *colon <= 'z') ||
	    (*colon >= '0' && *colon <= '9') || *colon == '_' ||
	    *colon == '-'); colon++)
		;
	klen = (size_t)(colon - ls);
	if (klen == 0 || colon == le || *colon != ':' ||
	    (colon + 1 < le && colon[1] != ' '))
		return err_set(mp->err, "line %d: not a \"key: value\" line",
		    mp->line);
	for (v = colon + 1; v < le && *v == ' '; v++)
		;
	while (le > v && le[-1] == ' ')
		le--;
	if (memchr(ls, '\0', (size_t)(le - ls)) != NULL)
		return err_set(mp->err, "line %d: holds a NUL byte", mp->line);
	for (i = 0; i < MEMDOC_NFIELDS; i++)
		if (strlen(memdoc_fields[i].key) == klen &&
		    memcmp(memdoc_fields[i].key, ls, klen) == 0)
			break;
	if (i == MEMDOC_NFIELDS)
		return 0;	/* a newer thatch's key, or the user's */
	if (seen[i])
		return err_set(mp->err, "line %d: %s given twice", mp->line,
		    memdoc_fields[i].key);
	seen[i] = true;
	return parse_value(mp, &memdoc_fields[i], v, le, e);
}

int
memdoc_parse(const char *buf, size_t n, struct store_entry *e,
    struct err *err)
{
	struct memdoc_parser	 mp = { buf, buf + n, 0, err };
	const char		*ls, *le;
	bool			 seen[MEMDOC_NFIELDS] = { false }, closed = false;
	size_t			 clen;

	memset(e, 0, sizeof(*e));
	if (!next_line(&mp, &ls, &le) || !is_fence(ls, le))
		return err_set(err, "line 1: no front matter (\"---\")");
	while (next_line(&mp, &ls, &le)) {
		if (is_fence(ls, le)) {
			closed = true;
			break;
		}
		if (parse_line(&mp, ls, le, e, seen) != 0)
			return -1;
	}
	if (!closed)
		return err_set(err, "line %d: front matter not closed (\"---\")",
		    mp.line);
	if (e->label == NULL || e->store == NULL)
		return err_set(err, "front matter lacks %s",
		    e->label == NULL ? "label" : "store");
	clen = (size_t)(mp.end - mp.p);
	if (clen > 0 && mp.p[clen - 1] == '\n')
		clen--;
	if (memchr(mp.p, '\0', clen) != NULL)
		return err_set(err, "content holds a NUL byte");
	e->content = xstrndup(mp.p, clen);
	if (e->slug == NULL)
		e->slug = slug_make(e->label, strlen(e->label));
	return 0;
}
