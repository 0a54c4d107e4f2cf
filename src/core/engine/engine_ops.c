/*
 * engine_ops.c — what the prediction and behavior tools do with the
 * engine (engines-and-extras §A8): record a situation and statement,
 * grade an item, forget one, list a store's, and the replies they print.
 * Built from engine.c's rows and engine_match.c's nearest lookups.
 *
 * Invariants:
 *  1. Writes that span statements (engine_record, engine_grade) run in
 *     one BEGIN IMMEDIATE transaction, rolled back whole on error.
 *  2. A list shows each item's matchers by edge rowid and its provenance
 *     newest first, at most 10 (§A3).
 */
#include "core/engine/engine.h"

#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "core/engine/engine_int.h"
#include "util/err.h"
#include "util/num.h"
#include "util/sbuf.h"
#include "util/xmalloc.h"

static const char SQL_ITEM_PROVENANCE[] =
	"SELECT signal, detail, created_at FROM {P}"
	" WHERE {FK} = ?1 ORDER BY rowid DESC LIMIT 10";

/* ---- replies ------------------------------------------------------------- */

/* " confidence=<fmt2 raw> (<C>/<D>)": raw, not round3 (§A8.3, §A10.1). */
static void
render_counts(const struct engine_item *it, struct sbuf *out)
{
	char	conf[NUM_BUFSZ], c[NUM_BUFSZ], d[NUM_BUFSZ];

	sbuf_addf(out, " confidence=%s (%s/%s)",
	    num_fixed(it->confidence, 2, conf), num_js(it->confirms, c),
	    num_js(it->disconfirms, d));
}

void
engine_render_graded(enum engine_signal sig, const struct engine_item *it,
    struct sbuf *out)
{
	sbuf_addf(out, "[%s] \"%s\"", engine_signal_name(sig), it->statement);
	render_counts(it, out);
}

void
engine_render_record(const struct engine_write *w, enum engine_outcome oc,
    const struct engine_item *it, const char *created, struct sbuf *out)
{
	switch (oc) {
	case ENGINE_CREATED:
		if (w->signal == ENGINE_NEUTRAL) {
			sbuf_addf(out, "[%s] %s :: \"%s\" for \"%s\"", created,
			    w->store, w->statement, w->situation);
			return;
		}
		sbuf_addf(out, "[created + %s] \"%s\"",
		    engine_signal_name(w->signal), it->statement);
		break;
	case ENGINE_LINKED:
		sbuf_addf(out, "[linked] \"%s\" for \"%s\"", it->statement,
		    w->situation);
		break;
	default:
		engine_render_graded(w->signal, it, out);
		return;
	}
	render_counts(it, out);
}

/* ---- what the tools do -------------------------------------------------- */

struct record {
	struct store			*st;
	const struct engine		*eng;
	const struct engine_write	*w;
	enum engine_outcome		*outcome;
	struct engine_item		*it;
};

static int
record(void *arg, struct err *err)
{
	struct record			*r = arg;
	const struct engine_write	*w = r->w;
	char				*mid = NULL, *iid = NULL;
	bool				 found;
	int				 rc = -1;

	if (engine_nearest_matcher(r->st, r->eng, w->store, w->situation_vec,
	    w->dim, ENGINE_DEDUP, &mid, err) != 0)
		goto out;
	if (mid == NULL && engine_create_matcher(r->st, r->eng, w->store,
	    w->situation, w->situation_vec, w->dim, w->model, w->now, &mid,
	    err) != 0)
		goto out;
	if (engine_nearest_item(r->st, r->eng, w->store, w->statement_vec,
	    w->dim, ENGINE_DEDUP, r->it, &found, err) != 0)
		goto out;
	if (found) {
		iid = xstrdup(r->it->id);
		engine_item_release(r->it);
		*r->outcome = w->signal == ENGINE_NEUTRAL ? ENGINE_LINKED :
		    ENGINE_GRADED;
	} else {
		if (engine_create_item(r->st, r->eng, w->store, w->statement,
		    w->rationale, w->statement_vec, w->dim, w->model, w->now,
		    &iid, err) != 0)
			goto out;
		*r->outcome = ENGINE_CREATED;
	}
	if (engine_create_edge(r->st, r->eng, mid, iid, 1.0, w->now,
	    err) != 0 ||
	    engine_adjust(r->st, r->eng, iid, w->signal, w->now, err) != 0 ||
	    engine_add_provenance(r->st, r->eng, iid,
	    w->signal == ENGINE_NEUTRAL ? w->neutral :
	    engine_signal_name(w->signal), w->rationale, err) != 0 ||
	    engine_get_item(r->st, r->eng, iid, r->it, &found, err) != 0)
		goto out;
	rc = found ? 0 : err_set(err, "%s %s vanished", r->eng->noun, iid);
out:
	free(mid);
	free(iid);
	return rc;
}

int
engine_record(struct store *st, const struct engine *eng,
    const struct engine_write *w, enum engine_outcome *outcome,
    struct engine_item *it, struct err *err)
{
	struct record	r = { st, eng, w, outcome, it };

	memset(it, 0, sizeof(*it));
	if (engine_txn(st, record, &r, err) != 0) {
		engine_item_release(it);
		return -1;
	}
	return 0;
}

struct grade {
	struct store		*st;
	const struct engine	*eng;
	const char		*store, *detail, *now;
	const float		*vec;
	int			 dim;
	enum engine_signal	 sig;
	struct engine_item	*it;
	bool			*found;
};

