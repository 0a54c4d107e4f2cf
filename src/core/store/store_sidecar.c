/*
 * store_sidecar.c — the vector file beside the database: a cold process
 * (`thatch search`, a hook, a server's first recall) maps the search
 * cache from it instead of reading and quantising every embedding BLOB,
 * and it is never trusted unless it is exactly what the table holds
 * (docs/store.md, "The vector file"). This file knows the file, where it
 * is, how it is mapped and written, and the generation it is keyed by;
 * the matrices that borrow from it, and when to read or save it, are
 * store_cache.c's.
 *
 * Invariants:
 *  1. The database keeps its own generation: entries_vecgen holds one
 *     64-bit value that three triggers on entries set to random() on
 *     every insert, delete, and update that changes a row's rowid, store,
 *     embedding, model, branch or archived flag — in the writer's own
 *     transaction, whoever writes (the original too, like the FTS
 *     triggers). A recall stamp or a write to another table leaves it.
 *  2. A file's key is (gen, schema_version) read in the same snapshot as
 *     the rows it was built from; a reader uses it only when its own
 *     snapshot shows the same key and the three triggers exactly as we
 *     create them. Equal keys mean no commit between the two snapshots
 *     changed a cached column (any such commit drew a fresh random gen;
 *     a state with the same gen is the same state, or a 2^-64 accident),
 *     and no schema change (VACUUM, which may renumber rowids, dropping
 *     or altering a trigger) happened: each bumps schema_version.
 *  3. A file is private and whole or absent: created beside the database
 *     under a temporary name (O_EXCL | O_NOFOLLOW, 0600) and renamed over
 *     the old one, so concurrent builders each leave a complete file
 *     (the last rename wins; an older key is merely stale). It is opened
 *     O_NOFOLLOW, must be a regular file of our own without group or
 *     other write bits, and vecfile_parse checks every byte (checksums
 *     included) before a matrix borrows from it. A cut while mapped
 *     reads zeros under mapguard, and the search is redone from SQLite.
 *  4. A whole file with an older key is a starting point, never an
 *     answer: the cache marks its matrices pending, so the search's
 *     refresh walks the table and re-quantises only the rows whose BLOB
 *     signature differs (as for a warm cache after another process's
 *     commit), and the result is saved under the new key.
 *  5. Any failure — no key (a read-only file the triggers could not be
 *     added to), no file, a read-only folder, a parse error — leaves the
 *     search reading SQLite as before; nothing here reports an error.
 */
#include "core/store/store.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/store/store_int.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/log.h"
#include "util/os/mapguard.h"
#include "util/xmalloc.h"

#define SUFFIX	"-vectors"

/* The WHEN clause of the update trigger: the columns the cache holds. */
#define CHANGED	"old.rowid IS NOT new.rowid OR old.store IS NOT new.store " \
	"OR old.embedding IS NOT new.embedding OR old.model IS NOT new.model " \
	"OR old.branch IS NOT new.branch OR old.archived IS NOT new.archived"
#define BUMP	"UPDATE entries_vecgen SET gen = random(); END"

/*
 * thatch's objects beside the original's schema, other than the FTS
 * index (store_fts.c): the generation (invariant 1) and entries_list,
 * the index `thatch list` reads instead of the table (every column it
 * prints, in its order, so 10,000 memories list from ~1 MB of index
 * rather than ~20 MB of rows). Triggers are compared by their text.
 */
