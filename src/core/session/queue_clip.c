/*
 * queue_clip.c — how the queue bounds what it holds: a JSON lexer that
 * cuts every string as the text streams past (the queue's readers and
 * hook stdin use it), and the cuts of a parsed record's output and args.
 *
 * Invariants:
 *  1. queue_clip_feed cuts a JSON string only between characters (never
 *     inside a UTF-8 sequence, an escape or a surrogate pair), so what it
 *     passes on is valid JSON whenever its input is.
 *  2. A record holds what queue.c's readers would keep of it (queue.c
 *     invariant 4), whoever wrote it: the same cut for a record read and
 *     one just made (queue_record_new).
 */
#include "core/session/queue.h"

#include <jansson.h>

#include "core/session/queue_int.h"
#include "util/sbuf.h"
#include "util/utf8.h"

static int
hexval(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : 0;
}

/*
 * Invariant 1: one character ends where the next byte is no UTF-8
 * continuation byte and no low surrogate must follow; only there is a
 * string cut.
 */
void
queue_clip_feed(struct queue_clip *c, const void *in, size_t n, size_t max,
    struct sbuf *out)
{
	const unsigned char	*p = in, *end = p + n;

	for (; p < end; p++) {
		if (c->state == QUEUE_CLIP_STR && c->dropping) {
			while (p < end && *p != '"' && *p != '\\')
				p++;	/* the fast path through a long one */
			if (p == end)
				break;
		}
		switch (c->state) {
		case QUEUE_CLIP_OUT:
			if (*p == '"')
				*c = (struct queue_clip){
					.state = QUEUE_CLIP_STR };
			break;
		case QUEUE_CLIP_STR:
			if (*p == '"') {
				c->state = QUEUE_CLIP_OUT;
				c->dropping = false;
				break;
			}
			/* a character starts here: the place to cut */
			if (!c->dropping && c->kept >= max &&
			    (*p & 0xC0) != 0x80 && !c->high)
				c->dropping = true;
			if (*p == '\\')
				c->state = QUEUE_CLIP_ESC;
			else
				c->high = false;
			c->kept++;
			break;
		case QUEUE_CLIP_ESC:
			c->state = *p == 'u' ? QUEUE_CLIP_HEX : QUEUE_CLIP_STR;
			c->hex = 4;
			c->code = 0;
			c->high = false;
			c->kept++;
			break;
		case QUEUE_CLIP_HEX:
			c->code = c->code << 4 | (unsigned)hexval(*p);
			if (--c->hex == 0) {
				c->state = QUEUE_CLIP_STR;
				c->high = c->code >= 0xD800 &&
				    c->code <= 0xDBFF;
			}
			c->kept++;
			break;
		}
		if (!c->dropping)
			sbuf_addc(out, (char)*p);
	}
}

/* Cut the string s to max UTF-16 units and "...", when it is longer. */
static void
clip_string(json_t *s, size_t max)
{
	const char	*v = json_string_value(s);
	size_t		 len = json_string_length(s), keep;
	struct sbuf	 sb = SBUF_INIT;

	if ((keep = utf8_js_cut(v, len, max)) == len)
		return;
	sbuf_init(&sb);
	sbuf_add(&sb, v, keep);
	sbuf_adds(&sb, "...");
	json_string_setn_nocheck(s, sb.buf, sb.len);
	sbuf_release(&sb);
}

/* clip_string every string inside v (keys stay whole). */
static void
clip_strings(json_t *v, size_t max)
{
	const char	*key;
	json_t		*it;
	size_t		 i;

	if (json_is_string(v))
		clip_string(v, max);
	else if (json_is_array(v))
		json_array_foreach(v, i, it)
			clip_strings(it, max);
	else if (json_is_object(v))
		json_object_foreach(v, key, it)
			clip_strings(it, max);
}

/*
 * Invariant 2: what a record may hold, whoever wrote it. A string output
 * over QUEUE_OUTPUT_MAX units keeps QUEUE_OUTPUT_MAX and "...", so the
 * payload's own cut (§4.7) gives the same text as from the whole output.
 */
void
queue_clip_record(json_t *rec)
{
	json_t	*out = json_object_get(rec, "output");

	if (json_is_string(out))
		clip_string(out, QUEUE_OUTPUT_MAX);
	clip_strings(json_object_get(rec, "args"), QUEUE_ARG_MAX);
}
