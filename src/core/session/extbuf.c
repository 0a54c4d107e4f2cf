/*
 * extbuf.c — opencode's extraction buffer on disk: pending -> accepted ->
 * completed, with requeue, the child's claim, the snapshot-aware drain and
 * the stale reaper (hosts-hooks-cli §9.3, seed 000 "Buffer lifecycle",
 * "Parent-child session drain").
 *
 * One JSON file per session, DIR/<safe id>.json:
 *   {"seq":N, "entries":[{"n":k,"st":"p"|"a","at":ms,"rec":{...}}],
 *    "child":"ses_…", "since":ms, "claim":[k…], "snapshot":[k…],
 *    "metrics":[new,updated,deleted]}
 * and, while a child extracts, DIR/<safe child>.parent ("child\nparent").
 *
 * Invariants:
 *  1. Every operation holds an exclusive flock on DIR from read to
 *     replace (the queue's rule, queue.c invariant 1: the file is replaced
 *     by rename, so a lock on it would let a waiter write an unlinked
 *     inode).
 *  2. Entries are named by their number n, never reused within a file:
 *     the claim and the snapshot name exactly what they covered, so
 *     entries buffered later survive their completion (the original's
 *     "by reference identity").
 *  3. A file that says nothing (no entries, no child, no mark) is
 *     removed rather than written.
 *  4. A file that does not parse is started afresh, with a warning: a
 *     damaged cache must not stop buffering.
 */
#include "core/session/extbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "core/session/queue.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/jsonx.h"
#include "util/log.h"
#include "util/path.h"
#include "util/sbuf.h"
#include "util/xmalloc.h"

struct txn {
	int	 lock;
	char	*path;
	json_t	*doc;		/* owned */
	json_t	*entries;	/* borrowed from doc */
};

void
extbuf_state_release(struct extbuf_state *s)
{
	free(s->child);
	memset(s, 0, sizeof(*s));
}

static char *
file_of(const char *dir, const char *sid, const char *ext)
{
	char	*safe = queue_safe_id(sid), *name, *path;

	name = xasprintf("%s%s", safe, ext);
	path = path_join(dir, name);
	free(name);
	free(safe);
	return path;
}

static int
txn_open(struct txn *t, const char *dir, const char *sid, struct err *err)
{
	struct sbuf	sb = SBUF_INIT;
	int		rc;

	memset(t, 0, sizeof(*t));
	if ((t->lock = fileio_lock_dir(dir, err)) < 0)
		return -1;
	t->path = file_of(dir, sid, ".json");
	sbuf_init(&sb);
	if ((rc = fileio_read(t->path, &sb, err)) < 0) {
		sbuf_release(&sb);
		close(t->lock);
		free(t->path);
		return -1;
	}
	if (rc == 0 && ((t->doc = jsonx_parse(sb.buf, sb.len, t->path,
	    NULL)) == NULL || !json_is_object(t->doc) ||
	    !json_is_array(json_object_get(t->doc, "entries")))) {
		log_warn("%s is damaged; its buffer starts afresh", t->path);
		json_decref(t->doc);
		t->doc = NULL;
	}
	sbuf_release(&sb);
	if (t->doc == NULL)
		t->doc = json_pack("{s:i,s:[]}", "seq", 0, "entries");
	t->entries = json_object_get(t->doc, "entries");
	return 0;
}

/* Invariant 3: write the document back, or remove it when it is empty. */
static int
txn_close(struct txn *t, int write, struct err *err)
{
	char	*text;
	int	 rc = 0;

	if (write && json_array_size(t->entries) == 0 &&
	    json_object_get(t->doc, "child") == NULL &&
	    json_object_get(t->doc, "since") == NULL) {
		if (unlink(t->path) != 0 && errno != ENOENT)
			rc = err_errno(err, "cannot remove '%s'", t->path);
	} else if (write) {
		text = jsonx_dump(t->doc, 0);
		rc = fileio_replace(t->path, text, strlen(text), 0600, err);
		free(text);
	}
	json_decref(t->doc);
	free(t->path);
	close(t->lock);
	return rc;
}

static int
pending(const json_t *e)
{
	const char	*st = jsonx_str(e, "st");

	return st == NULL || strcmp(st, "a") != 0;
}

static int
listed(const json_t *list, const json_t *e)
{
	json_int_t	 n = json_integer_value(json_object_get(e, "n"));
	const json_t	*it;
	size_t		 i;

	json_array_foreach(list, i, it)
		if (json_integer_value(it) == n)
			return 1;
	return 0;
}

/* Remove the entries drop(entry, arg) picks; returns how many went. */
static int
filter(struct txn *t, int (*drop)(const json_t *, const json_t *),
    const json_t *arg)
{
	size_t	i = 0;
	int	n = 0;

	while (i < json_array_size(t->entries)) {
		if (drop(json_array_get(t->entries, i), arg)) {
			json_array_remove(t->entries, i);
			n++;
		} else
			i++;
	}
	return n;
}

