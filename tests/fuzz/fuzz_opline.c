/*
 * fuzz_opline.c — how `thatch opencode` cuts the plugin's input into
 * request lines and finds the id of one that does not parse
 * (src/host/opencode/opencode_line.c). An input's first byte sets the
 * size of the pieces the rest arrives in (as reads from a pipe would).
 *
 * Properties: the lines, each with its newline back, are the input again
 * (no byte lost, added or moved, however it was cut), none holds a
 * newline, and none is over the cap; the id of any line, when found, is
 * a number or a string, as the plugin writes it.
 */
#include <stdbool.h>

#include "fuzz.h"

#include "host/opencode/opencode_line.h"
#include "util/sbuf.h"

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

/* Every complete line now (at eof, the rest), appended to seen. */
static void
drain(struct opencode_lines *ls, bool eof, struct sbuf *seen)
{
	struct opencode_line	 l;
	json_t			*id;

	while (opencode_lines_next(ls, eof, &l)) {
		FUZZ_ASSERT(l.over == 0);	/* inputs are far below it */
		FUZZ_ASSERT(l.len <= OPENCODE_LINE_MAX);
		FUZZ_ASSERT(memchr(l.p, '\n', l.len) == NULL);
		sbuf_add(seen, l.p, l.len);
		sbuf_addc(seen, '\n');
		if ((id = opencode_line_id(l.p, l.len)) != NULL) {
			FUZZ_ASSERT(json_is_integer(id) || json_is_real(id) ||
			    json_is_string(id));
			json_decref(id);
		}
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct opencode_lines	 ls;
	struct sbuf		 seen = SBUF_INIT;
	size_t			 piece, off, n;

	if (size == 0)
		return 0;
	piece = 1 + data[0] % 64;
	data++;
	size--;
	opencode_lines_init(&ls);
	sbuf_init(&seen);
	for (off = 0; off < size; off += n) {
		n = size - off < piece ? size - off : piece;
		opencode_lines_add(&ls, (const char *)data + off, n);
		drain(&ls, false, &seen);
	}
	drain(&ls, true, &seen);
	/* the last line's newline was the input's, or added by eof */
	FUZZ_ASSERT(seen.len == size || (seen.len == size + 1 &&
	    (size == 0 || data[size - 1] != '\n')));
	FUZZ_ASSERT(memcmp(seen.buf, data, size) == 0);
	sbuf_release(&seen);
	opencode_lines_release(&ls);
	return 0;
}
