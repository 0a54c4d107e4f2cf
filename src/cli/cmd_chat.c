/*
 * cmd_chat.c — `thatch chat list [--all]` shows the chat directory and
 * `thatch chat tail [-n N] [-f]` the newest messages, following new ones
 * with -f (hosts-hooks-cli §1.3, engines-and-extras B5 "CLI"). Read-only:
 * the CLI never delivers or marks a message (§1.3: delivery is the
 * opencode plugin's), so tailing changes nothing a session sees.
 *
 * Follow polls the database every TAIL_POLL_MS for rows above the last id
 * printed: a cheap indexed query, and no lock is held between polls.
 * What agents wrote (bodies, topics) reaches the terminal with its
 * control characters made visible (utf8_escape): a message cannot drive
 * the user's terminal.
 */
#include "cli/cmd.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "core/session/chat.h"
#include "util/os/clock.h"
#include "util/err.h"
#include "util/sbuf.h"
#include "util/utf8.h"

#define TAIL_POLL_MS	250
#define TAIL_DEFAULT	20

static int
chat_list_exec(struct cli_ctx *ctx, int argc, char **argv)
{
	struct chat_settings	 s;
	struct chat_peers	 ps = { NULL, 0 };
	const struct chat_peer	*p;
	struct sbuf		 sb = SBUF_INIT;
	bool			 all = cli_flag(ctx, "--all");
	size_t			 i, hidden = 0;

	(void)argv;
	if (argc != 0)
		return CMD_USAGE;
	chat_settings_load(&s);
	if (chat_list(ctx->store, NULL, clock_now(&ctx->clock),
	    s.stale_seconds, &ps, &ctx->err) != 0)
		return CMD_FAILED;
	sbuf_init(&sb);
	for (i = 0; i < ps.n; i++) {
		p = &ps.v[i];
		if (p->stale && !all) {
			hidden++;
			continue;
		}
		sbuf_addf(&sb, "- %s (%.12s) %s", p->name, p->session_id,
		    p->host_kind ? p->host_kind : "?");
		if (p->project != NULL)
			sbuf_addf(&sb, " project:%s", p->project);
		sbuf_addf(&sb, " %s seen ", p->stale ? "stale" : "fresh");
		chat_age(&sb, p->age_seconds);
		sbuf_adds(&sb, " ago");
		if (p->automatic)
			sbuf_adds(&sb, " [auto]");
		if (p->topic != NULL)
			utf8_addf(&sb, " topic:%s", p->topic);
		sbuf_addc(&sb, '\n');
	}
	printf("[chat] %zu participant%s registered", ps.n - hidden,
	    ps.n - hidden == 1 ? "" : "s");
	if (hidden > 0)
		printf(" (%zu stale hidden; --all shows them)", hidden);
	printf("\n%s", sb.buf);
	sbuf_release(&sb);
	chat_peers_release(&ps);
	return 0;
}

/* One message as a tail line; a broadcast's fan-out prints once, as *. */
static void
print_msg(const struct chat_msgs *ms, size_t i)
{
	const struct chat_msg	*m = &ms->v[i], *prev = i ? &ms->v[i - 1] :
				    NULL;
	struct sbuf		 sb = SBUF_INIT, shown = SBUF_INIT;
	struct tm		 tm;
	time_t			 t = (time_t)m->created;
	char			 when[32];

	if (m->via_broadcast && prev != NULL && prev->via_broadcast &&
	    prev->created == m->created && strcmp(prev->from_session,
	    m->from_session) == 0 && strcmp(prev->body, m->body) == 0)
		return;
	localtime_r(&t, &tm);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
	sbuf_init(&sb);
	if (m->from_name != NULL)
		sbuf_addf(&sb, "%s %s \u2192 ", when, m->from_name);
	else
		sbuf_addf(&sb, "%s %.12s \u2192 ", when, m->from_session);
	if (m->via_broadcast)
		sbuf_adds(&sb, "*");
	else if (m->to_name != NULL)
		sbuf_adds(&sb, m->to_name);
	else
		sbuf_addf(&sb, "%.12s", m->to_session);
	sbuf_adds(&sb, ": ");
	chat_body(&sb, m->body, "  ");
	sbuf_init(&shown);
	utf8_escape(&shown, sb.buf, UTF8_ESC_TEXT);
	printf("%s\n", shown.buf);
	sbuf_release(&shown);
	sbuf_release(&sb);
}

