/*
 * chat.c — cross-session chat (engines-and-extras B5, store-and-tools
 * §1.4.4, §4.16): the directory (chat_sessions), the inbox
 * (chat_messages), the name counters and the leave tombstones, all in the
 * thatch database so that every process on the machine shares them.
 * store.c creates and migrates the tables; only this file writes them.
 *
 * Knows nothing of hosts: who the caller is, when a session is idle and
 * how a wake prompt reaches it are the tools' and the host's.
 *  1. Chat timestamps are second resolution, "YYYY-MM-DDTHH:MM:SSZ"
 *     (§1.4.4, §1.7); ages are computed by SQLite from the stored text,
 *     so rows another program wrote in the millisecond format age too.
 *  2. A read only ever returns rows whose to_session is the reader: no
 *     query here selects a body by anything but its recipient (chat_read,
 *     chat_claim) except chat_tail, which is the local user's CLI.
 *  3. Every change spanning statements (a join with its counter, a
 *     broadcast, a read that marks) is one BEGIN IMMEDIATE transaction:
 *     the write lock is taken before the first read, so two processes
 *     joining at once serialise instead of both taking one name.
 *  4. Names are unique case-insensitively (the column's COLLATE NOCASE)
 *     and never handed out twice: a counter only grows, and a candidate
 *     that is taken moves on to the next (B5 "Make it unique").
 *  5. An inbox never holds more than inbox_cap rows once a message is
 *     posted to it: the oldest read rows make room in the transaction of
 *     the insert, unread rows are never dropped, and neither is a row of
 *     the last CHAT_RATE_SECONDS, so that chat_sent's count is exact; an
 *     inbox that the rest fill refuses the message (issue 31: 20k
 *     messages made a 206 MB database).
 */
#include "core/session/chat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/session/chat_names.h"
#include "core/store/store.h"
#include "util/err.h"
#include "util/num.h"
#include "util/sbuf.h"
#include "util/sha256.h"
#include "util/xmalloc.h"

#define ISO_S	"%Y-%m-%dT%H:%M:%SZ"
#define STR_(x)	#x
#define STR(x)	STR_(x)
#define PURGE_SECONDS	STR(CHAT_PURGE_SECONDS)

void
chat_settings_load(struct chat_settings *s)
{
	s->auto_register = num_env("THATCH_CHAT_AUTO_REGISTER", 1) != 0;
	s->stale_seconds = (int)num_env("THATCH_CHAT_STALE_SECONDS", 60);
	s->wake_cap = (int)num_env("THATCH_CHAT_WAKE_CAP", 5);
	s->wake_window_seconds = (int)num_env(
	    "THATCH_CHAT_WAKE_WINDOW_SECONDS", 600);
	s->tick_ms = (int)num_env("THATCH_CHAT_TICK_MS", 10000);
	s->send_rate = (int)num_env("THATCH_CHAT_SEND_RATE", 30);
	s->inbox_cap = (int)num_env("THATCH_CHAT_INBOX_CAP", 500);
	if (s->tick_ms < 50)
		s->tick_ms = 50;
}

void
chat_mcp_session_id(const char *name, char out[CHAT_MCP_ID_LEN])
{
	char	hex[SHA256_HEX_LEN];
	char	*low = xstrdup(name);
	size_t	i;

	for (i = 0; low[i] != '\0'; i++)
		if (low[i] >= 'A' && low[i] <= 'Z')
			low[i] = (char)(low[i] - 'A' + 'a');
	sha256_hex(low, strlen(low), hex);
	snprintf(out, CHAT_MCP_ID_LEN, "mcp_%.12s", hex);
	free(low);
}

/* Invariant 1. */
static void
stamp(int64_t now_ms, char buf[32])
{
	time_t		t = (time_t)(now_ms / 1000);
	struct tm	tm;

	gmtime_r(&t, &tm);
	strftime(buf, 32, ISO_S, &tm);
}

static char *
col_dup(sqlite3_stmt *stmt, int i)
{
	const unsigned char	*s = sqlite3_column_text(stmt, i);

	return s != NULL ? xstrdup((const char *)s) : NULL;
}

