/*
 * engine.c — the scoring engine behind predictions and behaviors: four
 * tables (matchers, items, edges, provenance), brute-force cosine over
 * their embeddings, Bayesian confidence, and the texts the tools print
 * (engines-and-extras Part A); how an item reads in a block line is
 * engine_text.c's.
 *
 * Generic over a struct engine: the SQL below is written once with {M},
 * {I}, {E}, {P} and {FK} for the descriptor's table and column names
 * (compile-time constants, never user input) and {IN} for a list of
 * placeholders. It knows nothing of models: it ranks the vectors it is
 * handed.
 *
 * Invariants:
 *  1. Cosine is core/vector.c's (accumulated in double), rows whose
 *     dimension differs from the query's are skipped, and a zero norm
 *     gives 0 (§0.3).
 *  2. Matcher scores are round3(cosine); thresholds compare the rounded
 *     score (§A7.1), the dedup lookups the raw cosine (§A3).
 *  3. Confidence changes only through one UPDATE that reads the
 *     pre-update counts (§A4), so two processes never lose a signal.
 *  4. Writes that span statements (engine_record, engine_grade) run in
 *     one BEGIN IMMEDIATE transaction, rolled back whole on error.
 *  5. Embeddings are little-endian float32 BLOBs on every host
 *     (core/vector.c encodes and decodes them).
 *  6. Orders are the original's: matchers by score then rowid, items by
 *     score then statement (BINARY), lists by confidence then rowid,
 *     edges by rowid, provenance newest first, at most 10 (§A3).
 *  7. Matchers are read through a per-connection cache that is never
 *     older than the last commit seen (struct engine_cache); items are
 *     always read from SQL.
 */
#include "core/engine/engine.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/random.h>
#include <sqlite3.h>

#include "core/store/store.h"
#include "core/vector.h"
#include "util/err.h"
#include "util/num.h"
#include "util/sbuf.h"
#include "util/xmalloc.h"

#define UUID_LEN	37

/* ---- SQL ---------------------------------------------------------------- */

static const char SQL_ENSURE_STORE[] =
	"INSERT OR IGNORE INTO stores (name) VALUES (?1)";
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
/* Both inserts take the same parameters; matchers have no rationale (?4). */
static const char SQL_MATCHER_INSERT[] =
	"INSERT INTO {M} (id, store, description, embedding, model,"
	" created_at, updated_at) VALUES (?1, ?2, ?3, ?5, ?6, ?7, ?7)";
static const char SQL_ITEM_INSERT[] =
	"INSERT INTO {I} (id, store, statement, rationale, embedding, model,"
	" created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7)";
static const char SQL_EDGE_INSERT[] =
	"INSERT INTO {E} (matcher_id, {FK}, weight, created_at)"
	" VALUES (?1, ?2, ?3, ?4) ON CONFLICT (matcher_id, {FK}) DO NOTHING";
/* §A4: every right-hand side reads the pre-update row. */
static const char SQL_ADJUST[] =
	"UPDATE {I} SET confirm_count = confirm_count + ?1,"
	" disconfirm_count = disconfirm_count + ?2,"
	" confidence = ((confirm_count + ?1) + ?3)"
	" / (((confirm_count + ?1) + disconfirm_count + ?2) + ?4),"
	" updated_at = ?5 WHERE id = ?6";
static const char SQL_PROVENANCE_INSERT[] =
	"INSERT INTO {P} (id, {FK}, signal, detail) VALUES (?1, ?2, ?3, ?4)";
#define ITEM_COLS \
	"id, store, statement, rationale, confidence, confirm_count," \
	" disconfirm_count"
static const char SQL_ITEM_GET[] =
	"SELECT " ITEM_COLS " FROM {I} WHERE id = ?1";
static const char SQL_ITEM_LIST[] =
	"SELECT " ITEM_COLS " FROM {I} WHERE store = ?1"
	" ORDER BY confidence DESC, rowid";
static const char SQL_ITEM_DELETE[] =
	"DELETE FROM {I} WHERE id = ?1";
