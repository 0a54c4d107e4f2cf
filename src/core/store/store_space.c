/*
 * store_space.c — embedding spaces: counting the rows whose vector was
 * computed by another model than the one in effect, and re-embedding them
 * (`thatch reembed`, issue 19; seed invariant 4), or only those with no
 * vector at all (what `thatch sync` brings in: vectors never travel).
 *
 * The store knows nothing of models (DESIGN principle 3): the model in
 * effect is handed in as a dimension and a tag, and the vectors come from
 * the caller's embed function.
 *  1. A row is in another space when its embedding is NULL, its length is
 *     not 4 x dim bytes, or its model tag is not the tag in effect (NULL
 *     included). Search only sees the dimension (§5.1); the tag catches a
 *     same-dimension switch, whose scores would be silently wrong.
 *  2. Five tables carry vectors: entries (content, which is exactly the
 *     text that was embedded, §4.3), the two engines' matchers
 *     (description) and items (statement), all embedded as passages.
 *  3. Re-embedding walks each table by rowid, a batch at a time: the texts
 *     are read without a transaction, embedded with none open, and written
 *     in one short BEGIN IMMEDIATE transaction per batch, one UPDATE per
 *     row setting embedding and model together. A killed run leaves every
 *     row wholly old or wholly new, and a rerun picks up the rows still in
 *     the other space. A row whose text changed in between (another
 *     process overwrote it, with its own vector) is left alone.
 *  4. A matcher's updated_at is set when its vector is rewritten: matchers
 *     are otherwise never updated, and engine.c's per-connection cache of
 *     them reloads when the latest such stamp moves. Memories and items
 *     keep their timestamps (staleness and exports read them).
 */
#include "core/store/store.h"

#include <stdlib.h>
#include <string.h>

#include "core/store/store_int.h"
#include "core/vector.h"
#include "util/err.h"
#include "util/sbuf.h"
#include "util/xmalloc.h"

enum space_kind { SPACE_MEMORIES, SPACE_MATCHERS, SPACE_ITEMS };

static const struct space_table {
	const char	*table, *text;
	enum space_kind	 kind;
} space_tables[] = {
	{ "entries", "content", SPACE_MEMORIES },
	{ "prediction_matchers", "description", SPACE_MATCHERS },
	{ "predictions", "statement", SPACE_ITEMS },
	{ "behavior_matchers", "description", SPACE_MATCHERS },
	{ "behaviors", "statement", SPACE_ITEMS },
};
#define NTABLES	(sizeof(space_tables) / sizeof(space_tables[0]))

/*
 * The WHERE clause shared by counting and walking: ?1 which rows (enum
 * store_rows: those of another space, all, or those with no vector at
 * all), ?2 bytes of a vector in effect, ?3 its tag, ?4 the store (NULL:
 * every store).
 */
#define SPACE_WHERE							\
	" WHERE (?4 IS NULL OR store = ?4) AND (?1 = 1 OR embedding IS NULL" \
	" OR (?1 = 0 AND (length(embedding) <> ?2 OR model IS NOT ?3)))"

/* SELECT <what> FROM t SPACE_WHERE <tail>, bound; what NULL: rowid, text. */
static int
prepare_space(struct store *st, const struct space_table *t,
    const char *what, const char *tail, const char *store,
    const struct store_space *sp, enum store_rows rows, sqlite3_stmt **stmt,
    struct err *err)
{
	struct sbuf	sql = SBUF_INIT;
	int		rc;

	if (what != NULL)
		sbuf_addf(&sql, "SELECT %s FROM %s", what, t->table);
	else
		sbuf_addf(&sql, "SELECT rowid, %s FROM %s", t->text, t->table);
	sbuf_adds(&sql, SPACE_WHERE);
	sbuf_adds(&sql, tail);
	rc = store_prepare(st, stmt, sql.buf, err);
	sbuf_release(&sql);
	if (rc != 0)
		return -1;
	sqlite3_bind_int(*stmt, 1, (int)rows);
	sqlite3_bind_int64(*stmt, 2, (sqlite3_int64)sp->dim * 4);
	sqlite3_bind_text(*stmt, 3, sp->tag, -1, SQLITE_STATIC);
	if (store != NULL)
		sqlite3_bind_text(*stmt, 4, store, -1, SQLITE_STATIC);
	return 0;
}

