/*
 * tool_cut.c — cuts what a tool answers to the token budget (issue 27):
 * a recalled content to TOOL_RECALL_CUT bytes (or config.json's), a
 * recall's contents together to TOOL_RECALL_BUDGET, a whole answer to
 * TOOL_ANSWER_CAP bytes.
 *
 * Every byte the agent reads is paid for on each call; a cut is only
 * worth it if the agent can see it and get the rest.
 *  1. A cut never splits a UTF-8 character, and prefers a line, then a
 *     word, boundary in the last quarter of what fits.
 *  2. Every cut is followed by one line that says how many bytes were left
 *     out and which call gets them; uncut text is unchanged.
 *  3. A content is not cut to save fewer bytes than that line costs.
 */
#include "tools/budget/tool_cut.h"

#include <stdlib.h>
#include <string.h>

#include "text/fence.h"
#include "tools/tool.h"
#include "util/sbuf.h"
#include "util/xmalloc.h"

/* Where to cut s (longer than max): a boundary at or below max. */
static size_t
cut_point(const char *s, size_t max)
{
	size_t	i, floor = max - max / 4;

	for (i = max; i > floor; i--)
		if (s[i] == '\n')
			return i;
	for (i = max; i > floor; i--)
		if (s[i] == ' ')
			return i;
	/* not inside a character: back up past continuation bytes */
	for (i = max; i > 0 && ((unsigned char)s[i] & 0xC0) == 0x80; i--)
		;
	return i;
}

/* The pointer line's bytes but the label, the store and the count's
 * digits: "\n[… ", " more bytes: memory_show {\"label\": \"" and so on. */
#define POINTER_COST	(sizeof("\n[… more bytes: memory_show {\"label\": "\
	    "\"\", \"store\": \"\"}]") - 1)

void
tool_cut_content(struct sbuf *out, const char *content, const char *label,
    const char *store, size_t max)
{
	size_t	len = strlen(content), at;
	char	*kept;

	if (len <= max) {
		text_fence_body(out, content);
		return;
	}
	at = cut_point(content, max);
	if (len - at <= POINTER_COST + strlen(label) + strlen(store)) {
		text_fence_body(out, content);	/* invariant 3 */
		return;
	}
	kept = xstrndup(content, at);
	text_fence_body(out, kept);
	free(kept);
	sbuf_addf(out, "\n[… %zu more bytes: memory_show {\"label\": \"",
	    len - at);
	text_fence_inner(out, label);
	sbuf_adds(out, "\", \"store\": \"");
	text_fence_inner(out, store);
	sbuf_adds(out, "\"}]");
}

/* What content i shows at least: the floor, or all of a shorter one. */
static size_t
share_floor(size_t len, size_t cut)
{
	size_t	floor = cut < TOOL_RECALL_FLOOR ? cut : TOOL_RECALL_FLOOR;

	return len < floor ? len : floor;
}

void
tool_cut_share(const size_t *len, size_t n, size_t cut, size_t budget,
    size_t *max)
{
	size_t	left = budget, later = 0, room, floor, want, i;

	for (i = 0; i < n; i++)
		later += share_floor(len[i], cut);
	for (i = 0; i < n; i++) {
		floor = share_floor(len[i], cut);
		later -= floor;
		/* what is left once every later hit has its floor */
		room = left > later ? left - later : 0;
		want = len[i] < cut ? len[i] : cut;
		want = want < room ? want : room;
		max[i] = want > floor ? want : floor;
		left = left > max[i] ? left - max[i] : 0;
	}
}

void
tool_cap_answer(const struct tool *t, struct sbuf *text)
{
	size_t	at, more, lines = 0, i;

	if (text->len <= TOOL_ANSWER_CAP || (t->flags & TOOL_UNCAPPED))
		return;
	at = cut_point(text->buf, TOOL_ANSWER_CAP);
	more = text->len - at;
	for (i = at; i < text->len; i++)
		lines += text->buf[i] == '\n';
	sbuf_setlen(text, at);
	sbuf_addf(text, "\n\n[thatch] answer cut to stay under ~4,000 tokens: "
	    "%zu more bytes (%zu lines) not shown; ask for less (a limit, "
	    "an offset, a prefix or a store).", more, lines);
}
