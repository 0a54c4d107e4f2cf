/*
 * hygiene.c — the store hygiene report: pending duplicates, stale
 * memories, memories of deleted branches (store-and-tools §6), and
 * memories whose anchored code drifted (core/anchor/).
 *
 * Reports only; never changes a memory. Used by `thatch hygiene` and by
 * the session-start reminder, which print the line verbatim. The report
 * is split into facts read from the database (hygiene_scan) and the line
 * written from them (hygiene_format), so that the reminder can keep the
 * facts in a cache (hygiene_cache.c) and still print the same line.
 *  1. Only the project store is examined, never global.
 *  2. Parts appear in the order duplicates, stale, orphaned, drifted, each only
 *     when its count is non-zero; counts are plain decimals.
 *  3. An unknown branch list skips the orphan signal (§6 signal 3).
 *  4. The orphaned branch names come from all entries, archived included,
 *     while the count excludes archived ones (quirk kept, §6).
 *  5. The list (hygiene_list) reads the same signals with the same store
 *     queries as the report, so each section holds as many memories (or
 *     pairs) as the report's count says, read in one transaction.
 */
#include "core/hygiene.h"

#include <stdlib.h>
#include <string.h>

#include "core/dedup.h"
#include "core/store/store.h"
#include "text/fence.h"
#include "util/err.h"
#include "util/log.h"
#include "util/num.h"
#include "util/sbuf.h"
#include "util/utf8.h"
#include "util/xmalloc.h"

#define DAY_MS	86400000LL

struct branch_walk {
	struct store		*st;
	const char		*repo;
	struct hygiene_facts	*f;
	struct err		*err;
	int			 rc;	/* -1: a count failed, err set */
};

static int
add_branch(const char *branch, void *arg)
{
	struct branch_walk	*w = arg;
	struct hygiene_branch	*b;

	w->f->branches = xreallocarray(w->f->branches, w->f->nbranches + 1,
	    sizeof(*w->f->branches));
	b = &w->f->branches[w->f->nbranches++];
	b->name = xstrdup(branch);
	w->rc = store_count_in_branches(w->st, w->repo,
	    (const char *const *)&b->name, 1, &b->nlive, w->err);
	return w->rc != 0;
}

int
hygiene_scan(struct store *st, const char *repo, int64_t now_ms, bool dups,
    struct hygiene_facts *f, struct err *err)
{
	struct branch_walk	w = { st, repo, f, err, 0 };
	int			rc = -1;

	memset(f, 0, sizeof(*f));
	f->dups_known = dups;
	if (dups && dedup_count(st, repo, DEDUP_THRESHOLD, &f->dups, err) != 0)
		goto out;
	clock_iso(now_ms - HYGIENE_STALE_DAYS * DAY_MS, f->cutoff);
	if (store_count_stale(st, repo, f->cutoff, &f->stale, err) != 0 ||
	    store_next_stale(st, repo, f->cutoff, &f->next_stale, err) != 0)
		goto out;
	if (store_branches(st, repo, add_branch, &w, err) != 0 || w.rc != 0)
		goto out;
	rc = 0;
out:
	if (rc != 0)
		hygiene_facts_release(f);
	return rc;
}

void
hygiene_facts_release(struct hygiene_facts *f)
{
	size_t	i;

	for (i = 0; i < f->nbranches; i++)
		free(f->branches[i].name);
	free(f->branches);
	free(f->next_stale);
	memset(f, 0, sizeof(*f));
}

bool
hygiene_current(const struct hygiene_facts *f, int64_t now_ms)
{
	char	cutoff[CLOCK_ISO_LEN];

	clock_iso(now_ms - HYGIENE_STALE_DAYS * DAY_MS, cutoff);
	return strcmp(cutoff, f->cutoff) >= 0 && (f->next_stale == NULL ||
	    strcmp(cutoff, f->next_stale) <= 0);
}

