/*
 * opencode_chat.c — cross-session chat inside the opencode core
 * (engines-and-extras B5 "Registration", "Heartbeat, staleness and
 * delivery", "Transcript echo"; hosts-hooks-cli §9.2, §9.6): which
 * sessions this process hosts, their heartbeats, the wake prompts and
 * their rate cap, and the echoes of chat calls. The core feeds it events
 * (opencode_events.c), calls (opencode_tools.c) and ticks (opencode.c)
 * and forwards the actions; the tables are core/session/chat.c's.
 *
 *  1. Only the process that hosts a session wakes it, and a wake prompt
 *     announces rows it claimed (chat_claim sets delivered_at in one
 *     transaction), so no message is announced twice, even by two
 *     processes that both think they host a session.
 *  2. The rate cap is per recipient, in memory (B5: "only the host
 *     process delivers"): at most wake_cap wake prompts per rolling
 *     window; past it mail stays queued (chat:ratecap) and the next tick
 *     after the window frees up delivers it. chat_read is never capped.
 *  3. A wake prompt names the senders and the count, never a body: bodies
 *     reach the model only through chat_read, addressed to the reader.
 *     The names are fields (text/fence.c): others' text, never thatch's.
 *  4. Failures are logged and never break a hook: a missed heartbeat or
 *     delivery is retried at the next tick.
 */
#include "host/opencode/opencode_chat.h"

#include <stdlib.h>
#include <string.h>

#include "core/session/chat.h"
#include "text/fence.h"
#include "text/text_opencode.h"
#include "util/os/clock.h"
#include "util/err.h"
#include "util/log.h"
#include "util/sbuf.h"
#include "util/xmalloc.h"

#define ECHOES_PER_SESSION	8
#define WAKE_CAP_MAX		100

struct hosted {
	char	*sid;			/* owned */
	bool	 idle;
	bool	 capped;		/* chat:ratecap said so already */
	int64_t	 wakes[WAKE_CAP_MAX];	/* recent wake prompts, ms */
	size_t	 nwakes;
};

struct echo {
	char	*sid, *text;		/* owned */
};

struct opencode_chat {
	struct store		*store;
	const struct clock	*clock;
	struct chat_settings	 set;
	struct hosted		*hosted;
	size_t			 nhosted;
	char			**skip;		/* never auto-registered here */
	size_t			 nskip;
	struct echo		*echoes;
	size_t			 nechoes;
};

struct opencode_chat *
opencode_chat_new(struct store *st, const struct clock *clock)
{
	struct opencode_chat	*c = xcalloc(1, sizeof(*c));

	c->store = st;
	c->clock = clock;
	chat_settings_load(&c->set);
	if (c->set.wake_cap < 1)
		c->set.wake_cap = 1;
	if (c->set.wake_cap > WAKE_CAP_MAX)
		c->set.wake_cap = WAKE_CAP_MAX;
	return c;
}

void
opencode_chat_free(struct opencode_chat *c)
{
	size_t	i;

	if (c == NULL)
		return;
	for (i = 0; i < c->nhosted; i++)
		free(c->hosted[i].sid);
	for (i = 0; i < c->nskip; i++)
		free(c->skip[i]);
	for (i = 0; i < c->nechoes; i++) {
		free(c->echoes[i].sid);
		free(c->echoes[i].text);
	}
	free(c->hosted);
	free(c->skip);
	free(c->echoes);
	free(c);
}

int
opencode_chat_tick_ms(const struct opencode_chat *c)
{
	return c->set.tick_ms;
}

static void
report(const char *what, const struct err *err)
{
	log_warn("chat %s: %s", what, err->msg);
	log_debug("chat:error", "%s: %s", what, err->msg);
}

static struct hosted *
find(const struct opencode_chat *c, const char *sid)
{
	size_t	i;

	for (i = 0; sid != NULL && i < c->nhosted; i++)
		if (strcmp(c->hosted[i].sid, sid) == 0)
			return &c->hosted[i];
	return NULL;
}

static bool
skipped(const struct opencode_chat *c, const char *sid)
{
	size_t	i;

	for (i = 0; i < c->nskip; i++)
		if (strcmp(c->skip[i], sid) == 0)
			return true;
	return false;
}

static void
skip(struct opencode_chat *c, const char *sid)
{
	if (skipped(c, sid))
		return;
	c->skip = xreallocarray(c->skip, c->nskip + 1, sizeof(*c->skip));
	c->skip[c->nskip++] = xstrdup(sid);
}

