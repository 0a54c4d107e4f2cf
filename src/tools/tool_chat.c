/*
 * tool_chat.c — the chat tools (store-and-tools §4.16, engines-and-extras
 * B5): chat_register, chat_list, chat_send, chat_read, chat_unregister,
 * chat_broadcast and chat_status, over the directory and inbox of
 * core/session/chat.c.
 *
 * Handlers only: the tables are core/session/chat.c's, wake prompts and the
 * transcript echo's posting the host's (host/opencode/opencode_chat.c).
 *  1. The caller is ctx->session when the host has one (opencode), else
 *     the "as" name (MCP): the session registered under that name by an
 *     MCP host, or the synthetic id "mcp_" + 12 hex of SHA-256 of the
 *     lowercased name. "as" can never act for an opencode session.
 *  2. Refusals are text (the agent reads them as guidance), each starting
 *     with its tag: [not registered], [not sent], [chat].
 *  3. An MCP caller's every chat call is its heartbeat (no poller runs
 *     for it), so "fresh" means "used chat lately".
 *  4. A call appends its transcript echo to ctx->echo when the host asked
 *     for one: one "[chat] …" line per event, a body's later lines each
 *     prefixed too, so that every line is recognisably an echo.
 *  5. What a participant writes for everyone to read (its name, its
 *     topic) cannot pass for a line of chat_list: names are
 *     chat_names_valid, a topic is one line of at most CHAT_TOPIC_MAX
 *     characters. Only a message body is free text, and it reaches its
 *     recipient alone, fenced (text/fence.c) under thatch's header line,
 *     the sender's name as a field: others' text, never thatch's framing.
 *  6. Bounds (issue 31): a sender sends at most send_rate messages a
 *     minute (a broadcast counts once), an inbox holds at most inbox_cap
 *     (chat.c invariant 5: old read mail makes room, unread mail is never
 *     dropped, a full inbox refuses), a chat_read returns one page.
 */
#include "tools/tool_rows.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "core/session/chat.h"
#include "text/fence.h"
#include "util/err.h"
#include "util/path.h"
#include "util/sbuf.h"
#include "util/utf8.h"
#include "util/xmalloc.h"

/* The caller (invariant 1); sid owned. */
struct caller {
	char		*sid;
	const char	*as;		/* MCP: the name given */
	const char	*host;		/* "opencode" or "mcp" */
};

static struct chat_settings
settings(void)
{
	struct chat_settings	s;

	chat_settings_load(&s);
	return s;
}

static int64_t
now(const struct tool_ctx *ctx)
{
	return clock_now(&ctx->clock);
}

/*
 * Who calls. Returns 0; 1 after appending the refusal when an MCP caller
 * gave no "as"; -1 on a database error.
 */
static int
whoami(struct tool_ctx *ctx, const json_t *args, struct caller *c,
    struct sbuf *out, struct err *err)
{
	char	id[CHAT_MCP_ID_LEN];
	bool	seen;

	memset(c, 0, sizeof(*c));
	if (ctx->session != NULL) {
		c->sid = xstrdup(ctx->session);
		c->host = ctx->host_kind ? ctx->host_kind : "opencode";
		return 0;
	}
	c->host = "mcp";
	c->as = tool_arg_str(args, "as", "");
	if (*c->as == '\0') {
		sbuf_adds(out, "[chat] pass \"as\": the chat name you use. "
		    "An MCP host has no session of its own, so every chat "
		    "call names its caller.");
		return 1;
	}
	if (chat_lookup(ctx->store, c->as, "mcp", &c->sid, err) != 0)
		return -1;
	if (c->sid == NULL) {
		chat_mcp_session_id(c->as, id);
		c->sid = xstrdup(id);
	}
	/* nothing else heartbeats an MCP caller: its chat calls do */
	return chat_heartbeat(ctx->store, c->sid, now(ctx), &seen, err);
}

/* The caller's directory row; *found false when not registered. */
static int
me(struct tool_ctx *ctx, const struct caller *c, struct chat_peer *p,
    bool *found, struct err *err)
{
	return chat_get(ctx->store, c->sid, now(ctx), settings().stale_seconds,
	    p, found, err);
}

