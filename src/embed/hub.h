/* hub.h — one file from the Hugging Face Hub, atomically (hub.c). */
#ifndef THATCH_EMBED_HUB_H
#define THATCH_EMBED_HUB_H

#include <stdbool.h>

struct err;

/*
 * Download url (redirects followed; "Authorization: Bearer token" sent
 * when token is not NULL) into path: the body goes to a temporary file in
 * path's directory (created if needed), which is renamed over path only
 * once complete. When progress is true and stderr is a terminal, a
 * progress line labelled with path's basename is drawn on stderr.
 * Returns 0; HUB_MISSING when the server answers 404 and HUB_DENIED when
 * it answers 401 or 403 (nothing written; the Hub answers 401 for a
 * repository that does not exist when no token is sent, as it does for a
 * private one); -1 with err set on any other failure (nothing left
 * behind).
 */
enum {
	HUB_MISSING = 1,
	HUB_DENIED = 2,
};
int	hub_fetch(const char *url, const char *path, const char *token,
	    bool progress, struct err *);

#endif
