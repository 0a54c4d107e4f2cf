/* memdoc.h — one memory as a markdown document with front matter (memdoc.c). */
#ifndef THATCH_CORE_MEMDOC_H
#define THATCH_CORE_MEMDOC_H

#include <stddef.h>

struct err;
struct sbuf;
struct store_entry;

/*
 * Append e as a memory document to out (docs/export.md "Markdown"): a
 * "---" line, one "key: value" line per entries column in a fixed order
 * (label, slug, store, branch, confidence, archived, created_at,
 * updated_at, recall_count, last_recalled_at, model, then anchors as
 * its JSON text only when e->anchors is set, and embedding as base64 of
 * its little-endian float32 bytes only when e->dim > 0), a
 * "---" line, then e->content verbatim and one "\n". Strings are written
 * double-quoted with JSON-style escapes (\xHH for a byte that is not
 * UTF-8); SQL NULL is `null`. The same entry gives the same bytes.
 */
void	memdoc_render(const struct store_entry *e, struct sbuf *out);

/*
 * Parse n bytes of buf (outside input: any bytes) into *e, which is
 * initialised first and owned by the caller afterwards (release it with
 * store_entry_release, also on failure). memdoc_parse(memdoc_render(x))
 * gives back x exactly, vector included. Keys may come in any order;
 * unknown keys are ignored, a repeated key is an error; label and store
 * are required, slug defaults to slug_make(label), and the times stay NULL
 * when absent (the caller decides). Plain unquoted values are accepted
 * for strings. The content is everything after the closing "---" line,
 * less one final "\n". Returns 0, or -1 with err naming the line.
 */
int	memdoc_parse(const char *buf, size_t n, struct store_entry *e,
	    struct err *err);

#endif
