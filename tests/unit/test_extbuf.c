/*
 * test_extbuf.c — opencode's extraction buffer lifecycle: push, cap,
 * accept, claim, complete, the snapshot-aware drain, requeue, the
 * 15-minute reaper on an injected clock, interleaved sessions, a parent
 * that keeps buffering while its child extracts, damaged files.
 */
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/session/extbuf.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/path.h"
#include "util/xmalloc.h"

#define MIN	(60 * 1000)

static char *
tmpdir(void)
{
	char	tpl[] = "/tmp/thatch-extbuf.XXXXXX";
	char	*d = mkdtemp(tpl);

	return path_join(d, "opencode");
}

static void
rmdir_all(char *dir)
{
	char	*parent = path_dirname(dir);
	char	 cmd[512];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", parent);
	if (system(cmd) != 0)
		CHECK_FAIL("cannot remove %s", parent);
	free(parent);
	free(dir);
}

/* Buffer a bash call whose command is cmd. */
static void
push(const char *dir, const char *sid, const char *cmd)
{
	struct err	 err;
	json_t		*rec = json_pack("{s:s,s:s,s:{s:s},s:s,s:s}", "tool",
			    "bash", "sessionID", sid, "args", "command", cmd,
			    "title", cmd, "output", "ok");

	CHECK_INT(extbuf_push(dir, sid, rec, &err), 0);
	json_decref(rec);
}

/* The commands the claim hands out, joined by ",". */
static char *
claimed(const char *dir, const char *sid)
{
	struct err	 err;
	json_t		*recs, *r;
	char		 buf[1024] = "";
	size_t		 i;

	CHECK(extbuf_claim(dir, sid, &recs, &err) >= 0);
	json_array_foreach(recs, i, r) {
		if (i > 0)
			strcat(buf, ",");
		strcat(buf, json_string_value(json_object_get(json_object_get(
		    r, "args"), "command")));
	}
	json_decref(recs);
	return xstrdup(buf);
}

static void
counts(const char *dir, const char *sid, size_t p, size_t a)
{
	struct extbuf_state	st;
	struct err		err;

	CHECK_INT(extbuf_state(dir, sid, &st, &err), 0);
	CHECK_INT((int)st.pending, (int)p);
	CHECK_INT((int)st.accepted, (int)a);
	extbuf_state_release(&st);
}

static void
check_claim(const char *dir, const char *sid, const char *want)
{
	char	*got = claimed(dir, sid);

	CHECK_STR(got, want);
	free(got);
}

static void
a_push_is_pending_and_the_cap_drops_the_oldest(void)
{
	struct err	 err;
	char		*dir = tmpdir(), name[16];
	int	 i;

	for (i = 1; i <= EXTBUF_CAP + 3; i++) {
		snprintf(name, sizeof(name), "c%d", i);
		push(dir, "p", name);
	}
	counts(dir, "p", EXTBUF_CAP, 0);
	push(dir, "q", "other");
	counts(dir, "q", 1, 0);
	/* a child's accepted entries do not count against the parent's cap */
	CHECK_INT(extbuf_begin(dir, "p", 0, &err), 1);
	CHECK_INT(extbuf_accept(dir, "p", "child", 0, &err), EXTBUF_CAP);
	push(dir, "p", "while-extracting");
	counts(dir, "p", 1, EXTBUF_CAP);
	check_claim(dir, "p", "c4,c5,c6,c7,c8,c9,c10,c11,c12,c13,c14,c15,"
	    "c16,c17,c18,c19,c20,c21,c22,c23,while-extracting");
	counts(dir, "nobody", 0, 0);
	rmdir_all(dir);
}

static void
begin_marks_once_and_only_with_pending_entries(void)
{
	struct err	 err;
	char		*dir = tmpdir();

	CHECK_INT(extbuf_begin(dir, "p", 0, &err), 0);
	push(dir, "p", "a");
	CHECK_INT(extbuf_begin(dir, "p", 0, &err), 1);
	CHECK_INT(extbuf_begin(dir, "p", 1, &err), 0);
	rmdir_all(dir);
}

