/* opencode_alerts.h — opencode's session events fed to the alert state
 * machine, alerts sent through notify (opencode_alerts.c). */
#ifndef THATCH_HOST_OPENCODE_ALERTS_H
#define THATCH_HOST_OPENCODE_ALERTS_H

#include <jansson.h>

struct tool_ctx;

/* The alerts of one opencode process (engines-and-extras B3). Opaque. */
struct opencode_alerts;

struct opencode_alerts *opencode_alerts_new(void);
void	opencode_alerts_free(struct opencode_alerts *);

/*
 * One opencode event (type and properties, as the plugin forwards them):
 * session.created / status / idle / error / deleted and the permission
 * and question requests and replies. An alert it deserves is sent through
 * ctx's notifiers as config.json's notifications mode says, on a thread
 * of its own, so speech never holds up the plugin. Never fails (a failed
 * notifier is a debug line).
 */
void	opencode_alerts_event(struct opencode_alerts *, struct tool_ctx *,
	    const char *type, const json_t *props);

/* No DONE alert for sid's current turn (an /thatch/exit wrap-up). */
void	opencode_alerts_quiet(struct opencode_alerts *, const char *sid);

#endif
