/*
 * xfer_int.h — what xfer.c and xfer_import.c share: the tables an export
 * holds, one row each, so that export and import cannot disagree about a
 * column (docs/export.md lists the same rows for users).
 */
#ifndef THATCH_CORE_XFER_INT_H
#define THATCH_CORE_XFER_INT_H

#include <stdbool.h>

enum xfer_kind { XFER_TEXT, XFER_INT, XFER_REAL };

#define XFER_REQUIRED	1	/* NOT NULL without a default */
#define XFER_NULLABLE	2
#define XFER_PK		4	/* part of the primary key */

struct xfer_col {
	const char	*name;
	enum xfer_kind	 kind;
	int		 flags;
};

/*
 * One table: the record type naming it, its columns in record order, the
 * column whose text is embedded (NULL: no embedding), the column naming
 * the store (NULL: none), how a store-scoped export selects its rows
 * (?1 is the store), the sort that makes the export deterministic, and
 * the column the `newer` conflict policy compares.
 */
struct xfer_table {
	const char		*type;
	const char		*table;
	const struct xfer_col	*cols;
	const char		*embed_col;
	const char		*store_col;
	const char		*scope;
	const char		*order;
	const char		*stamp;
};

extern const struct xfer_table	xfer_tables[];	/* ends with type NULL */

/* The row of a record type, or NULL. */
const struct xfer_table *xfer_table_find(const char *type);

#endif
