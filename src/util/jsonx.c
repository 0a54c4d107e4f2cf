/*
 * jsonx.c — Jansson helpers: JavaScript-identical output, typed getters.
 *
 * Why not json_dumps: Jansson escapes non-ASCII only on request but writes
 * \u escapes in uppercase, prints reals with %.17g ("0.59999999999999998")
 * and has no way to get JavaScript's number forms. Everything the original
 * wrote (hook stdout, queue lines, sideband frames, settings files) is
 * JSON.stringify output, and users diff those files, so thatch writes the
 * same bytes. Parsing stays Jansson's.
 */
#include "util/jsonx.h"

#include <stdio.h>
#include <string.h>

#include "util/err.h"
#include "util/num.h"
#include "util/sbuf.h"

static void
dump_string(struct sbuf *sb, const char *s, size_t len)
{
	static const char	hex[] = "0123456789abcdef";
	size_t			i, start = 0;

	sbuf_addc(sb, '"');
	for (i = 0; i < len; i++) {
		unsigned char	c = (unsigned char)s[i];
		const char	*esc = NULL;
		char		 u[7];

		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		sbuf_add(sb, s + start, i - start);
		start = i + 1;
		switch (c) {
		case '"':  esc = "\\\""; break;
		case '\\': esc = "\\\\"; break;
		case '\b': esc = "\\b"; break;
		case '\t': esc = "\\t"; break;
		case '\n': esc = "\\n"; break;
		case '\f': esc = "\\f"; break;
		case '\r': esc = "\\r"; break;
		default:
			memcpy(u, "\\u00", 4);
			u[4] = hex[c >> 4];
			u[5] = hex[c & 15];
			u[6] = '\0';
			esc = u;
		}
		sbuf_adds(sb, esc);
	}
	sbuf_add(sb, s + start, len - start);
	sbuf_addc(sb, '"');
}

static void
newline_indent(struct sbuf *sb, int indent, int depth)
{
	if (indent <= 0)
		return;
	sbuf_addc(sb, '\n');
	for (int i = 0; i < indent * depth; i++)
		sbuf_addc(sb, ' ');
}

static void
dump_value(struct sbuf *sb, const json_t *v, int indent, int depth)
{
	char		 num[NUM_BUFSZ];
	const char	*key;
	json_t		*item;
	size_t		 i, n;
	bool		 first = true;

	switch (json_typeof(v)) {
	case JSON_OBJECT:
		if (json_object_size(v) == 0) {
			sbuf_adds(sb, "{}");
			break;
		}
		sbuf_addc(sb, '{');
		json_object_foreach((json_t *)v, key, item) {
			if (!first)
				sbuf_addc(sb, ',');
			first = false;
			newline_indent(sb, indent, depth + 1);
			dump_string(sb, key, strlen(key));
			sbuf_adds(sb, indent > 0 ? ": " : ":");
			dump_value(sb, item, indent, depth + 1);
		}
		newline_indent(sb, indent, depth);
		sbuf_addc(sb, '}');
		break;
	case JSON_ARRAY:
		n = json_array_size(v);
		if (n == 0) {
			sbuf_adds(sb, "[]");
			break;
		}
		sbuf_addc(sb, '[');
		for (i = 0; i < n; i++) {
			if (i > 0)
				sbuf_addc(sb, ',');
			newline_indent(sb, indent, depth + 1);
			dump_value(sb, json_array_get(v, i), indent, depth + 1);
		}
		newline_indent(sb, indent, depth);
		sbuf_addc(sb, ']');
		break;
	case JSON_STRING:
		dump_string(sb, json_string_value(v), json_string_length(v));
		break;
	case JSON_INTEGER:
		sbuf_addf(sb, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		break;
	case JSON_REAL:
		sbuf_adds(sb, num_js(json_real_value(v), num));
		break;
	case JSON_TRUE:
		sbuf_adds(sb, "true");
		break;
	case JSON_FALSE:
		sbuf_adds(sb, "false");
		break;
	case JSON_NULL:
		sbuf_adds(sb, "null");
		break;
	}
}

void
jsonx_dump_sbuf(struct sbuf *sb, const json_t *v, int indent)
{
	dump_value(sb, v, indent, 0);
}

char *
jsonx_dump(const json_t *v, int indent)
{
	struct sbuf	sb = SBUF_INIT;

	sbuf_init(&sb);
	dump_value(&sb, v, indent, 0);
	return sbuf_detach(&sb, NULL);
}

json_t *
jsonx_parse(const char *buf, size_t len, const char *what, struct err *err)
{
	json_error_t	 jerr;
	json_t		*v;

	v = json_loadb(buf, len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);
	if (v == NULL)
		err_set(err, "%s: %s at line %d column %d", what, jerr.text,
		    jerr.line, jerr.column);
	return v;
}

json_t *
jsonx_get(const json_t *obj, const char *key)
{
	json_t	*v;

	if (obj == NULL || !json_is_object(obj))
		return NULL;
	v = json_object_get(obj, key);
	return json_is_null(v) ? NULL : v;
}

const char *
jsonx_str(const json_t *obj, const char *key)
{
	return json_string_value(jsonx_get(obj, key));
}
