/*
 * xfer.c — export: every row a store holds, as JSON records, in an order
 * and spelling that depend only on the rows (docs/export.md). Also the
 * table rows xfer_import.c reads records back with, and the conversion
 * between a memory record and a struct store_entry (the markdown format).
 *
 * Only this module's files write SQL for export and import; like the
 * other core modules that share the file (core/engine/), they use
 * store_prepare on the store's connection.
 *  1. Deterministic: tables in xfer_tables[] order, rows by primary key
 *     (BINARY), keys in column order, numbers in their shortest exact
 *     form (jsonx_dump_sbuf). The same rows give the same bytes.
 *  2. Lossless: every column of the original's schema (store-and-tools
 *     §1.4.1, §1.4.2) is in a record, NULLs as null; a vector is its BLOB
 *     in base64, so it comes back bit for bit. Tables and columns the
 *     schema does not have (chat, repo_paths) are not exported, but for
 *     a memory's anchors, which travel in its record ("anchors").
 *  3. Explicit column lists only (§1.3 rule 2): positions differ between
 *     fresh and migrated files.
 */
#include "core/xfer/xfer.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "core/anchor/anchor.h"
#include "core/store/store.h"
#include "core/xfer/xfer_int.h"
#include "util/b64.h"
#include "util/err.h"
#include "util/jsonx.h"
#include "util/sbuf.h"
#include "util/xmalloc.h"

#define REQ	XFER_REQUIRED
#define NUL_	XFER_NULLABLE
#define PK	XFER_PK

static const struct xfer_col stores_cols[] = {
	{ "name", XFER_TEXT, REQ | PK },
	{ NULL, 0, 0 },
};

static const struct xfer_col entries_cols[] = {
	{ "store", XFER_TEXT, REQ | PK },
	{ "slug", XFER_TEXT, PK },	/* default: slug_make(label) */
	{ "label", XFER_TEXT, REQ },
	{ "content", XFER_TEXT, REQ },
	{ "branch", XFER_TEXT, NUL_ },
	{ "confidence", XFER_INT, NUL_ },
	{ "archived", XFER_INT, 0 },
	{ "created_at", XFER_TEXT, 0 },
	{ "updated_at", XFER_TEXT, 0 },
	{ "recall_count", XFER_INT, 0 },
	{ "last_recalled_at", XFER_TEXT, NUL_ },
	{ "model", XFER_TEXT, NUL_ },
	{ NULL, 0, 0 },
};

static const struct xfer_col matcher_cols[] = {
	{ "id", XFER_TEXT, REQ | PK },
	{ "store", XFER_TEXT, REQ },
	{ "description", XFER_TEXT, REQ },
	{ "model", XFER_TEXT, NUL_ },
	{ "created_at", XFER_TEXT, 0 },
	{ "updated_at", XFER_TEXT, 0 },
	{ NULL, 0, 0 },
};

static const struct xfer_col item_cols[] = {
	{ "id", XFER_TEXT, REQ | PK },
	{ "store", XFER_TEXT, REQ },
	{ "statement", XFER_TEXT, REQ },
	{ "rationale", XFER_TEXT, NUL_ },
	{ "model", XFER_TEXT, NUL_ },
	{ "confidence", XFER_REAL, 0 },
	{ "confirm_count", XFER_REAL, 0 },
	{ "disconfirm_count", XFER_REAL, 0 },
	{ "created_at", XFER_TEXT, 0 },
	{ "updated_at", XFER_TEXT, 0 },
	{ NULL, 0, 0 },
};

#define ENGINE_COLS(item)						\
static const struct xfer_col item##_edge_cols[] = {			\
	{ "matcher_id", XFER_TEXT, REQ | PK },				\
	{ #item "_id", XFER_TEXT, REQ | PK },				\
	{ "weight", XFER_REAL, 0 },					\
	{ "created_at", XFER_TEXT, 0 },					\
	{ NULL, 0, 0 },							\
};									\
static const struct xfer_col item##_prov_cols[] = {			\
	{ "id", XFER_TEXT, REQ | PK },					\
	{ #item "_id", XFER_TEXT, REQ },				\
	{ "signal", XFER_TEXT, REQ },					\
	{ "detail", XFER_TEXT, NUL_ },					\
	{ "created_at", XFER_TEXT, 0 },					\
	{ NULL, 0, 0 },							\
}
ENGINE_COLS(prediction);
ENGINE_COLS(behavior);

