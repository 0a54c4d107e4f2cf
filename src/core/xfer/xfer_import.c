/*
 * xfer_import.c — import: records of the export format into the store,
 * one transaction each, under a conflict policy, and our own JSONL read
 * line by line into them (docs/export.md). Every reader (xfer_foreign.c)
 * ends here; the walk that picks a reader per file is xfer_walk.c, above
 * both.
 *
 *  1. A record is imported whole, skipped, or fails and leaves nothing:
 *     its stores row (§1.3 rule 6) and its own row are one savepoint.
 *     Records are committed in batches (XFER_BATCH_ROWS rows or
 *     XFER_BATCH_MS, whichever comes first: one fsync per record made
 *     10,000 rows take 47 s), so a killed import leaves every record
 *     wholly in or wholly out, and other writers wait at most a batch.
 *  2. Vectors are trusted only when they carry the model in effect (tag
 *     and dimension); every other row is embedded again, the way thatch
 *     embeds it (store-and-tools §7: a memory's content, a matcher's
 *     description, an item's statement, as passages), and takes the
 *     model's tag. A record whose embedding is null keeps no vector.
 *  3. Conflicts are decided by the primary key in one UPSERT statement,
 *     never check-then-insert; `newer` compares the table's stamp column
 *     (updated_at, checked_at, created_at) as text, as the original
 *     compares its timestamps (§1.7).
 *  4. Records name columns, never positions (§1.3 rule 2); a column the
 *     record leaves out takes the schema's default.
 *  5. A memory record's anchors (anchor_doc.c) are checked with it and
 *     written in its savepoint when its row is; a skipped row keeps its
 *     own.
 *  6. A bad record is the record's failure (reported with where it came
 *     from and counted); only a failing model or database stops the
 *     import.
 *  6. A memory passes the gate a teammate's sync document passes
 *     (core/gate.c, issue 31): what a local memory_remember could not
 *     have stored is refused with the gate's reason, and a future date is
 *     clamped to now. What is imported records the file it came from
 *     (thatch_origin), in the batch's transaction.
 */
#include "core/xfer/xfer.h"

#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "core/anchor/anchor.h"
#include "core/gate.h"
#include "core/slug.h"
#include "core/store/store.h"
#include "core/xfer/xfer_int.h"
#include "embed/model.h"
#include "util/b64.h"
#include "util/os/clock.h"
#include "util/err.h"
#include "util/jsonx.h"
#include "util/sbuf.h"
#include "util/xmalloc.h"

#define XFER_BATCH_ROWS	500
#define XFER_BATCH_MS	200

/* The index of s in names[n], or -1. */
static int
name_index(const char *const *names, int n, const char *s)
{
	int	i;

	for (i = 0; i < n; i++)
		if (strcmp(s, names[i]) == 0)
			return i;
	return -1;
}

int
xfer_conflict_parse(const char *s, enum xfer_conflict *c)
{
	static const char *const	names[] = { "skip", "overwrite", "newer" };
	int				i = name_index(names, 3, s);

	if (i >= 0)
		*c = (enum xfer_conflict)i;
	return i >= 0 ? 0 : -1;
}

void
xfer_import_release(struct xfer_import *imp)
{
	if (imp->in_batch)
		store_exec(imp->st, "ROLLBACK", NULL);
	imp->in_batch = false;
	model_close(imp->model);
	imp->model = NULL;
	free(imp->vec);
	imp->vec = NULL;
}

static int
load_model(struct xfer_import *imp, struct err *err)
{
	if (imp->model != NULL)
		return 0;
	if (model_open(imp->model_opts, &imp->model, err) != 0)
		return err_wrap(err, "cannot embed the imported rows");
	imp->vec = xmalloc((size_t)model_dim(imp->model) * sizeof(float));
	return 0;
}

/* The record failed: report, count, go on (invariant 6). */
static int
record_failed(struct xfer_import *imp, const char *where, const char *why)
{
	imp->failed++;
	if (imp->report != NULL)
		imp->report(imp->report_arg, where, why);
	return 0;
}

/* Whether every column of rec has the type its kind needs; why[] says
 * which does not. */