static const struct own {
	const char	*type, *name, *ddl;
} own[] = {
	{ "table", "entries_vecgen", "CREATE TABLE entries_vecgen "
	  "(id INTEGER PRIMARY KEY CHECK (id = 0), gen INTEGER NOT NULL)" },
	{ "trigger", "entries_vecgen_ai", "CREATE TRIGGER entries_vecgen_ai "
	  "AFTER INSERT ON entries BEGIN " BUMP },
	{ "trigger", "entries_vecgen_ad", "CREATE TRIGGER entries_vecgen_ad "
	  "AFTER DELETE ON entries BEGIN " BUMP },
	{ "trigger", "entries_vecgen_au", "CREATE TRIGGER entries_vecgen_au "
	  "AFTER UPDATE ON entries WHEN " CHANGED " BEGIN " BUMP },
	{ "index", "entries_list", "CREATE INDEX entries_list ON "
	  "entries(store, label, branch, confidence, updated_at, archived)" },
};
#define NOWN	(sizeof(own) / sizeof(own[0]))
#define TRIGGER_SQL	"SELECT count(*) FROM sqlite_master WHERE " \
	"type = 'trigger' AND tbl_name = 'entries' AND sql IN (?1, ?2, ?3)"

/* How many of own[] are in the schema (one query: every open asks). */
static int
count_own(struct store *st, int *n, struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	size_t		 i;
	int		 step;

	if (store_prepare(st, &stmt, "SELECT count(*) FROM sqlite_master "
	    "WHERE name IN (?, ?, ?, ?, ?)", err) != 0)
		return -1;
	for (i = 0; i < NOWN; i++)
		sqlite3_bind_text(stmt, (int)i + 1, own[i].name, -1,
		    SQLITE_STATIC);
	step = sqlite3_step(stmt);
	*n = step == SQLITE_ROW ? sqlite3_column_int(stmt, 0) : 0;
	sqlite3_finalize(stmt);
	return step == SQLITE_ROW ? 0 : store_fail(st, err, "cannot read "
	    "the schema");
}

/* store.c's setup step: create what is missing (store.c invariant 5). */
int
store_sidecar_setup(struct store *st, bool write, int *todo, struct err *err)
{
	size_t	i;
	bool	found = false, missing = false;
	int	n;

	_Static_assert(NOWN == 5, "count_own binds five names");
	if (count_own(st, &n, err) != 0)
		return -1;
	if (n == (int)NOWN)
		return 0;
	for (i = 0; i < NOWN; i++) {
		if (store_has_object(st, own[i].name, &found, err) != 0)
			return -1;
		if (found)
			continue;
		missing = true;
		if (write && store_exec(st, own[i].ddl, err) != 0)
			return -1;
	}
	if (missing)
		(*todo)++;
	if (missing && write)
		return store_exec(st, "INSERT OR IGNORE INTO entries_vecgen "
		    "(id, gen) VALUES (0, random())", err);
	return 0;
}

int
store_sidecar_key(struct store *st, struct vecfile_key *key)
{
	sqlite3_stmt	*stmt = NULL;
	int		 ok = 0;

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
	(void)st;
	(void)key;
	return 1;	/* the file is host order; keep it to the common one */
#endif
	/* a prepare error is an old file without the table: no key */
	if (sqlite3_prepare_v2(st->db, "SELECT g.gen, s.schema_version, ("
	    TRIGGER_SQL ") FROM entries_vecgen AS g, pragma_schema_version "
	    "AS s WHERE g.id = 0", -1, &stmt, NULL) != SQLITE_OK)
		return 1;
	sqlite3_bind_text(stmt, 1, own[1].ddl, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 2, own[2].ddl, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 3, own[3].ddl, -1, SQLITE_STATIC);
	if (sqlite3_step(stmt) == SQLITE_ROW &&
	    sqlite3_column_type(stmt, 0) == SQLITE_INTEGER &&
	    sqlite3_column_int(stmt, 2) == 3) {
		key->gen = sqlite3_column_int64(stmt, 0);
		key->schema = (uint32_t)sqlite3_column_int64(stmt, 1);
		ok = 1;
	}
	sqlite3_finalize(stmt);
	return ok ? 0 : 1;
}

/* <database file>-vectors, or NULL for a database without a file. */
static char *
sidecar_path(struct store *st)
{
	const char	*db = sqlite3_db_filename(st->db, "main");

	return db == NULL || *db == '\0' ? NULL : xasprintf("%s" SUFFIX, db);
}

