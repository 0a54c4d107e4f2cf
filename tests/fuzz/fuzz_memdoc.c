/*
 * fuzz_memdoc.c — the memory document parser (src/core/sync/memdoc.c), which
 * reads files a teammate, another tool or an editor wrote (export and
 * team-sync trees). An input is used twice: as a document to parse, and
 * cut at NUL bytes into the strings of an entry to render.
 *
 * Properties: a document that parses renders to a document that parses
 * back to the same entry and renders to the same bytes; any entry renders
 * to a document that parses back to exactly that entry.
 */
#include <stdbool.h>

#include "fuzz.h"

#include "core/sync/memdoc.h"
#include "core/store/store.h"
#include "util/err.h"
#include "util/sbuf.h"
#include "util/xmalloc.h"

static bool
same_str(const char *a, const char *b)
{
	return a == NULL ? b == NULL : b != NULL && strcmp(a, b) == 0;
}

static bool
same_entry(const struct store_entry *a, const struct store_entry *b)
{
	return same_str(a->label, b->label) && same_str(a->slug, b->slug) &&
	    same_str(a->store, b->store) && same_str(a->branch, b->branch) &&
	    same_str(a->content, b->content) && same_str(a->model, b->model) &&
	    same_str(a->created_at, b->created_at) &&
	    same_str(a->updated_at, b->updated_at) &&
	    same_str(a->last_recalled_at, b->last_recalled_at) &&
	    a->confidence == b->confidence && a->archived == b->archived &&
	    a->recall_count == b->recall_count && a->dim == b->dim &&
	    (a->dim == 0 || memcmp(a->vec, b->vec, (size_t)a->dim * 4) == 0);
}

/* render e, parse it back: same entry, and the same bytes once more */
static void
check_exact(const struct store_entry *e)
{
	struct sbuf		a = SBUF_INIT, b = SBUF_INIT;
	struct store_entry	back;
	struct err		err;

	memdoc_render(e, &a);
	if (memdoc_parse(a.buf, a.len, &back, &err) != 0) {
		fprintf(stderr, "rendered document refused: %s\n", err.msg);
		FUZZ_ASSERT(!"a rendered document parses");
	}
	FUZZ_ASSERT(same_entry(e, &back));
	memdoc_render(&back, &b);
	FUZZ_ASSERT(a.len == b.len && memcmp(a.buf, b.buf, a.len) == 0);
	store_entry_release(&back);
	sbuf_release(&a);
	sbuf_release(&b);
}

static void
entry_from(const uint8_t *data, size_t size)
{
	const uint8_t		*p = data, *end = data + size;
	struct store_entry	 e;
	char			*s;

	memset(&e, 0, sizeof(e));
	e.label = (s = fuzz_piece(&p, end)) ? s : xstrdup("");
	e.store = (s = fuzz_piece(&p, end)) ? s : xstrdup("");
	e.slug = (s = fuzz_piece(&p, end)) ? s : xstrdup("");
	e.content = fuzz_piece(&p, end);
	e.branch = fuzz_piece(&p, end);
	e.model = fuzz_piece(&p, end);
	e.created_at = fuzz_piece(&p, end);
	e.last_recalled_at = fuzz_piece(&p, end);
	if (size > 0) {
		e.archived = data[0] & 1;
		e.confidence = (int)(signed char)data[size - 1];
		e.recall_count = (int)size * (data[0] & 2 ? -1 : 1);
	}
	if (p < end && (size_t)(end - p) >= 4) {
		e.dim = (int)((size_t)(end - p) / 4);
		e.vec = xmalloc((size_t)e.dim * 4);
		memcpy(e.vec, p, (size_t)e.dim * 4);
	}
	if (e.content == NULL)
		e.content = xstrdup("");
	check_exact(&e);
	store_entry_release(&e);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct store_entry	e;
	struct err		err;

	if (memdoc_parse((const char *)data, size, &e, &err) == 0)
		check_exact(&e);
	store_entry_release(&e);
	entry_from(data, size);
	return 0;
}