static bool
is_live(const char *branch, const char *const *live, size_t nlive)
{
	size_t	i;

	for (i = 0; i < nlive; i++)
		if (strcmp(live[i], branch) == 0)
			return true;
	return false;
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

void
hygiene_format(const struct hygiene_facts *f, const char *repo,
    const char *const *live, size_t nlive, struct sbuf *out)
{
	struct sbuf	line = SBUF_INIT;
	long long	orphaned = 0;
	size_t		i;
	bool		first = true, named = false;

	for (i = 0; nlive > 0 && i < f->nbranches; i++)
		if (!is_live(f->branches[i].name, live, nlive))
			orphaned += f->branches[i].nlive;
	sbuf_adds(&line, "Store ");
	text_fence_quoted(&line, repo);
	sbuf_adds(&line, ": ");
	if (f->dups_known && f->dups > 0)
		part(&line, &first, (long long)f->dups,
		    "duplicate-candidate pair", "duplicate-candidate pairs",
		    " pending review");
	if (f->stale > 0)
		part(&line, &first, f->stale, "memory", "memories",
		    " neither updated nor recalled in 90+ days");
	if (orphaned > 0) {
		part(&line, &first, orphaned, "memory", "memories",
		    " scoped to deleted branches (");
		for (i = 0; i < f->nbranches; i++) {
			if (is_live(f->branches[i].name, live, nlive))
				continue;
			sbuf_adds(&line, named ? ", " : "");
			text_fence_field(&line, f->branches[i].name);
			named = true;
		}
		sbuf_addc(&line, ')');
	}
	if (f->drifted > 0)
		part(&line, &first, (long long)f->drifted, "memory describes "
		    "code that changed since it was written", "memories "
		    "describe code that changed since they were written", "");
	if (!first) {
		sbuf_addc(&line, '.');
		sbuf_add(out, line.buf, line.len);
	}
	sbuf_release(&line);
}

int
hygiene_report(struct store *st, const char *repo, const char *const *live,
    size_t nlive, int64_t now_ms, struct sbuf *out, struct err *err)
{
	struct hygiene_facts	f;

	if (hygiene_scan(st, repo, now_ms, true, &f, err) != 0)
		return -1;
	hygiene_format(&f, repo, live, nlive, out);
	hygiene_facts_release(&f);
	return 0;
}

static char *
dup_or_null(const char *s)
{
	return s != NULL ? xstrdup(s) : NULL;
}

static int
add_memory(const struct store_entry *e, void *arg)
{
	struct hygiene_memories	*ms = arg;
	struct hygiene_memory	*m;

	ms->v = xreallocarray(ms->v, ms->n + 1, sizeof(*ms->v));
	m = &ms->v[ms->n++];
	m->label = xstrdup(e->label != NULL ? e->label : "");
	m->branch = dup_or_null(e->branch);
	m->updated_at = dup_or_null(e->updated_at);
	m->last_recalled_at = dup_or_null(e->last_recalled_at);
	return 0;
}

static void
memories_release(struct hygiene_memories *ms)
{
	size_t	i;

	for (i = 0; i < ms->n; i++) {
		free(ms->v[i].label);
		free(ms->v[i].branch);
		free(ms->v[i].updated_at);
		free(ms->v[i].last_recalled_at);
	}
	free(ms->v);
	memset(ms, 0, sizeof(*ms));
}

/* Invariant 5: the reads, with l->facts already scanned. */
static int
list_signals(struct store *st, const char *repo, const char *const *live,
    size_t nlive, struct hygiene_list *l, struct err *err)
{
	size_t	i;

	if (dedup_find(st, repo, DEDUP_THRESHOLD, &l->dups, err) != 0 ||
	    store_list_stale(st, repo, l->facts.cutoff, add_memory, &l->stale,
	    err) != 0)
		return -1;
	for (i = 0; nlive > 0 && i < l->facts.nbranches; i++)
		if (!is_live(l->facts.branches[i].name, live, nlive) &&
		    store_list_branch(st, repo, l->facts.branches[i].name,
		    add_memory, &l->orphaned, err) != 0)
			return -1;
	return 0;
}

int
hygiene_list(struct store *st, const char *repo, const char *const *live,
    size_t nlive, int64_t now_ms, struct hygiene_list *l, struct err *err)
{
	int	rc = -1;

	memset(l, 0, sizeof(*l));
	if (store_exec(st, "BEGIN", err) != 0)
		return -1;
	if (hygiene_scan(st, repo, now_ms, true, &l->facts, err) == 0 &&
	    list_signals(st, repo, live, nlive, l, err) == 0)
		rc = 0;
	(void)store_exec(st, "COMMIT", NULL);	/* read only: nothing to lose */
	if (rc != 0)
		hygiene_list_release(l);
	return rc;
}

void
hygiene_list_release(struct hygiene_list *l)
{
	hygiene_facts_release(&l->facts);
	dedup_result_release(&l->dups);
	memories_release(&l->stale);
	memories_release(&l->orphaned);
	anchor_drifts_release(&l->drifted);
}

void
hygiene_drift(struct store *st, const char *repo, const char *dir,
    struct hygiene_facts *f, struct anchor_drifts *list)
{
	struct anchor_check	*ck = anchor_check_open(st, dir);
	struct anchor_drifts	 ds;
	struct err		 err;

	f->drifted = 0;
	if (anchor_drifted(ck, repo, list != NULL, &ds, &err) != 0)
		log_warn("hygiene: %s", err.msg);
	else {
		f->drifted = ds.n;
		if (list != NULL)
			*list = ds;
		else
			anchor_drifts_release(&ds);
	}
	anchor_check_close(ck);
}

void
hygiene_list_format(const struct hygiene_list *l, struct sbuf *out)
{
	const struct dedup_pair		*p;
	const struct hygiene_memory	*m;
	char				 num[NUM_BUFSZ];
	size_t				 i;

	if (l->dups.npairs > 0)
		sbuf_addf(out, "Duplicate-candidate pairs pending review "
		    "(%zu):\n", l->dups.npairs);
	for (i = 0; i < l->dups.npairs; i++) {
		p = &l->dups.pairs[i];
		utf8_addf(out, "  \"%s\" \u2194 \"%s\"", l->dups.m.labels[p->a],
		    l->dups.m.labels[p->b]);
		sbuf_addf(out, " (similarity %s)\n", num_js(p->score, num));
	}
	if (l->stale.n > 0)
		sbuf_addf(out, "Memories neither updated nor recalled in %d+ "
		    "days (%zu):\n", HYGIENE_STALE_DAYS, l->stale.n);
	for (i = 0; i < l->stale.n; i++) {
		m = &l->stale.v[i];
		utf8_addf(out, "  \"%s\" (updated %s, last recalled %s)\n",
		    m->label, m->updated_at ? m->updated_at : "never",
		    m->last_recalled_at ? m->last_recalled_at : "never");
	}
	if (l->orphaned.n > 0)
		sbuf_addf(out, "Memories scoped to deleted branches (%zu):\n",
		    l->orphaned.n);
	for (i = 0; i < l->orphaned.n; i++) {
		utf8_addf(out, "  \"%s\" (branch ", l->orphaned.v[i].label);
		text_fence_field(out, l->orphaned.v[i].branch);
		sbuf_adds(out, ")\n");
	}
	if (l->drifted.n > 0)
		sbuf_addf(out, "Memories whose code changed since they were "
		    "written (%zu):\n", l->drifted.n);
	for (i = 0; i < l->drifted.n; i++) {
		utf8_addf(out, "  \"%s\" (%s", l->drifted.v[i].label,
		    l->drifted.v[i].files);
		if (l->drifted.v[i].commits != NULL)
			utf8_addf(out, "; commits since: %s",
			    l->drifted.v[i].commits);
		sbuf_adds(out, ")\n");
	}
}
