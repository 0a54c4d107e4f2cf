/*
 * engine_match.c — the engine's ranking: its matchers ranked by cosine to
 * a query through a per-connection cache, their items scored (the
 * auto-fire block every host path asks for), and the nearest matcher or
 * item that write-time dedup and the delete/feedback lookups look for
 * (engines-and-extras §A3, §A6). The rows are engine.c's.
 *
 * Invariants:
 *  1. Cosine is accumulated in double, rows whose dimension differs from
 *     the query's are skipped, and a zero norm gives 0 (§0.3).
 *  2. Matcher scores are round3(cosine); thresholds compare the rounded
 *     score (§A7.1), the dedup lookups the raw cosine (§A3).
 *  3. Orders are the original's: matchers by score then rowid, items by
 *     score then statement (BINARY) (§A3).
 *  4. Matchers are read through a per-connection cache that is never
 *     older than the last commit seen (struct engine_cache); items are
 *     always read from SQL.
 */
#include "core/engine/engine.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "core/engine/engine_int.h"
#include "core/store/store.h"
#include "core/vector.h"
#include "util/err.h"
#include "util/num.h"
#include "util/sbuf.h"
#include "util/xmalloc.h"

static const char SQL_MATCHER_LOAD[] =
	"SELECT rowid, id, description, store, embedding FROM {M}"
	" WHERE rowid > ?1 AND embedding IS NOT NULL ORDER BY rowid";
/* the third column is the latest re-embedding (store_space.c) */
static const char SQL_MATCHER_LAST[] =
	"SELECT max(rowid), (SELECT id FROM {M} WHERE rowid = ?1),"
	" (SELECT max(updated_at) FROM {M} WHERE updated_at <> created_at)"
	" FROM {M}";
static const char SQL_ITEM_SCAN[] =
	"SELECT id, embedding FROM {I}"
	" WHERE store = ?1 AND embedding IS NOT NULL ORDER BY rowid";
static const char SQL_SCORE[] =
	"SELECT e.matcher_id, e.weight, i.id, i.statement, i.rationale,"
	" i.confidence, i.confirm_count, i.disconfirm_count"
	" FROM {E} e JOIN {I} i ON i.id = e.{FK}"
	" WHERE e.matcher_id IN ({IN}) ORDER BY i.statement";

/* ---- find_matchers, score_items, score_nudge ---------------------------- */

/*
 * The matchers of one engine, cached per connection (store_attach): a
 * warm process must not read every BLOB per prompt (bench/README.md).
 * Matchers are append-only (§A2: never updated, never deleted), so a
 * change of the database only loads the rows past the last one cached;
 * the last row's id is compared too, so a rolled-back insert whose rowid
 * was reused, or any shrinking of the table, reloads everything. The one
 * update is `thatch reembed`'s, which rewrites vectors in place and
 * stamps updated_at: a newer such stamp reloads everything too.
 */
struct cached {
	char	*id, *description, *store;	/* owned */
	float	*v;				/* owned, dim floats */
	int	 dim;
	double	 norm;				/* sqrt(sum v_i^2) */
};

struct engine_cache {
	struct cached	*rows;		/* owned, rowid order */
	size_t		 n, cap;
	sqlite3_int64	 last_rowid;	/* last row read, cached or not */
	char		*last_id;	/* owned: its id */
	char		*reembedded;	/* owned: latest re-embedding, or NULL */
	sqlite3_int64	 changes;
	int		 data_version;
	bool		 checked;
};

static void
cache_clear(struct engine_cache *c)
{
	size_t	i;

	for (i = 0; i < c->n; i++) {
		free(c->rows[i].id);
		free(c->rows[i].description);
		free(c->rows[i].store);
		free(c->rows[i].v);
	}
	c->n = 0;
	c->last_rowid = 0;
	free(c->last_id);
	c->last_id = NULL;
}

static void
cache_free(void *arg)
{
	struct engine_cache	*c = arg;

	if (c == NULL)
		return;
	cache_clear(c);
	free(c->rows);
	free(c->reembedded);
	free(c);
}

