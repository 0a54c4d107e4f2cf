/*
 * anchor_drift.c — judging anchors against the worktree: fresh, changed
 * or gone, for recall's marks and hygiene's fourth signal.
 *
 *  1. A file's blob id is taken from thatch_anchor_files while its stat
 *     (size, mtime in ns, inode) is the one recorded there; otherwise the
 *     file is read and hashed, and the rows so learnt are replaced in one
 *     transaction when the check closes (best effort: a lost write costs
 *     a read next time). git runs only for a gone file.
 *  2. Each file is judged once per check (a memo by path): hygiene reads
 *     many anchors of few files.
 *  3. A memory scoped to a branch other than the one checked out is not
 *     judged (its code lives on that branch); an unscoped one always is.
 *  4. A symbol anchor whose file changed is fresh while its definition's
 *     text (anchor_span.c) is the one recorded.
 */
#include "core/anchor/anchor.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/anchor/anchor_int.h"
#include "core/store/store.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/path.h"
#include "util/sbuf.h"
#include "util/xmalloc.h"

/* What one file is now (invariant 2). */
struct file_memo {
	char	*path;		/* owned; NULL: empty slot */
	bool	 exists;
	char	 blob[ANCHOR_OID_LEN];
	bool	 rename_known;
	char	*renamed;	/* owned; NULL: not renamed */
};

/* A fingerprint learnt by this check, written when it closes. */
struct file_row {
	char		*file;		/* owned */
	struct stat	 sb;
	char		 blob[ANCHOR_OID_LEN];
};

struct anchor_check {
	struct store		*st;
	struct file_row		*learnt;	/* owned */
	size_t			 nlearnt;
	struct anchor_repo	 repo;
	struct file_memo	*memo;		/* open addressing */
	size_t			 cap, n;
	sqlite3_stmt		*get;		/* thatch_anchor_files */
};

struct anchor_check *
anchor_check_open(struct store *st, const char *dir)
{
	struct anchor_check	*ck = xcalloc(1, sizeof(*ck));

	if (anchor_repo_find(dir, &ck->repo) != 0) {
		free(ck);
		return NULL;
	}
	ck->st = st;
	ck->cap = 64;
	ck->memo = xcalloc(ck->cap, sizeof(*ck->memo));
	return ck;
}

bool
anchor_judged(const struct anchor_check *ck, const char *branch)
{
	return branch == NULL || *branch == '\0' || (ck->repo.branch != NULL &&
	    strcmp(branch, ck->repo.branch) == 0);
}

