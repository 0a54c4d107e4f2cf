/* jsonx.h — Jansson helpers: JavaScript-identical output, typed getters (jsonx.c). */
#ifndef THATCH_UTIL_JSONX_H
#define THATCH_UTIL_JSONX_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

struct err;
struct sbuf;

/*
 * Append v serialised exactly as JavaScript's JSON.stringify(v, null,
 * indent) would (hosts-hooks-cli §0.3): only '"', '\\' and U+0000-U+001F
 * escaped (\b \t \n \f \r, else \u00xx in lowercase hex), everything else
 * raw UTF-8; numbers in shortest round-trip form; object keys in insertion
 * order. indent 0 is compact; indent 2 is the pretty form of config files.
 */
void	 jsonx_dump_sbuf(struct sbuf *, const json_t *, int indent);

/* The same into a new string the caller frees. */
char	*jsonx_dump(const json_t *, int indent);

/*
 * Parse len bytes of JSON text (any value, not only objects). Returns a new
 * reference, or NULL with err set to "<what>: <reason> at line L column C".
 */
json_t	*jsonx_parse(const char *, size_t, const char *what, struct err *);

/*
 * Borrowed getters on an object (NULL-safe): the value of key if present and
 * of the right type, else NULL / the default. "Present" means the key exists
 * and is not null (hosts-hooks-cli §0.3).
 */
const char	*jsonx_str(const json_t *, const char *key);
json_t		*jsonx_get(const json_t *, const char *key);

#endif