static int
drop_pending(const json_t *e, const json_t *arg)
{
	(void)arg;
	return pending(e);
}

static int
drop_accepted(const json_t *e, const json_t *arg)
{
	(void)arg;
	return !pending(e);
}

/* Back to pending: entries accepted at or before *before (NULL: all). */
static int
requeue_entries(struct txn *t, const json_int_t *before)
{
	json_t	*e;
	size_t	 i;
	int	 n = 0;

	json_array_foreach(t->entries, i, e) {
		if (pending(e) || (before != NULL && json_integer_value(
		    json_object_get(e, "at")) > *before))
			continue;
		json_object_set_new(e, "st", json_string("p"));
		json_object_del(e, "at");
		n++;
	}
	return n;
}

static void
unlink_child(struct txn *t, const char *dir)
{
	const char	*child = jsonx_str(t->doc, "child");
	char		*link;

	if (child == NULL)
		return;
	link = file_of(dir, child, ".parent");
	unlink(link);
	free(link);
}

/* Forget the dispatch: child, link, claim, snapshot, mark. */
static void
clear_run(struct txn *t, const char *dir)
{
	unlink_child(t, dir);
	json_object_del(t->doc, "child");
	json_object_del(t->doc, "since");
	json_object_del(t->doc, "claim");
	json_object_del(t->doc, "snapshot");
	json_object_del(t->doc, "metrics");
}

int
extbuf_push(const char *dir, const char *sid, const json_t *rec,
    struct err *err)
{
	struct txn	 t;
	json_int_t	 seq;
	size_t		 i, n = 0;

	if (txn_open(&t, dir, sid, err) != 0)
		return -1;
	seq = json_integer_value(json_object_get(t.doc, "seq")) + 1;
	json_object_set_new(t.doc, "seq", json_integer(seq));
	json_array_append_new(t.entries, json_pack("{s:I,s:s,s:O}", "n", seq,
	    "st", "p", "rec", rec));
	for (i = 0; i < json_array_size(t.entries); i++)
		n += pending(json_array_get(t.entries, i));
	for (i = 0; n > EXTBUF_CAP && i < json_array_size(t.entries); )
		if (pending(json_array_get(t.entries, i))) {
			json_array_remove(t.entries, i);
			n--;
		} else
			i++;
	return txn_close(&t, 1, err);
}

int
extbuf_state(const char *dir, const char *sid, struct extbuf_state *s,
    struct err *err)
{
	struct txn	 t;
	const json_t	*e, *m;
	size_t		 i;

	memset(s, 0, sizeof(*s));
	if (txn_open(&t, dir, sid, err) != 0)
		return -1;
	json_array_foreach(t.entries, i, e) {
		if (pending(e))
			s->pending++;
		else
			s->accepted++;
	}
	s->extracting = json_object_get(t.doc, "since") != NULL;
	if (jsonx_str(t.doc, "child") != NULL)
		s->child = xstrdup(jsonx_str(t.doc, "child"));
	m = json_object_get(t.doc, "metrics");
	for (i = 0; i < 3; i++)
		s->metrics[i] = (int)json_integer_value(json_array_get(m, i));
	return txn_close(&t, 0, err);
}

int
extbuf_reap(const char *dir, const char *sid, int64_t now, struct err *err)
{
	struct txn	 t;
	json_int_t	 before = now - EXTBUF_STALE_MS;
	int		 n, stale;

	if (txn_open(&t, dir, sid, err) != 0)
		return -1;
	n = requeue_entries(&t, &before);
	stale = json_object_get(t.doc, "since") != NULL && json_integer_value(
	    json_object_get(t.doc, "since")) <= before;
	if (stale)
		clear_run(&t, dir);
	if (txn_close(&t, n > 0 || stale, err) != 0)
		return -1;
	return n;
}

int
extbuf_begin(const char *dir, const char *sid, int64_t now, struct err *err)
{
	struct txn	 t;
	const json_t	*e;
	size_t		 i;
	int		 any = 0;

	if (txn_open(&t, dir, sid, err) != 0)
		return -1;
	json_array_foreach(t.entries, i, e)
		any |= pending(e);
	if (json_object_get(t.doc, "since") != NULL)
		any = 0;
	if (any)
		json_object_set_new(t.doc, "since", json_integer(now));
	if (txn_close(&t, any, err) != 0)
		return -1;
	return any;
}