static void
unhost(struct opencode_chat *c, const char *sid)
{
	struct hosted	*h = find(c, sid);

	if (h == NULL)
		return;
	free(h->sid);
	*h = c->hosted[--c->nhosted];
}

bool
opencode_chat_known(const struct opencode_chat *c, const char *sid)
{
	return find(c, sid) != NULL || skipped(c, sid);
}

void
opencode_chat_host(struct opencode_chat *c, const char *sid)
{
	size_t	i;

	if (sid == NULL || find(c, sid) != NULL)
		return;
	for (i = 0; i < c->nskip; i++)
		if (strcmp(c->skip[i], sid) == 0) {
			free(c->skip[i]);
			c->skip[i] = c->skip[--c->nskip];
			break;
		}
	c->hosted = xreallocarray(c->hosted, c->nhosted + 1,
	    sizeof(*c->hosted));
	memset(&c->hosted[c->nhosted], 0, sizeof(*c->hosted));
	c->hosted[c->nhosted++].sid = xstrdup(sid);
}

void
opencode_chat_seen(struct opencode_chat *c, const char *sid,
    const char *title, const char *project, bool child)
{
	struct chat_join	 j;
	enum chat_join_result	 res;
	struct err		 err;
	char			*name = NULL;

	if (sid == NULL || find(c, sid) != NULL || skipped(c, sid))
		return;
	log_debug("chat:startup", "%s resolved%s", sid, child ?
	    ", a child: not registered" : "");
	if (child || !c->set.auto_register) {
		if (!child)
			log_debug("chat:startup", "%s: auto-registration is "
			    "off (THATCH_CHAT_AUTO_REGISTER)", sid);
		skip(c, sid);
		return;
	}
	memset(&j, 0, sizeof(j));
	j.session_id = sid;
	j.title = title;
	j.project = project;
	j.host_kind = "opencode";
	j.automatic = true;
	if (chat_join(c->store, &j, clock_now(c->clock), &name, &res,
	    &err) != 0) {
		report("registration", &err);	/* the next event retries */
		return;
	}
	if (res == CHAT_TOMBSTONED) {
		log_debug("chat:startup", "%s left the chat earlier "
		    "(tombstone): not registered", sid);
		skip(c, sid);
		return;
	}
	log_debug("chat:startup", "%s registered as %s", sid, name);
	free(name);
	opencode_chat_host(c, sid);
}

/* The wake prompt (B5, invariant 3): count and senders, no body. */
static void
wake_text(const struct chat_msgs *ms, struct sbuf *out)
{
	const char	*from;
	size_t		 i, j;

	sbuf_addf(out, "[thatch] chat: %zu new message%s from ", ms->n,
	    ms->n == 1 ? "" : "s");
	for (i = 0; i < ms->n; i++) {
		from = ms->v[i].from_name ? ms->v[i].from_name : "(gone)";
		for (j = 0; j < i; j++)
			if (strcmp(ms->v[j].from_name ? ms->v[j].from_name :
			    "(gone)", from) == 0)
				break;
		if (j == i) {
			sbuf_adds(out, i ? ", " : "");
			text_fence_field(out, from);
		}
	}
	sbuf_addf(out, " \u2014 call %schat_read.", TEXT_OPENCODE_PREFIX);
}

/* Invariant 2: whether h may get a wake prompt now. */
static bool
under_cap(struct opencode_chat *c, struct hosted *h, int64_t now)
{
	int64_t	window = (int64_t)c->set.wake_window_seconds * 1000;
	size_t	i, n = 0;

	for (i = 0; i < h->nwakes; i++)
		if (now - h->wakes[i] < window)
			h->wakes[n++] = h->wakes[i];
	h->nwakes = n;
	if (n < (size_t)c->set.wake_cap) {
		h->capped = false;
		return true;
	}
	if (!h->capped)
		log_debug("chat:ratecap", "%s: %zu wake prompts in %d s, mail "
		    "stays queued", h->sid, n, c->set.wake_window_seconds);
	h->capped = true;
	return false;
}

