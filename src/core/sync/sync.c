/*
 * sync.c — `thatch sync`: a project store exchanged with the project's git
 * remote on refs/thatch/<store>, merged per memory (docs/sync.md).
 *
 * The remote's ref holds a tree of one file per memory,
 * memories/<slug>.md (memdoc.c's document, telemetry and vector left
 * out), and tombstones/<slug> ("forgotten_at: <time>\n") for forgotten
 * ones. This file turns the database, the last synced commit and the
 * remote's commit into one merge (sync_merge.c) and applies it; git is
 * sync_git.c's, the rows store.c's.
 *
 * Invariants:
 *  1. Nothing changes before the remote answered: an unreachable remote
 *     leaves database and refs as they were.
 *  2. The database takes a merge in one transaction, which also records
 *     the remote commit merged as the new base: the base is always a
 *     commit whose every memory the database holds or has decided
 *     against, so a crash or a lost push race merges again correctly.
 *  3. The sync state (bases, private slugs) is sync_state.c's; the
 *     original's tables get no column.
 *  4. The documents sent are rendered without recall_count,
 *     last_recalled_at, model and embedding: telemetry and vectors stay
 *     local, and the same memory renders to the same blob everywhere.
 *  5. A memory's anchors travel in its document (anchor_doc.c: paths and
 *     git's fingerprints as recorded, so they mean the same on every
 *     clone) and are replaced with what is taken; a conflict's archived
 *     copy carries none.
 *  6. Held memories (private, secret-looking, a slug that is no file
 *     name; arriving: refused by the gate, held for review or rejected in
 *     it) are neither sent nor replaced; the remote's copy of the slug,
 *     if any, is carried over untouched, as are files of the tree that
 *     are not ours: a new commit changes only what the merge changed.
 *  7. What is taken records its provenance (the git author and commit
 *     that last changed its file) in the merge's transaction.
 */
#include "core/sync/sync.h"

#include <stdlib.h>
#include <string.h>

#include "core/anchor/anchor.h"
#include "core/gate.h"
#include "core/sync/memdoc.h"
#include "core/slug.h"
#include "core/store/store.h"
#include "core/sync/sync_git.h"
#include "core/sync/sync_held.h"
#include "core/sync/sync_review.h"
#include "core/sync/sync_secret.h"
#include "core/sync/sync_state.h"
#include "util/err.h"
#include "util/gitoid.h"
#include "util/sbuf.h"
#include "util/xmalloc.h"

#define SYNC_ATTEMPTS	5	/* pushes before a race is reported */
#define EMBED_BATCH	64	/* texts per embedding batch and write */

/* One slug through the merge. */
struct item {
	char			*slug;		/* owned */
	struct sync_item	 s;		/* times borrowed from below */
	struct store_entry	 local;		/* owned; slug NULL: none */
	struct store_entry	 remote;	/* owned; parsed when read */
	char			*rtime;		/* owned: remote tombstone's */
	const char		*held;		/* why, static; NULL: not */
	bool			 secret;	/* held as secret-looking */
	enum sync_held_state	 review;	/* PENDING: held for review
						   now; REJECTED: before */
	char			*author, *commit; /* owned: who last
						   changed the remote's */
	enum sync_action	 act;
};

/* Which sides tree_add fills: the base and the remote are often one. */
enum reading { READ_BASE, READ_REMOTE, READ_BOTH };

struct merge {
	struct store		*st;
	const struct sync_opts	*o;
	struct sync_git		 git;
	struct item		*v;		/* owned */
	size_t			 n, cap;
	char			**priv;		/* owned, sorted slugs */
	size_t			 npriv;
	struct sync_secrets	*secrets;	/* owned */
	struct sync_review	*review;	/* owned */
	char			 base[SYNC_OID_LEN + 1]; /* "": none */
	struct sync_report	*rep;
	enum reading		 reading;	/* tree_add's sides */
	bool			 ready;		/* tables set up, privates read */
};

