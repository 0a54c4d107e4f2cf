/* tool_cut.h — cutting what a tool answers to the token budget
 * (tool_cut.c): one recalled content, a recall's contents together, and
 * a whole answer. */
#ifndef THATCH_TOOLS_BUDGET_TOOL_CUT_H
#define THATCH_TOOLS_BUDGET_TOOL_CUT_H

#include <stddef.h>

struct sbuf;
struct tool;

/*
 * A recalled memory's content past max bytes (TOOL_RECALL_CUT unless
 * config.json's recall.cut says) costs more than its ranking is worth:
 * append content to out, cut (at a line or word
 * boundary, never inside a UTF-8 character) when longer, followed by a
 * line saying how much was left out and the memory_show call that reads
 * it all (label and store name the memory). A cut that would leave out
 * fewer bytes than that line costs is not made.
 */
#define TOOL_RECALL_CUT	1500
void	tool_cut_content(struct sbuf *out, const char *content,
	    const char *label, const char *store, size_t max);

/*
 * The contents of one recall together stay within budget bytes
 * (TOOL_RECALL_BUDGET unless config.json's recall.budget says), so a
 * session start that recalls costs the same bounded amount whatever the
 * memories hold. Given the n shown contents' lengths best first, set
 * max[i], the most bytes content i may show: the best hits keep up to
 * cut bytes each while every later one can still have TOOL_RECALL_FLOOR
 * (or its whole length if shorter); a hit never gets less than that
 * floor, so a limit past budget / floor overruns the budget by floors.
 */
#define TOOL_RECALL_BUDGET	4000
#define TOOL_RECALL_FLOOR	200
void	tool_cut_share(const size_t *len, size_t n, size_t cut,
	    size_t budget, size_t *max);

/*
 * Every tool answer an agent reads stays under TOOL_ANSWER_CAP bytes
 * (~4,000 tokens): a longer text is cut at the last line that fits and
 * ends with a line saying how much more there is and how to ask for less.
 * Shorter texts, and the answers of a TOOL_UNCAPPED tool (the full read
 * a cut points to), are left byte for byte as they are.
 */
#define TOOL_ANSWER_CAP	16000
void	tool_cap_answer(const struct tool *, struct sbuf *text);

#endif
