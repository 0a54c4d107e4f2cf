/* chat.h — cross-session chat: the directory and the inbox (chat.c). */
#ifndef THATCH_CORE_CHAT_H
#define THATCH_CORE_CHAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct err;
struct sbuf;
struct store;

/* Limits and defaults (store-and-tools §4.16, engines-and-extras B1/B5). */
#define CHAT_BODY_MAX		10000	/* characters (code points) */
#define CHAT_TOPIC_MAX		200	/* characters, one line */
#define CHAT_PURGE_SECONDS	86400	/* stale rows older go at a join */
#define CHAT_READ_PAGE		20	/* messages per chat_read by default */
#define CHAT_READ_PAGE_MAX	100
#define CHAT_RATE_SECONDS	60	/* the send rate's window */

/*
 * The chat settings (engines-and-extras B1 "chat"). config.json has no
 * chat section (store-and-tools §4.13 wins over B1), so they are B1's
 * defaults, each overridable from the environment: THATCH_CHAT_AUTO_REGISTER
 * (0 turns it off), THATCH_CHAT_STALE_SECONDS, THATCH_CHAT_WAKE_CAP,
 * THATCH_CHAT_WAKE_WINDOW_SECONDS, THATCH_CHAT_TICK_MS (the poller's
 * period, B5's 10 s), and the bounds issue 31 added:
 * THATCH_CHAT_SEND_RATE (messages a sender may send a minute, a broadcast
 * counting once; 30) and THATCH_CHAT_INBOX_CAP (rows one inbox holds; 500).
 */
struct chat_settings {
	bool	auto_register;
	int	stale_seconds, wake_cap, wake_window_seconds, tick_ms;
	int	send_rate, inbox_cap;
};
void	chat_settings_load(struct chat_settings *);

/* The MCP synthetic session id (§4.16): "mcp_" + 12 hex of SHA-256 of the
 * lowercased name. */
#define CHAT_MCP_ID_LEN	17
void	chat_mcp_session_id(const char *name, char out[CHAT_MCP_ID_LEN]);

/* One directory row, as listed. All strings owned; NULL when unset. */
struct chat_peer {
	char	*session_id, *name, *topic, *project, *host_kind, *worktree;
	char	*last_seen;
	bool	 automatic;
	bool	 stale;		/* now - last_seen > stale_seconds */
	bool	 full;		/* chat_fan_out: its inbox had no room */
	int64_t	 age_seconds;	/* now - last_seen */
	int	 unread;	/* unread messages from this peer to the asker */
};

struct chat_peers {
	struct chat_peer	*v;
	size_t			 n;
};
void	chat_peer_release(struct chat_peer *);
void	chat_peers_release(struct chat_peers *);

/* A registration (chat_join); all borrowed. */
struct chat_join {
	const char	*session_id;
	const char	*name;		/* explicit; NULL: keep, or assign */
	const char	*title;		/* base of an assigned name, or NULL */
	const char	*topic;		/* NULL keeps it, "" clears it */
	const char	*project, *host_kind, *worktree;
	bool		 automatic;	/* auto-registration (B5 "Auto") */
};

enum chat_join_result {
	CHAT_JOINED,
	CHAT_NAME_TAKEN,	/* another session has it, case-insensitively */
	CHAT_NAME_BAD,		/* not chat_names_valid */
	CHAT_TOMBSTONED,	/* automatic, and the session left */
};

/*
 * Join or rejoin the directory in one BEGIN IMMEDIATE transaction (so
 * concurrent joins never hand out one name twice). A session already in
 * it keeps its name unless j->name renames it; an automatic join only
 * refreshes last_seen, an explicit one sets auto = 0 and deletes the
 * tombstone. A new session gets j->name, else a name from its title's
 * base or the pool through the per-base counters (chat_names.h): base the
 * first time, then base-<next>; names are never handed out twice. Rows
 * stale for CHAT_PURGE_SECONDS are deleted first. *name (owned, or NULL
 * when not joined) is the session's name. Returns 0 with *result, or -1.
 */
int	chat_join(struct store *, const struct chat_join *, int64_t now_ms,
	    char **name, enum chat_join_result *result, struct err *);

/* The row of session_id (found false: none). p is released by the caller. */
int	chat_get(struct store *, const char *session_id, int64_t now_ms,
	    int stale_seconds, struct chat_peer *p, bool *found, struct err *);

/* The session id registered under name, case-insensitively (NULL: none;
 * owned). host_kind, when not NULL, must match too. */
