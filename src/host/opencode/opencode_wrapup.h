/* opencode_wrapup.h — /thatch/compact and /thatch/exit resolved at the
 * next idle (opencode_wrapup.c). */
#ifndef THATCH_HOST_OPENCODE_WRAPUP_H
#define THATCH_HOST_OPENCODE_WRAPUP_H

#include <jansson.h>

struct tool_ctx;

/* The pending wrap-ups of one opencode process (engines-and-extras B8).
 * Opaque. */
struct opencode_wrapups;

struct opencode_wrapups *opencode_wrapups_new(void);
void	opencode_wrapups_free(struct opencode_wrapups *);

/*
 * What runs before an exit: the session leaves the chat directory (the
 * chat module sets it; NULL: nothing to leave). arg is borrowed.
 */
void	opencode_wrapups_before_exit(struct opencode_wrapups *,
	    void (*fn)(void *arg, const char *sid), void *arg);

/* command.execute.before: "thatch/compact" or "thatch/exit" marks sid. */
void	opencode_wrapups_command(struct opencode_wrapups *, const char *command,
	    const char *sid);

enum opencode_wrapup_outcome {
	WRAPUP_NONE,
	WRAPUP_COMPACT,		/* a compact action was appended */
	WRAPUP_EXIT,		/* an exit action was appended */
};

/*
 * A session event: busy arms sid's pending wrap-up; the idle after it
 * resolves it — the last assistant message (from opencode's database)
 * holds the greenlight token: append {"do":"compact", session,
 * providerID, modelID} or {"do":"exit", session} to actions — and clears
 * it either way; an error or deletion clears it. Never fails.
 */
enum opencode_wrapup_outcome opencode_wrapups_event(struct opencode_wrapups *,
	    struct tool_ctx *, const char *type, const json_t *props,
	    json_t *actions);

#endif