static int
fail(struct store *st, struct err *err, const char *what)
{
	return err_set(err, "chat: cannot %s: %s", what,
	    sqlite3_errmsg(store_db(st)));
}

/* Step a statement that returns no row (a write). */
static int
step_done(struct store *st, sqlite3_stmt *stmt, const char *what,
    struct err *err)
{
	int	rc = sqlite3_step(stmt) == SQLITE_DONE ? 0 :
		    fail(st, err, what);

	sqlite3_finalize(stmt);
	return rc;
}

/* Invariant 3: the write lock first; end_txn commits or rolls back. */
static int
begin(struct store *st, struct err *err)
{
	return store_exec(st, "BEGIN IMMEDIATE", err);
}

static int
end_txn(struct store *st, int rc, struct err *err)
{
	struct err	ignored;

	if (rc == 0 && store_exec(st, "COMMIT", err) == 0)
		return 0;
	store_exec(st, "ROLLBACK", &ignored);	/* keeps the first error */
	return -1;
}

/* ---- the directory ----------------------------------------------------- */

#define PEER_COLS	"s.session_id, s.name, s.topic, s.project, " \
	"s.host_kind, s.worktree, s.last_seen, s.auto, " \
	"?1 - CAST(strftime('%s', s.last_seen) AS INTEGER)"

static void
peer_read(sqlite3_stmt *stmt, int stale_seconds, struct chat_peer *p)
{
	memset(p, 0, sizeof(*p));
	p->session_id = col_dup(stmt, 0);
	p->name = col_dup(stmt, 1);
	p->topic = col_dup(stmt, 2);
	p->project = col_dup(stmt, 3);
	p->host_kind = col_dup(stmt, 4);
	p->worktree = col_dup(stmt, 5);
	p->last_seen = col_dup(stmt, 6);
	p->automatic = sqlite3_column_int(stmt, 7) != 0;
	p->age_seconds = sqlite3_column_int64(stmt, 8);
	if (p->age_seconds < 0)
		p->age_seconds = 0;
	p->stale = p->age_seconds > stale_seconds;
}

void
chat_peer_release(struct chat_peer *p)
{
	free(p->session_id);
	free(p->name);
	free(p->topic);
	free(p->project);
	free(p->host_kind);
	free(p->worktree);
	free(p->last_seen);
}

void
chat_peers_release(struct chat_peers *ps)
{
	size_t	i;

	for (i = 0; i < ps->n; i++)
		chat_peer_release(&ps->v[i]);
	free(ps->v);
	ps->v = NULL;
	ps->n = 0;
}

static void
peers_push(struct chat_peers *ps, const struct chat_peer *p)
{
	ps->v = xreallocarray(ps->v, ps->n + 1, sizeof(*ps->v));
	ps->v[ps->n++] = *p;
}

int
chat_get(struct store *st, const char *sid, int64_t now_ms,
    int stale_seconds, struct chat_peer *p, bool *found, struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	int		 step;

	*found = false;
	memset(p, 0, sizeof(*p));
	if (store_prepare(st, &stmt, "SELECT " PEER_COLS " FROM "
	    "chat_sessions s WHERE s.session_id = ?2", err) != 0)
		return -1;
	sqlite3_bind_int64(stmt, 1, now_ms / 1000);
	sqlite3_bind_text(stmt, 2, sid, -1, SQLITE_STATIC);
	if ((step = sqlite3_step(stmt)) == SQLITE_ROW) {
		peer_read(stmt, stale_seconds, p);
		*found = true;
	}
	sqlite3_finalize(stmt);
	return step == SQLITE_ROW || step == SQLITE_DONE ? 0 :
	    fail(st, err, "read the chat directory");
}

int
chat_lookup(struct store *st, const char *name, const char *host_kind,
    char **sid, struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	int		 step;

	*sid = NULL;
	if (store_prepare(st, &stmt, "SELECT session_id FROM chat_sessions "
	    "WHERE name = ?1 AND (?2 IS NULL OR host_kind = ?2)", err) != 0)
		return -1;
	sqlite3_bind_text(stmt, 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 2, host_kind, -1, SQLITE_STATIC);
	if ((step = sqlite3_step(stmt)) == SQLITE_ROW)
		*sid = col_dup(stmt, 0);
	sqlite3_finalize(stmt);
	return step == SQLITE_ROW || step == SQLITE_DONE ? 0 :
	    fail(st, err, "look a chat name up");
}

