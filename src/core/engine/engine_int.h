/*
 * engine_int.h — what the engine's files share and no other file may use:
 * statements prepared from the descriptor's SQL templates and stepped
 * through their rows, the error of a failed step, a column copy and the
 * evidence count (all in engine.c), and the one template two files read.
 * Users: engine.c, engine_match.c, engine_ops.c.
 */
#ifndef THATCH_CORE_ENGINE_INT_H
#define THATCH_CORE_ENGINE_INT_H

#include <stddef.h>

#include <sqlite3.h>

struct engine;
struct err;
struct store;

/* An item's matchers, oldest edge first (engine_first_matcher, lists). */
#define ENGINE_SQL_ITEM_MATCHERS \
	"SELECT e.matcher_id, m.description, e.weight" \
	" FROM {E} e JOIN {M} m ON m.id = e.matcher_id" \
	" WHERE e.{FK} = ?1 ORDER BY e.rowid"

/*
 * Prepare tmpl expanded for eng ({M}, {I}, {E}, {P}, {FK}; {IN} becomes
 * nin placeholders). Returns 0, or -1 with err set.
 */
int	engine_prep(struct store *, const struct engine *, const char *tmpl,
	    size_t nin, sqlite3_stmt **, struct err *);

/* engine_prep, with the one text parameter ?1 bound to arg (borrowed). */
int	engine_prep1(struct store *, const struct engine *, const char *tmpl,
	    const char *arg, sqlite3_stmt **, struct err *);

/* Set err to the database's last error; returns -1. */
int	engine_fail(struct store *, struct err *);

/*
 * Step stmt through its rows, calling row(stmt, arg) on each until it
 * returns non-zero, then finalize stmt (always). Returns 0 when the rows
 * ended or row stopped them, -1 with err set when a step failed.
 */
int	engine_rows(struct store *, sqlite3_stmt *stmt,
	    int (*row)(sqlite3_stmt *, void *), void *arg, struct err *);

/* engine_prep1 of tmpl with ?1 bound to arg, then engine_rows. */
int	engine_each_row(struct store *, const struct engine *,
	    const char *tmpl, const char *arg,
	    int (*row)(sqlite3_stmt *, void *), void *rarg, struct err *);

/* A new copy of the text column col, or NULL for SQL NULL. */
char	*engine_column_dup(sqlite3_stmt *, int col);

/* An item's number of tests: round(confirms + disconfirms), halves up. */
long	engine_evidence(double confirms, double disconfirms);

#endif
