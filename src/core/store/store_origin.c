/*
 * store_origin.c — where each memory came from (issue 31): this
 * machine's agent or CLI, an import of a named file, or a teammate
 * through sync (the git author and commit), so that what others wrote is
 * named as theirs wherever it reaches an agent.
 *
 * Invariants:
 *  1. The provenance lives in thatch_origin, a table of its own that the
 *     original never reads (store.c invariant 2): a file that has it
 *     still opens, reads and writes in the original.
 *  2. A row never outlives its memory, whoever deletes it: a trigger on
 *     entries drops it in the deleter's own transaction (the original's
 *     DELETEs too), and another follows a memory that changes store or
 *     slug (memory_move).
 *  3. No row means the user's own memory of unknown path (written before
 *     this table, or by the original); a database without the table (a
 *     read-only file that could not be set up) reads as no rows.
 */
#include "core/store/store.h"

#include <stdlib.h>
#include <string.h>

#include "core/store/store_int.h"
#include "text/fence.h"
#include "util/err.h"
#include "util/sbuf.h"
#include "util/xmalloc.h"

static const struct {
	const char	*name, *ddl;
} own[] = {
	{ "thatch_origin", "CREATE TABLE thatch_origin (\n"
	  "  store  TEXT NOT NULL,\n"
	  "  slug   TEXT NOT NULL,\n"
	  "  kind   TEXT NOT NULL,\n"
	  "  source TEXT,\n"
	  "  ref    TEXT,\n"
	  "  PRIMARY KEY (store, slug)\n"
	  ")" },
	{ "thatch_origin_ad", "CREATE TRIGGER thatch_origin_ad AFTER DELETE "
	  "ON entries BEGIN DELETE FROM thatch_origin WHERE "
	  "store = old.store AND slug = old.slug; END" },
	{ "thatch_origin_au", "CREATE TRIGGER thatch_origin_au AFTER UPDATE "
	  "OF slug, store ON entries WHEN old.slug IS NOT new.slug OR "
	  "old.store IS NOT new.store BEGIN UPDATE OR REPLACE thatch_origin "
	  "SET store = new.store, slug = new.slug WHERE store = old.store "
	  "AND slug = old.slug; END" },
};
#define NOWN	(sizeof(own) / sizeof(own[0]))

/* The kinds by their stored names, in enum order. */
static const char *const kinds[] = {
	[STORE_ORIGIN_NONE] = "",
	[STORE_ORIGIN_AGENT] = "agent",
	[STORE_ORIGIN_CLI] = "cli",
	[STORE_ORIGIN_IMPORT] = "import",
	[STORE_ORIGIN_SYNC] = "sync",
};
#define NKINDS	(sizeof(kinds) / sizeof(kinds[0]))

/* store.c's setup step: create what is missing (store.c invariant 5). */
int
store_origin_setup(struct store *st, bool write, int *todo, struct err *err)
{
	size_t	i;
	bool	found = false;

	for (i = 0; i < NOWN; i++) {
		if (store_has_object(st, own[i].name, &found, err) != 0)
			return -1;
		if (found)
			continue;
		if (!write) {
			(*todo)++;
			return 0;
		}
		if (store_exec(st, own[i].ddl, err) != 0)
			return -1;
	}
	return 0;
}

const char *
store_origin_kind_name(enum store_origin_kind kind)
{
	return (size_t)kind < NKINDS ? kinds[kind] : "";
}

int
store_origin_set(struct store *st, const char *store, const char *slug,
    enum store_origin_kind kind, const char *source, const char *ref,
    struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	int		 step;

	if (store_prepare(st, &stmt, "INSERT OR REPLACE INTO thatch_origin "
	    "(store, slug, kind, source, ref) VALUES (?, ?, ?, ?, ?)",
	    err) != 0)
		return -1;
	sqlite3_bind_text(stmt, 1, store, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 2, slug, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 3, store_origin_kind_name(kind), -1,
	    SQLITE_STATIC);
	sqlite3_bind_text(stmt, 4, source, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 5, ref, -1, SQLITE_STATIC);
	step = sqlite3_step(stmt);
	sqlite3_finalize(stmt);
	return step == SQLITE_DONE ? 0 : store_fail(st, err,
	    "cannot record where a memory came from");
}

static char *
dup_col(sqlite3_stmt *stmt, int i)
{
	const char	*s = (const char *)sqlite3_column_text(stmt, i);

	return s != NULL ? xstrdup(s) : NULL;
}

int
store_origin_get(struct store *st, const char *store, const char *slug,
    struct store_origin *o, struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	const char	*kind;
	size_t		 i;
	int		 step;

	memset(o, 0, sizeof(*o));
	/* invariant 3: no table is no row */
	if (sqlite3_prepare_v2(store_db(st), "SELECT kind, source, ref FROM "
	    "thatch_origin WHERE store = ? AND slug = ?", -1, &stmt,
	    NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_text(stmt, 1, store, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 2, slug, -1, SQLITE_STATIC);
	if ((step = sqlite3_step(stmt)) == SQLITE_ROW) {
		kind = (const char *)sqlite3_column_text(stmt, 0);
		for (i = 1; kind != NULL && i < NKINDS; i++)
			if (strcmp(kind, kinds[i]) == 0)
				o->kind = (enum store_origin_kind)i;
		o->source = dup_col(stmt, 1);
		o->ref = dup_col(stmt, 2);
	}
	sqlite3_finalize(stmt);
	if (step != SQLITE_ROW && step != SQLITE_DONE)
		return store_fail(st, err, "cannot read where a memory came "
		    "from");
	return 0;
}

void
store_origin_release(struct store_origin *o)
{
	free(o->source);
	free(o->ref);
	memset(o, 0, sizeof(*o));
}

bool
store_origin_foreign(const struct store_origin *o)
{
	return o->kind == STORE_ORIGIN_IMPORT || o->kind == STORE_ORIGIN_SYNC;
}

void
store_origin_tag(const struct store_origin *o, struct sbuf *out)
{
	if (!store_origin_foreign(o))
		return;
	sbuf_adds(out, "[from ");
	/* the source is a teammate's git author or a file's name */
	text_fence_field(out, o->source != NULL ? o->source : "unknown");
	sbuf_addf(out, " via %s]", store_origin_kind_name(o->kind));
}

bool
store_origin_lookup_tag(struct store *st, const char *store,
    const char *slug, struct sbuf *out)
{
	struct store_origin	o;
	struct err		err;
	bool			foreign;

	/* a tag that cannot be read is left out, as for a memory of old */
	if (store_origin_get(st, store, slug, &o, &err) != 0)
		return false;
	if ((foreign = store_origin_foreign(&o)))
		store_origin_tag(&o, out);
	store_origin_release(&o);
	return foreign;
}