/* One integer from a query with up to two text parameters (-1: none). */
static int
query_int(struct store *st, const char *sql, const char *a, const char *b,
    int64_t *out, struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	int		 step;

	*out = -1;
	if (store_prepare(st, &stmt, sql, err) != 0)
		return -1;
	sqlite3_bind_text(stmt, 1, a, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 2, b, -1, SQLITE_STATIC);
	if ((step = sqlite3_step(stmt)) == SQLITE_ROW)
		*out = sqlite3_column_int64(stmt, 0);
	sqlite3_finalize(stmt);
	return step == SQLITE_ROW || step == SQLITE_DONE ? 0 :
	    fail(st, err, "read the chat tables");
}

/* Whether a "SELECT 1 …" query finds a row. */
static int
query_exists(struct store *st, const char *sql, const char *a, const char *b,
    bool *out, struct err *err)
{
	int64_t	n;

	if (query_int(st, sql, a, b, &n, err) != 0)
		return -1;
	*out = n == 1;
	return 0;
}

int
chat_tombstoned(struct store *st, const char *sid, bool *out,
    struct err *err)
{
	return query_exists(st, "SELECT 1 FROM chat_leave_tombstones WHERE "
	    "session_id = ?1", sid, NULL, out, err);
}

/* Whether another session than sid holds name (case-insensitively). */
static int
name_taken(struct store *st, const char *name, const char *sid, bool *out,
    struct err *err)
{
	return query_exists(st, "SELECT 1 FROM chat_sessions WHERE name = ?1 "
	    "AND session_id <> ?2", name, sid, out, err);
}

/* The next counter of base (0: none yet). */
static int
counter(struct store *st, const char *base, int64_t *next, struct err *err)
{
	if (query_int(st, "SELECT next FROM chat_name_counters WHERE base = "
	    "lower(?1)", base, NULL, next, err) != 0)
		return -1;
	if (*next < 0)
		*next = 0;
	return 0;
}

/* The counter of base goes to at least next (it only grows, inv. 4). */
static int
counter_bump(struct store *st, const char *base, int64_t next,
    struct err *err)
{
	sqlite3_stmt	*stmt = NULL;

	if (store_prepare(st, &stmt, "INSERT INTO chat_name_counters (base, "
	    "next) VALUES (lower(?1), ?2) ON CONFLICT(base) DO UPDATE SET "
	    "next = max(next, excluded.next)", err) != 0)
		return -1;
	sqlite3_bind_text(stmt, 1, base, -1, SQLITE_STATIC);
	sqlite3_bind_int64(stmt, 2, next);
	return step_done(st, stmt, "count a chat name", err);
}

/*
 * B5 "Choose the base" from the pool: the entries whose counter is lowest,
 * the tie broken by the session id's hash (spread, and no global state).
 */
static int
pool_base(struct store *st, const char *sid, const char **base,
    struct err *err)
{
	char	 hex[SHA256_HEX_LEN];
	int64_t	 next, low = -1;
	size_t	 i, ties = 0, pick;
	int64_t	*counts;
	size_t	 n = 0;

	while (chat_names_pool[n] != NULL)
		n++;
	counts = xreallocarray(NULL, n, sizeof(*counts));
	for (i = 0; i < n; i++) {
		if (counter(st, chat_names_pool[i], &next, err) != 0) {
			free(counts);
			return -1;
		}
		counts[i] = next;
		if (low < 0 || next < low) {
			low = next;
			ties = 0;
		}
		ties += next == low;
	}
	sha256_hex(sid, strlen(sid), hex);
	for (i = 0, pick = 0; i < 8; i++)
		pick = pick * 16 + (size_t)(hex[i] <= '9' ? hex[i] - '0' :
		    hex[i] - 'a' + 10);
	pick %= ties;
	for (i = 0; i < n; i++)
		if (counts[i] == low && pick-- == 0)
			break;
	*base = chat_names_pool[i];
	free(counts);
	return 0;
}

