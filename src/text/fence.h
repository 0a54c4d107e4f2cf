/* fence.h — stored text made safe to put in an agent's context (fence.c). */
#ifndef THATCH_TEXT_FENCE_H
#define THATCH_TEXT_FENCE_H

struct sbuf;

/*
 * Append s (NULL reads as "") between double quotes, with `"`, `\`,
 * controls (C0, DEL, C1, U+2028/U+2029) escaped as in JSON and bytes that
 * are not UTF-8 as \xHH: however s is made, the quoted field ends at the
 * first unescaped quote and holds no line break.
 */
void	text_fence_quoted(struct sbuf *, const char *s);

/*
 * The inside of text_fence_quoted, for a sentence that already quotes the
 * field ("… labeled \"%s\" …"): identical bytes for a field with no quote,
 * backslash or control.
 */
void	text_fence_inner(struct sbuf *, const char *s);

/*
 * Append a one-line field (branch, store, date, name) that thatch prints
 * bare inside its own framing: as it is when it is plain (valid UTF-8, no
 * control, none of `"` `\` `[` `]` and backquote), else quoted as above, so
 * it can neither end thatch's bracket nor start a line.
 */
void	text_fence_field(struct sbuf *, const char *s);

/*
 * Append a stored body (a memory's content, a chat message) that thatch
 * prints under its own header line. A plain body (valid UTF-8, no control
 * but newline and tab, no line that starts like thatch's framing: `[`,
 * `---`, a backquote or tilde fence) is appended as it is; any other goes
 * inside a fence of backquotes longer than every run of them in the body,
 * on lines of their own, with controls but newline and tab escaped, so no
 * line inside can close the frame or pass for a header.
 */
void	text_fence_body(struct sbuf *, const char *s);

#endif
