/* wrapups.h — the /thatch/compact and /thatch/exit wrap-ups (wrapups.c). */
#ifndef THATCH_TEXT_WRAPUPS_H
#define THATCH_TEXT_WRAPUPS_H

#include "text/actions.h"

/*
 * engines-and-extras B8: the agent wraps the session up, and only when
 * its last message carries the greenlight token does opencode compact
 * the session or exit. opencode-only (they need its idle hook), so they
 * are not in text_actions[]; they render with the same text_action_file.
 */
#define TEXT_GREENLIGHT	"[thatch:greenlight]"

/* compact, then exit. */
extern const struct text_action text_wrapups[];
extern const size_t text_nwrapups;

/* The wrap-up named name ("compact"), or NULL. */
const struct text_action *text_wrapup_find(const char *name);

#endif