/* Invariant 4: "[chat] <who><what>", then body, its later lines marked. */
static void
echo_line(struct tool_ctx *ctx, const char *who, const char *what,
    const char *body)
{
	if (ctx->echo == NULL)
		return;
	if (ctx->echo->len > 0)
		sbuf_addc(ctx->echo, '\n');
	sbuf_addf(ctx->echo, "[chat] %s%s", who, what);
	if (body != NULL)
		chat_body(ctx->echo, body, "[chat]   ");
}

/* "root" for a main checkout, "worktree" for a linked one (§1.4.4). */
static const char *
worktree_kind(const struct tool_ctx *ctx)
{
	struct stat	 sb;
	char		*git;
	const char	*kind = NULL;

	if (ctx->paths == NULL || ctx->paths->project_dir == NULL)
		return NULL;
	git = path_join(ctx->paths->project_dir, ".git");
	if (stat(git, &sb) == 0)
		kind = S_ISDIR(sb.st_mode) ? "root" : "worktree";
	free(git);
	return kind;
}

/*
 * A topic as every participant's chat_list shows it (invariant 5): one
 * line, control characters (newlines included) as spaces. NULL stays
 * NULL; else a new string.
 */
static char *
one_line(const char *topic)
{
	char	*t, *p;

	if (topic == NULL)
		return NULL;
	t = xstrdup(topic);
	for (p = t; *p != '\0'; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = ' ';
	return t;
}

static const char *
delivery_note(const char *host)
{
	return strcmp(host, "mcp") == 0 ?
	    "Nothing wakes an MCP session: call chat_status or chat_read to "
	    "check for messages." :
	    "Messages to you wake this session with a prompt when it is "
	    "idle; chat_read returns them.";
}

static int
run_register(struct tool_ctx *ctx, const json_t *args, struct sbuf *out,
    struct err *err)
{
	struct caller		 c;
	struct chat_join	 j;
	struct chat_peer	 p;
	enum chat_join_result	 res;
	char			*name = NULL, *topic = NULL;
	bool			 found = false;
	int			 rc;

	if ((rc = whoami(ctx, args, &c, out, err)) != 0)
		return rc < 0 ? -1 : 0;
	memset(&j, 0, sizeof(j));
	j.session_id = c.sid;
	j.name = tool_arg_str(args, "name", NULL);
	if (j.name != NULL && *j.name == '\0')
		j.name = NULL;
	/* MCP: a first registration takes the "as" name unless told */
	if (j.name == NULL && c.as != NULL) {
		if ((rc = me(ctx, &c, &p, &found, err)) != 0)
			goto out;
		chat_peer_release(&p);
		j.name = found ? NULL : c.as;
	}
	if ((j.topic = topic = one_line(tool_arg_str(args, "topic", NULL))) !=
	    NULL && utf8_js_len(topic, strlen(topic)) > CHAT_TOPIC_MAX) {
		sbuf_addf(out, "[not registered] the topic is %zu characters; "
		    "the limit is %d.", utf8_js_len(topic, strlen(topic)),
		    CHAT_TOPIC_MAX);
		goto out;
	}
	j.project = tool_target_store(ctx, NULL);
	j.host_kind = c.host;
	j.worktree = worktree_kind(ctx);
	if ((rc = chat_join(ctx->store, &j, now(ctx), &name, &res, err)) != 0)
		goto out;
	if (res == CHAT_NAME_TAKEN) {
		sbuf_addf(out, "[not registered] the name \"%s\" is taken "
		    "(names are unique, ignoring case): choose another, or "
		    "omit name to be given one.", j.name);
		goto out;
	}
	if (res == CHAT_NAME_BAD) {
		sbuf_addf(out, "[not registered] \"%s\" is not a usable chat "
		    "name: use 1 to 32 letters, digits, '.', '_' or '-', "
		    "starting with a letter or digit.", j.name);
		goto out;
	}
	if ((rc = me(ctx, &c, &p, &found, err)) != 0)
		goto out;
	sbuf_addf(out, "[registered] %s\nsession_id: %s\nproject: %s\n", name,
	    c.sid, p.project ? p.project : "(none)");
	if (p.topic != NULL)
		sbuf_addf(out, "topic: %s\n", p.topic);
	sbuf_adds(out, delivery_note(c.host));
	chat_peer_release(&p);
	echo_line(ctx, name, " joined the chat", NULL);
out:
	free(topic);
	free(name);
	free(c.sid);
	return rc;
}

static int
run_list(struct tool_ctx *ctx, const json_t *args, struct sbuf *out,
    struct err *err)
{
	struct caller		 c;
	struct chat_peers	 ps = { NULL, 0 };
	const struct chat_peer	*p;
	const char		*self = NULL;
	size_t			 i;
	int			 rc;

	if ((rc = whoami(ctx, args, &c, out, err)) != 0)
		return rc < 0 ? -1 : 0;
	if ((rc = chat_list(ctx->store, c.sid, now(ctx),
	    settings().stale_seconds, &ps, err)) != 0)
		goto out;
	sbuf_addf(out, "[chat] %zu participant%s registered", ps.n,
	    ps.n == 1 ? "" : "s");
	for (i = 0; i < ps.n; i++) {
		p = &ps.v[i];
		sbuf_addf(out, "\n- %s (%.12s)", p->name, p->session_id);
		if (p->project != NULL)
			sbuf_addf(out, " project:%s", p->project);
		sbuf_adds(out, p->stale ? " stale" : " fresh");
		if (p->topic != NULL)
			sbuf_addf(out, " topic:%s", p->topic);
		if (strcmp(p->session_id, c.sid) == 0) {
			sbuf_adds(out, " [you]");
			self = p->name;
		}
		sbuf_addf(out, " %d unread", p->unread);
	}
	echo_line(ctx, self ? self : c.as ? c.as : "this session",
	    " listed the directory", NULL);
out:
	chat_peers_release(&ps);
	free(c.sid);
	return rc;
}

/* Invariant 6: 1 after the refusal when c sent its minute's share. */
static int
over_rate(struct tool_ctx *ctx, const struct caller *c, struct sbuf *out,
    struct err *err)
{
	int	rate = settings().send_rate;
	int64_t	n;

	if (chat_sent(ctx->store, c->sid, now(ctx), &n, err) != 0)
		return -1;
	if (n < rate)
		return 0;
	sbuf_addf(out, "[not sent] you sent %lld messages in the last "
	    "%d seconds; the limit is %d. Wait, then send again.",
	    (long long)n, CHAT_RATE_SECONDS, rate);
	return 1;
}

/*
 * The sender's row, or the [not sent] refusal when the caller is not
 * registered or over its send rate (returns 1). The body's checks come
 * first: they need no database.
 */
static int
sender(struct tool_ctx *ctx, const json_t *args, struct caller *c,
    struct chat_peer *p, struct sbuf *out, struct err *err)
{
	const char	*body = tool_arg_str(args, "body", "");
	size_t		 n = utf8_js_len(body, strlen(body));
	bool		 found;
	int		 rc;

	memset(p, 0, sizeof(*p));
	if ((rc = whoami(ctx, args, c, out, err)) != 0)
		return rc;
	if (*body == '\0')
		sbuf_adds(out, "[not sent] the body is empty.");
	else if (n > CHAT_BODY_MAX)
		sbuf_addf(out, "[not sent] the body is %zu characters; the "
		    "limit is %d.", n, CHAT_BODY_MAX);
	else if (me(ctx, c, p, &found, err) != 0)
		return -1;
	else if (!found)
		sbuf_adds(out, "[not sent] you are not registered: call "
		    "chat_register first.");
	else if ((rc = over_rate(ctx, c, out, err)) != 1) {
		if (rc == 0)
			return 0;
		chat_peer_release(p);
		return -1;
	}
	chat_peer_release(p);
	return 1;
}

/* The [sent] line's note on how the recipient learns of it. */
static void
send_note(const struct chat_peer *to, struct sbuf *out)
{
	if (to->stale) {
		sbuf_addf(out, "\n\u26a0 %s looks stale (no heartbeat for ",
		    to->name);
		chat_age(out, to->age_seconds);
		sbuf_adds(out, "): the message waits in their inbox.");
	} else if (to->host_kind != NULL && strcmp(to->host_kind, "mcp") == 0)
		sbuf_addf(out, "\n%s sees it at their next chat_read.",
		    to->name);
	else
		sbuf_addf(out, "\n%s is woken with a prompt when idle.",
		    to->name);
}

static int
run_send(struct tool_ctx *ctx, const json_t *args, struct sbuf *out,
    struct err *err)
{
	const char		*to = tool_arg_str(args, "to", "");
	const char		*body = tool_arg_str(args, "body", "");
	struct caller		 c;
	struct chat_peer	 self, peer;
	struct sbuf		 what = SBUF_INIT;
	char			*sid = NULL;
	int64_t			 id;
	bool			 found = false;
	int			 rc;

	memset(&peer, 0, sizeof(peer));
	sbuf_init(&what);
	if ((rc = sender(ctx, args, &c, &self, out, err)) != 0) {
		rc = rc < 0 ? -1 : 0;
		goto out;
	}
	if (strcmp(to, "*") == 0) {
		sbuf_adds(out, "[not sent] to write to everyone, use "
		    "chat_broadcast.");
		goto out;
	}
	if ((rc = chat_lookup(ctx->store, to, NULL, &sid, err)) != 0)
		goto out;
	if (sid != NULL && (rc = chat_get(ctx->store, sid, now(ctx),
	    settings().stale_seconds, &peer, &found, err)) != 0)
		goto out;
	if (!found) {
		sbuf_addf(out, "[not sent] no participant is named \"%s\": "
		    "chat_list shows who is registered.", to);
		goto out;
	}
	if (strcmp(peer.session_id, c.sid) == 0) {
		sbuf_addf(out, "[not sent] \"%s\" is you.", peer.name);
		goto out;
	}
	if ((rc = chat_post(ctx->store, c.sid, peer.session_id, body, false,
	    settings().inbox_cap, now(ctx), &id, err)) < 0)
		goto out;
	if (rc == 1) {
		sbuf_addf(out, "[not sent] %s's inbox is full (%d messages, "
		    "the most it holds): send again once they have read "
		    "theirs.", peer.name, settings().inbox_cap);
		rc = 0;
		goto out;
	}
	sbuf_addf(out, "[sent] to %s (%.12s)", peer.name, peer.session_id);
	send_note(&peer, out);
	sbuf_addf(&what, " \u2192 %s: ", peer.name);
	echo_line(ctx, self.name, what.buf, body);
out:
	sbuf_release(&what);
	chat_peer_release(&self);
	chat_peer_release(&peer);
	free(sid);
	free(c.sid);
	return rc;
}

static const char *const months[] = { "Jan", "Feb", "Mar", "Apr", "May",
	"Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };

/* One message as chat_read shows it (invariant 5): the header line, the
 * sender a field, then the body fenced. */
static void
read_one(const struct chat_msg *m, struct sbuf *out)
{
	time_t		t = (time_t)m->created;
	struct tm	tm;
	char		sid[13];

	gmtime_r(&t, &tm);
	snprintf(sid, sizeof(sid), "%.12s", m->from_session);
	sbuf_adds(out, "[from ");
	text_fence_field(out, m->from_name != NULL ? m->from_name : sid);
	sbuf_addf(out, ", %s %d %02d:%02dZ]\n", months[tm.tm_mon],
	    tm.tm_mday, tm.tm_hour, tm.tm_min);
	text_fence_body(out, m->body);
	sbuf_addc(out, '\n');
}

static int
run_read(struct tool_ctx *ctx, const json_t *args, struct sbuf *out,
    struct err *err)
{
	int			 limit = (int)tool_arg_int(args, "limit",
				    CHAT_READ_PAGE);
	struct caller		 c;
	struct chat_peer	 p;
	struct chat_msgs	 ms = { NULL, 0 };
	struct sbuf		 what = SBUF_INIT;
	size_t			 i;
	bool			 found;
	int			 rc, more, total;

	if ((rc = whoami(ctx, args, &c, out, err)) != 0)
		return rc < 0 ? -1 : 0;
	sbuf_init(&what);
	if ((rc = me(ctx, &c, &p, &found, err)) != 0 ||
	    (rc = chat_read(ctx->store, c.sid, now(ctx), limit, &ms,
	    err)) != 0 ||
	    (rc = chat_counts(ctx->store, c.sid, &more, &total, err)) != 0)
		goto out;
	if (ms.n == 0)
		sbuf_adds(out, "No unread chat messages.");
	for (i = 0; i < ms.n; i++)
		read_one(&ms.v[i], out);
	if (ms.n > 0)
		sbuf_addf(out, "[chat] %zu message%s read", ms.n,
		    ms.n == 1 ? "" : "s");
	if (more > 0)
		sbuf_addf(out, "; %d more unread: call chat_read again", more);
	sbuf_addf(&what, " read %zu message%s", ms.n, ms.n == 1 ? "" : "s");
	echo_line(ctx, found ? p.name : c.as ? c.as : "this session",
	    what.buf, NULL);
out:
	sbuf_release(&what);
	chat_peer_release(&p);
	chat_msgs_release(&ms);
	free(c.sid);
	return rc;
}

static int
run_unregister(struct tool_ctx *ctx, const json_t *args, struct sbuf *out,
    struct err *err)
{
	struct caller		 c;
	struct chat_peer	 p;
	bool			 found, was;
	int			 rc;

	if ((rc = whoami(ctx, args, &c, out, err)) != 0)
		return rc < 0 ? -1 : 0;
	if ((rc = me(ctx, &c, &p, &found, err)) != 0 ||
	    (rc = chat_leave(ctx->store, c.sid, true, now(ctx), &was,
	    err)) != 0)
		goto out;
	if (found)
		sbuf_addf(out, "[unregistered] %s left the chat directory. "
		    "Unread mail is kept; chat_register rejoins.", p.name);
	else
		sbuf_adds(out, "[unregistered] this session was not in the "
		    "chat directory; it stays out until chat_register.");
	echo_line(ctx, found ? p.name : "this session", " left the chat",
	    NULL);
out:
	chat_peer_release(&p);
	free(c.sid);
	return rc;
}

/* The line "\n<label> a, b" of the peers whose full flag is full, or
 * every peer when all; "(none)" when there is none. */
static void
names(struct sbuf *out, const char *label, const struct chat_peers *ps,
    bool all, bool full)
{
	size_t	i, n = 0;

	sbuf_addf(out, "\n%s ", label);
	for (i = 0; i < ps->n; i++)
		if (all || ps->v[i].full == full)
			sbuf_addf(out, "%s%s", n++ ? ", " : "", ps->v[i].name);
	if (n == 0)
		sbuf_adds(out, "(none)");
}

/* How many of ps are full. */
static size_t
count_full(const struct chat_peers *ps)
{
	size_t	i, n = 0;

	for (i = 0; i < ps->n; i++)
		n += ps->v[i].full;
	return n;
}

static int
run_broadcast(struct tool_ctx *ctx, const json_t *args, struct sbuf *out,
    struct err *err)
{
	const char		*body = tool_arg_str(args, "body", "");
	struct caller		 c;
	struct chat_peer	 self;
	struct chat_peers	 sent = { NULL, 0 }, skipped = { NULL, 0 };
	struct chat_settings	 set;
	size_t			 full;
	int			 rc;

	if ((rc = sender(ctx, args, &c, &self, out, err)) != 0) {
		rc = rc < 0 ? -1 : 0;
		goto out;
	}
	set = settings();
	if ((rc = chat_fan_out(ctx->store, c.sid, body, now(ctx), &set,
	    &sent, &skipped, err)) != 0)
		goto out;
	full = count_full(&skipped);
	sbuf_addf(out, "[broadcast] to %zu participant%s", sent.n,
	    sent.n == 1 ? "" : "s");
	names(out, "recipients:", &sent, true, false);
	if (skipped.n > full)
		names(out, "skipped stale:", &skipped, false, false);
	if (full > 0)
		names(out, "skipped, inbox full:", &skipped, false, true);
	echo_line(ctx, self.name, " \u2192 *: ", body);
out:
	chat_peer_release(&self);
	chat_peers_release(&sent);
	chat_peers_release(&skipped);
	free(c.sid);
	return rc;
}

static int
run_status(struct tool_ctx *ctx, const json_t *args, struct sbuf *out,
    struct err *err)
{
	struct caller		 c;
	struct chat_peer	 p;
	struct sbuf		 what = SBUF_INIT;
	bool			 found;
	int			 rc, unread, total;

	if ((rc = whoami(ctx, args, &c, out, err)) != 0)
		return rc < 0 ? -1 : 0;
	sbuf_init(&what);
	if ((rc = me(ctx, &c, &p, &found, err)) != 0 ||
	    (rc = chat_counts(ctx->store, c.sid, &unread, &total, err)) != 0)
		goto out;
	if (found)
		sbuf_addf(out, "[chat] registered as %s: %d unread of %d "
		    "total message%s.", p.name, unread, total,
		    total == 1 ? "" : "s");
	else
		sbuf_addf(out, "[chat] not registered: call chat_register to "
		    "join the directory (%d unread kept from before).",
		    unread);
	sbuf_addf(&what, " has %d unread", unread);
	echo_line(ctx, found ? p.name : "this session", what.buf, NULL);
out:
	sbuf_release(&what);
	chat_peer_release(&p);
	free(c.sid);
	return rc;
}

#define AS_ARG	{ .name = "as", .type = ARG_STRING, \
	  .description = "Your chat name (MCP only)" }

static const struct tool_arg register_args[] = {
	AS_ARG,
	{ .name = "name", .type = ARG_STRING,
	  .description = "Name to take (unique); default: yours or \"as\"" },
	{ .name = "topic", .type = ARG_STRING,
	  .description = "What you work on; empty clears it" },
	{ .name = NULL }
};

static const struct tool_arg as_args[] = {
	AS_ARG,
	{ .name = NULL }
};

static const struct tool_arg read_args[] = {
	AS_ARG,
	{ .name = "limit", .type = ARG_INTEGER, .flags = ARG_MIN | ARG_MAX,
	  .min = 1, .max = CHAT_READ_PAGE_MAX,
	  .description = "Default 20; the last line says how many more" },
	{ .name = NULL }
};

static const struct tool_arg send_args[] = {
	AS_ARG,
	{ .name = "to", .type = ARG_STRING, .flags = ARG_REQUIRED,
	  .description = "Recipient's chat name" },
	{ .name = "body", .type = ARG_STRING, .flags = ARG_REQUIRED,
	  .description = "At most 10000 characters" },
	{ .name = NULL }
};

static const struct tool_arg broadcast_args[] = {
	AS_ARG,
	{ .name = "body", .type = ARG_STRING, .flags = ARG_REQUIRED,
	  .description = "At most 10000 characters" },
	{ .name = NULL }
};

const struct tool tool_chat_register = {
	.name = "chat_register",
	.family = "chat",
	.title = "Join the chat directory",
	.description = "Join, rename or set your topic in the directory of "
	    "this machine's agent sessions.",
	.args = register_args,
	.flags = TOOL_MCP | TOOL_CHAT,
	.run = run_register,
};

const struct tool tool_chat_list = {
	.name = "chat_list",
	.family = "chat",
	.title = "List chat participants",
	.description = "List chat participants, fresh or stale, with unread "
	    "counts.",
	.args = as_args,
	.flags = TOOL_MCP | TOOL_CHAT | TOOL_READONLY,
	.run = run_list,
};

const struct tool tool_chat_send = {
	.name = "chat_send",
	.family = "chat",
	.title = "Message a session",
	.description = "Message one session by its chat name.",
	.args = send_args,
	.flags = TOOL_MCP | TOOL_CHAT,
	.run = run_send,
};

const struct tool tool_chat_read = {
	.name = "chat_read",
	.family = "chat",
	.title = "Read your chat messages",
	.description = "Read (and mark read) your oldest unread chat "
	    "messages, a page at a time.",
	.args = read_args,
	.flags = TOOL_MCP | TOOL_CHAT,
	.run = run_read,
};

const struct tool tool_chat_unregister = {
	.name = "chat_unregister",
	.family = "chat",
	.title = "Leave the chat directory",
	.description = "Leave the chat directory until chat_register.",
	.args = as_args,
	.flags = TOOL_MCP | TOOL_CHAT,
	.run = run_unregister,
};

const struct tool tool_chat_broadcast = {
	.name = "chat_broadcast",
	.family = "chat",
	.title = "Message every session",
	.description = "Message every fresh participant.",
	.args = broadcast_args,
	.flags = TOOL_MCP | TOOL_CHAT,
	.run = run_broadcast,
};

const struct tool tool_chat_status = {
	.name = "chat_status",
	.family = "chat",
	.title = "Chat status",
	.description = "Your chat name and unread count.",
	.args = as_args,
	.flags = TOOL_MCP | TOOL_CHAT | TOOL_READONLY,
	.run = run_status,
};
