/* xfer.h — export and import of stores: JSONL records, markdown memories and
 * other tools' formats (xfer.c, xfer_import.c, xfer_walk.c,
 * xfer_foreign.c). */
#ifndef THATCH_CORE_XFER_H
#define THATCH_CORE_XFER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

struct err;
struct model;
struct model_opts;
struct sbuf;
struct store;
struct store_entry;

/* ---- Export (xfer.c) --------------------------------------------------- */

/*
 * Call fn for each record of the export of `store` (NULL: every store), in
 * the order docs/export.md gives (stores, memories, prediction and
 * behavior matchers, items, edges, provenance, verdicts; each sorted by
 * its primary key), as a JSON object borrowed for the call whose keys are
 * "type" and then the table's columns in a fixed order. With vectors, the
 * records of tables that hold embeddings end with "embedding" (base64 of
 * the BLOB, null for none). fn returning non-zero stops the walk and is
 * returned. A text column that is not UTF-8 fails the export, naming the
 * row. Returns 0 or -1 with err set.
 */
int	xfer_export(struct store *, const char *store, bool vectors,
	    int (*fn)(const json_t *rec, void *), void *, struct err *);

/* The first line of a JSONL export: {"type":"thatch-export","version":1}. */
#define XFER_HEADER	"{\"type\":\"thatch-export\",\"version\":1}"

/* Append rec as one JSONL line with its "\n": compact, keys in the
 * object's order, reals with 17 significant digits (exact). */
void	xfer_line(const json_t *rec, struct sbuf *out);

/*
 * A "memory" record and a struct store_entry are the same row, its
 * anchors included (the markdown format is memdoc's rendering of it). xfer_entry_record
 * returns a new record; xfer_record_entry fills *e (initialised first,
 * released by the caller even on failure) and returns 0 or -1 with err
 * set.
 */
json_t	*xfer_entry_record(const struct store_entry *);

/* Append a store name or slug as one file name of a markdown export
 * (DIR/<store>/<slug>.md): bytes outside [A-Za-z0-9_-] as %XX, so names
 * stay distinct and none is hidden, "." or "..". */
void	xfer_file_name(struct sbuf *, const char *);
int	 xfer_record_entry(const json_t *rec, struct store_entry *e,
	    struct err *);

/* ---- Import (xfer_import.c) -------------------------------------------- */

enum xfer_conflict {
	XFER_SKIP,		/* keep what the database has */
	XFER_OVERWRITE,		/* the record wins */
	XFER_NEWER,		/* the one updated last wins */
};

/* "skip", "overwrite" or "newer" to *c; -1 for anything else. */
int	xfer_conflict_parse(const char *, enum xfer_conflict *);

/*
 * One import. The caller sets the fields above `imported` and zeroes the
 * rest; release with xfer_import_release (closes the model, if loaded).
 * Every record is atomic: it is imported whole, skipped by the conflict
 * policy, or fails (reported through report with where it came from,
 * "FILE:LINE", and why) and leaves nothing.
 */
struct xfer_import {
	struct store		*st;
	const char		*store;		/* --store: put everything here */
	const char		*default_store;	/* other tools' notes go here */
	enum xfer_conflict	 conflict;
	const struct model_opts	*model_opts;	/* to re-embed */
	const char		*now;		/* ISO time with ms: what a
						   memory without times gets */
	const char		*file;		/* the file being read: what
						   imported memories record */
	void			(*report)(void *, const char *where,
				    const char *why);
	void			*report_arg;

	int			 imported, skipped, failed;
	struct model		*model;		/* owned; opened on first use */
	float			*vec;		/* owned; model_dim floats */
	bool			 in_batch;	/* a transaction is open */
	int			 batch_rows;
	int64_t			 batch_start;	/* clock_mono_ms */
};

/* Roll back what is not committed, close the model. */
void	xfer_import_release(struct xfer_import *);

/*
 * Commit the records imported since the last commit: xfer_import_record
 * writes in batches, and xfer_import_path commits at its end. Returns 0
 * or -1 with err set (the batch is then rolled back).
 */
int	xfer_import_commit(struct xfer_import *, struct err *);

/*
 * Import one record (a JSON object of the export format) that came from
 * `where`. Vectors are kept when the record's model is the model in
 * effect and the dimension matches, else the text is embedded again.
 * Returns 0 whether the record was imported, skipped or failed (counted
 * and reported); -1 with err set only when the import cannot go on (the
 * model cannot be loaded, the database fails).
 */
int	xfer_import_record(struct xfer_import *, json_t *rec,
	    const char *where, struct err *);

/* Each line of n bytes of buf as one record of the export format; a line
 * that is not a JSON object is reported as name:LINE and skipped. */
int	xfer_read_jsonl(struct xfer_import *, const char *buf, size_t n,
	    const char *name, struct err *);

/* ---- The walk (xfer_walk.c) -------------------------------------------- */

/* Which reader a path gets (XFER_AUTO: decided from its name and bytes). */
enum xfer_from {
	XFER_AUTO,
	XFER_THATCH,		/* our JSONL, or a markdown export */
	XFER_MCP_MEMORY,	/* the MCP memory server's knowledge graph */
	XFER_MARKDOWN,		/* notes: Basic Memory, Serena, Obsidian */
	XFER_CLAUDE,		/* CLAUDE.md, MEMORY.md: one memory a section */
};

/* "thatch", "mcp-memory", "markdown" or "claude"; -1 otherwise. */
int	xfer_from_parse(const char *, enum xfer_from *);

/*
 * Import the file or directory at path read as `from`: a directory is
 * walked for *.md files (and a markdown export's records.jsonl), in byte
 * order of their paths. Returns 0 (see the counters) or -1 with err set
 * when path cannot be read or the import cannot go on.
 */
int	xfer_import_path(struct xfer_import *, const char *path,
	    enum xfer_from from, struct err *);

/* ---- Other tools' formats (xfer_foreign.c) ------------------------------ */

/*
 * Each reads n bytes of a file named name (outside input: any bytes) and
 * imports one memory per entity (mcp-memory: its observations and the
 * relations from it folded into the content), per note (markdown: label
 * from the front matter's title, else the first "# " heading, else the
 * file name) or per "## " section (claude: thatch's own block left out).
 * Bad lines or notes are reported and counted. Returns 0, or -1 when the
 * import cannot go on.
 */
int	xfer_read_mcp_memory(struct xfer_import *, const char *buf, size_t n,
	    const char *name, struct err *);
int	xfer_read_note(struct xfer_import *, const char *buf, size_t n,
	    const char *name, struct err *);
int	xfer_read_claude(struct xfer_import *, const char *buf, size_t n,
	    const char *name, struct err *);

/* A memory record {"type":"memory","store","label","content"} with content
 * "# <label>\n\n<body>", as memory_remember stores it. New reference. */
json_t	*xfer_memory_new(const char *store, const char *label,
	    const char *body, size_t bodylen);

#endif
