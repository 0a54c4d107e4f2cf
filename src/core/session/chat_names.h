/* chat_names.h — the chat name pool and title bases (chat_names.c). */
#ifndef THATCH_CORE_CHAT_NAMES_H
#define THATCH_CORE_CHAT_NAMES_H

#include <stdbool.h>
#include <stddef.h>

/* Longest base a title yields (engines-and-extras B5: 24 characters). */
#define CHAT_NAMES_BASE_MAX	24

/* The built-in pool, NULL-terminated: lowercase kebab-case, unique. */
extern const char *const chat_names_pool[];

/*
 * The name base a session title yields, written to out (at least
 * CHAT_NAMES_BASE_MAX + 1 bytes): its first two or three significant
 * words, ASCII-folded, lowercase, joined by '-', at most
 * CHAT_NAMES_BASE_MAX characters. Returns false, out "", when the title is
 * not usable: NULL, empty, a host placeholder ("New session …", "Child
 * session …") or fewer than 3 letters once normalised. title is outside
 * input: any bytes.
 */
bool	chat_names_base(const char *title, char *out);

/*
 * Whether name may be chosen explicitly: 1 to 32 characters of
 * [A-Za-z0-9._-], starting with a letter or digit (so "*" and names with
 * spaces, markup or control characters cannot be registered).
 */
bool	chat_names_valid(const char *name);

#endif
