/*
 * gitoid.c — git's blob id of some bytes, the fingerprint that sync's
 * documents and anchors' files share: computed here rather than asked of
 * git, since recall fingerprints files and must not spawn a process. Its
 * one invariant: the id is the one git itself names the bytes by, so it
 * compares with ids from git's history and from other clones.
 */
#include "util/gitoid.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <sha1.h>

void
gitoid_blob(const char *data, size_t len, char oid[GITOID_HEX_LEN])
{
	SHA1_CTX	ctx;
	char		hdr[32];
	int		n;

	n = snprintf(hdr, sizeof(hdr), "blob %zu", len);
	SHA1Init(&ctx);
	SHA1Update(&ctx, (const uint8_t *)hdr, (size_t)n + 1);	/* with NUL */
	SHA1Update(&ctx, (const uint8_t *)data, len);
	SHA1End(&ctx, oid);
}

int
gitoid_ok(const char *s)
{
	return s != NULL && strlen(s) == GITOID_HEX_LEN - 1 &&
	    strspn(s, "0123456789abcdef") == GITOID_HEX_LEN - 1;
}
