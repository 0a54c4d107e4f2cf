/*
 * test_chat.c — core/session/chat.c and core/session/chat_names.c: names from titles and
 * the pool, per-base counters, case-insensitive uniqueness (also across
 * processes joining at once), tombstones, the inbox's privacy, claims
 * that announce a message once, the inbox cap, paged reads, the send
 * count, staleness and the shared texts.
 */
#include "check.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/session/chat.h"
#include "core/session/chat_names.h"
#include "core/store/store.h"
#include "tmpdb.h"
#include "util/err.h"
#include "util/sbuf.h"
#include "util/xmalloc.h"

#define T0	1796000000000LL		/* ms */

static char *
join(struct store *st, const char *sid, const char *name, const char *title,
    bool automatic, int64_t now, enum chat_join_result *res)
{
	struct chat_join	j;
	struct err		err = { "" };
	char			*got = NULL;

	memset(&j, 0, sizeof(j));
	j.session_id = sid;
	j.name = name;
	j.title = title;
	j.automatic = automatic;
	j.host_kind = "opencode";
	if (chat_join(st, &j, now, &got, res, &err) != 0)
		CHECK_FAIL("chat_join: %s", err.msg);
	return got;
}

static void
expect_join(struct store *st, const char *sid, const char *title,
    const char *want)
{
	enum chat_join_result	 res;
	char			*got = join(st, sid, NULL, title, true, T0, &res);

	CHECK_INT(res, CHAT_JOINED);
	CHECK_STR(got, want);
	free(got);
}

static void
a_title_yields_a_kebab_base_and_placeholders_none(void)
{
	char	b[CHAT_NAMES_BASE_MAX + 1];

	CHECK(chat_names_base("Fix the Login flow for OAuth", b));
	CHECK_STR(b, "fix-login-flow");
	CHECK(chat_names_base("Überprüfe Ça  déjà", b));
	CHECK_STR(b, "uberprufe-ca-deja");
	CHECK(chat_names_base("refactor supercalifragilisticexpialidocious x",
	    b));
	CHECK_STR(b, "refactor");
	CHECK(strlen(b) <= CHAT_NAMES_BASE_MAX);
	CHECK(!chat_names_base("New session - 2026-12-03T17:00:00Z", b));
	CHECK(!chat_names_base("Child session (@general subagent)", b));
	CHECK(!chat_names_base("42 ??", b));
	CHECK(!chat_names_base("", b));
	CHECK(!chat_names_base(NULL, b));
	CHECK_STR(b, "");
	CHECK(chat_names_base("<script>alert(1)</script>", b));
	CHECK_STR(b, "script-alert-1");
}

static void
the_pool_is_large_unique_and_valid(void)
{
	size_t	i, j, n = 0;

	for (i = 0; chat_names_pool[i] != NULL; i++, n++) {
		CHECK(chat_names_valid(chat_names_pool[i]));
		for (j = 0; j < i; j++)
			if (strcasecmp(chat_names_pool[i], chat_names_pool[j])
			    == 0)
				CHECK_FAIL("pool name twice: %s",
				    chat_names_pool[i]);
	}
	CHECK(n >= 64);
	CHECK(chat_names_valid("agent-1"));
	CHECK(!chat_names_valid("*"));
	CHECK(!chat_names_valid("-x"));
	CHECK(!chat_names_valid("two words"));
	CHECK(!chat_names_valid("0123456789012345678901234567890123"));
}

static void
counters_number_a_base_and_never_reuse_a_name(void)
{
	struct store	*st = tmpdb_open("counters");
	struct err	 err = { "" };
	bool		 was;

	expect_join(st, "s1", "Fix login flow", "fix-login-flow");
	expect_join(st, "s2", "fix LOGIN flow", "fix-login-flow-2");
	expect_join(st, "s3", "Fix login flow", "fix-login-flow-3");
	CHECK(chat_leave(st, "s2", false, T0, &was, &err) == 0 && was);
	expect_join(st, "s4", "Fix login flow", "fix-login-flow-4");
	/* a rejoin keeps the name */
	expect_join(st, "s1", "something else", "fix-login-flow");
	store_close(st);
}

