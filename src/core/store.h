/* store.h — the SQLite store: connection, schema, memories (store.c). */
#ifndef THATCH_CORE_STORE_H
#define THATCH_CORE_STORE_H

#include <sqlite3.h>

struct err;

/* An open connection to the thatch database. Opaque. */
struct store;

/*
 * Open (creating when missing) the database at path: create the parent
 * directory (0700), set WAL, busy_timeout=5000 and foreign_keys=ON, create
 * the schema idempotently and run the column migrations (store-and-tools
 * §1.2-§1.5). A file that is not a SQLite database, an unwritable
 * directory or a database locked past the timeout fails with one line in
 * err and leaves the file untouched. Returns 0 and *out, or -1.
 */
int	 store_open(const char *path, struct store **out, struct err *);

/* Close the connection; accepts NULL. */
void	 store_close(struct store *);

/*
 * The raw handle, for the other core modules that own tables in the same
 * file (prediction/behavior engines, repo_paths cache). Only core/ calls
 * this; borrowed for the life of the store.
 */
sqlite3	*store_db(struct store *);

/* The path the store was opened with (borrowed). */
const char *store_path(const struct store *);

/*
 * Prepare sql on the connection; on failure err says which statement and
 * why. For core/ modules only.
 */
int	 store_prepare(struct store *, sqlite3_stmt **, const char *sql,
	    struct err *);

/*
 * Call fn for every store name in byte order (SELECT name FROM stores ORDER
 * BY name). fn returning non-zero stops the walk. Returns 0 or -1.
 */
int	 store_list_stores(struct store *, int (*fn)(const char *, void *),
	    void *, struct err *);

/* Run one or more statements without results (BEGIN, COMMIT, DDL). */
int	 store_exec(struct store *, const char *sql, struct err *);

#endif
