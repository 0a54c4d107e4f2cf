/*
 * fuzz_tok.c — the WordPiece tokenizer (src/embed/tok.c). An input is a
 * text, any bytes, encoded with the fixture's vocabulary loaded from
 * vocab.txt and from tokenizer.json alone, at full length and truncated.
 *
 * Properties (tok.h): at most max ids, [CLS] first, every id inside the
 * vocabulary; both loaders give the same ids; a truncated encoding is the
 * start of the full one; an empty text is [CLS] [SEP].
 */
#include <unistd.h>

#include "fuzz.h"

#include "embed/tok.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/sbuf.h"
#include "util/xmalloc.h"

#define MAX	512

static struct tok	*from_vocab, *from_json;

static struct tok *
load(const char *dir)
{
	struct tok	*t;
	struct err	 err;

	if (tok_new(dir, &t, &err) != 0) {
		fprintf(stderr, "tok_new %s: %s\n", dir, err.msg);
		abort();
	}
	return t;
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char	*root = fuzz_env();
	struct sbuf	 sb = SBUF_INIT;
	struct err	 err;
	char		*fixture = fuzz_fixture("embed/tiny-bert");
	char		*path, *dir;

	(void)argc;
	(void)argv;
	from_vocab = load(fixture);
	/* tokenizer.json alone, as some models ship it */
	path = xasprintf("%s/tokenizer.json", fixture);
	sbuf_init(&sb);
	FUZZ_ASSERT(fileio_read(path, &sb, &err) == 0);
	free(path);
	dir = xasprintf("%s/json-only", root);
	path = xasprintf("%s/tokenizer.json", dir);
	FUZZ_ASSERT(fileio_write_atomic(path, sb.buf, sb.len, 0600,
	    &err) == 0);
	sbuf_release(&sb);
	from_json = load(dir);
	free(path);
	free(dir);
	free(fixture);
	return 0;
}

static int
encode(const struct tok *t, const uint8_t *data, size_t size, int32_t *ids,
    int max)
{
	int	n = tok_encode(t, (const char *)data, size, ids, max), i;

	FUZZ_ASSERT(n >= 2 && n <= max);
	FUZZ_ASSERT(ids[0] == 101);	/* [CLS] */
	for (i = 0; i < n; i++)
		FUZZ_ASSERT(ids[i] >= 0 && ids[i] < tok_vocab_size(t));
	return n;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int32_t	full[MAX], other[MAX], cut[MAX];
	int		n, m, max;

	n = encode(from_vocab, data, size, full, MAX);
	if (size == 0)
		FUZZ_ASSERT(n == 2 && full[1] == 102);	/* [SEP] */
	FUZZ_ASSERT(encode(from_json, data, size, other, MAX) == n);
	FUZZ_ASSERT(memcmp(full, other, (size_t)n * sizeof(*full)) == 0);
	max = 2 + (int)(size % 16);
	m = encode(from_vocab, data, size, cut, max);
	FUZZ_ASSERT(m == (n < max ? n : max));
	FUZZ_ASSERT(memcmp(full, cut, (size_t)m * sizeof(*full)) == 0);
	return 0;
}
