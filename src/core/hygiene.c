/*
 * hygiene.c — the store hygiene report: pending duplicates, stale
 * memories, memories of deleted branches (store-and-tools §6).
 *
 * Reports only; never changes a memory. Used by `thatch hygiene` and by
 * the session-start reminder, which print the line verbatim.
 *  1. Only the project store is examined, never global.
 *  2. Parts appear in the order duplicates, stale, orphaned, each only
 *     when its count is non-zero; counts are plain decimals.
 *  3. An unknown branch list skips the orphan signal (§6 signal 3).
 *  4. The orphaned branch names come from all entries, archived included,
 *     while the count excludes archived ones (quirk kept, §6).
 */
#include "core/hygiene.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/dedup.h"
#include "core/store.h"
#include "util/clock.h"
#include "util/sbuf.h"
#include "util/xmalloc.h"

#define DAY_MS	86400000LL

struct orphans {
	const char *const	*live;
	size_t			 nlive;
	char			**names;	/* owned, each owned */
	size_t			 n;
};

static int
add_orphan(const char *branch, void *arg)
{
	struct orphans	*o = arg;
	size_t		 i;

	for (i = 0; i < o->nlive; i++)
		if (strcmp(o->live[i], branch) == 0)
			return 0;
	o->names = xreallocarray(o->names, o->n + 1, sizeof(*o->names));
	o->names[o->n++] = xstrdup(branch);
	return 0;
}

/* "<n> <noun><tail>", after "; " unless it is the first part. */
static void
part(struct sbuf *sb, bool *first, long long n, const char *one,
    const char *many, const char *tail)
{
	sbuf_addf(sb, "%s%lld %s%s", *first ? "" : "; ", n, n == 1 ? one :
	    many, tail);
	*first = false;
}

int
hygiene_report(struct store *st, const char *repo, const char *const *live,
    size_t nlive, int64_t now_ms, struct sbuf *out, struct err *err)
{
	struct orphans	 o = { live, nlive, NULL, 0 };
	struct sbuf	 line = SBUF_INIT;
	char		 cutoff[CLOCK_ISO_LEN];
	size_t		 dups = 0, i;
	int		 stale = 0, orphaned = 0, rc = -1;
	bool		 first = true;

	if (dedup_count(st, repo, DEDUP_THRESHOLD, &dups, err) != 0)
		goto out;
	clock_iso(now_ms - HYGIENE_STALE_DAYS * DAY_MS, cutoff);
	if (store_count_stale(st, repo, cutoff, &stale, err) != 0)
		goto out;
	if (nlive > 0) {
		if (store_branches(st, repo, add_orphan, &o, err) != 0 ||
		    store_count_in_branches(st, repo,
		    (const char *const *)o.names, o.n, &orphaned, err) != 0)
			goto out;
	}
	sbuf_addf(&line, "Store \"%s\": ", repo);
	if (dups > 0)
		part(&line, &first, (long long)dups, "duplicate-candidate pair",
		    "duplicate-candidate pairs", " pending review");
	if (stale > 0)
		part(&line, &first, stale, "memory", "memories",
		    " neither updated nor recalled in 90+ days");
	if (orphaned > 0) {
		part(&line, &first, orphaned, "memory", "memories",
		    " scoped to deleted branches (");
		for (i = 0; i < o.n; i++)
			sbuf_addf(&line, "%s%s", i ? ", " : "", o.names[i]);
		sbuf_addc(&line, ')');
	}
	if (!first) {
		sbuf_addc(&line, '.');
		sbuf_add(out, line.buf, line.len);
	}
	rc = 0;
out:
	for (i = 0; i < o.n; i++)
		free(o.names[i]);
	free(o.names);
	sbuf_release(&line);
	return rc;
}
