/* alerts.h — the alert state machine: session events to pause, done and
 * error alerts (alerts.c). */
#ifndef THATCH_CORE_ALERTS_H
#define THATCH_CORE_ALERTS_H

#include <stdbool.h>

struct sbuf;

/*
 * engines-and-extras B3: which session events deserve telling the user,
 * one alert per busy -> idle transition and one per request id for
 * pauses, with no timer. Host-agnostic: the host says which sessions are
 * children (their pauses are their root's, and they never finish or fail
 * on their own) and delivers what this returns. State is process memory
 * only, on purpose: a restart loses at most one pending transition.
 * Opaque.
 */
struct alerts;

enum alert_kind {
	ALERT_NONE,
	ALERT_PAUSE,		/* a permission or question request waits */
	ALERT_DONE,		/* busy -> idle */
	ALERT_ERROR,		/* the session hit an error */
};

struct alerts	*alerts_new(void);
void		 alerts_free(struct alerts *);

/*
 * Session sid's status became busy (or retry) or idle. Returns
 * ALERT_DONE at the first idle after busy, unless that turn already
 * alerted an error or alerts_quiet was called for it; else ALERT_NONE.
 */
enum alert_kind	alerts_status(struct alerts *, const char *sid, bool busy);

/* sid hit an error: ALERT_ERROR once per turn; never for a user abort. */
enum alert_kind	alerts_error(struct alerts *, const char *sid, bool aborted);

/*
 * Request id of the root session waits for the user: ALERT_PAUSE the
 * first time that id is seen, ALERT_NONE after. alerts_replied forgets
 * the id (which bounds memory).
 */
enum alert_kind	alerts_request(struct alerts *, const char *root,
		    const char *id);
void		alerts_replied(struct alerts *, const char *root,
		    const char *id);

/* No DONE for sid's current turn (B3: an /thatch/exit wrap-up is
 * closing the app). */
void	alerts_quiet(struct alerts *, const char *sid);

/* sid was deleted: its state goes. */
void	alerts_forget(struct alerts *, const char *sid);

/* The alert's text (B3): "<label> is done", "<label> needs your input",
 * "<label> hit an error". */
void	alerts_text(enum alert_kind, const char *label, struct sbuf *out);

#endif
