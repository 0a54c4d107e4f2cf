/*
 * test_hygiene.c — the hygiene report line (store-and-tools §6,
 * hosts-hooks-cli §7.2): which signals appear, their wording and order,
 * singular and plural, and the orphan check's "unknown branches" rule;
 * and the reminder's cache of it (hygiene_cache.c): the same line while
 * current, the last known facts after a write, time, bad files, the lock.
 */
#include "check.h"
#include "tmpdb.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/hygiene.h"
#include "core/hygiene_cache.h"
#include "core/store/store.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/sbuf.h"
#include "util/xmalloc.h"

/* 2025-06-10T00:00:00.000Z; 90 days earlier is 2025-03-12. */
#ifndef M_PI
#define M_PI	3.14159265358979323846
#endif
#define NOW_MS		1749513600000LL

static void
put(struct store *st, const char *slug, double deg, const char *branch,
    int archived, const char *when)
{
	struct err		 err = { "" };
	enum store_write_result	 res;
	float			 v[2] = { (float)cos(deg * M_PI / 180),
				    (float)sin(deg * M_PI / 180) };
	struct store_write	 w = {
		.store = "o/r", .slug = slug, .label = slug, .content = slug,
		.vec = v, .dim = 2, .model = "m", .branch = branch,
		.archived = archived, .now = when,
	};

	if (store_remember(st, &w, &res, &err) != 0 || res != STORE_SAVED)
		CHECK_FAIL("store_remember %s: %s", slug, err.msg);
}

static char *
report(struct store *st, const char *const *live, size_t nlive)
{
	struct sbuf	out = SBUF_INIT;
	struct err	err = { "" };

	if (hygiene_report(st, "o/r", live, nlive, NOW_MS, &out, &err) != 0)
		CHECK_FAIL("hygiene_report: %s", err.msg);
	return sbuf_detach(&out, NULL);
}

static void
a_healthy_store_reports_nothing(void)
{
	struct store	*st = tmpdb_open("healthy");
	char		*r;

	put(st, "fresh", 0, NULL, 0, "2025-06-01T00:00:00.000Z");
	r = report(st, NULL, 0);
	CHECK_STR(r, "");
	free(r);
	store_close(st);
}

static void
every_signal_in_order_with_plurals(void)
{
	static const char *const	live[] = { "main" };
	struct store			*st = tmpdb_open("all");
	char				*r;

	put(st, "dup-a", 0, NULL, 0, "2025-06-01T00:00:00.000Z");
	put(st, "dup-b", 1, NULL, 0, "2025-06-01T00:00:00.000Z");
	put(st, "old", 60, NULL, 0, "2025-01-01T00:00:00.000Z");
	put(st, "gone-1", 120, "feat/gone", 0, "2025-06-01T00:00:00.000Z");
	put(st, "gone-2", 180, "feat/gone", 0, "2025-06-01T00:00:00.000Z");
	put(st, "kept", 240, "main", 0, "2025-06-01T00:00:00.000Z");
	put(st, "arch", 300, "old/arch", 1, "2025-06-01T00:00:00.000Z");
	r = report(st, live, 1);
	CHECK_STR(r, "Store \"o/r\": 1 duplicate-candidate pair pending "
	    "review; 1 memory neither updated nor recalled in 90+ days; "
	    "2 memories scoped to deleted branches (feat/gone, old/arch).");
	free(r);
	store_close(st);
}