/* ---- Items ------------------------------------------------------------- */

static struct item *
item_new(struct merge *m, const char *slug, size_t len)
{
	struct item	*it;

	if (m->n == m->cap)
		m->v = xreallocarray(m->v, m->cap = m->cap * 2 + 64,
		    sizeof(*m->v));
	it = &m->v[m->n++];
	memset(it, 0, sizeof(*it));
	it->slug = xstrndup(slug, len);
	return it;
}

static void
items_release(struct merge *m)
{
	size_t	i;

	for (i = 0; i < m->n; i++) {
		free(m->v[i].slug);
		store_entry_release(&m->v[i].local);
		store_entry_release(&m->v[i].remote);
		free(m->v[i].rtime);
		free(m->v[i].author);
		free(m->v[i].commit);
	}
	free(m->v);
	m->v = NULL;
	m->n = m->cap = 0;
}

/*
 * The document a memory travels as (invariant 4): e without telemetry,
 * model and vector, under the store's own name.
 */
static void
render_doc(const struct store_entry *e, const char *store, struct sbuf *out)
{
	struct store_entry	d = *e;

	d.store = (char *)store;
	d.model = NULL;
	d.last_recalled_at = NULL;
	d.recall_count = 0;
	d.vec = NULL;
	d.dim = 0;
	memdoc_render(&d, out);
}

static void
entry_copy(struct store_entry *dst, const struct store_entry *e)
{
	memset(dst, 0, sizeof(*dst));
	dst->slug = xstrdup(e->slug);
	dst->store = xstrdup(e->store);
	dst->label = xstrdup(e->label);
	dst->content = xstrdup(e->content);
	dst->branch = e->branch != NULL ? xstrdup(e->branch) : NULL;
	dst->created_at = xstrdup(e->created_at);
	dst->updated_at = xstrdup(e->updated_at);
	dst->confidence = e->confidence;
	dst->archived = e->archived;
}

