/*
 * test_hygiene.c — the hygiene report line (store-and-tools §6,
 * hosts-hooks-cli §7.2): which signals appear, their wording and order,
 * singular and plural, and the orphan check's "unknown branches" rule.
 */
#include "check.h"
#include "tmpdb.h"

#include <stdbool.h>
#include <stdlib.h>

#include "core/hygiene.h"
#include "core/store.h"
#include "util/err.h"
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

CHECK_MAIN(
	TEST(a_healthy_store_reports_nothing),
	TEST(every_signal_in_order_with_plurals),
	TEST(unknown_branches_skip_the_orphan_signal),
	TEST(tmpdb_cleanup)
)