/* issue 15: the list names what the line counts, as many as it says */
static void
the_list_names_the_memories_behind_each_count(void)
{
	static const char *const	live[] = { "main" };
	struct store			*st = tmpdb_open("list");
	struct hygiene_list		 l;
	struct sbuf			 out = SBUF_INIT;
	struct err			 err = { "" };

	put(st, "dup-a", 0, NULL, 0, "2025-06-01T00:00:00.000Z");
	put(st, "dup-b", 1, NULL, 0, "2025-06-01T00:00:00.000Z");
	put(st, "old", 60, NULL, 0, "2025-01-01T00:00:00.000Z");
	put(st, "gone-1", 120, "feat/gone", 0, "2025-06-01T00:00:00.000Z");
	put(st, "arch", 300, "feat/gone", 1, "2025-06-01T00:00:00.000Z");
	put(st, "kept", 240, "main", 0, "2025-06-01T00:00:00.000Z");
	CHECK_INT(hygiene_list(st, "o/r", live, 1, NOW_MS, &l, &err), 0);
	CHECK_INT((int)l.dups.npairs, (int)l.facts.dups);
	CHECK_INT((int)l.stale.n, l.facts.stale);
	hygiene_list_format(&l, &out);
	CHECK_STR(out.buf, "Duplicate-candidate pairs pending review (1):\n"
	    "  \"dup-a\" \u2194 \"dup-b\" (similarity 1)\n"
	    "Memories neither updated nor recalled in 90+ days (1):\n"
	    "  \"old\" (updated 2025-01-01T00:00:00.000Z, last recalled "
	    "never)\n"
	    "Memories scoped to deleted branches (1):\n"
	    "  \"gone-1\" (branch feat/gone)\n");
	hygiene_list_release(&l);
	sbuf_reset(&out);
	/* unknown branches: no orphans, as the line says nothing of them */
	CHECK_INT(hygiene_list(st, "o/r", NULL, 0, NOW_MS, &l, &err), 0);
	CHECK_INT((int)l.orphaned.n, 0);
	hygiene_list_release(&l);
	sbuf_release(&out);
	store_close(st);
}

static void
unknown_branches_skip_the_orphan_signal(void)
{
	struct store	*st = tmpdb_open("nogit");
	char		*r;

	put(st, "b", 0, "feat/x", 0, "2025-06-01T00:00:00.000Z");
	r = report(st, NULL, 0);
	CHECK_STR(r, "");
	free(r);
	store_close(st);
}

#define DAY_MS	86400000LL

static const char *const	main_only[] = { "main" };

/* The reminder's line for o/r from c as of now_ms; *refresh as returned. */
static char *
cached(const struct hygiene_cache *c, struct store *st, int64_t now_ms,
    size_t sync_max, bool *refresh)
{
	struct hygiene_facts	f;
	struct sbuf		out = SBUF_INIT;
	struct err		err = { "" };

	if (hygiene_cache_facts(c, st, now_ms, sync_max, &f, refresh,
	    &err) != 0)
		CHECK_FAIL("hygiene_cache_facts: %s", err.msg);
	hygiene_format(&f, "o/r", main_only, 1, &out);
	hygiene_facts_release(&f);
	return sbuf_detach(&out, NULL);
}

static struct store *
cache_open(const char *name, struct hygiene_cache *c)
{
	struct store	*st = tmpdb_open(name);
	char		*home = xasprintf("%s/%s/cache", tmpdb_dir, name);

	hygiene_cache_init(c, home, store_path(st), "o/r");
	free(home);
	put(st, "dup-a", 0, NULL, 0, "2025-06-01T00:00:00.000Z");
	put(st, "dup-b", 1, NULL, 0, "2025-06-01T00:00:00.000Z");
	put(st, "old", 60, NULL, 0, "2025-01-01T00:00:00.000Z");
	put(st, "gone", 120, "feat/gone", 0, "2025-06-01T00:00:00.000Z");
	return st;
}

static void
update(const struct hygiene_cache *c, struct store *st, int64_t now_ms)
{
	struct err	err = { "" };

	if (hygiene_cache_update(c, st, now_ms, &err) != 0)
		CHECK_FAIL("hygiene_cache_update: %s", err.msg);
}