static int
grade(void *arg, struct err *err)
{
	struct grade	*g = arg;
	char		*id;
	int		 rc;

	if (engine_nearest_item(g->st, g->eng, g->store, g->vec, g->dim,
	    ENGINE_DEDUP, g->it, g->found, err) != 0)
		return -1;
	if (!*g->found)
		return 0;
	id = xstrdup(g->it->id);
	engine_item_release(g->it);
	rc = engine_adjust(g->st, g->eng, id, g->sig, g->now, err) != 0 ||
	    engine_add_provenance(g->st, g->eng, id, engine_signal_name(g->sig),
	    g->detail, err) != 0 ||
	    engine_get_item(g->st, g->eng, id, g->it, g->found, err) != 0 ?
	    -1 : 0;
	free(id);
	return rc;
}

int
engine_grade(struct store *st, const struct engine *eng, const char *store,
    const float *vec, int dim, enum engine_signal sig, const char *detail,
    const char *now, struct engine_item *it, bool *found, struct err *err)
{
	struct grade	g = { st, eng, store, detail, now, vec, dim, sig, it,
			    found };

	memset(it, 0, sizeof(*it));
	*found = false;
	if (engine_txn(st, grade, &g, err) != 0) {
		engine_item_release(it);
		*found = false;
		return -1;
	}
	return 0;
}

int
engine_forget(struct store *st, const struct engine *eng, const char *store,
    const char *statement, const float *vec, int dim, struct sbuf *out,
    struct err *err)
{
	struct engine_item	it;
	bool			found, deleted;
	int			rc = -1;

	memset(&it, 0, sizeof(it));
	if (engine_nearest_item(st, eng, store, vec, dim, ENGINE_DEDUP, &it,
	    &found, err) != 0)
		return -1;
	if (!found) {
		sbuf_addf(out, "No %s matching \"%s\" found in \"%s\".",
		    eng->noun, statement, store);
		return 0;
	}
	if (engine_delete_item(st, eng, it.id, &deleted, err) != 0)
		goto out;
	if (deleted)
		sbuf_addf(out, "[deleted] \"%s\" from \"%s\"", it.statement,
		    store);
	else
		sbuf_addf(out, "Failed to delete %s \"%s\".", eng->noun,
		    it.statement);
	rc = 0;
out:
	engine_item_release(&it);
	return rc;
}

struct listing {
	struct store		*st;
	const struct engine	*eng;
	struct sbuf		*out;
	struct err		*err;
	int			 failed;
	int			 n;		/* lines of this section */
};

/* One "    - "<matcher>" (w:<weight>)" line, under its header. */
static int
matcher_line(sqlite3_stmt *stmt, void *arg)
{
	struct listing	*l = arg;
	char		 w[NUM_BUFSZ];

	sbuf_addf(l->out, "%s\n    - \"%s\" (w:%s)",
	    l->n++ ? "" : "\n  matchers:", sqlite3_column_text(stmt, 1),
	    num_js(sqlite3_column_double(stmt, 2), w));
	return 0;
}

/* One "    - [<day>] <signal>: <detail>" line, under its header. */
static int
provenance_line(sqlite3_stmt *stmt, void *arg)
{
	struct listing	*l = arg;
	const char	*detail = (const char *)sqlite3_column_text(stmt, 1);

	sbuf_addf(l->out, "%s\n    - [%.10s] %s: %s",
	    l->n++ ? "" : "\n  provenance:", sqlite3_column_text(stmt, 2),
	    sqlite3_column_text(stmt, 0), detail ? detail : "");
	return 0;
}

/* The "  matchers:" and "  provenance:" sections of one list block. */
static int
list_sections(struct listing *l, const char *item_id)
{
	l->n = 0;
	if (engine_each_row(l->st, l->eng, ENGINE_SQL_ITEM_MATCHERS, item_id,
	    matcher_line, l, l->err) != 0)
		return -1;
	l->n = 0;
	return engine_each_row(l->st, l->eng, SQL_ITEM_PROVENANCE, item_id,
	    provenance_line, l, l->err);
}

static int
list_visit(const struct engine_item *it, void *arg)
{
	struct listing	*l = arg;

	if (l->out->len > 0)
		sbuf_adds(l->out, "\n\n");
	engine_render_evidence(num_round3(it->confidence),
	    engine_evidence(it->confirms, it->disconfirms), l->out);
	sbuf_addf(l->out, " %s", it->statement);
	if (it->rationale != NULL && it->rationale[0] != '\0')
		sbuf_addf(l->out, "\n  rationale: %s", it->rationale);
	l->failed = list_sections(l, it->id);
	return l->failed;
}

int
engine_list(struct store *st, const struct engine *eng, const char *store,
    struct sbuf *out, struct err *err)
{
	struct sbuf	sb = SBUF_INIT;
	struct listing	l = { st, eng, &sb, err, 0, 0 };
	int		rc = -1;

	if (engine_each_item(st, eng, store, list_visit, &l, err) != 0 ||
	    l.failed)
		goto out;
	if (sb.len == 0)
		sbuf_addf(out, "No %s in \"%s\".", eng->plural, store);
	else
		sbuf_add(out, sb.buf, sb.len);
	rc = 0;
out:
	sbuf_release(&sb);
	return rc;
}