static void
a_child_claims_what_it_received_and_completes_only_that(void)
{
	struct extbuf_state	 st;
	struct err		 err;
	char			*dir = tmpdir(), *parent;
	int			 m[3];

	push(dir, "p", "a");
	push(dir, "p", "b");
	CHECK_INT(extbuf_begin(dir, "p", 0, &err), 1);
	CHECK_INT(extbuf_accept(dir, "p", "child", 0, &err), 2);
	counts(dir, "p", 0, 2);
	parent = extbuf_parent(dir, "child");
	CHECK_STR(parent, "p");
	free(parent);
	CHECK(extbuf_parent(dir, "stranger") == NULL);
	/* the parent keeps working while its child extracts */
	push(dir, "p", "c");
	check_claim(dir, "p", "a,b,c");
	push(dir, "p", "d");
	CHECK_INT(extbuf_complete(dir, "p", EXTBUF_NEW, &err), 3);
	counts(dir, "p", 1, 0);
	CHECK_INT(extbuf_complete(dir, "p", EXTBUF_UPDATED, &err), 0);
	CHECK_INT(extbuf_state(dir, "p", &st, &err), 0);
	CHECK_STR(st.child, "child");
	CHECK_INT(st.metrics[EXTBUF_NEW], 1);
	CHECK_INT(st.metrics[EXTBUF_UPDATED], 1);
	extbuf_state_release(&st);
	CHECK_INT(extbuf_finish(dir, "p", m, &err), 0);
	CHECK_INT(m[EXTBUF_NEW], 1);
	CHECK_INT(m[EXTBUF_UPDATED], 1);
	CHECK_INT(m[EXTBUF_DELETED], 0);
	/* what was buffered after the fetch waits for the next idle */
	check_claim(dir, "p", "d");
	CHECK(extbuf_parent(dir, "child") == NULL);
	CHECK_INT(extbuf_begin(dir, "p", 0, &err), 1);
	rmdir_all(dir);
}

static void
a_no_save_run_drains_the_snapshot_and_keeps_later_entries(void)
{
	struct err	 err;
	char		*dir = tmpdir();
	int		 m[3];

	push(dir, "p", "a");
	CHECK_INT(extbuf_begin(dir, "p", 0, &err), 1);
	CHECK_INT(extbuf_accept(dir, "p", "child", 0, &err), 1);
	push(dir, "p", "later");
	CHECK_INT(extbuf_finish(dir, "p", m, &err), 1);
	CHECK_INT(m[0] + m[1] + m[2], 0);
	counts(dir, "p", 1, 0);
	check_claim(dir, "p", "later");
	rmdir_all(dir);
}

static void
a_lost_child_requeues_what_it_held(void)
{
	struct extbuf_state	 st;
	struct err		 err;
	char			*dir = tmpdir();

	push(dir, "p", "a");
	push(dir, "p", "b");
	CHECK_INT(extbuf_begin(dir, "p", 0, &err), 1);
	CHECK_INT(extbuf_accept(dir, "p", "child", 0, &err), 2);
	CHECK_INT(extbuf_requeue(dir, "p", &err), 2);
	counts(dir, "p", 2, 0);
	CHECK_INT(extbuf_state(dir, "p", &st, &err), 0);
	CHECK(st.child == NULL);
	CHECK_INT(st.extracting, 0);
	extbuf_state_release(&st);
	CHECK(extbuf_parent(dir, "child") == NULL);
	/* and the next idle dispatches again, from the same entries */
	CHECK_INT(extbuf_begin(dir, "p", 0, &err), 1);
	CHECK_INT(extbuf_accept(dir, "p", "child2", 0, &err), 2);
	rmdir_all(dir);
}

static void
the_reaper_requeues_after_fifteen_minutes_not_before(void)
{
	struct err	 err;
	char		*dir = tmpdir();
	int64_t		 t0 = 1000000000;

	push(dir, "p", "a");
	CHECK_INT(extbuf_begin(dir, "p", t0, &err), 1);
	CHECK_INT(extbuf_accept(dir, "p", "child", t0, &err), 1);
	CHECK_INT(extbuf_reap(dir, "p", t0 + 15 * MIN - 1, &err), 0);
	counts(dir, "p", 0, 1);
	CHECK_INT(extbuf_begin(dir, "p", t0 + 15 * MIN - 1, &err), 0);
	CHECK_INT(extbuf_reap(dir, "p", t0 + 15 * MIN, &err), 1);
	counts(dir, "p", 1, 0);
	CHECK(extbuf_parent(dir, "child") == NULL);
	CHECK_INT(extbuf_begin(dir, "p", t0 + 15 * MIN, &err), 1);
	rmdir_all(dir);
}