static void
explicit_names_are_unique_ignoring_case(void)
{
	struct store		*st = tmpdb_open("explicit");
	enum chat_join_result	 res;
	char			*n;

	n = join(st, "a", "Zaphod", NULL, false, T0, &res);
	CHECK_INT(res, CHAT_JOINED);
	CHECK_STR(n, "Zaphod");
	free(n);
	n = join(st, "b", "zaphod", NULL, false, T0, &res);
	CHECK_INT(res, CHAT_NAME_TAKEN);
	CHECK(n == NULL);
	n = join(st, "b", "two words", NULL, false, T0, &res);
	CHECK_INT(res, CHAT_NAME_BAD);
	/* the pool never hands out a taken name: the counter steps past */
	n = join(st, "b", "ZAPHOD-2", NULL, false, T0, &res);
	CHECK_INT(res, CHAT_JOINED);
	free(n);
	expect_join(st, "c", "zaphod", "zaphod-3");
	/* renaming oneself to one's own name in another case is fine */
	n = join(st, "a", "ZAPHOD", NULL, false, T0, &res);
	CHECK_INT(res, CHAT_JOINED);
	CHECK_STR(n, "ZAPHOD");
	free(n);
	store_close(st);
}

static void
pool_names_spread_before_they_repeat(void)
{
	struct store		*st = tmpdb_open("pool");
	enum chat_join_result	 res;
	char			 sid[16], *n, *names[80];
	size_t			 i, j, pool = 0;

	while (chat_names_pool[pool] != NULL)
		pool++;
	for (i = 0; i < pool + 3 && i < 80; i++) {
		snprintf(sid, sizeof(sid), "p%zu", i);
		names[i] = join(st, sid, NULL, "New session - x", true, T0,
		    &res);
		CHECK_INT(res, CHAT_JOINED);
		for (j = 0; j < i; j++)
			if (strcasecmp(names[i], names[j]) == 0)
				CHECK_FAIL("name twice: %s", names[i]);
		/* every pool name is used once before any gets a counter */
		CHECK((i < pool) == (strstr(names[i], "-2") == NULL));
	}
	n = names[pool];
	CHECK(n != NULL && strstr(n, "-2") != NULL);
	for (i = 0; i < pool + 3 && i < 80; i++)
		free(names[i]);
	store_close(st);
}

