/*
 * alerts.c — the alert state machine of engines-and-extras B3.
 *
 * One record per top-level session that has had an event, in a small
 * array (a process hosts a handful of sessions):
 *  1. busy, done_sent and error_sent follow B3's table: a busy status
 *     starts a turn (clearing both marks), the first idle after it is
 *     DONE unless the turn already said ERROR (or was made quiet), an
 *     idle while idle says nothing.
 *  2. A pause is keyed by request id within its root session: a request
 *     seen again (a host re-sending it) is not a second alert; a reply
 *     removes the id, so the set holds only requests still waiting.
 *  3. Nothing here knows hosts, texts beyond alerts_text, or time.
 */
#include "core/session/alerts.h"

#include <stdlib.h>
#include <string.h>

#include "util/sbuf.h"
#include "util/xmalloc.h"

struct alert_state {
	char	 *sid;			/* owned */
	bool	  busy, done_sent, error_sent;
	char	**paused;		/* owned ids of waiting requests */
	size_t	  npaused;
};

struct alerts {
	struct alert_state	*v;
	size_t			 n;
};

struct alerts *
alerts_new(void)
{
	return xcalloc(1, sizeof(struct alerts));
}

static void
state_release(struct alert_state *s)
{
	while (s->npaused > 0)
		free(s->paused[--s->npaused]);
	free(s->paused);
	free(s->sid);
}

void
alerts_free(struct alerts *a)
{
	size_t	i;

	if (a == NULL)
		return;
	for (i = 0; i < a->n; i++)
		state_release(&a->v[i]);
	free(a->v);
	free(a);
}

static struct alert_state *
state(struct alerts *a, const char *sid)
{
	size_t	i;

	for (i = 0; i < a->n; i++)
		if (strcmp(a->v[i].sid, sid) == 0)
			return &a->v[i];
	a->v = xreallocarray(a->v, a->n + 1, sizeof(*a->v));
	memset(&a->v[a->n], 0, sizeof(a->v[a->n]));
	a->v[a->n].sid = xstrdup(sid);
	return &a->v[a->n++];
}

enum alert_kind
alerts_status(struct alerts *a, const char *sid, bool busy)
{
	struct alert_state	*s = state(a, sid);

	if (busy) {
		if (!s->busy) {
			s->busy = true;
			s->done_sent = s->error_sent = false;
		}
		return ALERT_NONE;
	}
	if (!s->busy)
		return ALERT_NONE;
	s->busy = false;
	if (s->done_sent || s->error_sent)
		return ALERT_NONE;
	s->done_sent = true;
	return ALERT_DONE;
}

enum alert_kind
alerts_error(struct alerts *a, const char *sid, bool aborted)
{
	struct alert_state	*s = state(a, sid);

	if (aborted || s->error_sent)
		return ALERT_NONE;
	s->error_sent = true;
	return ALERT_ERROR;
}

static size_t
paused_at(const struct alert_state *s, const char *id)
{
	size_t	i;

	for (i = 0; i < s->npaused; i++)
		if (strcmp(s->paused[i], id) == 0)
			break;
	return i;
}

enum alert_kind
alerts_request(struct alerts *a, const char *root, const char *id)
{
	struct alert_state	*s = state(a, root);

	if (paused_at(s, id) < s->npaused)
		return ALERT_NONE;
	s->paused = xreallocarray(s->paused, s->npaused + 1,
	    sizeof(*s->paused));
	s->paused[s->npaused++] = xstrdup(id);
	return ALERT_PAUSE;
}

void
alerts_replied(struct alerts *a, const char *root, const char *id)
{
	struct alert_state	*s = state(a, root);
	size_t			 i = paused_at(s, id);

	if (i == s->npaused)
		return;
	free(s->paused[i]);
	s->paused[i] = s->paused[--s->npaused];
}

void
alerts_quiet(struct alerts *a, const char *sid)
{
	state(a, sid)->done_sent = true;
}

void
alerts_forget(struct alerts *a, const char *sid)
{
	size_t	i;

	for (i = 0; i < a->n; i++)
		if (strcmp(a->v[i].sid, sid) == 0) {
			state_release(&a->v[i]);
			a->v[i] = a->v[--a->n];
			return;
		}
}

void
alerts_text(enum alert_kind k, const char *label, struct sbuf *out)
{
	static const char *const	tails[] = {
		[ALERT_NONE] = "",
		[ALERT_PAUSE] = " needs your input",
		[ALERT_DONE] = " is done",
		[ALERT_ERROR] = " hit an error",
	};

	sbuf_adds(out, label);
	sbuf_adds(out, tails[k]);
}