static int
cmp_slug(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static const char *
held_reason(struct merge *m, const struct store_entry *e, bool *is_secret)
{
	const char	*secret;
	char		*key = e->slug;

	if (!sync_slug_ok(e->slug))
		return "its slug cannot be a file name";
	if (m->npriv > 0 &&	/* a NULL base is undefined even for 0 */
	    bsearch(&key, m->priv, m->npriv, sizeof(*m->priv), cmp_slug))
		return "it is marked private";
	/* issue 31: the label and branch travel too */
	if (!m->o->force &&
	    ((secret = sync_secrets_find(m->secrets, e->content)) != NULL ||
	    (secret = sync_secrets_find(m->secrets, e->label)) != NULL ||
	    (e->branch != NULL &&
	    (secret = sync_secrets_find(m->secrets, e->branch)) != NULL))) {
		*is_secret = true;
		return secret;
	}
	return NULL;
}

static int
add_local(const struct store_entry *e, void *arg)
{
	struct merge	*m = arg;
	struct item	*it = item_new(m, e->slug, strlen(e->slug));
	struct sbuf	 doc = SBUF_INIT;

	entry_copy(&it->local, e);
	it->local.anchors = anchor_doc_get(m->st, e->store, e->slug);
	it->held = held_reason(m, e, &it->secret);
	render_doc(&it->local, m->o->store, &doc);
	it->s.local.kind = SYNC_LIVE;
	gitoid_blob(doc.buf, doc.len, it->s.local.oid);
	it->s.local.time = it->local.updated_at;
	sbuf_release(&doc);
	return 0;
}

/* A tree's file: ours goes to an item's base or remote side. */
static int
tree_add(const char *path, const char *oid, void *arg)
{
	struct merge	*m = arg;
	struct item	*it;
	struct sync_side side;
	const char	*slug;
	size_t		 len;
	enum sync_kind	 kind = sync_path_parse(path, &slug, &len);

	if (kind == SYNC_NONE)
		return 0;	/* not ours: the new commit keeps it */
	it = item_new(m, slug, len);
	side.kind = kind;
	memcpy(side.oid, oid, SYNC_OID_LEN + 1);
	side.time = NULL;
	if (m->reading != READ_REMOTE)
		it->s.base = side;
	if (m->reading != READ_BASE)
		it->s.remote = side;
	return 0;
}

static int
cmp_item(const void *a, const void *b)
{
	return strcmp(((const struct item *)a)->slug,
	    ((const struct item *)b)->slug);
}

/* A tree side joins the item of its slug; a document beats a tombstone
 * of the same slug in a malformed tree. */
static void
join_side(struct sync_side *dst, const struct sync_side *src)
{
	if (src->kind == SYNC_NONE ||
	    (dst->kind == SYNC_LIVE && src->kind == SYNC_TOMB))
		return;
	*dst = *src;
}

/* Sort and fold the per-side items into one per slug. */
static void
items_fold(struct merge *m)
{
	struct item	*it, *into;
	size_t		 i, j = 0;

	qsort(m->v, m->n, sizeof(*m->v), cmp_item);
	for (i = 0; i < m->n; i++) {
		it = &m->v[i];
		if (j == 0 || strcmp(it->slug, m->v[j - 1].slug) != 0) {
			if (j != i)
				m->v[j] = *it;
			j++;
			continue;
		}
		into = &m->v[j - 1];
		join_side(&into->s.base, &it->s.base);
		join_side(&into->s.remote, &it->s.remote);
		if (it->local.slug != NULL) {	/* ownership moves */
			into->local = it->local;
			into->s.local = it->s.local;
			into->held = it->held;
			into->secret = it->secret;
		}
		free(it->slug);
	}
	m->n = j;
	/* local times point into the entries, which moved */
	for (i = 0; i < m->n; i++)
		m->v[i].s.local.time = m->v[i].local.updated_at;
}

/* ---- Reading the remote's changed blobs --------------------------------- */

struct wanted {
	struct merge	*m;
	size_t		*idx;		/* owned: items whose blob is read */
};

/* Why e reads as an order to the agent or holds a secret, or NULL. */
static const char *
review_reason(const struct merge *m, const struct store_entry *e)
{
	const char *const	 fields[] = { e->content, e->label, e->branch };
	const char		*why = NULL;
	size_t			 i;

	for (i = 0; why == NULL && i < 3; i++)
		if (fields[i] != NULL &&
		    (why = sync_review_find(m->review, fields[i])) == NULL &&
		    sync_secrets_find(m->secrets, fields[i]) != NULL)
			why = "it holds what looks like a secret";
	return why;
}

/*
 * Issue 31: a remote document that reads as an order to the agent waits
 * for the user's review (sync_held.c), and one the user rejected stays
 * out; both are held, so the merge keeps the remote's file and our side.
 */
static void
review_item(struct merge *m, struct item *it)
{
	struct err	 err;
	const char	*why;

	if (sync_held_state(m->st, m->o->store, it->slug, it->s.remote.oid,
	    &it->review, &err) != 0)
		it->review = SYNC_HELD_NONE;	/* reviewed afresh */
	switch (it->review) {
	case SYNC_HELD_ACCEPTED:
		break;
	case SYNC_HELD_REJECTED:
		it->held = "rejected in review";
		break;
	default:
		if ((why = review_reason(m, &it->remote)) != NULL) {
			it->held = why;
			it->review = SYNC_HELD_PENDING;
		} else
			it->review = SYNC_HELD_NONE;
		break;
	}
}

static int
got_blob(size_t i, const char *buf, size_t n, void *arg)
{
	struct wanted	*w = arg;
	struct item	*it = &w->m->v[w->idx[i]];
	struct err	 perr;
	const char	*why;

	if (it->s.remote.kind == SYNC_TOMB) {
		if ((it->rtime = sync_tomb_parse(buf, n)) == NULL)
			it->rtime = xstrdup("");	/* oldest possible */
		it->s.remote.time = it->rtime;
		return 0;
	}
	if (memdoc_parse(buf, n, &it->remote, &perr) != 0 ||
	    it->remote.created_at == NULL || it->remote.updated_at == NULL) {
		it->held = "the remote's copy does not parse";
		return 0;
	}
	/* issue 31: what a teammate sends meets a local write's checks */
	if ((why = gate_entry(&it->remote, w->m->o->now)) != NULL) {
		it->held = why;
		return 0;
	}
	free(it->remote.slug);
	free(it->remote.store);
	it->remote.slug = xstrdup(it->slug);
	it->remote.store = xstrdup(w->m->o->store);
	it->s.remote.time = it->remote.updated_at;
	review_item(w->m, it);
	return 0;
}

/* Read the remote sides the merge may need: those that differ from ours. */
static int
read_remote(struct merge *m, struct err *err)
{
	struct wanted	  w = { m, xcalloc(m->n + 1, sizeof(size_t)) };
	const char	**oids = xcalloc(m->n + 1, sizeof(*oids));
	size_t		  i, k = 0;
	int		  rc;

	for (i = 0; i < m->n; i++) {
		struct item	*it = &m->v[i];

		if (it->held || it->s.remote.kind == SYNC_NONE ||
		    sync_side_same(&it->s.local, &it->s.remote))
			continue;
		w.idx[k] = i;
		oids[k++] = it->s.remote.oid;
	}
	rc = sync_git_blobs(&m->git, oids, k, got_blob, &w, err);
	free(w.idx);
	free(oids);
	return rc;
}

/* ---- Applying the merge ------------------------------------------------- */

/* The loser of an edit on both sides, kept as an archived memory. */
static void
conflict_copy(const struct store_entry *e, struct store_entry *out)
{
	char	*label = xasprintf("%s (conflict %s)", e->label,
		    e->updated_at);

	entry_copy(out, e);
	free(out->label);
	free(out->slug);
	out->label = label;
	out->slug = slug_make(label, strlen(label));
	out->archived = true;
}

static void
plan_line(struct merge *m, const char *verb, const struct item *it)
{
	const char	*label = it->local.label != NULL ? it->local.label :
			    it->remote.label != NULL ? it->remote.label :
			    it->slug;

	sbuf_addf(&m->rep->plan, "%s %s\n", verb, label);
}

static void
decide(struct merge *m)
{
	static const char *const verbs[] = {
		[SYNC_SEND] = "send", [SYNC_SEND_TOMB] = "send-forget",
		[SYNC_TAKE] = "take", [SYNC_DROP] = "take-forget",
		[SYNC_WIN_LOCAL] = "send-over", [SYNC_WIN_REMOTE] = "take-over",
	};
	size_t	i;

	for (i = 0; i < m->n; i++) {
		struct item	*it = &m->v[i];

		it->s.held = it->held != NULL;
		it->act = sync_merge_one(&it->s);
		if (it->review == SYNC_HELD_PENDING) {
			m->rep->held++;
			sbuf_addf(&m->rep->notes, "held for review %s%s%s: "
			    "%s (thatch sync --review)\n", SYNC_MEM_DIR,
			    it->slug, SYNC_MEM_EXT, it->held);
		} else if (it->review == SYNC_HELD_REJECTED)
			;	/* the user decided: nothing to say */
		else if (it->held != NULL && it->local.slug != NULL &&
		    !sync_side_same(&it->s.local, &it->s.remote)) {
			m->rep->held++;
			sbuf_addf(it->secret ? &m->rep->secrets :
			    &m->rep->notes, "held back \"%s\": %s\n",
			    it->local.label, it->held);
		} else if (it->held != NULL && it->local.slug == NULL) {
			m->rep->held++;	/* issue 31: refused at the gate */
			sbuf_addf(&m->rep->notes, "not taken %s%s%s: %s\n",
			    SYNC_MEM_DIR, it->slug, SYNC_MEM_EXT, it->held);
		}
		if (it->act == SYNC_KEEP)
			continue;
		m->rep->sent += sync_action_sends(it->act);
		m->rep->received += sync_action_takes(it->act);
		m->rep->archived += it->act == SYNC_WIN_LOCAL ||
		    it->act == SYNC_WIN_REMOTE;
		plan_line(m, verbs[it->act], it);
	}
}

/* The remote's copy in entries, named as its author's (issue 31). */
static int
take(struct store *st, const struct item *it, const struct store_entry *e,
    struct err *err)
{
	if (store_put_exact(st, e, err) != 0)
		return -1;
	return store_origin_set(st, e->store, e->slug, STORE_ORIGIN_SYNC,
	    it->author, it->commit, err);
}

/* it: the item whose remote copy e is; NULL for our own copy. */
static int
put_copy(struct store *st, const struct item *it, const struct store_entry *e,
    struct err *err)
{
	struct store_entry	c;
	int			rc;

	conflict_copy(e, &c);
	rc = it != NULL ? take(st, it, &c, err) : store_put_exact(st, &c, err);
	store_entry_release(&c);
	return rc;
}

/* The remote's memory, named as its author's, anchors included (none:
 * the local ones go). */
static int
put_remote(struct store *st, const struct item *it, struct err *err)
{
	const struct store_entry	*e = &it->remote;

	if (take(st, it, e, err) != 0)
		return -1;
	return anchor_doc_put(st, e->store, e->slug, e->anchors, err);
}

static int
apply_item(struct store *st, const struct item *it, struct err *err)
{
	if (it->review == SYNC_HELD_PENDING)
		return sync_held_put(st, &it->remote, it->s.remote.oid,
		    it->held, it->author, it->commit, err);
	switch (it->act) {
	case SYNC_TAKE:
		return put_remote(st, it, err);
	case SYNC_DROP:
		return it->local.slug == NULL ? 0 :
		    store_drop(st, it->local.store, it->slug, err);
	case SYNC_WIN_LOCAL:
		return put_copy(st, it, &it->remote, err);
	case SYNC_WIN_REMOTE:
		if (put_copy(st, NULL, &it->local, err) != 0)
			return -1;
		return put_remote(st, it, err);
	default:
		return 0;
	}
}

/* attribute's git log walk: the first commit naming a path is its last. */
static int
attr_path(const char *path, const char *commit, const char *mail, void *arg)
{
	struct merge	*m = arg;
	struct item	 key, *it;
	const char	*slug;
	size_t		 len;

	if (sync_path_parse(path, &slug, &len) != SYNC_LIVE)
		return 0;
	key.slug = xstrndup(slug, len);
	it = bsearch(&key, m->v, m->n, sizeof(*m->v), cmp_item);
	free(key.slug);
	if (it != NULL && it->author == NULL) {
		it->author = xstrdup(mail);
		it->commit = xstrdup(commit);
	}
	return 0;
}

/*
 * Issue 31: who last changed each document taken or held, from the
 * commits since the base (or the whole history without one), in one git
 * log. Items are sorted by slug (items_fold).
 */
static int
attribute(struct merge *m, const char *head, struct err *err)
{
	char	*range;
	size_t	 i;
	int	 rc;

	for (i = 0; i < m->n; i++)
		if (m->v[i].review == SYNC_HELD_PENDING ||
		    sync_action_takes(m->v[i].act))
			break;
	if (i == m->n || *head == '\0')
		return 0;
	range = *m->base != '\0' ? xasprintf("%s..%s", m->base, head) :
	    xstrdup(head);
	rc = sync_git_authors(&m->git, range, SYNC_MEM_DIR, attr_path, m,
	    err);
	free(range);
	return rc;
}

/* Invariant 2: the merge and its base in one transaction. */
static int
apply(struct store *st, struct merge *m, const char *remote_head,
    struct err *err)
{
	size_t	i;

	if (store_exec(st, "BEGIN IMMEDIATE", err) != 0)
		return -1;
	for (i = 0; i < m->n; i++)
		if (apply_item(st, &m->v[i], err) != 0)
			goto fail;
	if (*remote_head != '\0' && sync_state_set_base(st, m->o->store,
	    m->o->remote, remote_head, err) != 0)
		goto fail;
	if (store_exec(st, "COMMIT", err) == 0)
		return 0;
fail:
	store_exec(st, "ROLLBACK", NULL);
	return -1;
}

/* ---- The commit --------------------------------------------------------- */

static void
stream_inline(struct sbuf *s, const char *path, const struct sbuf *data)
{
	sbuf_addf(s, "M 100644 inline %s\ndata %zu\n", path, data->len);
	sbuf_add(s, data->buf, data->len);
	sbuf_addc(s, '\n');
}

static void
stream_doc(struct merge *m, struct sbuf *s, const struct store_entry *e)
{
	struct sbuf	doc = SBUF_INIT;
	char		*path = xasprintf(SYNC_MEM_DIR "%s" SYNC_MEM_EXT, e->slug);

	render_doc(e, m->o->store, &doc);
	stream_inline(s, path, &doc);
	sbuf_release(&doc);
	free(path);
}

static void
stream_copy(struct merge *m, struct sbuf *s, const struct store_entry *e)
{
	struct store_entry	c;

	conflict_copy(e, &c);
	stream_doc(m, s, &c);
	store_entry_release(&c);
}

static void
stream_delete(struct sbuf *s, enum sync_kind kind, const char *slug)
{
	if (kind == SYNC_LIVE)
		sbuf_addf(s, "D " SYNC_MEM_DIR "%s" SYNC_MEM_EXT "\n", slug);
	else
		sbuf_addf(s, "D " SYNC_TOMB_DIR "%s\n", slug);
}

/*
 * The new commit is the remote's tree (`from`) with only what the merge
 * changes in it: fast-import looks a path up linearly in its directory,
 * so a whole tree of 10,000 files would cost seconds, a change does not.
 */
static void
stream_item(struct merge *m, struct sbuf *s, const struct item *it)
{
	struct sbuf	tomb = SBUF_INIT;
	char		*path;

	switch (it->act) {
	case SYNC_SEND:
	case SYNC_WIN_LOCAL:
		stream_doc(m, s, &it->local);
		if (it->s.remote.kind == SYNC_TOMB)
			stream_delete(s, SYNC_TOMB, it->slug);
		if (it->act == SYNC_WIN_LOCAL)
			stream_copy(m, s, &it->remote);
		break;
	case SYNC_SEND_TOMB:
		sync_tomb_render(m->o->now, &tomb);
		path = xasprintf(SYNC_TOMB_DIR "%s", it->slug);
		stream_inline(s, path, &tomb);
		free(path);
		if (it->s.remote.kind == SYNC_LIVE)
			stream_delete(s, SYNC_LIVE, it->slug);
		break;
	case SYNC_WIN_REMOTE:
		stream_copy(m, s, &it->local);
		break;
	default:
		break;		/* the remote's file stays */
	}
	sbuf_release(&tomb);
}

static int
commit(struct merge *m, const char *parent, char oid[SYNC_OID_LEN + 1],
    struct err *err)
{
	struct sbuf	 s = SBUF_INIT, msg = SBUF_INIT;
	char		*ident = sync_git_ident(&m->git);
	size_t		 i;
	int		 rc;

	sbuf_addf(&msg, "thatch sync: %zu sent, %zu received\n",
	    m->rep->sent, m->rep->received);
	sbuf_addf(&s, "commit refs/thatch-local/%s\nmark :1\n"
	    "committer %s now\ndata %zu\n%s", m->o->store,
	    ident != NULL ? ident : "thatch <thatch@localhost>",
	    msg.len, msg.buf);
	if (*parent != '\0')
		sbuf_addf(&s, "from %s\n", parent);
	for (i = 0; i < m->n; i++)
		stream_item(m, &s, &m->v[i]);
	sbuf_adds(&s, "\nget-mark :1\ndone\n");
	rc = sync_git_import(&m->git, &s, oid, err);
	free(ident);
	sbuf_release(&s);
	sbuf_release(&msg);
	return rc;
}

/* ---- One round ---------------------------------------------------------- */

static int
load(struct store *st, struct merge *m, const char *remote_head,
    struct err *err)
{
	char	base[SYNC_OID_LEN + 1];

	m->base[0] = '\0';
	if (store_walk(st, m->o->store, add_local, m, err) != 0 ||
	    sync_state_base(st, m->o->store, m->o->remote, base, err) != 0)
		return -1;
	/* a base this clone lacks (another checkout, gc) is no base; a
	 * base that is the remote's head (nobody pushed since) is read once;
	 * issue 31: a deleted ref, or a remote whose history does not hold
	 * the base (a new remote, a rewritten ref), has no base either, so
	 * its missing memories delete nothing here */
	if (*base != '\0' && strcmp(base, remote_head) == 0)
		m->reading = READ_BOTH;
	else if (*base != '\0' && *remote_head != '\0' &&
	    sync_git_is_ancestor(&m->git, base, remote_head)) {
		memcpy(m->base, base, sizeof(base));
		m->reading = READ_BASE;
		if (sync_git_tree(&m->git, base, tree_add, m, err) != 0)
			return -1;
		m->reading = READ_REMOTE;
	} else
		m->reading = READ_REMOTE;
	if (*remote_head != '\0' &&
	    sync_git_tree(&m->git, remote_head, tree_add, m, err) != 0)
		return -1;
	items_fold(m);
	return read_remote(m, err);
}

/* Whether the remote's ref is no longer at head (someone pushed). */
static bool
moved(struct merge *m, const char *ref, const char *head)
{
	char	now[SYNC_OID_LEN + 1];
	bool	exists;

	if (sync_git_remote_head(&m->git, ref, now, &exists, NULL) != 0)
		return false;
	return strcmp(now, head) != 0;
}

/* Fetch, merge, apply, push: 0 done, 1 lost a race, -1 failed. */
static int
sync_round(struct store *st, struct merge *m, struct err *err)
{
	char	*ref = xasprintf("refs/thatch/%s", m->o->store);
	char	*mirror = xasprintf("refs/thatch-remote/%s", m->o->store);
	char	 head[SYNC_OID_LEN + 1], made[SYNC_OID_LEN + 1];
	bool	 exists, rejected = false;
	int	 rc = -1;

	items_release(m);
	sbuf_reset(&m->rep->plan);
	sbuf_reset(&m->rep->notes);
	sbuf_reset(&m->rep->secrets);
	m->rep->sent = m->rep->received = m->rep->archived = 0;
	m->rep->held = 0;
	if (sync_git_remote_head(&m->git, ref, head, &exists, err) != 0)
		goto out;
	if (exists && !sync_git_has_commit(&m->git, head) &&
	    sync_git_fetch(&m->git, ref, mirror, err) != 0)
		goto out;
	if (exists && sync_git_set_ref(&m->git, mirror, head, err) != 0)
		goto out;
	/* invariant 1: the database is written once the remote answered */
	if (!m->ready && (sync_state_setup(st, err) != 0 ||
	    sync_held_setup(st, err) != 0 ||
	    sync_state_privates(st, m->o->store, &m->priv, &m->npriv,
	    err) != 0))
		goto out;
	m->ready = true;
	if (load(st, m, head, err) != 0)
		goto out;
	decide(m);
	memcpy(m->rep->commit, head, sizeof(head));
	if (m->o->status) {
		rc = 0;
		goto out;
	}
	if (attribute(m, head, err) != 0 || apply(st, m, head, err) != 0)
		goto out;
	if (m->rep->sent == 0) {
		rc = 0;
		goto out;
	}
	if (commit(m, head, made, err) != 0)
		goto out;
	m->rep->attempts++;
	if (sync_git_push(&m->git, made, ref, head, &rejected, err) != 0) {
		/* two pushes at once: the remote's own ref lock refused
		 * ours, which is a lost race like a stale lease */
		if (!moved(m, ref, head))
			goto out;
		rejected = true;
	}
	if (rejected) {
		rc = 1;
		goto out;
	}
	m->rep->pushed = true;
	memcpy(m->rep->commit, made, sizeof(made));
	if (sync_git_set_ref(&m->git, mirror, made, err) != 0 ||
	    sync_state_set_base(st, m->o->store, m->o->remote, made,
	    err) != 0)
		goto out;
	rc = 0;
out:
	free(ref);
	free(mirror);
	return rc;
}

/* ---- Embedding what came in -------------------------------------------- */

/*
 * Vectors do not travel: what came in without one gets this machine's,
 * through store_reembed: EMBED_BATCH texts at a time, embedded with no
 * transaction open (several per forward pass), each batch written in one
 * short transaction that skips a memory rewritten meanwhile. The model
 * opens only when something needs it.
 */
void
sync_embed_missing(struct store *st, const struct sync_opts *o,
    struct sync_report *rep)
{
	const struct sync_embedder	*em = &o->embedder;
	struct store_reembed		 r = {
		.store = o->store, .rows = STORE_ROWS_MISSING,
		.batch = EMBED_BATCH, .embed = em->embed, .arg = em->arg,
		.now = o->now,
	};
	struct err			 err = { "" };
	long long			 missing = 0, done = 0;

	if (store_count_missing(st, o->store, &missing, &err) != 0) {
		sbuf_adds(&rep->embed_err, err.msg);
		return;
	}
	if (missing == 0)
		return;
	if (em->open == NULL)
		err_set(&err, "no model");
	else if (em->open(em->arg, &r.space, &err) == 0)
		(void)store_reembed(st, &r, &done, &err);
	rep->unembedded = (size_t)(missing > done ? missing - done : 0);
	if (rep->unembedded > 0)
		sbuf_adds(&rep->embed_err, err.msg);
}

void
sync_report_init(struct sync_report *rep)
{
	memset(rep, 0, sizeof(*rep));
	sbuf_init(&rep->notes);
	sbuf_init(&rep->secrets);
	sbuf_init(&rep->plan);
	sbuf_init(&rep->embed_err);
}

void
sync_report_release(struct sync_report *rep)
{
	sbuf_release(&rep->notes);
	sbuf_release(&rep->secrets);
	sbuf_release(&rep->plan);
	sbuf_release(&rep->embed_err);
}

int
sync_run(struct store *st, const struct sync_opts *o,
    struct sync_report *rep, struct err *err)
{
	struct merge	 m;
	char		*ref = xasprintf("refs/thatch/%s", o->store);
	int		 rc = -1, r = 1, i;

	memset(&m, 0, sizeof(m));
	m.st = st;
	m.o = o;
	m.rep = rep;
	m.git.dir = o->dir;
	m.git.remote = o->remote;
	if (strcmp(o->store, "global") == 0) {
		err_set(err, "the global store never syncs");
		goto out;
	}
	if (!sync_git_ref_ok(&m.git, ref)) {
		err_set(err, "store name '%s' cannot be a git ref", o->store);
		goto out;
	}
	m.secrets = sync_secrets_new();
	m.review = sync_review_new();
	m.st = st;
	for (i = 0; i < SYNC_ATTEMPTS && r == 1; i++)
		if ((r = sync_round(st, &m, err)) < 0)
			goto out;
	if (r == 1) {
		err_set(err, "the remote kept changing: %d pushes lost a race",
		    SYNC_ATTEMPTS);
		goto out;
	}
	if (!o->status)
		sync_embed_missing(st, o, rep);
	rc = 0;
out:
	items_release(&m);
	sync_state_free_list(m.priv, m.npriv);
	sync_secrets_free(m.secrets);
	sync_review_free(m.review);
	free(ref);
	return rc;
}