static uint64_t
hash(const char *s)
{
	uint64_t	h = 1469598103934665603ULL;

	for (; *s != '\0'; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static struct file_memo *
memo_slot(struct file_memo *v, size_t cap, const char *path)
{
	size_t	i = (size_t)hash(path) & (cap - 1);

	while (v[i].path != NULL && strcmp(v[i].path, path) != 0)
		i = (i + 1) & (cap - 1);
	return &v[i];
}

static void
memo_grow(struct anchor_check *ck)
{
	struct file_memo	*old = ck->memo;
	size_t			 i, cap = ck->cap;

	ck->cap *= 2;
	ck->memo = xcalloc(ck->cap, sizeof(*ck->memo));
	for (i = 0; i < cap; i++)
		if (old[i].path != NULL)
			*memo_slot(ck->memo, ck->cap, old[i].path) = old[i];
	free(old);
}

/* Invariant 1: the stat-keyed row of file, or false. */
static bool
cached_blob(struct anchor_check *ck, const char *file, const struct stat *sb,
    char blob[ANCHOR_OID_LEN])
{
	const char	*b;
	bool		 hit = false;

	if (ck->get == NULL && sqlite3_prepare_v2(store_db(ck->st),
	    "SELECT blob FROM thatch_anchor_files WHERE path = ? AND "
	    "size = ? AND mtime = ? AND ino = ?", -1, &ck->get, NULL) !=
	    SQLITE_OK)
		return false;
	sqlite3_bind_text(ck->get, 1, file, -1, SQLITE_STATIC);
	sqlite3_bind_int64(ck->get, 2, (sqlite3_int64)sb->st_size);
	sqlite3_bind_int64(ck->get, 3, (sqlite3_int64)sb->st_mtim.tv_sec *
	    1000000000 + sb->st_mtim.tv_nsec);
	sqlite3_bind_int64(ck->get, 4, (sqlite3_int64)sb->st_ino);
	if (sqlite3_step(ck->get) == SQLITE_ROW &&
	    (b = (const char *)sqlite3_column_text(ck->get, 0)) != NULL &&
	    strlen(b) == ANCHOR_OID_LEN - 1) {
		memcpy(blob, b, ANCHOR_OID_LEN);
		hit = true;
	}
	sqlite3_reset(ck->get);
	return hit;
}

static void
cache_blob(struct anchor_check *ck, const char *file, const struct stat *sb,
    const char *blob)
{
	struct file_row	*r;

	ck->learnt = xreallocarray(ck->learnt, ck->nlearnt + 1,
	    sizeof(*ck->learnt));
	r = &ck->learnt[ck->nlearnt++];
	r->file = xstrdup(file);
	r->sb = *sb;
	memcpy(r->blob, blob, ANCHOR_OID_LEN);
}

/* Invariant 1: the learnt rows in one transaction, then freed. */
static void
cache_flush(struct anchor_check *ck)
{
	const struct file_row	*r;
	sqlite3_stmt		*put = NULL;
	size_t			 i;

	store_busy_timeout(ck->st, STORE_BEST_EFFORT_MS);
	if (ck->nlearnt > 0 && sqlite3_prepare_v2(store_db(ck->st),
	    "INSERT OR REPLACE INTO thatch_anchor_files VALUES "
	    "(?, ?, ?, ?, ?)", -1, &put, NULL) == SQLITE_OK &&
	    store_exec(ck->st, "BEGIN IMMEDIATE", NULL) == 0) {
		for (i = 0; i < ck->nlearnt; i++) {
			r = &ck->learnt[i];
			sqlite3_bind_text(put, 1, r->file, -1, SQLITE_STATIC);
			sqlite3_bind_int64(put, 2, (sqlite3_int64)
			    r->sb.st_size);
			sqlite3_bind_int64(put, 3, (sqlite3_int64)
			    r->sb.st_mtim.tv_sec * 1000000000 +
			    r->sb.st_mtim.tv_nsec);
			sqlite3_bind_int64(put, 4, (sqlite3_int64)
			    r->sb.st_ino);
			sqlite3_bind_text(put, 5, r->blob, -1, SQLITE_STATIC);
			(void)sqlite3_step(put);
			sqlite3_reset(put);
		}
		if (store_exec(ck->st, "COMMIT", NULL) != 0)
			(void)store_exec(ck->st, "ROLLBACK", NULL);
	}
	store_busy_timeout(ck->st, STORE_BUSY_MS);
	sqlite3_finalize(put);
	for (i = 0; i < ck->nlearnt; i++)
		free(ck->learnt[i].file);
	free(ck->learnt);
}

void
anchor_check_close(struct anchor_check *ck)
{
	size_t	i;

	if (ck == NULL)
		return;
	for (i = 0; i < ck->cap; i++) {
		free(ck->memo[i].path);
		free(ck->memo[i].renamed);
	}
	free(ck->memo);
	sqlite3_finalize(ck->get);
	cache_flush(ck);
	anchor_repo_release(&ck->repo);
	free(ck);
}

/* What path is now, judged once (invariant 2). */
static struct file_memo *
file_now(struct anchor_check *ck, const char *path)
{
	struct file_memo	*m;
	struct stat		 sb;
	struct sbuf		 text = SBUF_INIT;
	char			*file;

	if (2 * (ck->n + 1) > ck->cap)
		memo_grow(ck);
	m = memo_slot(ck->memo, ck->cap, path);
	if (m->path != NULL)
		return m;
	m->path = xstrdup(path);
	ck->n++;
	file = path_join(ck->repo.root, path);
	if (stat(file, &sb) == 0 && S_ISREG(sb.st_mode)) {
		m->exists = true;
		if (!cached_blob(ck, file, &sb, m->blob) &&
		    fileio_read(file, &text, NULL) == 0) {
			gitoid_blob(text.buf, text.len, m->blob);
			cache_blob(ck, file, &sb, m->blob);
		}
	}
	sbuf_release(&text);
	free(file);
	return m;
}

/* Invariant 4: whether the symbol's text at path is the recorded one. */
static bool
span_same(struct anchor_check *ck, const char *path, const struct anchor *a)
{
	struct sbuf	 text = SBUF_INIT;
	char		 oid[ANCHOR_OID_LEN], *file;
	bool		 same;

	file = path_join(ck->repo.root, path);
	same = fileio_read(file, &text, NULL) == 0 && anchor_span(text.buf,
	    text.len, a->symbol, oid) && strcmp(oid, a->span) == 0;
	sbuf_release(&text);
	free(file);
	return same;
}

static enum anchor_state
compare(struct anchor_check *ck, const struct file_memo *m,
    const struct anchor *a)
{
	if (a->blob != NULL && strcmp(m->blob, a->blob) == 0)
		return ANCHOR_FRESH;
	if (a->symbol != NULL && a->span != NULL && span_same(ck, m->path, a))
		return ANCHOR_FRESH;
	return ANCHOR_CHANGED;
}

enum anchor_state
anchor_judge(struct anchor_check *ck, const struct anchor *a,
    const char **moved)
{
	struct file_memo	*m = file_now(ck, a->path), *to;

	*moved = NULL;
	if (m->exists)
		return compare(ck, m, a);
	if (!m->rename_known) {
		m->rename_known = true;
		m->renamed = anchor_git_renamed(ck->repo.root, a->head,
		    a->path);
	}
	if (m->renamed == NULL)
		return ANCHOR_GONE;
	*moved = m->renamed;
	to = file_now(ck, m->renamed);	/* may move the memo: m is stale */
	return to->exists ? compare(ck, to, a) : ANCHOR_GONE;
}

/* The drifted files of as: "a (changed), b (gone)"-style parts, by state,
 * appended to the sbufs; returns how many drifted. */
static size_t
drifted_files(struct anchor_check *ck, const struct anchors *as,
    struct sbuf *changed, struct sbuf *gone)
{
	const char	*moved;
	struct sbuf	*to;
	size_t		 i, n = 0;

	for (i = 0; i < as->n; i++) {
		switch (anchor_judge(ck, &as->v[i], &moved)) {
		case ANCHOR_FRESH:
			continue;
		case ANCHOR_CHANGED:
			to = changed;
			break;
		case ANCHOR_GONE:
		default:
			to = gone;
			break;
		}
		sbuf_addf(to, "%s%s", to->len > 0 ? ", " : "", as->v[i].spec);
		n++;
	}
	return n;
}

void
anchor_marks(struct anchor_check *ck, const struct store_entry *e,
    struct sbuf *out)
{
	struct anchors	as;
	struct sbuf	changed = SBUF_INIT, gone = SBUF_INIT;

	if (ck == NULL || !anchor_judged(ck, e->branch) ||
	    anchor_get(ck->st, e->store, e->slug, &as, NULL) != 0)
		return;
	if (drifted_files(ck, &as, &changed, &gone) > 0) {
		if (changed.len > 0)
			sbuf_addf(out, " [code changed: %s]", changed.buf);
		if (gone.len > 0)
			sbuf_addf(out, " [code gone: %s]", gone.buf);
	}
	sbuf_release(&changed);
	sbuf_release(&gone);
	anchors_release(&as);
}

void
anchor_drifts_release(struct anchor_drifts *ds)
{
	size_t	i;

	for (i = 0; i < ds->n; i++) {
		free(ds->v[i].label);
		free(ds->v[i].branch);
		free(ds->v[i].files);
		free(ds->v[i].commits);
	}
	free(ds->v);
	memset(ds, 0, sizeof(*ds));
}

static char *
col_dup(sqlite3_stmt *stmt, int c)
{
	const unsigned char	*s = sqlite3_column_text(stmt, c);

	return s != NULL ? xstrdup((const char *)s) : NULL;
}

/* The commits since each drifted anchor of as was recorded. */
static char *
commits_since(struct anchor_check *ck, const struct anchors *as)
{
	struct sbuf	out = SBUF_INIT;
	size_t		i, was;

	for (i = 0; i < as->n; i++) {
		was = out.len;
		if (was > 0)
			sbuf_adds(&out, "; ");
		anchor_git_log(ck->repo.root, as->v[i].head, as->v[i].path,
		    &out);
		if (out.len == was + (was > 0 ? 2 : 0))
			sbuf_setlen(&out, was);
	}
	return out.len > 0 ? sbuf_detach(&out, NULL) : (sbuf_release(&out),
	    NULL);
}

/* Judge one memory's anchors as (of label, branch); add it when drifted. */
static void
judge_memory(struct anchor_check *ck, char *label, char *branch,
    struct anchors *as, bool commits, struct anchor_drifts *ds)
{
	struct sbuf		 changed = SBUF_INIT, gone = SBUF_INIT;
	struct anchor_drift	*d;

	if (anchor_judged(ck, branch) &&
	    drifted_files(ck, as, &changed, &gone) > 0) {
		ds->v = xreallocarray(ds->v, ds->n + 1, sizeof(*ds->v));
		d = &ds->v[ds->n++];
		d->label = label;
		d->branch = branch;
		label = branch = NULL;
		if (changed.len > 0 && gone.len > 0)
			sbuf_adds(&changed, "; ");
		if (gone.len > 0)
			sbuf_addf(&changed, "gone: %s", gone.buf);
		d->files = sbuf_detach(&changed, NULL);
		d->commits = commits ? commits_since(ck, as) : NULL;
	}
	free(label);
	free(branch);
	sbuf_release(&changed);
	sbuf_release(&gone);
	anchors_release(as);
}

int
anchor_drifted(struct anchor_check *ck, const char *store, bool commits,
    struct anchor_drifts *ds, struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	struct anchors	 as = { NULL, 0 };
	struct anchor	*a;
	char		*slug = NULL, *label = NULL, *branch = NULL;
	const char	*s;
	int		 step;

	memset(ds, 0, sizeof(*ds));
	/* one read of every anchor, grouped by memory: no table, none */
	if (ck == NULL || sqlite3_prepare_v2(store_db(ck->st), "SELECT "
	    "e.slug, e.label, e.branch, a.spec, a.path, a.symbol, a.blob, "
	    "a.span, a.head FROM thatch_anchors AS a JOIN entries AS e ON "
	    "e.store = a.store AND e.slug = a.slug WHERE a.store = ? AND "
	    "e.archived = 0 ORDER BY e.label, e.slug, a.seq", -1, &stmt,
	    NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_text(stmt, 1, store, -1, SQLITE_STATIC);
	while ((step = sqlite3_step(stmt)) == SQLITE_ROW) {
		s = (const char *)sqlite3_column_text(stmt, 0);
		if (slug == NULL || strcmp(slug, s) != 0) {
			if (slug != NULL)
				judge_memory(ck, label, branch, &as, commits,
				    ds);
			free(slug);
			slug = xstrdup(s);
			label = col_dup(stmt, 1);
			branch = col_dup(stmt, 2);
		}
		as.v = xreallocarray(as.v, as.n + 1, sizeof(*as.v));
		a = &as.v[as.n++];
		memset(a, 0, sizeof(*a));
		a->spec = col_dup(stmt, 3);
		a->path = col_dup(stmt, 4);
		a->symbol = col_dup(stmt, 5);
		a->blob = col_dup(stmt, 6);
		a->span = col_dup(stmt, 7);
		a->head = col_dup(stmt, 8);
	}
	if (slug != NULL)
		judge_memory(ck, label, branch, &as, commits, ds);
	free(slug);
	sqlite3_finalize(stmt);
	if (step != SQLITE_DONE) {
		anchor_drifts_release(ds);
		return err_set(err, "reading anchors: %s",
		    sqlite3_errmsg(store_db(ck->st)));
	}
	return 0;
}