/* B5 "Make it unique": base, then base-<next>, past every taken name. */
static int
assign_name(struct store *st, const struct chat_join *j, char **name,
    struct err *err)
{
	char		 from_title[CHAT_NAMES_BASE_MAX + 1];
	const char	*base = from_title;
	int64_t		 next;
	bool		 taken = true;

	*name = NULL;
	if (!chat_names_base(j->title, from_title) &&
	    pool_base(st, j->session_id, &base, err) != 0)
		return -1;
	if (counter(st, base, &next, err) != 0)
		return -1;
	while (taken) {
		free(*name);
		*name = next == 0 ? xstrdup(base) : xasprintf("%s-%lld", base,
		    (long long)next);
		next = next == 0 ? 2 : next + 1;
		if (name_taken(st, *name, j->session_id, &taken, err) != 0)
			return -1;
	}
	return counter_bump(st, base, next, err);
}

static int
exec_sid(struct store *st, const char *sql, const char *sid,
    const char *stamp_text, const char *what, struct err *err)
{
	sqlite3_stmt	*stmt = NULL;

	if (store_prepare(st, &stmt, sql, err) != 0)
		return -1;
	sqlite3_bind_text(stmt, 1, sid, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 2, stamp_text, -1, SQLITE_STATIC);
	return step_done(st, stmt, what, err);
}

static int
insert_peer(struct store *st, const struct chat_join *j, const char *name,
    const char *now, struct err *err)
{
	sqlite3_stmt	*stmt = NULL;

	if (store_prepare(st, &stmt, "INSERT INTO chat_sessions (session_id, "
	    "name, topic, project, host_kind, registered_at, last_seen, auto, "
	    "worktree) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6, ?7, ?8)",
	    err) != 0)
		return -1;
	sqlite3_bind_text(stmt, 1, j->session_id, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 2, name, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 3, j->topic != NULL && *j->topic != '\0' ?
	    j->topic : NULL, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 4, j->project, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 5, j->host_kind ? j->host_kind : "opencode",
	    -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 6, now, -1, SQLITE_STATIC);
	sqlite3_bind_int(stmt, 7, j->automatic);
	sqlite3_bind_text(stmt, 8, j->worktree, -1, SQLITE_STATIC);
	return step_done(st, stmt, "join the chat directory", err);
}

/* A rejoin: last_seen always; name, topic and auto = 0 when explicit. */
static int
update_peer(struct store *st, const struct chat_join *j, const char *name,
    const char *now, struct err *err)
{
	sqlite3_stmt	*stmt = NULL;

	if (store_prepare(st, &stmt, "UPDATE chat_sessions SET last_seen = "
	    "?2, name = coalesce(?3, name), topic = CASE WHEN ?4 IS NULL "
	    "THEN topic WHEN ?4 = '' THEN NULL ELSE ?4 END, auto = CASE WHEN "
	    "?5 THEN auto ELSE 0 END, project = coalesce(?6, project) WHERE "
	    "session_id = ?1", err) != 0)
		return -1;
	sqlite3_bind_text(stmt, 1, j->session_id, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 2, now, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 3, name, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 4, j->automatic ? NULL : j->topic, -1,
	    SQLITE_STATIC);
	sqlite3_bind_int(stmt, 5, j->automatic);
	sqlite3_bind_text(stmt, 6, j->project, -1, SQLITE_STATIC);
	return step_done(st, stmt, "rejoin the chat directory", err);
}