static const char SQL_SCORE[] =
	"SELECT e.matcher_id, e.weight, i.id, i.statement, i.rationale,"
	" i.confidence, i.confirm_count, i.disconfirm_count"
	" FROM {E} e JOIN {I} i ON i.id = e.{FK}"
	" WHERE e.matcher_id IN ({IN}) ORDER BY i.statement";
static const char SQL_ITEM_MATCHERS[] =
	"SELECT e.matcher_id, m.description, e.weight"
	" FROM {E} e JOIN {M} m ON m.id = e.matcher_id"
	" WHERE e.{FK} = ?1 ORDER BY e.rowid";
static const char SQL_ITEM_PROVENANCE[] =
	"SELECT signal, detail, created_at FROM {P}"
	" WHERE {FK} = ?1 ORDER BY rowid DESC LIMIT 10";

/* Expand the template for eng, {IN} becoming nin placeholders. */
static char *
sql_expand(const struct engine *eng, const char *tmpl, size_t nin)
{
	static const struct {
		const char	*key;
		size_t		 off;
	} names[] = {
		{ "{M}", offsetof(struct engine, matchers) },
		{ "{I}", offsetof(struct engine, items) },
		{ "{E}", offsetof(struct engine, edges) },
		{ "{P}", offsetof(struct engine, provenance) },
		{ "{FK}", offsetof(struct engine, fk) },
	};
	struct sbuf	 sb = SBUF_INIT;
	const char	*p;
	size_t		 i, k;

	for (p = tmpl; *p != '\0'; ) {
		if (strncmp(p, "{IN}", 4) == 0) {
			for (k = 0; k < nin; k++)
				sbuf_adds(&sb, k ? ", ?" : "?");
			p += 4;
			continue;
		}
		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
			k = strlen(names[i].key);
			if (strncmp(p, names[i].key, k) == 0)
				break;
		}
		if (i < sizeof(names) / sizeof(names[0])) {
			sbuf_adds(&sb, *(const char *const *)
			    ((const char *)eng + names[i].off));
			p += k;
		} else
			sbuf_addc(&sb, *p++);
	}
	return sbuf_detach(&sb, NULL);
}

static int
prep(struct store *st, const struct engine *eng, const char *tmpl,
    size_t nin, sqlite3_stmt **stmt, struct err *err)
{
	char	*sql;
	int	 rc;

	sql = sql_expand(eng, tmpl, nin);
	rc = store_prepare(st, stmt, sql, err);
	free(sql);
	return rc;
}

/* prep, with the one text parameter ?1 bound to arg (borrowed). */
static int
prep1(struct store *st, const struct engine *eng, const char *tmpl,
    const char *arg, sqlite3_stmt **stmt, struct err *err)
{
	if (prep(st, eng, tmpl, 0, stmt, err) != 0)
		return -1;
	sqlite3_bind_text(*stmt, 1, arg, -1, SQLITE_STATIC);
	return 0;
}

static int
fail(struct store *st, struct err *err)
{
	return err_set(err, "database '%s': %s", store_path(st),
	    sqlite3_errmsg(store_db(st)));
}

/* Step a statement that returns no rows. */
static int
step_done(struct store *st, sqlite3_stmt *stmt, struct err *err)
{
	return sqlite3_step(stmt) == SQLITE_DONE ? 0 : fail(st, err);
}

static char *
column_dup(sqlite3_stmt *stmt, int col)
{
	const unsigned char	*s = sqlite3_column_text(stmt, col);

	return s != NULL ? xstrdup((const char *)s) : NULL;
}

static int
uuid_new(char **id, struct err *err)
{
	unsigned char	b[16];
	char		buf[UUID_LEN];

	/* the kernel's CSPRNG, as crypto.randomUUID uses (never blocks
	 * after boot; 16 bytes are never cut short) */
	if (getrandom(b, sizeof(b), 0) != (ssize_t)sizeof(b))
		return err_errno(err, "cannot generate an id");
	b[6] = (b[6] & 0x0f) | 0x40;		/* version 4 */
	b[8] = (b[8] & 0x3f) | 0x80;		/* RFC 4122 variant */
	snprintf(buf, sizeof(buf), "%02x%02x%02x%02x-%02x%02x-%02x%02x-"
	    "%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2], b[3],
	    b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
	    b[14], b[15]);
	*id = xstrdup(buf);
	return 0;
}