static bool
check_columns(const struct xfer_table *t, const json_t *rec, char *why,
    size_t len)
{
	const struct xfer_col	*c;
	const json_t		*v;
	bool			 ok;

	for (c = t->cols; c->name != NULL; c++) {
		if ((v = json_object_get(rec, c->name)) == NULL) {
			if (!(c->flags & XFER_REQUIRED))
				continue;
			snprintf(why, len, "%s: no %s", t->type, c->name);
			return false;
		}
		if (json_is_null(v)) {
			if (c->flags & XFER_NULLABLE)
				continue;
			snprintf(why, len, "%s: %s is null", t->type, c->name);
			return false;
		}
		ok = c->kind == XFER_TEXT ? json_is_string(v) :
		    c->kind == XFER_INT ? json_is_integer(v) : json_is_number(v);
		if (!ok) {
			snprintf(why, len, "%s: %s is not %s", t->type, c->name,
			    c->kind == XFER_TEXT ? "a string" : c->kind ==
			    XFER_INT ? "an integer" : "a number");
			return false;
		}
	}
	return true;
}

/*
 * The vector for the row (invariant 2): *blob and *len to bind (NULL:
 * SQL NULL), *owned what to free. Sets rec's model to the tag when the text
 * was embedded again. 1 when the record is bad (why says so), -1 on a
 * failure that stops the import.
 */
static int
row_vector(struct xfer_import *imp, const struct xfer_table *t, json_t *rec,
    const void **blob, size_t *len, void **owned, char *why, size_t wlen,
    struct err *err)
{
	const json_t	*emb = json_object_get(rec, "embedding");
	const json_t	*tv = json_object_get(rec, t->embed_col);
	const char	*model = jsonx_str(rec, "model");
	unsigned char	*bytes = NULL;
	size_t		 n = 0;

	*blob = NULL;
	*len = 0;
	if (emb != NULL && json_is_null(emb))
		return 0;
	if (emb != NULL && (!json_is_string(emb) ||
	    (bytes = b64_decode(json_string_value(emb),
	    json_string_length(emb), &n)) == NULL || n % 4 != 0 || n == 0)) {
		free(bytes);
		snprintf(why, wlen, "%s: embedding is not base64 float32s",
		    t->type);
		return 1;
	}
	if (load_model(imp, err) != 0) {
		free(bytes);
		return -1;
	}
	if (bytes != NULL && model != NULL &&
	    strcmp(model, model_tag(imp->model)) == 0 &&
	    n == (size_t)model_dim(imp->model) * 4) {
		*blob = *owned = bytes;
		*len = n;
		return 0;
	}
	free(bytes);
	if (model_embed(imp->model, json_string_value(tv),
	    json_string_length(tv), EMBED_PASSAGE, imp->vec, err) != 0) {
		snprintf(why, wlen, "%s: cannot embed: %s", t->type, err->msg);
		return 1;
	}
	/* raw floats, as engine.c binds them: thatch runs little-endian */
	*blob = imp->vec;
	*len = (size_t)model_dim(imp->model) * 4;
	json_object_set_new(rec, "model", json_string(model_tag(imp->model)));
	return 0;
}

/* One row on its way in: the record, its vector, what an update keeps. */
struct xfer_row {
	const struct xfer_table	*t;
	const json_t		*rec;
	bool			 vec;		/* the table has embeddings */
	const void		*blob;		/* NULL: SQL NULL */
	size_t			 len;
	bool			 keep_created;	/* created_at is the import's
						   time: an update keeps the
						   row's (§1.4.1) */
	const char		*anchors;	/* a memory's, checked; NULL:
						   the record has none */
};

/* INSERT ... ON CONFLICT for the columns rec has (invariants 3, 4). */
static void
upsert_sql(const struct xfer_row *r, enum xfer_conflict conflict,
    struct sbuf *sql)
{
	const struct xfer_table	*t = r->t;
	const json_t		*rec = r->rec;
	const struct xfer_col	*c;
	bool			 first = true, any = false, vec = r->vec;