int	chat_lookup(struct store *, const char *name, const char *host_kind,
	    char **session_id, struct err *);

/* Whether session_id left explicitly (a tombstone). */
int	chat_tombstoned(struct store *, const char *session_id, bool *,
	    struct err *);

/*
 * Leave: delete the row; tombstone (explicit leave, B5) writes a
 * tombstone, else (the session was deleted) none is written. Unread mail
 * stays. *was is whether there was a row.
 */
int	chat_leave(struct store *, const char *session_id, bool tombstone,
	    int64_t now_ms, bool *was, struct err *);

/* Everyone in the directory by name, unread counted toward asker (NULL:
 * none). */
int	chat_list(struct store *, const char *asker, int64_t now_ms,
	    int stale_seconds, struct chat_peers *, struct err *);

/* Refresh last_seen; *registered false when the row is gone. */
int	chat_heartbeat(struct store *, const char *session_id, int64_t now_ms,
	    bool *registered, struct err *);

/* One message as read, delivered or tailed. Strings owned. */
struct chat_msg {
	int64_t	 id;
	char	*from_session, *from_name;	/* from_name NULL: gone */
	char	*to_session, *to_name;
	char	*body;
	int64_t	 created;	/* seconds since the epoch */
	bool	 via_broadcast;
};

struct chat_msgs {
	struct chat_msg	*v;
	size_t		 n;
};
void	chat_msgs_release(struct chat_msgs *);

/*
 * Insert one message from from_sid to to_sid (both registered; the
 * caller checked). The oldest read rows of to_sid's inbox older than
 * CHAT_RATE_SECONDS make room so it holds at most inbox_cap; when the
 * rest fill it (unread mail is never dropped), nothing is written and 1
 * is returned. Else 0 with *id the new row's, or -1.
 */
int	chat_post(struct store *, const char *from_sid, const char *to_sid,
	    const char *body, bool via_broadcast, int inbox_cap,
	    int64_t now_ms, int64_t *id, struct err *);

/* How many messages from_sid sent in the CHAT_RATE_SECONDS before now, a
 * broadcast counting once (two in one second count once). */
int	chat_sent(struct store *, const char *from_sid, int64_t now_ms,
	    int64_t *n, struct err *);

/*
 * Insert one row per fresh participant but from_sid, in one transaction,
 * as chat_post does; sent gets the recipients by name, skipped the stale
 * ones (stale) and those whose inbox was full (full).
 */
int	chat_fan_out(struct store *, const char *from_sid, const char *body,
	    int64_t now_ms, const struct chat_settings *,
	    struct chat_peers *sent, struct chat_peers *skipped, struct err *);

/*
 * The oldest limit unread messages to session_id (limit < 0: all),
 * oldest first, marked read (and delivered when they were not) in the
 * same transaction. Only rows whose to_session is session_id are ever
 * returned.
 */
int	chat_read(struct store *, const char *session_id, int64_t now_ms,
	    int limit, struct chat_msgs *, struct err *);

/* Unread and total messages to session_id. */
int	chat_counts(struct store *, const char *session_id, int *unread,
	    int *total, struct err *);

/*
 * Claim the mail a wake prompt announces: the rows to session_id neither
 * delivered nor read get delivered_at, in one transaction, so that of two
 * processes only one ever announces a row. The claimed rows (bodies
 * included) are returned oldest first.
 */
int	chat_claim(struct store *, const char *session_id, int64_t now_ms,
	    struct chat_msgs *, struct err *);

/* Whether session_id has mail no wake prompt announced yet. */
int	chat_pending(struct store *, const char *session_id, bool *,
	    struct err *);

/*
 * For `thatch chat tail`: the newest limit messages when after_id is
 * negative, else every message with an id above after_id; oldest first.
 */
int	chat_tail(struct store *, int64_t after_id, int limit,
	    struct chat_msgs *, struct err *);
/* The newest message's id, 0 when there is none. */
int	chat_last_id(struct store *, int64_t *, struct err *);

/*
 * Texts every host shares. chat_age appends "42s", "5m", "3h" or "2d".
 * chat_body appends body with each line after the first indented two
 * spaces, so no line of a body can pass for a header line of another
 * message. chat_is_echo says whether text is a transcript echo (B5:
 * every non-empty line begins with "[chat]").
 */
void	chat_age(struct sbuf *, int64_t seconds);
void	chat_body(struct sbuf *, const char *body, const char *indent);
bool	chat_is_echo(const char *text);

#endif