/* The body of chat_join, inside its transaction. */
static int
join_txn(struct store *st, const struct chat_join *j, const char *now,
    char **name, enum chat_join_result *result, struct err *err)
{
	struct chat_peer	 p;
	bool			 found, gone, taken;

	if (exec_sid(st, "DELETE FROM chat_sessions WHERE session_id <> ?1 "
	    "AND strftime('%s', last_seen) + 0 < strftime('%s', ?2) - "
	    PURGE_SECONDS, j->session_id, now, "purge stale sessions",
	    err) != 0)
		return -1;
	if (j->automatic) {
		if (chat_tombstoned(st, j->session_id, &gone, err) != 0)
			return -1;
		if (gone) {
			*result = CHAT_TOMBSTONED;
			return 0;
		}
	}
	if (j->name != NULL) {
		if (!chat_names_valid(j->name)) {
			*result = CHAT_NAME_BAD;
			return 0;
		}
		if (name_taken(st, j->name, j->session_id, &taken, err) != 0)
			return -1;
		if (taken) {
			*result = CHAT_NAME_TAKEN;
			return 0;
		}
		*name = xstrdup(j->name);
		if (counter_bump(st, j->name, 2, err) != 0)
			return -1;
	}
	if (chat_get(st, j->session_id, 0, 0, &p, &found, err) != 0)
		return -1;
	if (found) {
		if (*name == NULL)
			*name = xstrdup(p.name);
		chat_peer_release(&p);
		if (update_peer(st, j, j->name, now, err) != 0)
			return -1;
	} else if ((*name == NULL && assign_name(st, j, name, err) != 0) ||
	    insert_peer(st, j, *name, now, err) != 0)
		return -1;
	if (!j->automatic && exec_sid(st, "DELETE FROM chat_leave_tombstones "
	    "WHERE session_id = ?1", j->session_id, NULL, "clear a tombstone",
	    err) != 0)
		return -1;
	*result = CHAT_JOINED;
	return 0;
}

int
chat_join(struct store *st, const struct chat_join *j, int64_t now_ms,
    char **name, enum chat_join_result *result, struct err *err)
{
	char	now[32];
	int	rc;

	*name = NULL;
	stamp(now_ms, now);
	if (begin(st, err) != 0)
		return -1;
	rc = end_txn(st, join_txn(st, j, now, name, result, err), err);
	if (rc != 0 || *result != CHAT_JOINED) {
		free(*name);
		*name = NULL;
	}
	return rc;
}

int
chat_leave(struct store *st, const char *sid, bool tombstone, int64_t now_ms,
    bool *was, struct err *err)
{
	char	now[32];
	int	rc;

	stamp(now_ms, now);
	if (begin(st, err) != 0)
		return -1;
	rc = exec_sid(st, "DELETE FROM chat_sessions WHERE session_id = ?1",
	    sid, NULL, "leave the chat directory", err);
	*was = sqlite3_changes(store_db(st)) > 0;
	if (rc == 0 && tombstone)
		rc = exec_sid(st, "INSERT INTO chat_leave_tombstones "
		    "(session_id, left_at) VALUES (?1, ?2) ON CONFLICT"
		    "(session_id) DO UPDATE SET left_at = excluded.left_at",
		    sid, now, "write a tombstone", err);
	return end_txn(st, rc, err);
}

int
chat_list(struct store *st, const char *asker, int64_t now_ms,
    int stale_seconds, struct chat_peers *out, struct err *err)
{
	sqlite3_stmt		*stmt = NULL;
	struct chat_peer	 p;
	int			 step;

	out->v = NULL;
	out->n = 0;
	if (store_prepare(st, &stmt, "SELECT " PEER_COLS ", (SELECT count(*) "
	    "FROM chat_messages m WHERE m.from_session = s.session_id AND "
	    "m.to_session = ?2 AND m.read_at IS NULL) FROM chat_sessions s "
	    "ORDER BY s.name", err) != 0)
		return -1;
	sqlite3_bind_int64(stmt, 1, now_ms / 1000);
	sqlite3_bind_text(stmt, 2, asker, -1, SQLITE_STATIC);
	while ((step = sqlite3_step(stmt)) == SQLITE_ROW) {
		peer_read(stmt, stale_seconds, &p);
		p.unread = sqlite3_column_int(stmt, 9);
		peers_push(out, &p);
	}
	sqlite3_finalize(stmt);
	return step == SQLITE_DONE ? 0 : fail(st, err,
	    "list the chat directory");
}

int
chat_heartbeat(struct store *st, const char *sid, int64_t now_ms,
    bool *registered, struct err *err)
{
	char	now[32];

	stamp(now_ms, now);
	if (exec_sid(st, "UPDATE chat_sessions SET last_seen = ?2 WHERE "
	    "session_id = ?1", sid, now, "send a heartbeat", err) != 0)
		return -1;
	*registered = sqlite3_changes(store_db(st)) > 0;
	return 0;
}