int
engine_txn(struct store *st, int (*fn)(void *, struct err *), void *arg,
    struct err *err)
{
	struct err	ignored;

	if (store_exec(st, "BEGIN IMMEDIATE", err) != 0)
		return -1;
	if (fn(arg, err) == 0 && store_exec(st, "COMMIT", err) == 0)
		return 0;
	store_exec(st, "ROLLBACK", &ignored);	/* keeps the first error */
	return -1;
}

/* ---- releases and names ------------------------------------------------ */

const char *
engine_signal_name(enum engine_signal s)
{
	switch (s) {
	case ENGINE_CONFIRM:	return "confirm";
	case ENGINE_DISCONFIRM:	return "disconfirm";
	case ENGINE_SOFT:	return "soft";
	default:		return "create";
	}
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

void
engine_item_release(struct engine_item *it)
{
	free(it->id);
	free(it->store);
	free(it->statement);
	free(it->rationale);
	memset(it, 0, sizeof(*it));
}

/* ---- vectors ------------------------------------------------------------ */

static void
bind_vec(sqlite3_stmt *stmt, int col, const float *vec, int dim)
{
	const void	*blob;
	void		*scratch;

	if (vec != NULL) {
		/* scratch (a big-endian host's copy) is SQLite's to free */
		blob = vector_encode(vec, (size_t)dim, &scratch);
		sqlite3_bind_blob(stmt, col, blob, dim * 4, scratch != NULL ?
		    free : SQLITE_STATIC);
	} else
		sqlite3_bind_null(stmt, col);
}

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

static int
data_version(struct store *st, int *dv, struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	int		 rc = -1;

	if (store_prepare(st, &stmt, "PRAGMA data_version", err) != 0)
		goto out;
	if (sqlite3_step(stmt) != SQLITE_ROW) {
		fail(st, err);
		goto out;
	}
	*dv = sqlite3_column_int(stmt, 0);
	rc = 0;
out:
	sqlite3_finalize(stmt);
	return rc;
}

/* Whether the cached rows still are a prefix of the table. */
static int
cache_prefix(struct store *st, const struct engine *eng,
    struct engine_cache *c, bool *prefix, struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	const char	*id, *stamp;
	int		 rc = -1;

	if (prep(st, eng, SQL_MATCHER_LAST, 0, &stmt, err) != 0)
		goto out;
	sqlite3_bind_int64(stmt, 1, c->last_rowid);
	if (sqlite3_step(stmt) != SQLITE_ROW) {
		fail(st, err);
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
	c->reembedded = column_dup(stmt, 2);
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

	if (prep(st, eng, SQL_MATCHER_LOAD, 0, &stmt, err) != 0)
		goto out;
	sqlite3_bind_int64(stmt, 1, c->last_rowid);
	while ((step = sqlite3_step(stmt)) == SQLITE_ROW) {
		c->last_rowid = sqlite3_column_int64(stmt, 0);
		free(c->last_id);
		c->last_id = column_dup(stmt, 1);
		bytes = sqlite3_column_bytes(stmt, 4);
		if (bytes % 4 != 0)
			continue;
		if (c->n == c->cap) {
			c->cap = c->cap ? c->cap * 2 : 64;
			c->rows = xreallocarray(c->rows, c->cap,
			    sizeof(*c->rows));
		}
		r = &c->rows[c->n++];
		r->id = column_dup(stmt, 1);
		r->description = column_dup(stmt, 2);
		r->store = column_dup(stmt, 3);
		r->dim = bytes / 4;
		r->v = xcalloc(r->dim > 0 ? (size_t)r->dim : 1, sizeof(*r->v));
		vector_decode(sqlite3_column_blob(stmt, 4), (size_t)r->dim,
		    r->v);
		r->norm = vector_norm(r->v, r->dim);
	}
	if (step != SQLITE_DONE) {
		fail(st, err);
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
	if (data_version(st, &dv, err) != 0)
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

static long
evidence(double confirms, double disconfirms)
{
	return (long)round(confirms + disconfirms);	/* halves up (§0.2) */
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

int
engine_score_items(struct store *st, const struct engine *eng,
    const struct engine_matchers *ms, struct engine_hits *out,
    struct err *err)
{
	sqlite3_stmt			*stmt = NULL;
	const struct engine_matcher	*m;
	struct engine_hit		*h;
	size_t				 i, cap = 0;
	double				 conf;
	int				 step, rc = -1;

	out->v = NULL;
	out->n = 0;
	if (ms->n == 0)
		return 0;
	if (prep(st, eng, SQL_SCORE, ms->n, &stmt, err) != 0)
		goto out;
	for (i = 0; i < ms->n; i++)
		sqlite3_bind_text(stmt, (int)i + 1, ms->v[i].id, -1,
		    SQLITE_STATIC);
	while ((step = sqlite3_step(stmt)) == SQLITE_ROW) {
		m = matcher_by_id(ms,
		    (const char *)sqlite3_column_text(stmt, 0));
		if (m == NULL)
			continue;
		if (out->n == cap) {
			cap = cap ? cap * 2 : 8;
			out->v = xreallocarray(out->v, cap, sizeof(*out->v));
		}
		h = &out->v[out->n++];
		conf = sqlite3_column_double(stmt, 5);
		h->matcher_id = xstrdup(m->id);
		h->matcher_description = xstrdup(m->description);
		h->item_id = column_dup(stmt, 2);
		h->statement = column_dup(stmt, 3);
		h->rationale = column_dup(stmt, 4);
		h->confidence = num_round3(conf);
		h->evidence = evidence(sqlite3_column_double(stmt, 6),
		    sqlite3_column_double(stmt, 7));
		/* the rounded matcher score, the raw confidence (§A3) */
		h->score = num_round3(m->score *
		    sqlite3_column_double(stmt, 1) * conf);
	}
	if (step != SQLITE_DONE) {
		fail(st, err);
		goto out;
	}
	hits_sort(out);
	hits_dedup(out);
	rc = 0;
out:
	sqlite3_finalize(stmt);
	if (rc != 0)
		engine_hits_release(out);
	return rc;
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

/* ---- texts -------------------------------------------------------------- */

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

/* ---- building blocks ---------------------------------------------------- */

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
	if (prep1(st, eng, SQL_ITEM_SCAN, store, &stmt, err) != 0)
		goto out;
	while ((step = sqlite3_step(stmt)) == SQLITE_ROW) {
		if (sqlite3_column_bytes(stmt, 1) != dim * 4)
			continue;
		vector_decode(sqlite3_column_blob(stmt, 1), (size_t)dim, row);
		cos = vector_cosine(vec, qn, row, vector_norm(row, dim), dim);
		if (cos >= top && (*id == NULL || cos > top)) {
			free(*id);
			*id = column_dup(stmt, 0);
			top = cos;
		}
	}
	if (step != SQLITE_DONE) {
		fail(st, err);
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
	double			 qn, cos, top = threshold;
	size_t			 i;

	*id = NULL;
	qn = vector_norm(vec, dim);
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

static int
ensure_store(struct store *st, const char *store, struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	int		 rc = -1;

	if (store_prepare(st, &stmt, SQL_ENSURE_STORE, err) != 0)
		goto out;
	sqlite3_bind_text(stmt, 1, store, -1, SQLITE_STATIC);
	rc = step_done(st, stmt, err);
out:
	sqlite3_finalize(stmt);
	return rc;
}

/* Insert a matcher or an item (tmpl) with a new id. */
static int
insert_row(struct store *st, const struct engine *eng, const char *tmpl,
    const char *store, const char *text, const char *rationale,
    const float *vec, int dim, const char *model, const char *now,
    char **id, struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	int		 rc = -1;

	*id = NULL;
	if (ensure_store(st, store, err) != 0 || uuid_new(id, err) != 0 ||
	    prep(st, eng, tmpl, 0, &stmt, err) != 0)
		goto out;
	sqlite3_bind_text(stmt, 1, *id, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 2, store, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 3, text, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 4, rationale, -1, SQLITE_STATIC);
	bind_vec(stmt, 5, vec, dim);
	sqlite3_bind_text(stmt, 6, model, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 7, now, -1, SQLITE_STATIC);
	rc = step_done(st, stmt, err);
out:
	sqlite3_finalize(stmt);
	if (rc != 0) {
		free(*id);
		*id = NULL;
	}
	return rc;
}

int
engine_create_matcher(struct store *st, const struct engine *eng,
    const char *store, const char *description, const float *vec, int dim,
    const char *model, const char *now, char **id, struct err *err)
{
	return insert_row(st, eng, SQL_MATCHER_INSERT, store, description,
	    NULL, vec, dim, model, now, id, err);
}

int
engine_create_item(struct store *st, const struct engine *eng,
    const char *store, const char *statement, const char *rationale,
    const float *vec, int dim, const char *model, const char *now,
    char **id, struct err *err)
{
	return insert_row(st, eng, SQL_ITEM_INSERT, store, statement,
	    rationale, vec, dim, model, now, id, err);
}

int
engine_create_edge(struct store *st, const struct engine *eng,
    const char *matcher_id, const char *item_id, double weight,
    const char *now, struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	int		 rc = -1;

	if (prep1(st, eng, SQL_EDGE_INSERT, matcher_id, &stmt, err) != 0)
		goto out;
	sqlite3_bind_text(stmt, 2, item_id, -1, SQLITE_STATIC);
	sqlite3_bind_double(stmt, 3, weight);
	sqlite3_bind_text(stmt, 4, now, -1, SQLITE_STATIC);
	rc = step_done(st, stmt, err);
out:
	sqlite3_finalize(stmt);
	return rc;
}

int
engine_adjust(struct store *st, const struct engine *eng,
    const char *item_id, enum engine_signal sig, const char *now,
    struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	double		 dc = 0, dd = 0;
	int		 rc = -1;

	switch (sig) {
	case ENGINE_CONFIRM:	dc = 1; break;
	case ENGINE_DISCONFIRM:	dd = 1; break;
	case ENGINE_SOFT:	dd = ENGINE_W_SOFT; break;
	default:		return 0;
	}
	if (prep(st, eng, SQL_ADJUST, 0, &stmt, err) != 0)
		goto out;
	sqlite3_bind_double(stmt, 1, dc);
	sqlite3_bind_double(stmt, 2, dd);
	sqlite3_bind_double(stmt, 3, ENGINE_K * ENGINE_P0);
	sqlite3_bind_double(stmt, 4, ENGINE_K);
	sqlite3_bind_text(stmt, 5, now, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 6, item_id, -1, SQLITE_STATIC);
	rc = step_done(st, stmt, err);
out:
	sqlite3_finalize(stmt);
	return rc;
}

int
engine_add_provenance(struct store *st, const struct engine *eng,
    const char *item_id, const char *signal, const char *detail,
    struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	char		*id = NULL;
	int		 rc = -1;

	if (uuid_new(&id, err) != 0 ||
	    prep(st, eng, SQL_PROVENANCE_INSERT, 0, &stmt, err) != 0)
		goto out;
	sqlite3_bind_text(stmt, 1, id, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 2, item_id, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 3, signal, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 4, detail, -1, SQLITE_STATIC);
	rc = step_done(st, stmt, err);
out:
	sqlite3_finalize(stmt);
	free(id);
	return rc;
}

static void
item_read(sqlite3_stmt *stmt, struct engine_item *it)
{
	it->id = column_dup(stmt, 0);
	it->store = column_dup(stmt, 1);
	it->statement = column_dup(stmt, 2);
	it->rationale = column_dup(stmt, 3);
	it->confidence = sqlite3_column_double(stmt, 4);
	it->confirms = sqlite3_column_double(stmt, 5);
	it->disconfirms = sqlite3_column_double(stmt, 6);
}

int
engine_get_item(struct store *st, const struct engine *eng, const char *id,
    struct engine_item *it, bool *found, struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	int		 step, rc = -1;

	*found = false;
	if (prep1(st, eng, SQL_ITEM_GET, id, &stmt, err) != 0)
		goto out;
	if ((step = sqlite3_step(stmt)) == SQLITE_ROW) {
		item_read(stmt, it);
		*found = true;
	} else if (step != SQLITE_DONE) {
		fail(st, err);
		goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(stmt);
	return rc;
}

int
engine_each_item(struct store *st, const struct engine *eng,
    const char *store, int (*fn)(const struct engine_item *, void *),
    void *arg, struct err *err)
{
	sqlite3_stmt		*stmt = NULL;
	struct engine_item	 it;
	int			 step, stop = 0, rc = -1;

	if (prep1(st, eng, SQL_ITEM_LIST, store, &stmt, err) != 0)
		goto out;
	while (!stop && (step = sqlite3_step(stmt)) == SQLITE_ROW) {
		item_read(stmt, &it);
		stop = fn(&it, arg);
		engine_item_release(&it);
	}
	if (!stop && step != SQLITE_DONE) {
		fail(st, err);
		goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(stmt);
	return rc;
}

int
engine_first_matcher(struct store *st, const struct engine *eng,
    const char *item_id, char **id, struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	int		 step, rc = -1;

	*id = NULL;
	if (prep1(st, eng, SQL_ITEM_MATCHERS, item_id, &stmt, err) != 0)
		goto out;
	if ((step = sqlite3_step(stmt)) == SQLITE_ROW)
		*id = column_dup(stmt, 0);
	else if (step != SQLITE_DONE) {
		fail(st, err);
		goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(stmt);
	return rc;
}

int
engine_delete_item(struct store *st, const struct engine *eng,
    const char *id, bool *deleted, struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	int		 rc = -1;

	*deleted = false;
	if (prep1(st, eng, SQL_ITEM_DELETE, id, &stmt, err) != 0)
		goto out;
	if (step_done(st, stmt, err) != 0)
		goto out;
	*deleted = sqlite3_changes(store_db(st)) > 0;
	rc = 0;
out:
	sqlite3_finalize(stmt);
	return rc;
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
};

/* The "  matchers:" and "  provenance:" sections of one list block. */
static int
list_sections(struct listing *l, const char *item_id)
{
	sqlite3_stmt	*stmt = NULL;
	char		 w[NUM_BUFSZ];
	const char	*detail;
	int		 n, step, rc = -1;

	if (prep1(l->st, l->eng, SQL_ITEM_MATCHERS, item_id, &stmt,
	    l->err) != 0)
		goto out;
	for (n = 0; (step = sqlite3_step(stmt)) == SQLITE_ROW; n++)
		sbuf_addf(l->out, "%s\n    - \"%s\" (w:%s)",
		    n ? "" : "\n  matchers:", sqlite3_column_text(stmt, 1),
		    num_js(sqlite3_column_double(stmt, 2), w));
	if (step != SQLITE_DONE)
		goto fail;
	sqlite3_finalize(stmt);
	if (prep1(l->st, l->eng, SQL_ITEM_PROVENANCE, item_id, &stmt,
	    l->err) != 0)
		goto out;
	for (n = 0; (step = sqlite3_step(stmt)) == SQLITE_ROW; n++) {
		detail = (const char *)sqlite3_column_text(stmt, 1);
		sbuf_addf(l->out, "%s\n    - [%.10s] %s: %s",
		    n ? "" : "\n  provenance:", sqlite3_column_text(stmt, 2),
		    sqlite3_column_text(stmt, 0), detail ? detail : "");
	}
	if (step != SQLITE_DONE)
		goto fail;
	rc = 0;
	goto out;
fail:
	fail(l->st, l->err);
out:
	sqlite3_finalize(stmt);
	return rc;
}

static int
list_visit(const struct engine_item *it, void *arg)
{
	struct listing	*l = arg;

	if (l->out->len > 0)
		sbuf_adds(l->out, "\n\n");
	engine_render_evidence(num_round3(it->confidence),
	    evidence(it->confirms, it->disconfirms), l->out);
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
	struct listing	l = { st, eng, &sb, err, 0 };
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