/* Rows of table t to re-embed. */
static int
count_table(struct store *st, const struct space_table *t, const char *store,
    const struct store_space *sp, enum store_rows rows, long long *n,
    struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	int		 rc = -1;

	if (prepare_space(st, t, "count(*)", "", store, sp,
	    rows, &stmt, err) != 0)
		return -1;
	if (sqlite3_step(stmt) == SQLITE_ROW) {
		*n = sqlite3_column_int64(stmt, 0);
		rc = 0;
	} else
		store_fail(st, err, "cannot count embeddings");
	sqlite3_finalize(stmt);
	return rc;
}

int
store_count_other_space(struct store *st, const char *store,
    const struct store_space *sp, struct store_space_count *c,
    struct err *err)
{
	long long	n;
	size_t		i;
	bool		cached;

	memset(c, 0, sizeof(*c));
	for (i = 0; i < NTABLES; i++) {
		/* entries is the big one: a search just counted its rows */
		cached = space_tables[i].kind == SPACE_MEMORIES &&
		    store != NULL && store_cache_other_space(st, store, sp,
		    &n);
		if (!cached && count_table(st, &space_tables[i], store, sp,
		    STORE_ROWS_OTHER, &n, err) != 0)
			return -1;
		switch (space_tables[i].kind) {
		case SPACE_MEMORIES:	c->memories += n; break;
		case SPACE_MATCHERS:	c->matchers += n; break;
		case SPACE_ITEMS:	c->items += n; break;
		}
	}
	return 0;
}

int
store_count_missing(struct store *st, const char *store, long long *n,
    struct err *err)
{
	struct store_space	sp = { 0, NULL };
	long long		k;
	size_t			i;

	*n = 0;
	for (i = 0; i < NTABLES; i++) {
		if (count_table(st, &space_tables[i], store, &sp,
		    STORE_ROWS_MISSING, &k, err) != 0)
			return -1;
		*n += k;
	}
	return 0;
}

/* One batch of a table's rows: rowids and their texts (owned). */
struct batch {
	sqlite3_int64	*rowid;
	char		**text;
	size_t		 n;
};

static void
batch_clear(struct batch *b)
{
	size_t	i;

	for (i = 0; i < b->n; i++)
		free(b->text[i]);
	b->n = 0;
}

/* The next at most max rows of t after rowid *after; advances *after. */
static int
batch_read(struct store *st, const struct space_table *t,
    const struct store_reembed *r, sqlite3_int64 *after, size_t max,
    struct batch *b, struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	const char	*text;
	int		 step;

	batch_clear(b);
	if (prepare_space(st, t, NULL,
	    " AND rowid > ?5 ORDER BY rowid LIMIT ?6", r->store, &r->space,
	    r->rows, &stmt, err) != 0)
		return -1;
	sqlite3_bind_int64(stmt, 5, *after);
	sqlite3_bind_int64(stmt, 6, (sqlite3_int64)max);
	while ((step = sqlite3_step(stmt)) == SQLITE_ROW) {
		text = (const char *)sqlite3_column_text(stmt, 1);
		b->rowid[b->n] = *after = sqlite3_column_int64(stmt, 0);
		b->text[b->n++] = xstrdup(text != NULL ? text : "");
	}
	sqlite3_finalize(stmt);
	if (step != SQLITE_DONE)
		return store_fail(st, err, "cannot read texts to re-embed");
	return 0;
}

