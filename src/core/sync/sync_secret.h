/* sync_secret.h — what a secret looks like, so that sync holds it back (sync_secret.c). */
#ifndef THATCH_CORE_SYNC_SECRET_H
#define THATCH_CORE_SYNC_SECRET_H

/* The compiled patterns of docs/sync.md "Secrets". Opaque. */
struct sync_secrets;

struct sync_secrets *sync_secrets_new(void);
void	sync_secrets_free(struct sync_secrets *);	/* accepts NULL */

/*
 * The name of the first pattern text matches ("a private key", "an AWS
 * access key", ...), or NULL when none does. Static string.
 */
const char *sync_secrets_find(const struct sync_secrets *, const char *text);

#endif