static const struct xfer_col verdict_cols[] = {
	{ "store", XFER_TEXT, REQ | PK },
	{ "slug_a", XFER_TEXT, REQ | PK },
	{ "slug_b", XFER_TEXT, REQ | PK },
	{ "status", XFER_TEXT, REQ },
	{ "checked_at", XFER_TEXT, REQ },
	{ NULL, 0, 0 },
};

/* The two engines' four tables each (store-and-tools §1.4.2). */
#define ENGINE_TABLES(item, items)					\
	{ #item "_matcher", #item "_matchers", matcher_cols,		\
	  "description", "store", "store = ?1", "id", "updated_at" },	\
	{ #item, #items, item_cols, "statement", "store", "store = ?1",	\
	  "id", "updated_at" },						\
	{ #item "_edge", #item "_edges", item##_edge_cols, NULL, NULL,	\
	  "matcher_id IN (SELECT id FROM " #item "_matchers "		\
	  "WHERE store = ?1)", "matcher_id, " #item "_id", "created_at" },\
	{ #item "_provenance", #item "_provenance", item##_prov_cols,	\
	  NULL, NULL, #item "_id IN (SELECT id FROM " #items		\
	  " WHERE store = ?1)", "id", "created_at" }

/* Import order = export order: a row comes after the rows it references. */
const struct xfer_table xfer_tables[] = {
	{ "store", "stores", stores_cols, NULL, NULL, "name = ?1", "name",
	  NULL },
	{ "memory", "entries", entries_cols, "content", "store",
	  "store = ?1", "store, slug", "updated_at" },
	ENGINE_TABLES(prediction, predictions),
	ENGINE_TABLES(behavior, behaviors),
	{ "verdict", "dedup_pairs", verdict_cols, NULL, "store",
	  "store = ?1", "store, slug_a, slug_b", "checked_at" },
	{ NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL },
};

const struct xfer_table *
xfer_table_find(const char *type)
{
	const struct xfer_table	*t;

	for (t = xfer_tables; type != NULL && t->type != NULL; t++)
		if (strcmp(t->type, type) == 0)
			return t;
	return NULL;
}

static void
select_sql(const struct xfer_table *t, bool scoped, bool vectors,
    struct sbuf *sql)
{
	const struct xfer_col	*c;

	sbuf_adds(sql, "SELECT ");
	for (c = t->cols; c->name != NULL; c++)
		sbuf_addf(sql, "%s%s", c == t->cols ? "" : ", ", c->name);
	if (vectors && t->embed_col != NULL)
		sbuf_adds(sql, ", embedding");
	sbuf_addf(sql, " FROM %s", t->table);
	if (scoped)
		sbuf_addf(sql, " WHERE %s", t->scope);
	sbuf_addf(sql, " ORDER BY %s", t->order);
}

/* Column i of the current row as JSON by the column's kind; NULL with err
 * set when text is not UTF-8. */
static json_t *
column_json(sqlite3_stmt *stmt, int i, enum xfer_kind kind, struct err *err)
{
	json_t	*v;

	if (sqlite3_column_type(stmt, i) == SQLITE_NULL)
		return json_null();
	switch (kind) {
	case XFER_INT:
		return json_integer(sqlite3_column_int64(stmt, i));
	case XFER_REAL:
		return json_real(sqlite3_column_double(stmt, i));
	case XFER_TEXT:
		break;
	}
	v = json_stringn((const char *)sqlite3_column_text(stmt, i),
	    (size_t)sqlite3_column_bytes(stmt, i));
	if (v == NULL)
		err_set(err, "column %s is not UTF-8",
		    sqlite3_column_name(stmt, i));
	return v;
}

static json_t *
blob_json(sqlite3_stmt *stmt, int i)
{
	struct sbuf	sb = SBUF_INIT;
	json_t		*v;

	if (sqlite3_column_type(stmt, i) == SQLITE_NULL)
		return json_null();
	sbuf_init(&sb);
	b64_encode(&sb, sqlite3_column_blob(stmt, i),
	    (size_t)sqlite3_column_bytes(stmt, i));
	v = json_stringn(sb.buf, sb.len);
	sbuf_release(&sb);
	return v;
}

/* A memory record's anchors (anchor_doc.c), when it has any: they travel
 * with it (invariant 2). */
static void
add_anchors(struct store *st, json_t *rec)
{
	char	*text = anchor_doc_get(st, jsonx_str(rec, "store"),
		    jsonx_str(rec, "slug"));

	if (text != NULL)
		json_object_set_new(rec, "anchors", json_loads(text, 0, NULL));
	free(text);
}

/* One table's rows to fn; see xfer_export. */
static int
export_table(struct store *st, const struct xfer_table *t, const char *store,
    bool vectors, int (*fn)(const json_t *, void *), void *arg,
    struct err *err)
{
	struct sbuf	 sql = SBUF_INIT;
	sqlite3_stmt	*stmt = NULL;
	json_t		*rec = NULL, *v;
	int		 rc = -1, step, i, ncols;

	sbuf_init(&sql);
	select_sql(t, store != NULL, vectors, &sql);
	if (store_prepare(st, &stmt, sql.buf, err) != 0)
		goto out;
	if (store != NULL)
		sqlite3_bind_text(stmt, 1, store, -1, SQLITE_STATIC);
	ncols = sqlite3_column_count(stmt);
	while ((step = sqlite3_step(stmt)) == SQLITE_ROW) {
		rec = json_object();
		json_object_set_new(rec, "type", json_string(t->type));
		for (i = 0; t->cols[i].name != NULL; i++) {
			if ((v = column_json(stmt, i, t->cols[i].kind,
			    err)) == NULL) {
				err_wrap(err, "cannot export a %s row of "
				    "store %s", t->type, store ? store : "*");
				goto out;
			}
			json_object_set_new(rec, t->cols[i].name, v);
		}
		if (strcmp(t->table, "entries") == 0)
			add_anchors(st, rec);
		if (i < ncols)
			json_object_set_new(rec, "embedding",
			    blob_json(stmt, i));
		if ((rc = fn(rec, arg)) != 0)
			goto out;
		json_decref(rec);
		rec = NULL;
		rc = -1;
	}
	if (step != SQLITE_DONE) {
		err_set(err, "cannot read %s: %s", t->table,
		    sqlite3_errmsg(store_db(st)));
		goto out;
	}
	rc = 0;
out:
	json_decref(rec);
	sqlite3_finalize(stmt);
	sbuf_release(&sql);
	return rc;
}

int
xfer_export(struct store *st, const char *store, bool vectors,
    int (*fn)(const json_t *, void *), void *arg, struct err *err)
{
	const struct xfer_table	*t;
	int			 rc = -1;

	/* one read transaction: the export is one moment of the store */
	if (store_exec(st, "BEGIN", err) != 0)
		return -1;
	for (t = xfer_tables; t->type != NULL; t++)
		if ((rc = export_table(st, t, store, vectors, fn, arg,
		    err)) != 0)
			break;
	store_exec(st, "COMMIT", NULL);
	return rc;
}

void
xfer_line(const json_t *rec, struct sbuf *out)
{
	jsonx_dump_sbuf(out, rec, 0);
	sbuf_addc(out, '\n');
}

/* ---- a memory record as a struct store_entry ----------------------------- */

static json_t *
str_or_null(const char *s)
{
	return s != NULL ? json_string(s) : json_null();
}

json_t *
xfer_entry_record(const struct store_entry *e)
{
	json_t		*rec = json_object();
	struct sbuf	 sb = SBUF_INIT;

	json_object_set_new(rec, "type", json_string("memory"));
	json_object_set_new(rec, "store", str_or_null(e->store));
	json_object_set_new(rec, "slug", str_or_null(e->slug));
	json_object_set_new(rec, "label", str_or_null(e->label));
	json_object_set_new(rec, "content", str_or_null(e->content));
	json_object_set_new(rec, "branch", str_or_null(e->branch));
	json_object_set_new(rec, "confidence", e->confidence != 0 ?
	    json_integer(e->confidence) : json_null());
	json_object_set_new(rec, "archived", json_integer(e->archived));
	/* absent times take the column defaults on import */
	if (e->created_at != NULL)
		json_object_set_new(rec, "created_at",
		    json_string(e->created_at));
	if (e->updated_at != NULL)
		json_object_set_new(rec, "updated_at",
		    json_string(e->updated_at));
	json_object_set_new(rec, "recall_count", json_integer(e->recall_count));
	json_object_set_new(rec, "last_recalled_at",
	    str_or_null(e->last_recalled_at));
	json_object_set_new(rec, "model", str_or_null(e->model));
	if (e->anchors != NULL)
		json_object_set_new(rec, "anchors",
		    json_loads(e->anchors, 0, NULL));
	if (e->dim > 0) {
		sbuf_init(&sb);
		b64_encode_f32(&sb, e->vec, e->dim);
		json_object_set_new(rec, "embedding", json_string(sb.buf));
		sbuf_release(&sb);
	}
	return rec;
}

/* A string field of rec: *out a copy, NULL for null or absent; -1 if it
 * is there and not a NUL-free string. */
static int
take_str(const json_t *rec, const char *key, char **out, struct err *err)
{
	const json_t	*v = json_object_get(rec, key);

	if (v == NULL || json_is_null(v))
		return 0;
	if (!json_is_string(v) ||
	    strlen(json_string_value(v)) != json_string_length(v))
		return err_set(err, "%s is not a string without NUL bytes",
		    key);
	*out = xstrdup(json_string_value(v));
	return 0;
}

static int
take_int(const json_t *rec, const char *key, int *out, struct err *err)
{
	const json_t	*v = json_object_get(rec, key);

	if (v == NULL || json_is_null(v))
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < INT32_MIN ||
	    json_integer_value(v) > INT32_MAX)
		return err_set(err, "%s is not an integer", key);
	*out = (int)json_integer_value(v);
	return 0;
}