int
extbuf_accept(const char *dir, const char *sid, const char *child,
    int64_t now, struct err *err)
{
	struct txn	 t;
	json_t		*e, *snap = json_array();
	char		*link, *body;
	size_t		 i;
	int		 n = 0;

	if (txn_open(&t, dir, sid, err) != 0) {
		json_decref(snap);
		return -1;
	}
	json_array_foreach(t.entries, i, e) {
		if (!pending(e))
			continue;
		json_object_set_new(e, "st", json_string("a"));
		json_object_set_new(e, "at", json_integer(now));
		json_array_append(snap, json_object_get(e, "n"));
		n++;
	}
	unlink_child(&t, dir);
	json_object_set_new(t.doc, "child", json_string(child));
	json_object_set_new(t.doc, "since", json_integer(now));
	json_object_set_new(t.doc, "snapshot", snap);
	json_object_set_new(t.doc, "metrics", json_pack("[i,i,i]", 0, 0, 0));
	json_object_del(t.doc, "claim");
	link = file_of(dir, child, ".parent");
	body = xasprintf("%s\n%s", child, sid);
	if (fileio_replace(link, body, strlen(body), 0600, err) != 0)
		n = -1;
	free(body);
	free(link);
	if (n < 0) {
		txn_close(&t, 0, NULL);
		return -1;
	}
	return txn_close(&t, 1, err) != 0 ? -1 : n;
}

int
extbuf_claim(const char *dir, const char *sid, json_t **recs,
    struct err *err)
{
	struct txn	 t;
	json_t		*claim = json_array(), *e;
	size_t		 i;
	int		 pass;

	*recs = json_array();
	if (txn_open(&t, dir, sid, err) != 0) {
		json_decref(claim);
		return -1;
	}
	/* accepted first, then pending (seed 000: "accepted + pending") */
	for (pass = 0; pass < 2; pass++)
		json_array_foreach(t.entries, i, e) {
			if (pending(e) != pass)
				continue;
			json_array_append(*recs, json_object_get(e, "rec"));
			json_array_append(claim, json_object_get(e, "n"));
		}
	json_object_set_new(t.doc, "claim", claim);
	if (txn_close(&t, 1, err) != 0)
		return -1;
	return (int)json_array_size(*recs);
}

static int
drop_listed(const json_t *e, const json_t *list)
{
	return listed(list, e);
}

int
extbuf_complete(const char *dir, const char *sid, int metric,
    struct err *err)
{
	struct txn	 t;
	json_t		*m;
	int		 n = 0;

	if (txn_open(&t, dir, sid, err) != 0)
		return -1;
	if (json_object_get(t.doc, "claim") != NULL)
		n = filter(&t, drop_listed, json_object_get(t.doc, "claim"));
	json_object_del(t.doc, "claim");
	m = json_object_get(t.doc, "metrics");
	if (metric >= 0 && metric < 3 && json_is_array(m))
		json_array_set_new(m, (size_t)metric, json_integer(
		    json_integer_value(json_array_get(m, (size_t)metric)) + 1));
	if (txn_close(&t, 1, err) != 0)
		return -1;
	return n;
}

int
extbuf_finish(const char *dir, const char *sid, int metrics[3],
    struct err *err)
{
	struct txn	 t;
	const json_t	*m;
	size_t		 i;
	int		 n;

	if (txn_open(&t, dir, sid, err) != 0)
		return -1;
	m = json_object_get(t.doc, "metrics");
	for (i = 0; i < 3; i++)
		metrics[i] = (int)json_integer_value(json_array_get(m, i));
	n = filter(&t, drop_listed, json_object_get(t.doc, "snapshot"));
	n += filter(&t, drop_accepted, NULL);
	clear_run(&t, dir);
	if (txn_close(&t, 1, err) != 0)
		return -1;
	return n;
}

int
extbuf_requeue(const char *dir, const char *sid, struct err *err)
{
	struct txn	t;
	int		n;

	if (txn_open(&t, dir, sid, err) != 0)
		return -1;
	n = requeue_entries(&t, NULL);
	clear_run(&t, dir);
	if (txn_close(&t, 1, err) != 0)
		return -1;
	return n;
}

int
extbuf_consume(const char *dir, const char *sid, struct err *err)
{
	struct txn	t;
	int		n;

	if (txn_open(&t, dir, sid, err) != 0)
		return -1;
	n = filter(&t, drop_pending, NULL);
	if (txn_close(&t, n > 0, err) != 0)
		return -1;
	return n;
}

int
extbuf_drop(const char *dir, const char *sid, struct err *err)
{
	struct txn	t;

	if (txn_open(&t, dir, sid, err) != 0)
		return -1;
	clear_run(&t, dir);
	json_array_clear(t.entries);
	return txn_close(&t, 1, err);
}

char *
extbuf_parent(const char *dir, const char *child)
{
	struct sbuf	 sb = SBUF_INIT;
	char		*link = file_of(dir, child, ".parent"), *nl, *parent = NULL;
	size_t		 len = strlen(child);

	sbuf_init(&sb);
	/* line 1 is the child itself: safe names may collide */
	if (fileio_read(link, &sb, NULL) == 0 &&
	    (nl = strchr(sb.buf, '\n')) != NULL &&
	    (size_t)(nl - sb.buf) == len && strncmp(sb.buf, child, len) == 0 &&
	    nl[1] != '\0')
		parent = xstrdup(nl + 1);
	sbuf_release(&sb);
	free(link);
	return parent;
}