static void
the_cache_gives_the_exact_line_and_then_the_last_known_one(void)
{
	struct hygiene_cache	 c;
	struct hygiene_facts	 f;
	struct store		*st = cache_open("cache", &c);
	char			*exact, *r;
	bool			 refresh;

	r = cached(&c, st, NOW_MS, 0, &refresh);
	CHECK(refresh);
	CHECK_STR(r, "Store \"o/r\": 1 memory neither updated nor recalled "
	    "in 90+ days; 1 memory scoped to deleted branches (feat/gone).");
	free(r);
	update(&c, st, NOW_MS);
	exact = report(st, main_only, 1);
	r = cached(&c, st, NOW_MS, 0, &refresh);
	CHECK(!refresh);
	CHECK_STR(r, exact);
	free(r);
	CHECK(hygiene_cache_current(&c, NOW_MS, &f));
	CHECK_INT(f.dups, 1);
	hygiene_facts_release(&f);
	put(st, "dup-c", 0.5, NULL, 0, "2025-06-02T00:00:00.000Z");
	CHECK(!hygiene_cache_current(&c, NOW_MS, &f));
	CHECK_INT(f.nbranches, 0);
	r = cached(&c, st, NOW_MS, 0, &refresh);
	CHECK(refresh);
	CHECK_STR(r, exact);
	free(r);
	free(exact);
	update(&c, st, NOW_MS);
	exact = report(st, main_only, 1);
	CHECK(strstr(exact, "3 duplicate-candidate pairs") != NULL);
	r = cached(&c, st, NOW_MS, 0, &refresh);
	CHECK(!refresh);
	CHECK_STR(r, exact);
	free(r);
	put(st, "dup-d", 0.2, NULL, 0, "2025-06-02T00:00:00.000Z");
	free(exact);
	exact = report(st, main_only, 1);
	r = cached(&c, st, NOW_MS, 100, &refresh);
	CHECK(!refresh);	/* a small store is scanned at once */
	CHECK_STR(r, exact);
	free(r);
	free(exact);
	hygiene_cache_release(&c);
	store_close(st);
}

static void
aging_past_the_limit_or_a_clock_going_back_is_a_change(void)
{
	struct hygiene_cache	 c;
	struct hygiene_facts	 f;
	struct store		*st = cache_open("aging", &c);
	struct err		 err = { "" };
	char			*r;
	bool			 refresh;

	CHECK_INT(hygiene_scan(st, "o/r", NOW_MS, false, &f, &err), 0);
	CHECK_STR(f.next_stale, "2025-06-01T00:00:00.000Z");
	CHECK(hygiene_current(&f, NOW_MS));
	CHECK(hygiene_current(&f, NOW_MS + 80 * DAY_MS));
	CHECK(!hygiene_current(&f, NOW_MS + 82 * DAY_MS));
	CHECK(!hygiene_current(&f, NOW_MS - 1));
	hygiene_facts_release(&f);
	update(&c, st, NOW_MS);
	r = cached(&c, st, NOW_MS + 82 * DAY_MS, 0, &refresh);
	CHECK(refresh);
	free(r);
	r = cached(&c, st, NOW_MS + 82 * DAY_MS, 100, &refresh);
	CHECK(strstr(r, "4 memories neither updated") != NULL);
	free(r);
	hygiene_cache_release(&c);
	store_close(st);
}

static void
a_bad_cache_file_is_ignored(void)
{
	static const char *const	bad[] = { "", "not json{", "[]",
					    "{\"db\":\"/elsewhere\"}" };
	struct hygiene_cache		 c;
	struct store			*st = cache_open("bad", &c);
	char				*r;
	size_t				 i;
	bool				 refresh;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK_INT(fileio_replace(c.file, bad[i], strlen(bad[i]), 0600,
		    NULL), 0);
		r = cached(&c, st, NOW_MS, 0, &refresh);
		CHECK(refresh);
		CHECK(strstr(r, "duplicate") == NULL);
		free(r);
	}
	hygiene_cache_release(&c);
	store_close(st);
}

static void
one_lock_holder_at_a_time(void)
{
	struct hygiene_cache	 c;
	struct store		*st = cache_open("lock", &c);
	int			 fd, again;

	fd = hygiene_cache_lock(&c);
	CHECK(fd >= 0);
	again = hygiene_cache_lock(&c);
	CHECK_INT(again, -1);
	close(fd);
	fd = hygiene_cache_lock(&c);
	CHECK(fd >= 0);
	close(fd);
	hygiene_cache_release(&c);
	store_close(st);
}

CHECK_MAIN(
	TEST(a_healthy_store_reports_nothing),
	TEST(every_signal_in_order_with_plurals),
	TEST(the_list_names_the_memories_behind_each_count),
	TEST(unknown_branches_skip_the_orphan_signal),
	TEST(the_cache_gives_the_exact_line_and_then_the_last_known_one),
	TEST(aging_past_the_limit_or_a_clock_going_back_is_a_change),
	TEST(a_bad_cache_file_is_ignored),
	TEST(one_lock_holder_at_a_time),
	TEST(tmpdb_cleanup)
)