	sbuf_addf(sql, "INSERT INTO %s (", t->table);
	for (c = t->cols; c->name != NULL; c++)
		if (json_object_get(rec, c->name) != NULL) {
			sbuf_addf(sql, "%s%s", first ? "" : ", ", c->name);
			first = false;
		}
	if (vec)
		sbuf_adds(sql, ", embedding");
	sbuf_adds(sql, ") VALUES (");
	first = true;
	for (c = t->cols; c->name != NULL; c++)
		if (json_object_get(rec, c->name) != NULL) {
			sbuf_adds(sql, first ? "?" : ", ?");
			first = false;
		}
	if (vec)
		sbuf_adds(sql, ", ?");
	sbuf_adds(sql, ") ON CONFLICT (");
	first = true;
	for (c = t->cols; c->name != NULL; c++)
		if (c->flags & XFER_PK) {
			sbuf_addf(sql, "%s%s", first ? "" : ", ", c->name);
			first = false;
		}
	sbuf_adds(sql, ") DO ");
	if (conflict != XFER_SKIP) {
		for (c = t->cols; c->name != NULL; c++)
			if (!(c->flags & XFER_PK) &&
			    json_object_get(rec, c->name) != NULL &&
			    !(r->keep_created &&
			    strcmp(c->name, "created_at") == 0)) {
				sbuf_addf(sql, "%s%s = excluded.%s", any ? ", " :
				    "UPDATE SET ", c->name, c->name);
				any = true;
			}
		if (any && vec)
			sbuf_adds(sql, ", embedding = excluded.embedding");
	}
	if (!any)
		sbuf_adds(sql, "NOTHING");
	else if (conflict == XFER_NEWER && t->stamp != NULL)
		sbuf_addf(sql, " WHERE excluded.%s > %s.%s", t->stamp,
		    t->table, t->stamp);
}

static void
bind_json(sqlite3_stmt *stmt, int i, const json_t *v)
{
	if (json_is_string(v))
		sqlite3_bind_text(stmt, i, json_string_value(v),
		    (int)json_string_length(v), SQLITE_STATIC);
	else if (json_is_integer(v))
		sqlite3_bind_int64(stmt, i, json_integer_value(v));
	else if (json_is_number(v))
		sqlite3_bind_double(stmt, i, json_number_value(v));
	else
		sqlite3_bind_null(stmt, i);
}

/* Open the batch's transaction if none is (invariant 1). */
static int
batch_open(struct xfer_import *imp, struct err *err)
{
	if (imp->in_batch)
		return 0;
	if (store_exec(imp->st, "BEGIN IMMEDIATE", err) != 0)
		return -1;
	imp->in_batch = true;
	imp->batch_rows = 0;
	imp->batch_start = clock_mono_ms();
	return 0;
}

int
xfer_import_commit(struct xfer_import *imp, struct err *err)
{
	if (!imp->in_batch)
		return 0;
	imp->in_batch = false;
	if (store_exec(imp->st, "COMMIT", err) == 0)
		return 0;
	store_exec(imp->st, "ROLLBACK", NULL);
	return err_wrap(err, "cannot commit the imported rows");
}

/*
 * Write the row (invariant 1). Returns 1 imported, 0 skipped, 2 when the
 * database refused the row (a constraint: why says which), -1 otherwise.
 */