/*
 * Write the batch's vectors in one transaction (invariant 3): each row
 * gets its vector and the tag only if its text is still the one embedded.
 */
static int
batch_write(struct store *st, const struct space_table *t,
    const struct store_reembed *r, const struct batch *b, const float *vecs,
    struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	struct sbuf	 sql = SBUF_INIT;
	const void	*blob;
	void		*scratch;
	size_t		 i, dim = (size_t)r->space.dim;
	int		 rc = -1;

	sbuf_addf(&sql, "UPDATE %s SET embedding = ?1, model = ?2%s"
	    " WHERE rowid = ?3 AND %s = ?4", t->table, t->kind ==
	    SPACE_MATCHERS ? ", updated_at = ?5" : "", t->text);
	if (store_prepare(st, &stmt, sql.buf, err) != 0)
		goto out;
	if (store_exec(st, "BEGIN IMMEDIATE", err) != 0)
		goto out;
	sqlite3_bind_text(stmt, 2, r->space.tag, -1, SQLITE_STATIC);
	if (t->kind == SPACE_MATCHERS)
		sqlite3_bind_text(stmt, 5, r->now, -1, SQLITE_STATIC);
	for (i = 0; i < b->n; i++) {
		blob = vector_encode(vecs + i * dim, dim, &scratch);
		sqlite3_bind_blob(stmt, 1, blob, (int)(dim * sizeof(float)),
		    SQLITE_TRANSIENT);
		free(scratch);
		sqlite3_bind_int64(stmt, 3, b->rowid[i]);
		sqlite3_bind_text(stmt, 4, b->text[i], -1, SQLITE_STATIC);
		if (sqlite3_step(stmt) != SQLITE_DONE) {
			store_fail(st, err, "cannot write a new embedding");
			store_rollback(st);
			goto out;
		}
		sqlite3_reset(stmt);
	}
	if (store_exec(st, "COMMIT", err) != 0) {
		store_rollback(st);
		goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(stmt);
	sbuf_release(&sql);
	return rc;
}

/* Re-embed table t; *done counts rows handled across tables. */
static int
reembed_table(struct store *st, const struct space_table *t,
    const struct store_reembed *r, struct batch *b, float *vecs,
    long long *done, long long total, struct err *err)
{
	sqlite3_int64	after = 0;

	for (;;) {
		if (batch_read(st, t, r, &after, r->batch, b, err) != 0)
			return -1;
		if (b->n == 0)
			return 0;
		if (r->embed(r->arg, (const char *const *)b->text, b->n,
		    vecs, err) != 0)
			return -1;
		if (batch_write(st, t, r, b, vecs, err) != 0)
			return -1;
		*done += (long long)b->n;
		if (r->progress != NULL)
			r->progress(r->arg, *done < total ? *done : total,
			    total);
	}
}

int
store_reembed(struct store *st, const struct store_reembed *r,
    long long *done, struct err *err)
{
	struct batch	 b;
	float		*vecs;
	long long	 total = 0, n;
	size_t		 i;
	int		 rc = 0;

	*done = 0;
	for (i = 0; i < NTABLES; i++) {
		if (count_table(st, &space_tables[i], r->store, &r->space,
		    r->rows, &n, err) != 0)
			return -1;
		total += n;
	}
	if (total == 0)
		return 0;
	b.rowid = xreallocarray(NULL, r->batch, sizeof(*b.rowid));
	b.text = xreallocarray(NULL, r->batch, sizeof(*b.text));
	b.n = 0;
	vecs = xreallocarray(NULL, r->batch * (size_t)r->space.dim,
	    sizeof(*vecs));
	if (r->progress != NULL)
		r->progress(r->arg, 0, total);
	for (i = 0; i < NTABLES && rc == 0; i++)
		rc = reembed_table(st, &space_tables[i], r, &b, vecs, done,
		    total, err);
	batch_clear(&b);
	free(b.rowid);
	free(b.text);
	free(vecs);
	return rc;
}
