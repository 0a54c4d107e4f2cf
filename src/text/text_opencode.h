/* text_opencode.h — what thatch says inside opencode (text_opencode.c). */
#ifndef THATCH_TEXT_OPENCODE_H
#define THATCH_TEXT_OPENCODE_H

#include <stddef.h>

struct sbuf;

/* The prefix opencode gives thatch's tools (host-contracts §3.1). */
#define TEXT_OPENCODE_PREFIX	"thatch_"
/* The title of an extraction child session (§9.3). */
#define TEXT_OPENCODE_CHILD	"thatch-extraction"

/*
 * The system prompt appended every turn (hosts-hooks-cli §9.2): the
 * stores with the detected repo, the instruction block of the MCP hosts
 * rendered for opencode (tools is the tool table's names, so the two
 * cannot drift), the "Before Responding" save rule (seed invariant 9) and
 * the background-completion rule (invariant 10).
 */
void	text_opencode_system(struct sbuf *, const char *repo,
	    const char *const *tools);

/* The compaction context (§7.4). */
void	text_opencode_compaction(struct sbuf *, const char *repo);

/*
 * The prompt of an extraction child (§9.3): fetch the payload of parent,
 * whose n interactions wait, run the fact-extractor, save, then call
 * extraction_done with parent even when nothing was saved.
 */
void	text_opencode_extract(struct sbuf *, const char *parent, size_t n);

/*
 * The extraction toast (§9.5): "[thatch] new: 2, deleted: 1" (only the
 * non-zero counts, in that order) or, when nothing was written,
 * "[thatch] extraction complete — nothing to save". Returns 1 when
 * something was written (the success variant), else 0.
 */
int	text_opencode_toast_metrics(struct sbuf *, const int metrics[3]);

/* The nudge toasts (§9.5), singular for n = 1. */
enum text_opencode_toast {
	TEXT_TOAST_RECALL,	/* "[thatch] recalled N memories" */
	TEXT_TOAST_PREDICTIONS,	/* "[thatch] N predictions surfaced" */
	TEXT_TOAST_BEHAVIORS,	/* "[thatch] N behaviors surfaced" */
};

void	text_opencode_toast(struct sbuf *, enum text_opencode_toast, size_t n);

#endif