/* ---- the inbox --------------------------------------------------------- */

#define MSG_COLS	"m.id, m.from_session, f.name, m.to_session, t.name, " \
	"m.body, CAST(strftime('%s', m.created_at) AS INTEGER), " \
	"m.via_broadcast FROM chat_messages m LEFT JOIN chat_sessions f ON " \
	"f.session_id = m.from_session LEFT JOIN chat_sessions t ON " \
	"t.session_id = m.to_session"

void
chat_msgs_release(struct chat_msgs *ms)
{
	size_t	i;

	for (i = 0; i < ms->n; i++) {
		free(ms->v[i].from_session);
		free(ms->v[i].from_name);
		free(ms->v[i].to_session);
		free(ms->v[i].to_name);
		free(ms->v[i].body);
	}
	free(ms->v);
	ms->v = NULL;
	ms->n = 0;
}

/* Run a MSG_COLS query (its text parameter ?1, integers ?2 and ?3). */
static int
msgs_query(struct store *st, const char *sql, const char *sid, int64_t a,
    int64_t b, struct chat_msgs *out, struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	struct chat_msg	*m;
	int		 step;

	out->v = NULL;
	out->n = 0;
	if (store_prepare(st, &stmt, sql, err) != 0)
		return -1;
	sqlite3_bind_text(stmt, 1, sid, -1, SQLITE_STATIC);
	sqlite3_bind_int64(stmt, 2, a);
	sqlite3_bind_int64(stmt, 3, b);
	while ((step = sqlite3_step(stmt)) == SQLITE_ROW) {
		out->v = xreallocarray(out->v, out->n + 1, sizeof(*out->v));
		m = &out->v[out->n++];
		m->id = sqlite3_column_int64(stmt, 0);
		m->from_session = col_dup(stmt, 1);
		m->from_name = col_dup(stmt, 2);
		m->to_session = col_dup(stmt, 3);
		m->to_name = col_dup(stmt, 4);
		m->body = col_dup(stmt, 5);
		m->created = sqlite3_column_int64(stmt, 6);
		m->via_broadcast = sqlite3_column_int(stmt, 7) != 0;
	}
	sqlite3_finalize(stmt);
	if (step == SQLITE_DONE)
		return 0;
	chat_msgs_release(out);
	return fail(st, err, "read chat messages");
}

/* Invariant 5: drop to_sid's oldest read rows (none of the rate's window)
 * until one more fits under cap; *full when the rest leave no room. */
static int
make_room(struct store *st, const char *to_sid, int cap, int64_t now_ms,
    bool *full, struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	char		 since[32];
	int64_t		 n;

	stamp(now_ms - CHAT_RATE_SECONDS * 1000, since);
	if (store_prepare(st, &stmt, "DELETE FROM chat_messages WHERE id IN "
	    "(SELECT id FROM chat_messages WHERE to_session = ?1 AND read_at "
	    "IS NOT NULL AND created_at < ?3 ORDER BY id LIMIT max(0, (SELECT "
	    "count(*) FROM chat_messages WHERE to_session = ?1) - ?2 + 1))",
	    err) != 0)
		return -1;
	sqlite3_bind_text(stmt, 1, to_sid, -1, SQLITE_STATIC);
	sqlite3_bind_int(stmt, 2, cap);
	sqlite3_bind_text(stmt, 3, since, -1, SQLITE_STATIC);
	if (step_done(st, stmt, "make room in an inbox", err) != 0 ||
	    query_int(st, "SELECT count(*) FROM chat_messages WHERE "
	    "to_session = ?1", to_sid, NULL, &n, err) != 0)
		return -1;
	*full = n >= cap;
	return 0;
}