static void
deliver(struct opencode_chat *c, struct hosted *h, json_t *actions)
{
	struct chat_msgs	 ms = { NULL, 0 };
	struct sbuf		 sb = SBUF_INIT;
	struct err		 err;
	int64_t			 now = clock_now(c->clock);
	bool			 pending;

	if (!h->idle)
		return;
	if (chat_pending(c->store, h->sid, &pending, &err) != 0) {
		report("delivery", &err);
		return;
	}
	if (!pending || !under_cap(c, h, now))
		return;
	if (chat_claim(c->store, h->sid, now, &ms, &err) != 0) {
		report("delivery", &err);
		return;
	}
	if (ms.n > 0) {
		sbuf_init(&sb);
		wake_text(&ms, &sb);
		json_array_append_new(actions, json_pack("{s:s,s:s,s:s,s:b}",
		    "do", "prompt", "session", h->sid, "text", sb.buf,
		    "async", 1));
		log_debug("chat:deliver", "%s: %zu message(s)", h->sid, ms.n);
		sbuf_release(&sb);
		h->wakes[h->nwakes++] = now;
		h->idle = false;	/* the prompt starts a turn */
	}
	chat_msgs_release(&ms);
}

void
opencode_chat_status(struct opencode_chat *c, const char *sid, bool idle,
    json_t *actions)
{
	struct hosted	*h = find(c, sid);

	if (h == NULL)
		return;
	h->idle = idle;
	deliver(c, h, actions);
}

void
opencode_chat_deleted(struct opencode_chat *c, const char *sid)
{
	struct err	err;
	bool		was;
	size_t		i;

	if (sid == NULL)
		return;
	if (chat_leave(c->store, sid, false, clock_now(c->clock), &was,
	    &err) != 0)
		report("unregister", &err);
	unhost(c, sid);
	skip(c, sid);	/* a late event of this process must not rejoin it */
	for (i = c->nechoes; i-- > 0;)
		if (strcmp(c->echoes[i].sid, sid) == 0) {
			free(c->echoes[i].sid);
			free(c->echoes[i].text);
			memmove(&c->echoes[i], &c->echoes[i + 1],
			    (c->nechoes - i - 1) * sizeof(*c->echoes));
			c->nechoes--;
		}
}

void
opencode_chat_tick(struct opencode_chat *c, json_t *actions)
{
	struct err	err;
	bool		registered;
	size_t		i = 0;

	while (i < c->nhosted) {
		if (chat_heartbeat(c->store, c->hosted[i].sid,
		    clock_now(c->clock), &registered, &err) != 0) {
			report("heartbeat", &err);
			registered = true;	/* invariant 4: next tick */
		}
		if (!registered) {
			log_debug("chat:heartbeat", "%s left the directory",
			    c->hosted[i].sid);
			unhost(c, c->hosted[i].sid);
			continue;
		}
		deliver(c, &c->hosted[i], actions);
		i++;
	}
}

void
opencode_chat_echo_push(struct opencode_chat *c, const char *sid,
    const char *text)
{
	size_t	i, n = 0;

	/* an empty echo (a refusal) keeps pushes and pops paired */
	if (sid == NULL || text == NULL)
		return;
	for (i = 0; i < c->nechoes; i++)
		n += strcmp(c->echoes[i].sid, sid) == 0;
	if (n >= ECHOES_PER_SESSION)
		return;		/* calls whose after hook never came */
	c->echoes = xreallocarray(c->echoes, c->nechoes + 1,
	    sizeof(*c->echoes));
	c->echoes[c->nechoes].sid = xstrdup(sid);
	c->echoes[c->nechoes++].text = xstrdup(text);
}

void
opencode_chat_echo_pop(struct opencode_chat *c, const char *sid,
    json_t *actions)
{
	size_t	i;

	for (i = 0; sid != NULL && i < c->nechoes; i++)
		if (strcmp(c->echoes[i].sid, sid) == 0)
			break;
	if (sid == NULL || i == c->nechoes)
		return;
	/* B5: visible (not synthetic), and no model turn of its own */
	if (*c->echoes[i].text != '\0')
		json_array_append_new(actions, json_pack("{s:s,s:s,s:s,s:b,"
		    "s:b}", "do", "prompt", "session", sid, "text",
		    c->echoes[i].text, "noReply", 1, "visible", 1));
	free(c->echoes[i].sid);
	free(c->echoes[i].text);
	memmove(&c->echoes[i], &c->echoes[i + 1], (c->nechoes - i - 1) *
	    sizeof(*c->echoes));
	c->nechoes--;
}