void
store_sidecar_unmap(struct store_map *map)
{
	if (map->p == NULL)
		return;
	mapguard_remove(map->guard);
	munmap(map->p, map->len);
	map->p = NULL;
	map->len = 0;
	map->guard = 0;
}

/* The file, mapped read-only and guarded, if it is one we may trust the
 * ownership of (invariant 3); 0 or -1. */
static int
map_file(const char *path, struct store_map *map)
{
	struct stat	 sb;
	void		*p;
	int		 fd, rc = -1;

	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) ||
	    sb.st_uid != geteuid() || (sb.st_mode & 022) != 0 ||
	    sb.st_size <= 0 || (uint64_t)sb.st_size > SIZE_MAX)
		goto out;
	p = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		goto out;
	map->p = p;
	map->len = (size_t)sb.st_size;
	map->guard = mapguard_add(fd, p, map->len);
	rc = 0;
out:
	close(fd);
	return rc;
}

int
store_sidecar_read(struct store *st, int dim, const struct vecfile_key *want,
    struct store_map *map, struct vecfile *vf, bool *current)
{
	char	*path = sidecar_path(st);
	int	 rc = -1;

	if (path == NULL || map_file(path, map) != 0)
		goto out;
	if (vecfile_parse(map->p, map->len, vf) != 0 ||
	    !mapguard_intact(map->guard) || (dim != 0 && vf->dim != dim)) {
		log_debug("store:vecfile", "'%s' is damaged or of another "
		    "dimension: the search reads the table and rebuilds it",
		    path);
		if (vf->sec != NULL)
			vecfile_release(vf);
		store_sidecar_unmap(map);
		goto out;
	}
	*current = vf->key.gen == want->gen && vf->key.schema == want->schema;
	if (!*current)
		log_debug("store:vecfile", "'%s' is out of date: the search "
		    "refreshes it from the table", path);
	rc = 0;
out:
	free(path);
	return rc;
}

void
store_sidecar_write(struct store *st, const struct vecfile_key *key, int dim,
    const struct vecfile_section *s, size_t n)
{
	struct err	 err;
	char		*path = sidecar_path(st);
	void		*img;
	size_t		 size;

	if (path == NULL)
		return;
	img = vecfile_build(key, dim, s, n, &size);
	/* no fsync: a file lost to a crash is rebuilt (invariant 4) */
	if (fileio_replace(path, img, size, 0600, &err) != 0)
		log_debug("store:vecfile", "not saved: %s", err.msg);
	free(img);
	free(path);
}

enum store_vecfile_state
store_vecfile_state(struct store *st, char **path, long long *bytes)
{
	struct store_map	 map = { NULL, 0, 0 };
	struct vecfile		 vf;
	struct vecfile_key	 key;
	struct stat		 sb;
	enum store_vecfile_state state = STORE_VECFILE_STALE;
	bool			 keyed;

	*bytes = 0;
	if ((*path = sidecar_path(st)) == NULL)
		return STORE_VECFILE_NONE;
	/* the key and the file in one snapshot, as a search reads them */
	if (sqlite3_exec(st->db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
		return STORE_VECFILE_STALE;
	keyed = store_sidecar_key(st, &key) == 0;
	if (!keyed)
		state = STORE_VECFILE_UNKEYED;
	else if (lstat(*path, &sb) != 0)
		state = STORE_VECFILE_NONE;
	else if (map_file(*path, &map) == 0) {
		*bytes = (long long)map.len;
		if (vecfile_parse(map.p, map.len, &vf) == 0) {
			if (vf.key.gen == key.gen && vf.key.schema == key.schema)
				state = STORE_VECFILE_CURRENT;
			vecfile_release(&vf);
		}
		store_sidecar_unmap(&map);
	}
	sqlite3_exec(st->db, "COMMIT", NULL, NULL, NULL);
	return state;
}
