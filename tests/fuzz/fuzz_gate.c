/*
 * fuzz_gate.c — the gate every arriving memory passes (src/core/gate.c)
 * and the review and secret checks sync runs after it
 * (src/core/sync/sync_review.c, sync_secret.c), on what a teammate can
 * push: a document to parse and gate, and the input cut at NUL bytes
 * into the fields of an entry to gate directly.
 *
 * Properties: an entry the gate lets through has a non-empty label of
 * valid UTF-8 without controls, the slug its label maps to, no date after
 * now, and a label that fences onto one line; it passes the gate again
 * unchanged. The review and secret checks read any text.
 */
#include <stdbool.h>

#include "fuzz.h"

#include "core/gate.h"
#include "core/slug.h"
#include "core/store/store.h"
#include "core/sync/memdoc.h"
#include "core/sync/sync_review.h"
#include "core/sync/sync_secret.h"
#include "text/fence.h"
#include "util/err.h"
#include "util/sbuf.h"
#include "util/xmalloc.h"

#define NOW	"2026-06-01T00:00:00.000Z"

static struct sync_review	*review;
static struct sync_secrets	*secrets;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	review = sync_review_new();
	secrets = sync_secrets_new();
	return 0;
}

static bool
not_after_now(const char *t)
{
	return t == NULL || strcmp(t, NOW) <= 0;
}

static void
check_gate(struct store_entry *e)
{
	struct sbuf	 fenced = SBUF_INIT;
	char		*want, *before;

	(void)sync_review_find(review, e->content);
	(void)sync_review_find(review, e->label);
	if (e->content != NULL)
		(void)sync_secrets_find(secrets, e->content);
	if (gate_entry(e, NOW) != NULL)
		return;
	FUZZ_ASSERT(e->label != NULL && *e->label != '\0');
	want = slug_make(e->label, strlen(e->label));
	FUZZ_ASSERT(e->slug != NULL && strcmp(want, e->slug) == 0);
	free(want);
	FUZZ_ASSERT(not_after_now(e->created_at) &&
	    not_after_now(e->updated_at) && not_after_now(e->last_recalled_at));
	text_fence_quoted(&fenced, e->label);
	FUZZ_ASSERT(memchr(fenced.buf, '\n', fenced.len) == NULL);
	sbuf_release(&fenced);
	before = xstrdup(e->updated_at);
	FUZZ_ASSERT(gate_entry(e, NOW) == NULL);
	FUZZ_ASSERT(strcmp(before, e->updated_at) == 0);
	free(before);
}

static void
entry_from(const uint8_t *data, size_t size)
{
	const uint8_t		*p = data, *end = data + size;
	struct store_entry	 e;

	memset(&e, 0, sizeof(e));
	e.label = fuzz_piece(&p, end);
	e.content = fuzz_piece(&p, end);
	e.branch = fuzz_piece(&p, end);
	e.created_at = fuzz_piece(&p, end);
	e.updated_at = fuzz_piece(&p, end);
	e.last_recalled_at = fuzz_piece(&p, end);
	/* half the inputs get the slug their label maps to, so the rules
	 * past the slug's are reached */
	e.slug = size > 0 && (data[0] & 1) == 0 ? fuzz_piece(&p, end) :
	    e.label != NULL ? slug_make(e.label, strlen(e.label)) : NULL;
	if (size > 0)
		e.confidence = (int)(signed char)data[size - 1] % 12;
	check_gate(&e);
	store_entry_release(&e);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct store_entry	e;
	struct err		err;

	if (memdoc_parse((const char *)data, size, &e, &err) == 0 &&
	    e.created_at != NULL && e.updated_at != NULL)
		check_gate(&e);
	store_entry_release(&e);
	entry_from(data, size);
	return 0;
}