static int
write_row(struct xfer_import *imp, const struct xfer_row *r, char *why,
    size_t wlen, struct err *err)
{
	const struct xfer_table	*t = r->t;
	const json_t		*rec = r->rec;
	static const char	 SQL_STORE[] =
	    "INSERT OR IGNORE INTO stores (name) VALUES (?)";
	struct sbuf		 sql = SBUF_INIT;
	sqlite3_stmt		*stmt = NULL;
	const struct xfer_col	*c;
	int			 rc = -1, i = 1, step;

	sbuf_init(&sql);
	upsert_sql(r, imp->conflict, &sql);
	if (batch_open(imp, err) != 0 ||
	    store_exec(imp->st, "SAVEPOINT xfer_row", err) != 0)
		goto out;
	if (t->store_col != NULL) {
		if (store_prepare(imp->st, &stmt, SQL_STORE, err) != 0)
			goto out;
		bind_json(stmt, 1, json_object_get(rec, t->store_col));
		if (sqlite3_step(stmt) != SQLITE_DONE) {
			err_set(err, "cannot add store: %s",
			    sqlite3_errmsg(store_db(imp->st)));
			goto out;
		}
		sqlite3_finalize(stmt);
		stmt = NULL;
	}
	if (store_prepare(imp->st, &stmt, sql.buf, err) != 0)
		goto out;
	for (c = t->cols; c->name != NULL; c++)
		if (json_object_get(rec, c->name) != NULL)
			bind_json(stmt, i++, json_object_get(rec, c->name));
	if (r->vec && r->blob != NULL)
		sqlite3_bind_blob(stmt, i, r->blob, (int)r->len,
		    SQLITE_STATIC);
	step = sqlite3_step(stmt);
	if ((step & 0xff) == SQLITE_CONSTRAINT) {
		snprintf(why, wlen, "%s: %s", t->type,
		    sqlite3_errmsg(store_db(imp->st)));
		rc = 2;
		goto out;
	}
	if (step != SQLITE_DONE) {
		err_set(err, "cannot import a %s: %s", t->type,
		    sqlite3_errmsg(store_db(imp->st)));
		goto out;
	}
	rc = sqlite3_changes(store_db(imp->st)) > 0;
	/* a memory written takes its anchors in the same savepoint */
	if (rc == 1 && r->anchors != NULL && anchor_doc_put(imp->st,
	    jsonx_str(rec, "store"), jsonx_str(rec, "slug"), r->anchors,
	    err) != 0)
		rc = -1;
out:
	sqlite3_finalize(stmt);
	if (imp->in_batch) {
		if (rc < 0 || rc == 2)
			store_exec(imp->st, "ROLLBACK TO xfer_row", NULL);
		store_exec(imp->st, "RELEASE xfer_row", NULL);
	}
	sbuf_release(&sql);
	if (rc >= 0 && (++imp->batch_rows >= XFER_BATCH_ROWS ||
	    clock_mono_ms() - imp->batch_start >= XFER_BATCH_MS))
		return xfer_import_commit(imp, err) != 0 ? -1 : rc;
	return rc;
}

/* A memory record's anchors as the text to record (*out, NULL: none), or
 * 1 with why when the gate refuses them. */
static int
record_anchors(const json_t *rec, char **out, char *why, size_t wlen)
{
	const json_t	*v = json_object_get(rec, "anchors");
	const char	*bad;

	*out = NULL;
	if (v == NULL || json_is_null(v))
		return 0;
	*out = jsonx_dump(v, 0);
	if ((bad = anchor_doc_check(*out)) == NULL)
		return 0;
	snprintf(why, wlen, "memory: %s", bad);
	free(*out);
	*out = NULL;
	return 1;
}

static char *
dup_str(const json_t *rec, const char *key)
{
	const char	*s = jsonx_str(rec, key);

	return s != NULL ? xstrdup(s) : NULL;
}

/* Invariant 6: a memory record through the gate, its times clamped in
 * place. Returns the gate's reason, or NULL. */
static const char *
gate_record(struct xfer_import *imp, json_t *rec)
{
	static const char *const times[] = { "created_at", "updated_at",
		"last_recalled_at" };
	struct store_entry	 e;
	const char		*why;
	char			**slot[3];
	size_t			 i;

	memset(&e, 0, sizeof(e));
	e.slug = dup_str(rec, "slug");
	e.label = dup_str(rec, "label");
	e.content = dup_str(rec, "content");
	e.branch = dup_str(rec, "branch");
	e.created_at = dup_str(rec, "created_at");
	e.updated_at = dup_str(rec, "updated_at");
	e.last_recalled_at = dup_str(rec, "last_recalled_at");
	e.confidence = (int)json_integer_value(json_object_get(rec,
	    "confidence"));
	slot[0] = &e.created_at;
	slot[1] = &e.updated_at;
	slot[2] = &e.last_recalled_at;
	if ((why = gate_entry(&e, imp->now)) == NULL)
		for (i = 0; i < 3; i++)
			if (*slot[i] != NULL)
				json_object_set_new(rec, times[i],
				    json_string(*slot[i]));
	store_entry_release(&e);
	return why;
}

/* Invariant 6: the file an imported memory came from. */
static int
record_origin(struct xfer_import *imp, const json_t *rec, struct err *err)
{
	return store_origin_set(imp->st, jsonx_str(rec, "store"),
	    jsonx_str(rec, "slug"), STORE_ORIGIN_IMPORT, imp->file, NULL, err);
}

