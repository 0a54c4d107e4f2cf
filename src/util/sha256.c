/*
 * sha256.c — SHA-256 as lowercase hex.
 *
 * thatch hashes twice: the sideband socket name (hosts-hooks-cli §6.1) and
 * the seed stamps of the default behaviors. Both run in hook processes,
 * so the digest comes from libmd (a few kilobytes) rather than libcrypto,
 * whose load alone cost hooks several milliseconds of start-up.
 */
#include "util/sha256.h"

#include <stdint.h>

#include <sha2.h>

char *
sha256_hex(const void *p, size_t len, char hex[SHA256_HEX_LEN])
{
	return SHA256Data((const uint8_t *)p, len, hex);
}