static void
concurrent_joins_never_share_a_name(void)
{
	struct store		*st = tmpdb_open("concurrent");
	struct chat_peers	 ps = { NULL, 0 };
	struct err		 err = { "" };
	char			*path = xstrdup(store_path(st));
	char			 sid[16];
	pid_t			 kid[6];
	size_t			 i, j;
	int			 k, status;

	for (k = 0; k < 6; k++) {
		if ((kid[k] = fork()) == 0) {
			struct store		*mine = NULL;
			enum chat_join_result	 res;

			if (store_open(path, &mine, &err) != 0)
				_exit(1);
			for (i = 0; i < 5; i++) {
				snprintf(sid, sizeof(sid), "k%d-%zu", k, i);
				free(join(mine, sid, NULL, "Same title here",
				    true, T0, &res));
				free(join(mine, sid, NULL, NULL, true, T0,
				    &res));
			}
			store_close(mine);
			_exit(check_test_failed);
		}
	}
	for (k = 0; k < 6; k++) {
		CHECK(waitpid(kid[k], &status, 0) == kid[k]);
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	CHECK(chat_list(st, NULL, T0, 60, &ps, &err) == 0);
	CHECK_INT(ps.n, 30);
	for (i = 0; i < ps.n; i++)
		for (j = 0; j < i; j++)
			if (strcasecmp(ps.v[i].name, ps.v[j].name) == 0)
				CHECK_FAIL("two sessions named %s",
				    ps.v[i].name);
	chat_peers_release(&ps);
	free(path);
	store_close(st);
}

static void
a_tombstone_blocks_auto_registration_until_an_explicit_join(void)
{
	struct store		*st = tmpdb_open("tombstone");
	struct err		 err = { "" };
	enum chat_join_result	 res;
	bool			 was, gone;
	char			*n;

	expect_join(st, "s", "Deploy heron", "deploy-heron");
	CHECK(chat_leave(st, "s", true, T0, &was, &err) == 0 && was);
	CHECK(chat_tombstoned(st, "s", &gone, &err) == 0 && gone);
	n = join(st, "s", NULL, "Deploy heron", true, T0, &res);
	CHECK_INT(res, CHAT_TOMBSTONED);
	CHECK(n == NULL);
	n = join(st, "s", NULL, "Deploy heron", false, T0, &res);
	CHECK_INT(res, CHAT_JOINED);
	CHECK_STR(n, "deploy-heron-2");
	free(n);
	CHECK(chat_tombstoned(st, "s", &gone, &err) == 0 && !gone);
	/* a deleted session leaves no tombstone */
	CHECK(chat_leave(st, "s", false, T0, &was, &err) == 0 && was);
	CHECK(chat_tombstoned(st, "s", &gone, &err) == 0 && !gone);
	store_close(st);
}

static void
mail_reaches_its_recipient_only_and_is_announced_once(void)
{
	struct store		*st = tmpdb_open("inbox");
	struct err		 err = { "" };
	struct chat_msgs	 ms = { NULL, 0 };
	struct chat_peers	 sent, skipped;
	struct chat_settings	 set;
	int64_t			 id;
	int			 unread, total;
	bool			 pending;

	expect_join(st, "a", "Alpha work", "alpha-work");
	expect_join(st, "b", "Beta work", "beta-work");
	expect_join(st, "c", "Gamma work", "gamma-work");
	CHECK(chat_post(st, "a", "b", "for b only", false, 500, T0, &id, &err) ==
	    0);
	CHECK(chat_read(st, "c", T0, -1, &ms, &err) == 0);
	CHECK_INT(ms.n, 0);
	CHECK(chat_claim(st, "c", T0, &ms, &err) == 0);
	CHECK_INT(ms.n, 0);
	CHECK(chat_pending(st, "b", &pending, &err) == 0 && pending);
	CHECK(chat_claim(st, "b", T0, &ms, &err) == 0);
	CHECK_INT(ms.n, 1);
	CHECK_STR(ms.v[0].from_name, "alpha-work");
	chat_msgs_release(&ms);
	CHECK(chat_claim(st, "b", T0, &ms, &err) == 0);
	CHECK_INT(ms.n, 0);
	CHECK(chat_pending(st, "b", &pending, &err) == 0 && !pending);
	CHECK(chat_counts(st, "b", &unread, &total, &err) == 0);
	CHECK_INT(unread, 1);
	CHECK(chat_read(st, "b", T0, -1, &ms, &err) == 0);
	CHECK_INT(ms.n, 1);
	CHECK_STR(ms.v[0].body, "for b only");
	chat_msgs_release(&ms);
	CHECK(chat_read(st, "b", T0, -1, &ms, &err) == 0);
	CHECK_INT(ms.n, 0);
	/* a broadcast skips the stale and the sender */
	CHECK(chat_heartbeat(st, "a", T0 + 120000, &pending, &err) == 0);
	CHECK(chat_heartbeat(st, "b", T0 + 120000, &pending, &err) == 0);
	chat_settings_load(&set);
	set.stale_seconds = 60;
	CHECK(chat_fan_out(st, "a", "all", T0 + 120000, &set, &sent,
	    &skipped, &err) == 0);
	CHECK_INT(sent.n, 1);
	CHECK_STR(sent.v[0].name, "beta-work");
	CHECK_INT(skipped.n, 1);
	CHECK_STR(skipped.v[0].name, "gamma-work");
	CHECK(skipped.v[0].stale && skipped.v[0].age_seconds == 120);
	chat_peers_release(&sent);
	chat_peers_release(&skipped);
	CHECK(chat_counts(st, "c", &unread, &total, &err) == 0);
	CHECK_INT(total, 0);
	CHECK(chat_tail(st, -1, 10, &ms, &err) == 0);
	CHECK_INT(ms.n, 2);
	CHECK(ms.v[1].via_broadcast);
	chat_msgs_release(&ms);
	store_close(st);
}

/* chat.c invariant 5, paged reads and the send count. */
static void
an_inbox_is_capped_reads_are_paged_and_sends_counted(void)
{
	struct store		*st = tmpdb_open("bounds");
	struct err		 err = { "" };
	struct chat_msgs	 ms = { NULL, 0 };
	struct chat_peers	 sent, skipped;
	struct chat_settings	 set;
	int64_t			 id, n, t1 = T0 + 61000;
	int			 i, unread, total;

	expect_join(st, "a", "Alpha work", "alpha-work");
	expect_join(st, "b", "Beta work", "beta-work");
	expect_join(st, "c", "Gamma work", "gamma-work");
	for (i = 0; i < 3; i++)
		CHECK(chat_post(st, "a", "b", "m", false, 3, T0, &id,
		    &err) == 0);
	/* three unread fill a cap of 3: the fourth is refused, not stored */
	CHECK(chat_post(st, "a", "b", "m4", false, 3, T0, &id, &err) == 1);
	CHECK(chat_counts(st, "b", &unread, &total, &err) == 0);
	CHECK(unread == 3 && total == 3);
	/* a page of two, the oldest first; one stays unread */
	CHECK(chat_read(st, "b", T0, 2, &ms, &err) == 0);
	CHECK_INT(ms.n, 2);
	CHECK(ms.v[0].id < ms.v[1].id);
	chat_msgs_release(&ms);
	CHECK(chat_counts(st, "b", &unread, &total, &err) == 0);
	CHECK_INT(unread, 1);
	/* read rows of the rate's window stay, so the count is exact */
	CHECK(chat_post(st, "a", "b", "m5", false, 3, T0, &id, &err) == 1);
	CHECK(chat_sent(st, "a", T0, &n, &err) == 0);
	CHECK_INT(n, 3);
	/* older read mail makes room, oldest first; unread mail stays */
	CHECK(chat_post(st, "a", "b", "m5", false, 3, t1, &id, &err) == 0);
	CHECK(chat_post(st, "a", "b", "m6", false, 3, t1, &id, &err) == 0);
	CHECK(chat_counts(st, "b", &unread, &total, &err) == 0);
	CHECK(unread == 3 && total == 3);
	CHECK(chat_post(st, "a", "b", "m7", false, 3, t1, &id, &err) == 1);
	/* a broadcast skips a full inbox and names it */
	chat_settings_load(&set);
	set.inbox_cap = 3;
	set.stale_seconds = 3600;
	CHECK(chat_fan_out(st, "a", "all", t1, &set, &sent, &skipped,
	    &err) == 0);
	CHECK(sent.n == 1 && strcmp(sent.v[0].name, "gamma-work") == 0);
	CHECK(skipped.n == 1 && skipped.v[0].full && !skipped.v[0].stale);
	chat_peers_release(&sent);
	chat_peers_release(&skipped);
	/* two posts and one broadcast in the minute to t1 */
	CHECK(chat_sent(st, "a", t1, &n, &err) == 0);
	CHECK_INT(n, 3);
	store_close(st);
}

static void
sessions_stale_a_day_are_purged_at_the_next_join(void)
{
	struct store		*st = tmpdb_open("purge");
	struct err		 err = { "" };
	struct chat_peer	 p;
	enum chat_join_result	 res;
	bool			 found;

	expect_join(st, "old", "Old work", "old-work");
	free(join(st, "new", NULL, "New work", true, T0 + 86401000LL, &res));
	CHECK(chat_get(st, "old", T0, 60, &p, &found, &err) == 0 && !found);
	chat_peer_release(&p);
	store_close(st);
}

static void
the_shared_texts(void)
{
	struct sbuf	sb = SBUF_INIT;
	char		id[CHAT_MCP_ID_LEN];

	sbuf_init(&sb);
	chat_age(&sb, 59);
	chat_age(&sb, 61);
	chat_age(&sb, 7200);
	chat_age(&sb, 200000);
	CHECK_STR(sb.buf, "59s1m2h2d");
	sbuf_reset(&sb);
	chat_body(&sb, "one\r\n[from zaphod, x] two", "  ");
	CHECK_STR(sb.buf, "one\n  [from zaphod, x] two");
	sbuf_release(&sb);
	CHECK(chat_is_echo("[chat] a \u2192 b: hi\n[chat]   more\n"));
	CHECK(!chat_is_echo("[chat] a\nplain"));
	CHECK(!chat_is_echo(""));
	chat_mcp_session_id("Alice", id);
	CHECK_STR(id, "mcp_2bd806c97f0e");	/* sha256("alice") */
}

CHECK_MAIN(
	TEST(a_title_yields_a_kebab_base_and_placeholders_none),
	TEST(the_pool_is_large_unique_and_valid),
	TEST(counters_number_a_base_and_never_reuse_a_name),
	TEST(explicit_names_are_unique_ignoring_case),
	TEST(pool_names_spread_before_they_repeat),
	TEST(concurrent_joins_never_share_a_name),
	TEST(a_tombstone_blocks_auto_registration_until_an_explicit_join),
	TEST(mail_reaches_its_recipient_only_and_is_announced_once),
	TEST(an_inbox_is_capped_reads_are_paged_and_sends_counted),
	TEST(sessions_stale_a_day_are_purged_at_the_next_join),
	TEST(the_shared_texts),
	TEST(tmpdb_cleanup)
)
