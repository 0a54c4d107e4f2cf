/* slug.h — a memory's identity from its label (slug.c). */
#ifndef THATCH_CORE_SLUG_H
#define THATCH_CORE_SLUG_H

#include <stddef.h>

/*
 * slugify(label) of store-and-tools §3.1: trim, JavaScript toLowerCase,
 * whitespace runs to '-', keep only letters, numbers, '_' and '-', collapse
 * '-' runs; an empty result becomes the hash fallback "x<base36>". label
 * is n bytes of UTF-8 (invalid bytes count as U+FFFD). Returns a new
 * string, never NULL and never empty.
 */
char	*slug_make(const char *label, size_t n);

/*
 * Whether label is empty or only whitespace (the §3.1 step 1 set): a
 * label that shows nothing. memory_remember refuses one (issue 15), since
 * its memory would be listed without a name and its hash slug would take
 * a label from every later blank one.
 */
int	 slug_is_blank(const char *label, size_t n);

/* Whether slug_make(label) took the hash fallback (§3.1 step 7). */
int	 slug_is_hashed(const char *label, size_t n);

/*
 * Compare two UTF-8 strings by UTF-16 code units, as JavaScript's default
 * sort does (the canonical order of dedup verdicts, §5.6). This differs
 * from strcmp only when a character in U+E000-U+FFFF meets one above
 * U+FFFF. Returns <0, 0 or >0.
 */
int	 slug_cmp(const char *, const char *);

#endif
