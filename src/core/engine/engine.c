/*
 * engine.c — the scoring engine behind predictions and behaviors: four
 * tables (matchers, items, edges, provenance) and the rows the tools
 * write and read in them (engines-and-extras Part A). Ranking by cosine is
 * engine_match.c's, what the tools do with both is engine_ops.c's, and
 * how an item reads in a block line is engine_text.c's.
 *
 * Generic over a struct engine: the SQL of the engine's files is written
 * once with {M}, {I}, {E}, {P} and {FK} for the descriptor's table and
 * column names (compile-time constants, never user input) and {IN} for a
 * list of placeholders, expanded here (engine_prep, engine_int.h). It
 * knows nothing of models: it stores the vectors it is handed.
 *
 * Invariants:
 *  1. Confidence changes only through one UPDATE that reads the
 *     pre-update counts (§A4), so two processes never lose a signal.
 *  2. Embeddings are little-endian float32 BLOBs on every host
 *     (core/vector.c encodes and decodes them, for engine_match.c's
 *     reads too).
 *  3. Lists are by confidence then rowid, edges by rowid (§A3).
 */
#include "core/engine/engine.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "core/engine/engine_int.h"
#include "core/store/store.h"
#include "core/vector.h"
#include "util/err.h"
#include "util/os/plat.h"
#include "util/sbuf.h"
#include "util/xmalloc.h"

#define UUID_LEN	37

/* ---- SQL ---------------------------------------------------------------- */

static const char SQL_ENSURE_STORE[] =
	"INSERT OR IGNORE INTO stores (name) VALUES (?1)";
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

int
engine_prep(struct store *st, const struct engine *eng, const char *tmpl,
    size_t nin, sqlite3_stmt **stmt, struct err *err)
{
	char	*sql;
	int	 rc;

	sql = sql_expand(eng, tmpl, nin);
	rc = store_prepare(st, stmt, sql, err);
	free(sql);
	return rc;
}

int
engine_prep1(struct store *st, const struct engine *eng, const char *tmpl,
    const char *arg, sqlite3_stmt **stmt, struct err *err)
{
	if (engine_prep(st, eng, tmpl, 0, stmt, err) != 0)
		return -1;
	sqlite3_bind_text(*stmt, 1, arg, -1, SQLITE_STATIC);
	return 0;
}

int
engine_fail(struct store *st, struct err *err)
{
	return err_set(err, "database '%s': %s", store_path(st),
	    sqlite3_errmsg(store_db(st)));
}

int
engine_rows(struct store *st, sqlite3_stmt *stmt,
    int (*row)(sqlite3_stmt *, void *), void *arg, struct err *err)
{
	int	step, rc;

	while ((step = sqlite3_step(stmt)) == SQLITE_ROW)
		if (row(stmt, arg) != 0)
			break;
	rc = step == SQLITE_ROW || step == SQLITE_DONE ? 0 :
	    engine_fail(st, err);
	sqlite3_finalize(stmt);
	return rc;
}

int
engine_each_row(struct store *st, const struct engine *eng, const char *tmpl,
    const char *arg, int (*row)(sqlite3_stmt *, void *), void *rarg,
    struct err *err)
{
	sqlite3_stmt	*stmt = NULL;

	if (engine_prep1(st, eng, tmpl, arg, &stmt, err) != 0)
		return -1;
	return engine_rows(st, stmt, row, rarg, err);
}

/* Step a statement that returns no rows, then finalize it (always). */
static int
step_done(struct store *st, sqlite3_stmt *stmt, struct err *err)
{
	int	rc;

	rc = sqlite3_step(stmt) == SQLITE_DONE ? 0 : engine_fail(st, err);
	sqlite3_finalize(stmt);
	return rc;
}

char *
engine_column_dup(sqlite3_stmt *stmt, int col)
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
	if (plat_random(b, sizeof(b)) != 0)
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

/* ---- releases, names, counts ------------------------------------------- */

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

long
engine_evidence(double confirms, double disconfirms)
{
	return (long)round(confirms + disconfirms);	/* halves up (§0.2) */
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

/* ---- building blocks ---------------------------------------------------- */

static int
ensure_store(struct store *st, const char *store, struct err *err)
{
	sqlite3_stmt	*stmt = NULL;

	if (store_prepare(st, &stmt, SQL_ENSURE_STORE, err) != 0)
		return -1;
	sqlite3_bind_text(stmt, 1, store, -1, SQLITE_STATIC);
	return step_done(st, stmt, err);
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
	    engine_prep(st, eng, tmpl, 0, &stmt, err) != 0)
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

	if (engine_prep1(st, eng, SQL_EDGE_INSERT, matcher_id, &stmt,
	    err) != 0)
		return -1;
	sqlite3_bind_text(stmt, 2, item_id, -1, SQLITE_STATIC);
	sqlite3_bind_double(stmt, 3, weight);
	sqlite3_bind_text(stmt, 4, now, -1, SQLITE_STATIC);
	return step_done(st, stmt, err);
}

