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
 * Returns 0; 1 when the server answers 404 (nothing written); -1 with err
 * set on any other failure (nothing left behind).
 */
int	hub_fetch(const char *url, const char *path, const char *token,
	    bool progress, struct err *);

#endif
