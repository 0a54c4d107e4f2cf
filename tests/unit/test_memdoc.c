/*
 * test_memdoc.c — a memory as a markdown document (src/core/sync/memdoc.c):
 * the exact bytes of a rendered memory, the round trip of awkward strings
 * and vectors, and the one-line reasons hostile documents are refused.
 * Plus the base64 the vectors are written in (src/util/b64.c).
 */
#include "check.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/sync/memdoc.h"
#include "core/store/store.h"
#include "util/b64.h"
#include "util/err.h"
#include "util/sbuf.h"
#include "util/xmalloc.h"

static struct store_entry
sample(void)
{
	struct store_entry	e;

	memset(&e, 0, sizeof(e));
	e.label = xstrdup("Build command");
	e.slug = xstrdup("build-command");
	e.store = xstrdup("acme/app");
	e.branch = NULL;
	e.confidence = 8;
	e.archived = false;
	e.created_at = xstrdup("2025-03-07T14:05:09.042Z");
	e.updated_at = xstrdup("2025-03-08T10:00:00.000Z");
	e.recall_count = 3;
	e.last_recalled_at = NULL;
	e.model = xstrdup("Xenova/bge-small-en-v1.5");
	e.content = xstrdup("# Build command\n\nRun `make -j2`.");
	return e;
}

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
	    same_str(a->anchors, b->anchors) &&
	    (a->dim == 0 || memcmp(a->vec, b->vec, (size_t)a->dim * 4) == 0);
}

/* render, parse, render again: same entry, same bytes */
static void
check_round_trip(const struct store_entry *e)
{
	struct sbuf		a = SBUF_INIT, b = SBUF_INIT;
	struct store_entry	back;
	struct err		err;

	memdoc_render(e, &a);
	if (memdoc_parse(a.buf, a.len, &back, &err) != 0) {
		CHECK_FAIL("parse failed: %s\n%s", err.msg, a.buf);
	} else {
		CHECK(same_entry(e, &back));
		memdoc_render(&back, &b);
		CHECK_STR(b.buf, a.buf);
	}
	store_entry_release(&back);
	sbuf_release(&a);
	sbuf_release(&b);
}

static void
test_render_bytes(void)
{
	struct store_entry	e = sample();
	struct sbuf		out = SBUF_INIT;

	memdoc_render(&e, &out);
	CHECK_STR(out.buf, "---\n"
	    "label: \"Build command\"\n"
	    "slug: \"build-command\"\n"
	    "store: \"acme/app\"\n"
	    "branch: null\n"
	    "confidence: 8\n"
	    "archived: false\n"
	    "created_at: \"2025-03-07T14:05:09.042Z\"\n"
	    "updated_at: \"2025-03-08T10:00:00.000Z\"\n"
	    "recall_count: 3\n"
	    "last_recalled_at: null\n"
	    "model: \"Xenova/bge-small-en-v1.5\"\n"
	    "---\n"
	    "# Build command\n\nRun `make -j2`.\n");
	check_round_trip(&e);
	sbuf_release(&out);
	store_entry_release(&e);
}

static void
test_awkward_strings(void)
{
	struct store_entry	e = sample();

	free(e.label);
	e.label = xstrdup("quote \" back\\slash\ttab\nnl \x01 \x7f \xc2\x85"
	    " caf\xc3\xa9 \xf0\x9f\x90\x88 bad\xff\xc3 \xe2\x80\xa8");
	free(e.branch);
	e.branch = xstrdup("");
	e.archived = true;
	e.confidence = 0;
	e.recall_count = -2147483647 - 1;
	free(e.content);
	e.content = xstrdup("---\nlabel: \"not me\"\n---\n\n\n");
	check_round_trip(&e);
	free(e.content);
	e.content = xstrdup("");
	check_round_trip(&e);
	store_entry_release(&e);
}

static void
test_vector(void)
{
	struct store_entry	e = sample();
	struct sbuf		out = SBUF_INIT;
	const float		v[3] = { 1.0f, 0.5f, -1.0f };

	e.dim = 3;
	e.vec = xmalloc(sizeof(v));
	memcpy(e.vec, v, sizeof(v));
	memdoc_render(&e, &out);
	/* §1.6's example BLOB 0000803F 0000003F 000080BF */
	CHECK(strstr(out.buf, "\nembedding: \"AACAPwAAAD8AAIC/\"\n---\n") !=
	    NULL);
	check_round_trip(&e);
	sbuf_release(&out);
	store_entry_release(&e);
}

