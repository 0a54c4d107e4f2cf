/* opencode_line.h — the plugin's request lines, capped, and the id of one that does not parse (opencode_line.c). */
#ifndef THATCH_HOST_OPENCODE_LINE_H
#define THATCH_HOST_OPENCODE_LINE_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "util/sbuf.h"

/*
 * The longest request line the core reads: MCP's bound (MCP_MAX_LINE),
 * far above what the plugin sends (a message's parts, a tool's output,
 * which opencode itself clips), low enough that a runaway line cannot
 * grow the process without end. A longer line is dropped as it arrives;
 * only its first OPENCODE_LINE_HEAD bytes are kept, where the plugin
 * writes the id (JSON.stringify({ id, ...req })).
 */
#define OPENCODE_LINE_MAX	(16u << 20)
#define OPENCODE_LINE_HEAD	256

/* Input not yet served, and the line over the cap being dropped. */
struct opencode_lines {
	struct sbuf	in;
	size_t		off;	/* where the next line starts in in */
	struct sbuf	head;	/* the first bytes of the dropped line */
	size_t		over;	/* its length so far; 0: none */
};

/* One line: len bytes at p (borrowed until the next call); when over is
 * not 0, the line was over the cap: over bytes long, p its head. */
struct opencode_line {
	const char	*p;
	size_t		 len, over;
};

void	opencode_lines_init(struct opencode_lines *);
void	opencode_lines_release(struct opencode_lines *);

/* Take n more bytes of input. */
void	opencode_lines_add(struct opencode_lines *, const char *p, size_t n);

/*
 * The next line into *line (true), or false when no line is complete. At
 * eof what is left is a line. Holds at most OPENCODE_LINE_MAX bytes of
 * one line plus what one add brought.
 */
bool	opencode_lines_next(struct opencode_lines *, bool eof,
	    struct opencode_line *);

/*
 * The id of a request that did not parse, from its first member as the
 * plugin writes it ({"id": <number or string>, …}): a new reference, or
 * NULL when the line does not start so.
 */
json_t	*opencode_line_id(const char *p, size_t len);

#endif