static void
a_dispatch_that_never_reported_is_forgotten_by_the_reaper(void)
{
	struct err	 err;
	char		*dir = tmpdir();

	push(dir, "p", "a");
	CHECK_INT(extbuf_begin(dir, "p", 0, &err), 1);
	CHECK_INT(extbuf_reap(dir, "p", 15 * MIN - 1, &err), 0);
	CHECK_INT(extbuf_begin(dir, "p", 15 * MIN - 1, &err), 0);
	CHECK_INT(extbuf_reap(dir, "p", 15 * MIN, &err), 0);
	CHECK_INT(extbuf_begin(dir, "p", 15 * MIN, &err), 1);
	rmdir_all(dir);
}

static void
two_sessions_interleaved_never_touch_each_other(void)
{
	struct err	 err;
	char		*dir = tmpdir();
	int		 m[3];

	push(dir, "p", "p1");
	push(dir, "q", "q1");
	push(dir, "p", "p2");
	CHECK_INT(extbuf_begin(dir, "p", 0, &err), 1);
	CHECK_INT(extbuf_begin(dir, "q", 0, &err), 1);
	CHECK_INT(extbuf_accept(dir, "p", "cp", 0, &err), 2);
	CHECK_INT(extbuf_accept(dir, "q", "cq", 0, &err), 1);
	push(dir, "q", "q2");
	check_claim(dir, "p", "p1,p2");
	CHECK_INT(extbuf_complete(dir, "p", EXTBUF_NEW, &err), 2);
	counts(dir, "q", 1, 1);
	CHECK_INT(extbuf_requeue(dir, "q", &err), 1);
	counts(dir, "q", 2, 0);
	CHECK_INT(extbuf_finish(dir, "p", m, &err), 0);
	counts(dir, "p", 0, 0);
	check_claim(dir, "q", "q1,q2");
	rmdir_all(dir);
}

static void
consume_drops_pending_and_spares_a_childs_entries(void)
{
	struct err	 err;
	char		*dir = tmpdir(), *file;

	push(dir, "p", "a");
	CHECK_INT(extbuf_begin(dir, "p", 0, &err), 1);
	CHECK_INT(extbuf_accept(dir, "p", "child", 0, &err), 1);
	push(dir, "p", "b");
	CHECK_INT(extbuf_consume(dir, "p", &err), 1);
	counts(dir, "p", 0, 1);
	CHECK_INT(extbuf_drop(dir, "p", &err), 0);
	counts(dir, "p", 0, 0);
	file = path_join(dir, "p.json");
	CHECK(!fileio_exists(file));
	free(file);
	CHECK(extbuf_parent(dir, "child") == NULL);
	rmdir_all(dir);
}

static void
a_damaged_file_starts_afresh(void)
{
	struct err	 err;
	char		*dir = tmpdir(), *file;

	CHECK_INT(path_mkdir_p(dir, 0700, &err), 0);
	file = path_join(dir, "p.json");
	CHECK_INT(fileio_replace(file, "{\"entries\":", 11, 0600, &err), 0);
	push(dir, "p", "a");
	counts(dir, "p", 1, 0);
	free(file);
	rmdir_all(dir);
}

static void
concurrent_pushers_lose_nothing(void)
{
	char	*dir = tmpdir(), name[16];
	pid_t	 kid[4];
	int	 i, j, st;

	for (i = 0; i < 4; i++) {
		if ((kid[i] = fork()) == 0) {
			for (j = 0; j < 5; j++) {
				snprintf(name, sizeof(name), "k%d-%d", i, j);
				push(dir, "p", name);
			}
			_exit(check_test_failed);
		}
	}
	for (i = 0; i < 4; i++) {
		CHECK(waitpid(kid[i], &st, 0) == kid[i]);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	counts(dir, "p", 20, 0);
	rmdir_all(dir);
}

CHECK_MAIN(
	TEST(a_push_is_pending_and_the_cap_drops_the_oldest),
	TEST(begin_marks_once_and_only_with_pending_entries),
	TEST(a_child_claims_what_it_received_and_completes_only_that),
	TEST(a_no_save_run_drains_the_snapshot_and_keeps_later_entries),
	TEST(a_lost_child_requeues_what_it_held),
	TEST(the_reaper_requeues_after_fifteen_minutes_not_before),
	TEST(a_dispatch_that_never_reported_is_forgotten_by_the_reaper),
	TEST(two_sessions_interleaved_never_touch_each_other),
	TEST(consume_drops_pending_and_spares_a_childs_entries),
	TEST(a_damaged_file_starts_afresh),
	TEST(concurrent_pushers_lose_nothing)
)