/* One row, room made first (invariant 5); 1 when the inbox is full. */
static int
post_one(struct store *st, const char *from_sid, const char *to_sid,
    const char *body, bool via_broadcast, int cap, int64_t now_ms,
    int64_t *id, struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	char		 now[32];
	bool		 full;

	if (make_room(st, to_sid, cap, now_ms, &full, err) != 0)
		return -1;
	if (full)
		return 1;
	stamp(now_ms, now);
	if (store_prepare(st, &stmt, "INSERT INTO chat_messages "
	    "(from_session, to_session, body, created_at, via_broadcast) "
	    "VALUES (?1, ?2, ?3, ?4, ?5)", err) != 0)
		return -1;
	sqlite3_bind_text(stmt, 1, from_sid, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 2, to_sid, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 3, body, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 4, now, -1, SQLITE_STATIC);
	sqlite3_bind_int(stmt, 5, via_broadcast);
	if (step_done(st, stmt, "send a chat message", err) != 0)
		return -1;
	*id = sqlite3_last_insert_rowid(store_db(st));
	return 0;
}

int
chat_post(struct store *st, const char *from_sid, const char *to_sid,
    const char *body, bool via_broadcast, int inbox_cap, int64_t now_ms,
    int64_t *id, struct err *err)
{
	int	rc;

	if (begin(st, err) != 0)
		return -1;
	rc = post_one(st, from_sid, to_sid, body, via_broadcast, inbox_cap,
	    now_ms, id, err);
	return end_txn(st, rc < 0 ? -1 : 0, err) != 0 ? -1 : rc;
}

int
chat_sent(struct store *st, const char *from_sid, int64_t now_ms,
    int64_t *n, struct err *err)
{
	char	since[32];

	stamp(now_ms - CHAT_RATE_SECONDS * 1000, since);
	return query_int(st, "SELECT count(*) FROM (SELECT DISTINCT CASE "
	    "WHEN via_broadcast THEN created_at ELSE id END FROM "
	    "chat_messages WHERE from_session = ?1 AND created_at >= ?2)",
	    from_sid, since, n, err);
}

static int
fan_out_txn(struct store *st, const char *from_sid, const char *body,
    int64_t now_ms, const struct chat_settings *set,
    struct chat_peers *sent, struct chat_peers *skipped, struct err *err)
{
	struct chat_peers	all = { NULL, 0 };
	struct chat_peer	*p;
	size_t			i;
	int64_t			id;
	int			rc = -1, r = 0;

	if (chat_list(st, NULL, now_ms, set->stale_seconds, &all, err) != 0)
		return -1;
	for (i = 0; i < all.n; i++) {
		p = &all.v[i];
		if (strcmp(p->session_id, from_sid) == 0) {
			chat_peer_release(p);
			continue;
		}
		if (!p->stale && (r = post_one(st, from_sid, p->session_id,
		    body, true, set->inbox_cap, now_ms, &id, err)) < 0)
			goto out;
		p->full = !p->stale && r == 1;
		peers_push(p->stale || p->full ? skipped : sent, p);
		memset(&all.v[i], 0, sizeof(all.v[i]));
	}
	rc = 0;
out:
	for (; i < all.n; i++)
		chat_peer_release(&all.v[i]);
	free(all.v);
	return rc;
}

int
chat_fan_out(struct store *st, const char *from_sid, const char *body,
    int64_t now_ms, const struct chat_settings *set, struct chat_peers *sent,
    struct chat_peers *skipped, struct err *err)
{
	int	rc;

	sent->v = skipped->v = NULL;
	sent->n = skipped->n = 0;
	if (begin(st, err) != 0)
		return -1;
	rc = end_txn(st, fan_out_txn(st, from_sid, body, now_ms, set, sent,
	    skipped, err), err);
	if (rc != 0) {
		chat_peers_release(sent);
		chat_peers_release(skipped);
	}
	return rc;
}

/*
 * Select the first limit rows to sid that where picks (limit < 0: all),
 * then mark the same rows with set: one write transaction, so nothing can
 * join the set between the two and no row is taken twice (invariant 2: by
 * recipient only); the rows marked are those picked up to the last one
 * read. where names chat_messages' own columns, unqualified, for both
 * statements.
 */
