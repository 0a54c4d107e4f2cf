/*
 * fuzz_blockline.c — how a prediction or behavior reads in a block line
 * (src/core/engine/engine_text.c). An input is a situation and a statement, any
 * bytes, split at the first 0xff byte, rendered at both evidence levels.
 *
 * Properties (engine_text.c invariants 1, 3, 4, 6): the line starts with
 * the evidence prefix and holds the hedge after the situation; it is one line
 * (no newline, carriage return or tab survives); the count agrees.
 */
#include "fuzz.h"

#include "core/engine/behavior.h"
#include "util/sbuf.h"

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

static void
check(const char *situation, const char *statement, long evidence)
{
	struct engine_hit	h = { 0 };
	struct sbuf		sb = SBUF_INIT;
	const char		*want = evidence == 0 ? "[0.50 conf, 0 tests] " :
				    "[0.50 conf, 1 test] ";

	h.matcher_description = (char *)situation;
	h.statement = (char *)statement;
	h.confidence = 0.5;
	h.evidence = evidence;
	sbuf_init(&sb);
	engine_render_hit(&behavior_engine, &h, &sb);
	FUZZ_ASSERT(strncmp(sb.buf, want, strlen(want)) == 0);
	/* "do" may give way to "never"/"always" (invariant 6) */
	FUZZ_ASSERT(strstr(sb.buf, evidence == 0 ? ": consider whether " :
	    ": ") != NULL);
	FUZZ_ASSERT(strpbrk(sb.buf, "\n\r\t") == NULL);
	FUZZ_ASSERT(strlen(sb.buf) == sb.len);
	sbuf_release(&sb);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t	*cut = memchr(data, 0xff, size);
	size_t		 n = cut != NULL ? (size_t)(cut - data) : size;
	char		*sit, *stmt;
	size_t		 i;

	sit = malloc(n + 1);
	stmt = malloc(size - n + 1);
	if (sit == NULL || stmt == NULL)
		abort();
	memcpy(sit, data, n);
	sit[n] = '\0';
	i = cut != NULL ? size - n - 1 : 0;
	memcpy(stmt, cut != NULL ? cut + 1 : data + size, i);
	stmt[i] = '\0';
	check(sit, stmt, 0);
	check(sit, stmt, 1);
	free(sit);
	free(stmt);
	return 0;
}
