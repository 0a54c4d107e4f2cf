/* b64.h — standard base64 (RFC 4648 §4, padded) for BLOBs in text (b64.c). */
#ifndef THATCH_UTIL_B64_H
#define THATCH_UTIL_B64_H

#include <stddef.h>

struct sbuf;

/* Append the base64 of n bytes of data to out. */
void	b64_encode(struct sbuf *out, const void *data, size_t n);

/*
 * Decode n characters of s (padded, no whitespace) into a new buffer of
 * *outlen bytes (never NULL, even for ""). Returns NULL for anything that
 * is not canonical base64, so decode(encode(x)) == x and each buffer has
 * exactly one spelling.
 */
unsigned char *b64_decode(const char *s, size_t n, size_t *outlen);

/*
 * A float32 vector as base64 of its little-endian bytes (the embedding
 * BLOB of store-and-tools §1.6), and back: a new array of *dim floats, or
 * NULL when s is not canonical base64 of a non-empty multiple of 4 bytes.
 * Bit-exact both ways (NaNs included).
 */
void	b64_encode_f32(struct sbuf *out, const float *vec, int dim);
float	*b64_decode_f32(const char *s, size_t n, int *dim);

#endif