int
xfer_import_record(struct xfer_import *imp, json_t *rec, const char *where,
    struct err *err)
{
	const struct xfer_table	*t;
	const char		*type = jsonx_str(rec, "type"), *label, *gated;
	struct xfer_row		 row;
	void			*owned = NULL;
	char			 why[600], *slug, *anchors = NULL;
	int			 rc;

	if (!json_is_object(rec))
		return record_failed(imp, where, "not a JSON object");
	if (type != NULL && strcmp(type, "thatch-export") == 0)
		return 0;
	if ((t = xfer_table_find(type)) == NULL) {
		snprintf(why, sizeof(why), "unknown record type \"%s\"",
		    type != NULL ? type : "");
		return record_failed(imp, where, why);
	}
	if (imp->store != NULL && t->store_col != NULL)
		json_object_set_new(rec, t->store_col, json_string(imp->store));
	else if (imp->store != NULL && strcmp(t->table, "stores") == 0)
		json_object_set_new(rec, "name", json_string(imp->store));
	if (strcmp(t->table, "entries") == 0 &&
	    json_object_get(rec, "slug") == NULL &&
	    (label = jsonx_str(rec, "label")) != NULL) {
		slug = slug_make(label, strlen(label));
		json_object_set_new(rec, "slug", json_string(slug));
		free(slug);
	}
	memset(&row, 0, sizeof(row));
	row.t = t;
	row.rec = rec;
	row.vec = t->embed_col != NULL;
	if (strcmp(t->table, "entries") == 0 && imp->now != NULL) {
		if (json_object_get(rec, "created_at") == NULL) {
			json_object_set_new(rec, "created_at",
			    json_string(imp->now));
			row.keep_created = true;
		}
		if (json_object_get(rec, "updated_at") == NULL)
			json_object_set_new(rec, "updated_at",
			    json_string(imp->now));
	}
	if (!check_columns(t, rec, why, sizeof(why)))
		return record_failed(imp, where, why);
	if (strcmp(t->table, "entries") == 0 &&
	    (gated = gate_record(imp, rec)) != NULL) {
		snprintf(why, sizeof(why), "%s: %s", t->type, gated);
		return record_failed(imp, where, why);
	}
	if (strcmp(t->table, "entries") == 0 &&
	    record_anchors(rec, &anchors, why, sizeof(why)) != 0)
		return record_failed(imp, where, why);
	row.anchors = anchors;
	if (row.vec && (rc = row_vector(imp, t, rec, &row.blob, &row.len,
	    &owned, why, sizeof(why), err)) != 0) {
		free(anchors);
		if (rc < 0)
			return -1;
		return record_failed(imp, where, why);
	}
	rc = write_row(imp, &row, why, sizeof(why), err);
	free(owned);
	free(anchors);
	if (rc == 1 && strcmp(t->table, "entries") == 0 &&
	    record_origin(imp, rec, err) != 0)
		rc = -1;
	if (rc < 0)
		return -1;
	if (rc == 2)
		return record_failed(imp, where, why);
	/* a store row is the frame of the others, not a record to count */
	if (strcmp(t->table, "stores") == 0)
		return 0;
	if (rc == 1)
		imp->imported++;
	else
		imp->skipped++;
	return 0;
}

/* ---- our JSONL ----------------------------------------------------------- */

int
xfer_read_jsonl(struct xfer_import *imp, const char *buf, size_t n,
    const char *name, struct err *err)
{
	const char	*p = buf, *end = buf + n, *nl, *q;
	char		 where[4200];
	struct err	 perr;
	json_t		*rec;
	int		 line = 0, rc = 0;

	for (; rc == 0 && p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		line++;
		for (q = p; q < nl && strchr(" \t\r", *q) != NULL; q++)
			;
		if (q == nl)
			continue;
		snprintf(where, sizeof(where), "%s:%d", name, line);
		if ((rec = jsonx_parse(p, (size_t)(nl - p), "not JSON",
		    &perr)) == NULL) {
			record_failed(imp, where, perr.msg);
			continue;
		}
		rc = xfer_import_record(imp, rec, where, err);
		json_decref(rec);
	}
	return rc;
}