static int
tail_batch(struct cli_ctx *ctx, int64_t *last, int limit)
{
	struct chat_msgs	ms = { NULL, 0 };
	size_t			i;

	if (chat_tail(ctx->store, *last, limit, &ms, &ctx->err) != 0)
		return -1;
	for (i = 0; i < ms.n; i++) {
		print_msg(&ms, i);
		*last = ms.v[i].id;
	}
	chat_msgs_release(&ms);
	if (fflush(stdout) != 0 || ferror(stdout))
		return err_errno(&ctx->err, "write to stdout");
	return 0;
}

static int
chat_tail_exec(struct cli_ctx *ctx, int argc, char **argv)
{
	const char		*n = cli_opt(ctx, "-n");
	struct timespec		 pause = { 0, TAIL_POLL_MS * 1000000L };
	long			 limit = TAIL_DEFAULT;
	int64_t			 last = -1, base;
	char			*end = NULL;

	(void)argv;
	if (argc != 0)
		return CMD_USAGE;
	if (n != NULL)
		limit = strtol(n, &end, 10);
	if (n != NULL && (*n == '\0' || *end != '\0' || limit < 0 ||
	    limit > 100000)) {
		err_set(&ctx->err, "-n wants a count from 0 to 100000, not "
		    "'%s'", n);
		return CMD_USAGE;
	}
	/* the newest id before the first look: a message arriving between
	 * the look and the follow is followed, never skipped */
	if (chat_last_id(ctx->store, &base, &ctx->err) != 0 ||
	    tail_batch(ctx, &last, (int)limit) != 0)
		return CMD_FAILED;
	if (last < base)
		last = base;
	while (cli_flag(ctx, "-f")) {
		while (nanosleep(&pause, &pause) != 0 && errno == EINTR)
			;
		pause.tv_nsec = TAIL_POLL_MS * 1000000L;
		if (tail_batch(ctx, &last, 1000) != 0)
			return CMD_FAILED;
	}
	return 0;
}

static const struct {
	const char	*name;
	int		(*exec)(struct cli_ctx *, int, char **);
} verbs[] = {
	{ "list", chat_list_exec },
	{ "tail", chat_tail_exec },
};

static int
cmd_chat_exec(struct cli_ctx *ctx, int argc, char **argv)
{
	size_t	i;

	for (i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		if (strcmp(argv[0], verbs[i].name) == 0)
			return verbs[i].exec(ctx, argc - 1, argv + 1);
	err_set(&ctx->err, "unknown verb '%s' (list or tail)", argv[0]);
	return CMD_USAGE;
}

static const struct cmd_opt chat_opts[] = {
	{ "--all", NULL, "list: show stale participants too" },
	{ "-n", "N", "tail: how many of the newest messages to print "
	  "(default 20)" },
	{ "-f", NULL, "tail: keep printing new messages as they arrive, "
	  "until interrupted" },
	{ NULL, NULL, NULL },
};

const struct cmd_entry cmd_chat_entry = {
	.name = "chat",
	.args = "list | tail",
	.min_args = 1,
	.max_args = 1,
	.opts = chat_opts,
	.env = "THATCH_CHAT_STALE_SECONDS",
	.example = "thatch chat tail -f",
	.summary = "show the cross-session chat directory / its messages",
	.flags = CMD_STORE,
	.exec = cmd_chat_exec,
};