static void
test_anchors(void)
{
	struct store_entry	e = sample();
	struct sbuf		out = SBUF_INIT;

	e.anchors = xstrdup("[{\"spec\":\"src/a.c\",\"blob\":null}]");
	memdoc_render(&e, &out);
	CHECK(strstr(out.buf, "\nmodel: \"Xenova/bge-small-en-v1.5\"\n"
	    "anchors: [{\"spec\":\"src/a.c\",\"blob\":null}]\n---\n") !=
	    NULL);
	check_round_trip(&e);
	sbuf_release(&out);
	store_entry_release(&e);
}

static void
test_lenient_input(void)
{
	static const char	doc[] = "---\r\n"
	    "# a comment\r\n"
	    "store: global\r\n"
	    "future_key: [1, 2]\r\n"
	    "\r\n"
	    "label:    Deploy steps  \r\n"
	    "confidence: null\r\n"
	    "---\r\n"
	    "body\r\n";
	struct store_entry	e;
	struct err		err;

	CHECK_INT(memdoc_parse(doc, strlen(doc), &e, &err), 0);
	CHECK_STR(e.label, "Deploy steps");
	CHECK_STR(e.store, "global");
	CHECK_STR(e.slug, "deploy-steps");
	CHECK_STR(e.content, "body\r");
	CHECK(e.created_at == NULL && e.confidence == 0 && !e.archived);
	store_entry_release(&e);
}

static void
check_refused(const char *doc, size_t n, const char *want)
{
	struct store_entry	e;
	struct err		err;

	err.msg[0] = '\0';
	CHECK_INT(memdoc_parse(doc, n, &e, &err), -1);
	CHECK_STR(err.msg, want);
	store_entry_release(&e);
}

#define REFUSED(doc, want)	check_refused(doc, sizeof(doc) - 1, want)

static void
test_hostile_input(void)
{
	REFUSED("", "line 1: no front matter (\"---\")");
	REFUSED("# title\n", "line 1: no front matter (\"---\")");
	REFUSED("---\nlabel: \"a\"\n", "line 2: front matter not closed "
	    "(\"---\")");
	REFUSED("---\nlabel: \"a\nstore: b\n---\n",
	    "line 2: unterminated string");
	REFUSED("---\nlabel: \"a\" b\n---\n",
	    "line 2: text after the closing quote");
	REFUSED("---\nstore: g\nlabel: \"\\ud800\"\n---\n",
	    "line 3: lone surrogate");
	REFUSED("---\nlabel: \"\\u0000\"\n---\n", "line 2: bad escape");
	REFUSED("---\nlabel: \"\\x0\"\n---\n", "line 2: bad \\x escape");
	REFUSED("---\nlabel: a\x00z\n---\n", "line 2: holds a NUL byte");
	REFUSED("---\nlabel: a\nlabel: b\n---\n", "line 3: label given twice");
	REFUSED("---\nlabel: a\n---\n", "front matter lacks store");
	REFUSED("---\nstore: a\n---\n", "front matter lacks label");
	REFUSED("---\nnot a key\n---\n",
	    "line 2: not a \"key: value\" line");
	REFUSED("---\nconfidence: 99999999999\n---\n",
	    "line 2: not an integer");
	REFUSED("---\nconfidence: 0\n---\n",
	    "line 2: confidence 0 is written null");
	REFUSED("---\narchived: yes\n---\n",
	    "line 2: archived is true or false");
	REFUSED("---\nembedding: \"AAA=\"\n---\n",
	    "line 2: embedding is not base64 float32s");
	REFUSED("---\nembedding: \"AACAPx==\"\n---\n",
	    "line 2: embedding is not base64 float32s");
	REFUSED("---\nanchors: [{\"spec\":\n---\n", "line 2: not JSON");
	REFUSED("---\nlabel: a\nstore: b\n---\nx\x00y",
	    "content holds a NUL byte");
}

static void
test_b64(void)
{
	struct sbuf	 out = SBUF_INIT;
	unsigned char	*d;
	size_t		 n;

	b64_encode(&out, "foobar", 6);
	CHECK_STR(out.buf, "Zm9vYmFy");
	sbuf_reset(&out);
	b64_encode(&out, "fo", 2);
	CHECK_STR(out.buf, "Zm8=");
	d = b64_decode("Zm8=", 4, &n);
	CHECK(d != NULL && n == 2 && memcmp(d, "fo", 2) == 0);
	free(d);
	CHECK(b64_decode("Zm9=", 4, &n) == NULL);	/* not canonical */
	CHECK(b64_decode("Zm=8", 4, &n) == NULL);
	CHECK(b64_decode("Zm8", 3, &n) == NULL);
	d = b64_decode("", 0, &n);
	CHECK(d != NULL && n == 0);
	free(d);
	sbuf_release(&out);
}

CHECK_MAIN(TEST(test_render_bytes), TEST(test_awkward_strings),
    TEST(test_vector), TEST(test_anchors), TEST(test_lenient_input), TEST(test_hostile_input),
    TEST(test_b64))