int
xfer_record_entry(const json_t *rec, struct store_entry *e, struct err *err)
{
	static const struct { const char *key; size_t off; } strs[] = {
		{ "store", offsetof(struct store_entry, store) },
		{ "slug", offsetof(struct store_entry, slug) },
		{ "label", offsetof(struct store_entry, label) },
		{ "content", offsetof(struct store_entry, content) },
		{ "branch", offsetof(struct store_entry, branch) },
		{ "created_at", offsetof(struct store_entry, created_at) },
		{ "updated_at", offsetof(struct store_entry, updated_at) },
		{ "last_recalled_at",
		    offsetof(struct store_entry, last_recalled_at) },
		{ "model", offsetof(struct store_entry, model) },
	};
	const char	*b64;
	size_t		 i;
	int		 archived = 0;

	memset(e, 0, sizeof(*e));
	for (i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
		if (take_str(rec, strs[i].key,
		    (char **)((char *)e + strs[i].off), err) != 0)
			return -1;
	if (take_int(rec, "confidence", &e->confidence, err) != 0 ||
	    take_int(rec, "archived", &archived, err) != 0 ||
	    take_int(rec, "recall_count", &e->recall_count, err) != 0)
		return -1;
	e->archived = archived != 0;
	if (json_is_array(json_object_get(rec, "anchors")))
		e->anchors = jsonx_dump(json_object_get(rec, "anchors"), 0);
	if ((b64 = jsonx_str(rec, "embedding")) == NULL)
		return 0;
	if ((e->vec = b64_decode_f32(b64, strlen(b64), &e->dim)) == NULL)
		return err_set(err, "embedding is not base64 float32s");
	return 0;
}

void
xfer_file_name(struct sbuf *out, const char *s)
{
	static const char	hex[] = "0123456789ABCDEF";
	unsigned char		c;

	if (*s == '\0')
		sbuf_addc(out, '%');
	for (; (c = (unsigned char)*s) != '\0'; s++)
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '_' || c == '-')
			sbuf_addc(out, (char)c);
		else {
			sbuf_addc(out, '%');
			sbuf_addc(out, hex[c >> 4]);
			sbuf_addc(out, hex[c & 15]);
		}
}
