/* opencode_chat.h — chat delivery in the opencode core (opencode_chat.c). */
#ifndef THATCH_HOST_OPENCODE_CHAT_H
#define THATCH_HOST_OPENCODE_CHAT_H

#include <stdbool.h>

#include <jansson.h>

struct clock;
struct store;

/*
 * The chat side of one `thatch opencode` process (engines-and-extras B5):
 * the sessions it hosts, their last known status, the wake prompts each
 * recipient got lately, and the transcript echoes waiting for their
 * tool.execute.after. Opaque.
 */
struct opencode_chat;

/* store and clock are borrowed for the object's life. */
struct opencode_chat *opencode_chat_new(struct store *, const struct clock *);
void	opencode_chat_free(struct opencode_chat *);

/* The poller's period, for the plugin's timer (THATCH_CHAT_TICK_MS). */
int	opencode_chat_tick_ms(const struct opencode_chat *);

/*
 * A session this process runs showed itself (session.created, or the
 * first status of a session resumed with -s / -c): a top-level one is
 * registered automatically unless it left (a tombstone) or
 * THATCH_CHAT_AUTO_REGISTER=0; each guard is logged under chat:startup.
 * A child is never registered. title may be NULL; project is the store.
 */
void	opencode_chat_seen(struct opencode_chat *, const char *sid,
	    const char *title, const char *project, bool child);

/* Whether opencode_chat_seen has settled sid already (hosted, or left
 * out), so that a caller can skip finding its title. */
bool	opencode_chat_known(const struct opencode_chat *, const char *sid);

/* A chat tool ran in sid here: this process hosts it from now on. */
void	opencode_chat_host(struct opencode_chat *, const char *sid);

/*
 * session.status: record busy / idle; an idle session with mail gets its
 * wake prompt now (appended to actions), if the rate cap allows.
 */
void	opencode_chat_status(struct opencode_chat *, const char *sid,
	    bool idle, json_t *actions);

/* session.deleted: unregister without a tombstone, stop hosting. */
void	opencode_chat_deleted(struct opencode_chat *, const char *sid);

/*
 * The poller's tick: heartbeat every hosted session (one that left the
 * directory meanwhile is no longer hosted), then wake the idle ones with
 * mail, as opencode_chat_status does.
 */
void	opencode_chat_tick(struct opencode_chat *, json_t *actions);

/*
 * The transcript echo of a chat call in sid (text copied), and the
 * tool.execute.after that posts it: pop the oldest echo of sid into
 * actions as a visible, non-synthetic, no-reply prompt. Echoes are kept
 * per session in call order, one per call ("" for a refusal, which posts
 * nothing), so each after hook pops its own call's; a session keeps at
 * most a few.
 */
void	opencode_chat_echo_push(struct opencode_chat *, const char *sid,
	    const char *text);
void	opencode_chat_echo_pop(struct opencode_chat *, const char *sid,
	    json_t *actions);

#endif