/* Whether the cached rows still are a prefix of the table. */
static int
cache_prefix(struct store *st, const struct engine *eng,
    struct engine_cache *c, bool *prefix, struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	const char	*id, *stamp;
	int		 rc = -1;

	if (engine_prep(st, eng, SQL_MATCHER_LAST, 0, &stmt, err) != 0)
		goto out;
	sqlite3_bind_int64(stmt, 1, c->last_rowid);
	if (sqlite3_step(stmt) != SQLITE_ROW) {
		engine_fail(st, err);
		goto out;
	}
	id = (const char *)sqlite3_column_text(stmt, 1);
	stamp = (const char *)sqlite3_column_text(stmt, 2);
	*prefix = c->last_id == NULL ? true :
	    sqlite3_column_int64(stmt, 0) >= c->last_rowid && id != NULL &&
	    strcmp(id, c->last_id) == 0 && (stamp == NULL) ==
	    (c->reembedded == NULL) && (stamp == NULL ||
	    strcmp(stamp, c->reembedded) == 0);
	free(c->reembedded);
	c->reembedded = engine_column_dup(stmt, 2);
	rc = 0;
out:
	sqlite3_finalize(stmt);
	return rc;
}

/* Append the rows past c->last_rowid. */
static int
cache_load(struct store *st, const struct engine *eng,
    struct engine_cache *c, struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	struct cached	*r;
	int		 bytes, step, rc = -1;

	if (engine_prep(st, eng, SQL_MATCHER_LOAD, 0, &stmt, err) != 0)
		goto out;
	sqlite3_bind_int64(stmt, 1, c->last_rowid);
	while ((step = sqlite3_step(stmt)) == SQLITE_ROW) {
		c->last_rowid = sqlite3_column_int64(stmt, 0);
		free(c->last_id);
		c->last_id = engine_column_dup(stmt, 1);
		bytes = sqlite3_column_bytes(stmt, 4);
		if (bytes % 4 != 0)
			continue;
		if (c->n == c->cap) {
			c->cap = c->cap ? c->cap * 2 : 64;
			c->rows = xreallocarray(c->rows, c->cap,
			    sizeof(*c->rows));
		}
		r = &c->rows[c->n++];
		r->id = engine_column_dup(stmt, 1);
		r->description = engine_column_dup(stmt, 2);
		r->store = engine_column_dup(stmt, 3);
		r->dim = bytes / 4;
		r->v = xcalloc(r->dim > 0 ? (size_t)r->dim : 1, sizeof(*r->v));
		vector_decode(sqlite3_column_blob(stmt, 4), (size_t)r->dim,
		    r->v);
		r->norm = vector_norm(r->v, r->dim);
	}
	if (step != SQLITE_DONE) {
		engine_fail(st, err);
		goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(stmt);
	return rc;
}

/* The connection's cache of eng's matchers, brought up to date. */
static struct engine_cache *
cache_get(struct store *st, const struct engine *eng, struct err *err)
{
	struct engine_cache	*c = store_attached(st, eng);
	sqlite3_int64		 changes;
	bool			 prefix;
	int			 dv;

	if (c == NULL) {
		c = xcalloc(1, sizeof(*c));
		if (store_attach(st, eng, c, cache_free) != 0) {
			free(c);
			err_set(err, "no room to cache %s matchers", eng->noun);
			return NULL;
		}
	}
	changes = sqlite3_total_changes64(store_db(st));
	if (store_data_version(st, &dv, err) != 0)
		return NULL;
	if (c->checked && dv == c->data_version && changes == c->changes)
		return c;
	if (cache_prefix(st, eng, c, &prefix, err) != 0)
		return NULL;
	if (!prefix)
		cache_clear(c);
	if (cache_load(st, eng, c, err) != 0) {
		cache_clear(c);
		c->checked = false;
		return NULL;
	}
	c->data_version = dv;
	c->changes = changes;
	/* rows read inside a transaction may yet be rolled back */
	c->checked = sqlite3_get_autocommit(store_db(st)) != 0;
	return c;
}

static double
cached_cosine(const struct cached *r, const float *vec, double qnorm)
{
	return vector_cosine(vec, qnorm, r->v, r->norm, r->dim);
}

static bool
in_stores(const char *store, const char *const *stores, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		if (strcmp(store, stores[i]) == 0)
			return true;
	return false;
}

/* Keep the best `limit` rows; an equal score goes after, so rowid wins. */
static void
top_add(struct engine_matchers *ms, size_t limit, const struct cached *r,
    double score)
{
	struct engine_matcher	*v = ms->v;
	size_t			 pos;

	for (pos = ms->n; pos > 0 && v[pos - 1].score < score; )
		pos--;
	if (pos >= limit)
		return;
	if (ms->n == limit) {
		free(v[ms->n - 1].id);
		free(v[ms->n - 1].description);
		ms->n--;
	}
	memmove(&v[pos + 1], &v[pos], (ms->n - pos) * sizeof(*v));
	v[pos].id = xstrdup(r->id);
	v[pos].description = xstrdup(r->description);
	v[pos].score = score;
	ms->n++;
}

int
engine_find_matchers(struct store *st, const struct engine *eng,
    const char *const *stores, size_t nstores, const float *vec, int dim,
    size_t limit, struct engine_matchers *out, struct err *err)
{
	struct engine_cache	*c;
	const struct cached	*r;
	double			 qn, cos;
	size_t			 i;

	out->v = NULL;
	out->n = 0;
	if (nstores == 0 || limit == 0)
		return 0;
	if ((c = cache_get(st, eng, err)) == NULL)
		return -1;
	out->v = xcalloc(limit, sizeof(*out->v));
	qn = vector_norm(vec, dim);
	for (i = 0; i < c->n; i++) {
		r = &c->rows[i];
		if (r->dim != dim || !in_stores(r->store, stores, nstores))
			continue;
		if ((cos = cached_cosine(r, vec, qn)) >= ENGINE_FLOOR)
			top_add(out, limit, r, num_round3(cos));
	}
	return 0;
}

void
engine_matchers_release(struct engine_matchers *ms)
{
	size_t	i;

	for (i = 0; i < ms->n; i++) {
		free(ms->v[i].id);
		free(ms->v[i].description);
	}
	free(ms->v);
	ms->v = NULL;
	ms->n = 0;
}

void
engine_matchers_cut(struct engine_matchers *ms, double threshold)
{
	size_t	i;

	for (i = 0; i < ms->n && ms->v[i].score >= threshold; i++)
		;
	while (ms->n > i) {
		ms->n--;
		free(ms->v[ms->n].id);
		free(ms->v[ms->n].description);
	}
}

static const struct engine_matcher *
matcher_by_id(const struct engine_matchers *ms, const char *id)
{
	size_t	i;

	for (i = 0; i < ms->n; i++)
		if (strcmp(ms->v[i].id, id) == 0)
			return &ms->v[i];
	return NULL;
}

static void
hit_release(struct engine_hit *h)
{
	free(h->matcher_id);
	free(h->matcher_description);
	free(h->item_id);
	free(h->statement);
	free(h->rationale);
}

void
engine_hits_release(struct engine_hits *hs)
{
	size_t	i;

	for (i = 0; i < hs->n; i++)
		hit_release(&hs->v[i]);
	free(hs->v);
	hs->v = NULL;
	hs->n = 0;
}

/* Stable: insertion sort by score, descending (the lists are short). */
static void
hits_sort(struct engine_hits *hs)
{
	struct engine_hit	h;
	size_t			i, j;

	for (i = 1; i < hs->n; i++) {
		h = hs->v[i];
		for (j = i; j > 0 && hs->v[j - 1].score < h.score; j--)
			hs->v[j] = hs->v[j - 1];
		hs->v[j] = h;
	}
}

/* Keep the first (best) hit of each item. */
static void
hits_dedup(struct engine_hits *hs)
{
	size_t	i, j, n = 0;

	for (i = 0; i < hs->n; i++) {
		for (j = 0; j < n; j++)
			if (strcmp(hs->v[j].item_id, hs->v[i].item_id) == 0)
				break;
		if (j < n)
			hit_release(&hs->v[i]);
		else
			hs->v[n++] = hs->v[i];
	}
	hs->n = n;
}

/* engine_score_items' rows: each edge of a ranked matcher, its item. */
struct scoring {
	const struct engine_matchers	*ms;
	struct engine_hits		*out;
	size_t				 cap;
};

static int
score_row(sqlite3_stmt *stmt, void *arg)
{
	struct scoring			*s = arg;
	struct engine_hits		*out = s->out;
	const struct engine_matcher	*m;
	struct engine_hit		*h;
	double				 conf;

	m = matcher_by_id(s->ms, (const char *)sqlite3_column_text(stmt, 0));
	if (m == NULL)
		return 0;
	if (out->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 8;
		out->v = xreallocarray(out->v, s->cap, sizeof(*out->v));
	}
	h = &out->v[out->n++];
	conf = sqlite3_column_double(stmt, 5);
	h->matcher_id = xstrdup(m->id);
	h->matcher_description = xstrdup(m->description);
	h->item_id = engine_column_dup(stmt, 2);
	h->statement = engine_column_dup(stmt, 3);
	h->rationale = engine_column_dup(stmt, 4);
	h->confidence = num_round3(conf);
	h->evidence = engine_evidence(sqlite3_column_double(stmt, 6),
	    sqlite3_column_double(stmt, 7));
	/* the rounded matcher score, the raw confidence (§A3) */
	h->score = num_round3(m->score * sqlite3_column_double(stmt, 1) *
	    conf);
	return 0;
}

int
engine_score_items(struct store *st, const struct engine *eng,
    const struct engine_matchers *ms, struct engine_hits *out,
    struct err *err)
{
	struct scoring	 s = { ms, out, 0 };
	sqlite3_stmt	*stmt = NULL;
	size_t		 i;

	out->v = NULL;
	out->n = 0;
	if (ms->n == 0)
		return 0;
	if (engine_prep(st, eng, SQL_SCORE, ms->n, &stmt, err) != 0)
		return -1;
	for (i = 0; i < ms->n; i++)
		sqlite3_bind_text(stmt, (int)i + 1, ms->v[i].id, -1,
		    SQLITE_STATIC);
	if (engine_rows(st, stmt, score_row, &s, err) != 0) {
		engine_hits_release(out);
		return -1;
	}
	hits_sort(out);
	hits_dedup(out);
	return 0;
}

int
engine_score_nudge(struct store *st, const struct engine *eng,
    const char *const *stores, size_t nstores, const float *vec, int dim,
    double threshold, struct engine_hits *out, struct err *err)
{
	struct engine_matchers	ms;

	out->v = NULL;
	out->n = 0;
	if (engine_find_matchers(st, eng, stores, nstores, vec, dim,
	    ENGINE_LIMIT, &ms, err) != 0)
		return -1;
	engine_matchers_cut(&ms, threshold);
	if (engine_score_items(st, eng, &ms, out, err) != 0) {
		engine_matchers_release(&ms);
		return -1;
	}
	engine_matchers_release(&ms);
	while (out->n > ENGINE_LIMIT)
		hit_release(&out->v[--out->n]);
	return 0;
}

int
engine_nudge(struct store *st, const struct engine *eng,
    const char *const *stores, size_t nstores, const float *vec, int dim,
    double threshold, struct sbuf *out, struct err *err)
{
	struct engine_hits	hs;

	if (engine_score_nudge(st, eng, stores, nstores, vec, dim, threshold,
	    &hs, err) != 0)
		return -1;
	engine_render_nudge(eng, hs.v, hs.n, out);
	engine_hits_release(&hs);
	return 0;
}

/* ---- nearest ------------------------------------------------------------ */

/* The id of the item of store nearest vec at >= threshold, or NULL. */
static int
nearest_item_id(struct store *st, const struct engine *eng,
    const char *store, const float *vec, int dim, double threshold,
    char **id, struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	float		*row;
	double		 qn = vector_norm(vec, dim), cos, top = threshold;
	int		 step, rc = -1;

	*id = NULL;
	row = xcalloc(dim > 0 ? (size_t)dim : 1, sizeof(*row));
	if (engine_prep1(st, eng, SQL_ITEM_SCAN, store, &stmt, err) != 0)
		goto out;
	while ((step = sqlite3_step(stmt)) == SQLITE_ROW) {
		if (sqlite3_column_bytes(stmt, 1) != dim * 4)
			continue;
		vector_decode(sqlite3_column_blob(stmt, 1), (size_t)dim, row);
		cos = vector_cosine(vec, qn, row, vector_norm(row, dim), dim);
		if (cos >= top && (*id == NULL || cos > top)) {
			free(*id);
			*id = engine_column_dup(stmt, 0);
			top = cos;
		}
	}
	if (step != SQLITE_DONE) {
		engine_fail(st, err);
		goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(stmt);
	free(row);
	if (rc != 0) {
		free(*id);
		*id = NULL;
	}
	return rc;
}

int
engine_nearest_matcher(struct store *st, const struct engine *eng,
    const char *store, const float *vec, int dim, double threshold,
    char **id, struct err *err)
{
	struct engine_cache	*c;
	const struct cached	*r, *best = NULL;
	double			 qn = vector_norm(vec, dim), cos, top = threshold;
	size_t			 i;

	*id = NULL;
	if ((c = cache_get(st, eng, err)) == NULL)
		return -1;
	for (i = 0; i < c->n; i++) {
		r = &c->rows[i];
		if (r->dim != dim || strcmp(r->store, store) != 0)
			continue;
		cos = cached_cosine(r, vec, qn);
		if (cos >= top && (best == NULL || cos > top)) {
			best = r;
			top = cos;
		}
	}
	if (best != NULL)
		*id = xstrdup(best->id);
	return 0;
}

int
engine_nearest_item(struct store *st, const struct engine *eng,
    const char *store, const float *vec, int dim, double threshold,
    struct engine_item *it, bool *found, struct err *err)
{
	char	*id;
	int	 rc;

	*found = false;
	if (nearest_item_id(st, eng, store, vec, dim, threshold, &id,
	    err) != 0)
		return -1;
	if (id == NULL)
		return 0;
	rc = engine_get_item(st, eng, id, it, found, err);
	free(id);
	return rc;
}