static int
take(struct store *st, const char *sid, const char *where, const char *set,
    int limit, int64_t now_ms, struct chat_msgs *out, struct err *err)
{
	char	*sel = xasprintf("%s%s ORDER BY m.id LIMIT ?2", "SELECT "
		    MSG_COLS " WHERE m.to_session = ?1 AND ", where);
	char	*upd = NULL;
	char	 now[32];
	int	 rc;

	out->v = NULL;
	out->n = 0;
	stamp(now_ms, now);
	if (begin(st, err) != 0) {
		free(sel);
		return -1;
	}
	rc = msgs_query(st, sel, sid, limit, 0, out, err);
	if (rc == 0 && out->n > 0) {
		upd = xasprintf("UPDATE chat_messages SET %s WHERE to_session "
		    "= ?1 AND %s AND id <= %lld", set, where,
		    (long long)out->v[out->n - 1].id);
		rc = exec_sid(st, upd, sid, now, "mark chat messages", err);
	}
	free(sel);
	free(upd);
	if (end_txn(st, rc, err) != 0) {
		chat_msgs_release(out);
		return -1;
	}
	return 0;
}

int
chat_read(struct store *st, const char *sid, int64_t now_ms, int limit,
    struct chat_msgs *out, struct err *err)
{
	return take(st, sid, "read_at IS NULL",
	    "read_at = ?2, delivered_at = coalesce(delivered_at, ?2)",
	    limit, now_ms, out, err);
}

int
chat_claim(struct store *st, const char *sid, int64_t now_ms,
    struct chat_msgs *out, struct err *err)
{
	return take(st, sid, "read_at IS NULL AND delivered_at IS NULL",
	    "delivered_at = ?2", -1, now_ms, out, err);
}

int
chat_pending(struct store *st, const char *sid, bool *out, struct err *err)
{
	return query_exists(st, "SELECT 1 FROM chat_messages WHERE to_session "
	    "= ?1 AND read_at IS NULL AND delivered_at IS NULL LIMIT 1", sid,
	    NULL, out, err);
}

int
chat_counts(struct store *st, const char *sid, int *unread, int *total,
    struct err *err)
{
	int64_t	u, t;

	if (query_int(st, "SELECT count(*) FROM chat_messages WHERE "
	    "to_session = ?1 AND read_at IS NULL", sid, NULL, &u, err) != 0 ||
	    query_int(st, "SELECT count(*) FROM chat_messages WHERE "
	    "to_session = ?1", sid, NULL, &t, err) != 0)
		return -1;
	*unread = (int)u;
	*total = (int)t;
	return 0;
}

int
chat_tail(struct store *st, int64_t after_id, int limit,
    struct chat_msgs *out, struct err *err)
{
	if (after_id < 0)
		return msgs_query(st, "SELECT * FROM (SELECT " MSG_COLS
		    " ORDER BY m.id DESC LIMIT ?2) ORDER BY 1", NULL, limit, 0,
		    out, err);
	return msgs_query(st, "SELECT " MSG_COLS " WHERE m.id > ?2 ORDER BY "
	    "m.id LIMIT ?3", NULL, after_id, limit, out, err);
}

int
chat_last_id(struct store *st, int64_t *id, struct err *err)
{
	return query_int(st, "SELECT coalesce(max(id), 0) FROM chat_messages",
	    NULL, NULL, id, err);
}

/* ---- shared texts ------------------------------------------------------ */

void
chat_age(struct sbuf *out, int64_t s)
{
	if (s < 60)
		sbuf_addf(out, "%llds", (long long)s);
	else if (s < 3600)
		sbuf_addf(out, "%lldm", (long long)(s / 60));
	else if (s < 86400)
		sbuf_addf(out, "%lldh", (long long)(s / 3600));
	else
		sbuf_addf(out, "%lldd", (long long)(s / 86400));
}

void
chat_body(struct sbuf *out, const char *body, const char *indent)
{
	const char	*p;

	for (p = body; *p != '\0'; p++) {
		if (*p == '\r')
			continue;
		sbuf_addc(out, *p);
		if (*p == '\n')
			sbuf_adds(out, indent);
	}
}

bool
chat_is_echo(const char *text)
{
	const char	*line = text, *nl;
	bool		 any = false;

	while (line != NULL && *line != '\0') {
		nl = strchr(line, '\n');
		if (nl != line && strncmp(line, "[chat]", 6) != 0)
			return false;
		any |= nl != line;
		line = nl != NULL ? nl + 1 : NULL;
	}
	return any;
}