int
engine_adjust(struct store *st, const struct engine *eng,
    const char *item_id, enum engine_signal sig, const char *now,
    struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	double		 dc = 0, dd = 0;

	switch (sig) {
	case ENGINE_CONFIRM:	dc = 1; break;
	case ENGINE_DISCONFIRM:	dd = 1; break;
	case ENGINE_SOFT:	dd = ENGINE_W_SOFT; break;
	default:		return 0;
	}
	if (engine_prep(st, eng, SQL_ADJUST, 0, &stmt, err) != 0)
		return -1;
	sqlite3_bind_double(stmt, 1, dc);
	sqlite3_bind_double(stmt, 2, dd);
	sqlite3_bind_double(stmt, 3, ENGINE_K * ENGINE_P0);
	sqlite3_bind_double(stmt, 4, ENGINE_K);
	sqlite3_bind_text(stmt, 5, now, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 6, item_id, -1, SQLITE_STATIC);
	return step_done(st, stmt, err);
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
	    engine_prep(st, eng, SQL_PROVENANCE_INSERT, 0, &stmt, err) != 0)
		goto out;
	sqlite3_bind_text(stmt, 1, id, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 2, item_id, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 3, signal, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 4, detail, -1, SQLITE_STATIC);
	rc = step_done(st, stmt, err);
out:
	free(id);
	return rc;
}

static void
item_read(sqlite3_stmt *stmt, struct engine_item *it)
{
	it->id = engine_column_dup(stmt, 0);
	it->store = engine_column_dup(stmt, 1);
	it->statement = engine_column_dup(stmt, 2);
	it->rationale = engine_column_dup(stmt, 3);
	it->confidence = sqlite3_column_double(stmt, 4);
	it->confirms = sqlite3_column_double(stmt, 5);
	it->disconfirms = sqlite3_column_double(stmt, 6);
}

/* The first row is the item (engine_get_item). */
struct found_item {
	struct engine_item	*it;
	bool			*found;
};

static int
item_found(sqlite3_stmt *stmt, void *arg)
{
	struct found_item	*f = arg;

	item_read(stmt, f->it);
	*f->found = true;
	return 1;
}

int
engine_get_item(struct store *st, const struct engine *eng, const char *id,
    struct engine_item *it, bool *found, struct err *err)
{
	struct found_item	f = { it, found };

	*found = false;
	return engine_each_row(st, eng, SQL_ITEM_GET, id, item_found, &f, err);
}

/* engine_each_item's fn over each row read as an item. */
struct item_visit {
	int	(*fn)(const struct engine_item *, void *);
	void	*arg;
};

static int
item_visit(sqlite3_stmt *stmt, void *arg)
{
	struct item_visit	*v = arg;
	struct engine_item	 it;
	int			 stop;

	item_read(stmt, &it);
	stop = v->fn(&it, v->arg);
	engine_item_release(&it);
	return stop;
}

int
engine_each_item(struct store *st, const struct engine *eng,
    const char *store, int (*fn)(const struct engine_item *, void *),
    void *arg, struct err *err)
{
	struct item_visit	v = { fn, arg };

	return engine_each_row(st, eng, SQL_ITEM_LIST, store, item_visit, &v,
	    err);
}

/* The first row's first column (engine_first_matcher). */
static int
first_column(sqlite3_stmt *stmt, void *arg)
{
	*(char **)arg = engine_column_dup(stmt, 0);
	return 1;
}

int
engine_first_matcher(struct store *st, const struct engine *eng,
    const char *item_id, char **id, struct err *err)
{
	*id = NULL;
	return engine_each_row(st, eng, ENGINE_SQL_ITEM_MATCHERS, item_id,
	    first_column, id, err);
}

int
engine_delete_item(struct store *st, const struct engine *eng,
    const char *id, bool *deleted, struct err *err)
{
	sqlite3_stmt	*stmt = NULL;

	*deleted = false;
	if (engine_prep1(st, eng, SQL_ITEM_DELETE, id, &stmt, err) != 0 ||
	    step_done(st, stmt, err) != 0)
		return -1;
	/* the connection's count, which finalizing leaves as it was */
	*deleted = sqlite3_changes(store_db(st)) > 0;
	return 0;
}
