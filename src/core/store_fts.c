/*
 * store_fts.c — the full-text side of recall and its fusion with the
 * cosine side (docs/store.md, "Hybrid recall").
 *
 * Agents ask for memories by the names things have (ERR_SSL_PROTOCOL_ERROR,
 * src/core/store.c, useEffect), which an embedding model ranks poorly. An
 * FTS5 table indexes label and content; store_search fuses its ranking
 * with the cosine ranking when the query carries its text.
 *
 * Invariants:
 *  1. The index is kept by the database itself: three triggers on entries
 *     write it in the same transaction as every insert, delete and change
 *     of label or content, whoever writes (the original too). It is an
 *     external-content table (content='entries'), so it stores no second
 *     copy of the text, and its rowids are entries' rowids.
 *  2. Its tokenizer is built into SQLite (trigram, case-insensitive):
 *     the original's connection runs the triggers and cannot load one of
 *     ours. Trigrams match any substring of three characters or more, so
 *     identifiers with _ . / - ::, camelCase and snake_case parts, the
 *     last components of a path, error codes and words of any script are
 *     found without index-time expansion.
 *  3. Opening creates the table, its triggers and the index of the rows
 *     already there only when it can write (store.c invariant 5: a read
 *     never writes), in store.c's setup transaction; a file without the
 *     index, or a SQLite without FTS5, is searched by vector alone.
 *  4. Both sides apply the same store, branch and archived rules (§5.2).
 *     Scores stay the §5.1 cosine, so thresholds keep their meaning; only
 *     the order is fused.
 *  5. Fusion is reciprocal-rank fusion, 1 / (K + rank) summed over the
 *     sides, over each side's whole ranking: the cosine side returns its
 *     first FUSE_DEPTH rows and ranks each lexical row past them from its
 *     int8 pass (store_vector_probe); the lexical side reads its first
 *     FUSE_DEPTH matches. A row the lexical side did not match gets
 *     nothing from it, so its first row (the one memory naming the
 *     query's identifier) ranks above every row only the embedding found,
 *     however many rows are closer in meaning.
 */
#include "core/store.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/store_int.h"
#include "util/err.h"
#include "util/log.h"
#include "util/sbuf.h"
#include "util/xmalloc.h"

/*
 * K = 60 is Cormack, Clarke and Büttcher's (SIGIR 2009) constant: large
 * enough that a side's first few ranks weigh about the same, so neither
 * side's noise at the top decides alone. FUSE_DEPTH is how far each side
 * is read: deeper than any limit (20), shallow enough to cost little.
 */
#define FUSE_K		60.0
#define FUSE_DEPTH	100

static const char *const fts_ddl[] = {
	"CREATE VIRTUAL TABLE entries_fts USING fts5(label, content, "
	"content='entries', content_rowid='rowid', tokenize='trigram')",
	"CREATE TRIGGER entries_fts_ai AFTER INSERT ON entries BEGIN "
	"INSERT INTO entries_fts(rowid, label, content) "
	"VALUES (new.rowid, new.label, new.content); END",
	"CREATE TRIGGER entries_fts_ad AFTER DELETE ON entries BEGIN "
	"INSERT INTO entries_fts(entries_fts, rowid, label, content) "
	"VALUES ('delete', old.rowid, old.label, old.content); END",
	"CREATE TRIGGER entries_fts_au AFTER UPDATE OF label, content ON "
	"entries BEGIN "
	"INSERT INTO entries_fts(entries_fts, rowid, label, content) "
	"VALUES ('delete', old.rowid, old.label, old.content); "
	"INSERT INTO entries_fts(rowid, label, content) "
	"VALUES (new.rowid, new.label, new.content); END",
	"INSERT INTO entries_fts(entries_fts) VALUES ('rebuild')",
};
#define NFTS_DDL	(sizeof(fts_ddl) / sizeof(fts_ddl[0]))

static int
fts_present(struct store *st, int *n, struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	int		 step;

	if (store_prepare(st, &stmt, "SELECT count(*) FROM sqlite_master "
	    "WHERE name IN ('entries_fts', 'entries_fts_ai', "
	    "'entries_fts_ad', 'entries_fts_au')", err) != 0)
		return -1;
	step = sqlite3_step(stmt);
	*n = step == SQLITE_ROW ? sqlite3_column_int(stmt, 0) : 0;
	sqlite3_finalize(stmt);
	return step == SQLITE_ROW ? 0 : store_fail(st, err, "cannot read "
	    "the schema");
}

/*
 * store.c's setup step (invariant 3). A half-made index (some of the four
 * objects missing) is left alone: someone made it on purpose. A failure
 * to create (no FTS5 in this SQLite) rolls back to the savepoint and
 * leaves recall vector-only.
 */
int
store_fts_setup(struct store *st, bool write, int *todo, struct err *err)
{
	size_t	i;
	int	n, code = SQLITE_OK;

	if (fts_present(st, &n, err) != 0)
		return -1;
	if (n != 0)
		return 0;
	(*todo)++;
	if (!write)
		return 0;
	if (store_exec(st, "SAVEPOINT fts", err) != 0)
		return -1;
	for (i = 0; i < NFTS_DDL && code == SQLITE_OK; i++)
		code = sqlite3_exec(st->db, fts_ddl[i], NULL, NULL, NULL);
	if (code != SQLITE_OK) {
		log_debug("store:open", "no full-text index (%s): recall is "
		    "by vector alone", sqlite3_errmsg(st->db));
		sqlite3_exec(st->db, "ROLLBACK TO fts", NULL, NULL, NULL);
	}
	return store_exec(st, "RELEASE fts", err);
}

/* ---- The query's tokens ------------------------------------------------ */

/* Characters that belong to a token: letters, digits, non-ASCII, and the
 * joiners of identifiers and paths. */
static bool
tok_char(unsigned char c)
{
	return c >= 0x80 || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
	    (c >= 'A' && c <= 'Z') || strchr("_./:-#@$", c) != NULL;
}

/* Joiners a token does not start or end with ("end." "-flag" "::x"). */
static bool
edge_char(unsigned char c)
{
	return c < 0x80 && strchr("./:-#@", c) != NULL;
}

static size_t
utf8_chars(const char *s, size_t n)
{
	size_t	i, k = 0;

	for (i = 0; i < n; i++)
		k += ((unsigned char)s[i] & 0xc0) != 0x80;
	return k;
}

/*
 * A name rather than a word: it holds a joiner, a digit beside letters,
 * or an upper-case letter after a lower-case one (useEffect), or is an
 * all-capitals word of four or more (ENOENT).
 */
static bool
is_ident(const char *s, size_t n)
{
	bool	lower = false, upper = true, digit = false, alpha = false;
	size_t	i;

	for (i = 0; i < n; i++) {
		unsigned char	c = (unsigned char)s[i];

		if (strchr("_./:-#@$", c) != NULL && c != '\0')
			return true;
		if (c >= 'A' && c <= 'Z' && lower)
			return true;
		lower = c >= 'a' && c <= 'z';
		upper = upper && !lower && c < 0x80;
		digit = digit || (c >= '0' && c <= '9');
		alpha = alpha || (c >= 'A' && c <= 'Z') || lower;
	}
	return (digit && alpha) || (upper && alpha && n >= 4);
}

/* Common English words that would match half the memories. */
static const char *const stopwords[] = {
	"about", "and", "any", "are", "can", "does", "for", "from", "have",
	"how", "into", "not", "our", "should", "that", "the", "there", "this",
	"use", "what", "when", "where", "which", "who", "why", "will", "with",
	"you", "your",
};

static bool
is_stopword(const char *s, size_t n)
{
	size_t	i;

	for (i = 0; i < sizeof(stopwords) / sizeof(stopwords[0]); i++)
		if (strlen(stopwords[i]) == n &&
		    strncasecmp(stopwords[i], s, n) == 0)
			return true;
	return false;
}

/* Add token s[0..n) to the MATCH expression as an FTS5 string, which
 * needs no escaping: a token never holds '"' (tok_char). */
static void
match_add(struct sbuf *m, const char *s, size_t n)
{
	if (m->len > 0)
		sbuf_adds(m, " OR ");
	sbuf_addc(m, '"');
	sbuf_add(m, s, n);
	sbuf_addc(m, '"');
}

/*
 * The query's tokens as two FTS5 MATCH expressions: idents, the names it
 * holds; words, every token worth matching. Tokens under three
 * characters cannot match a trigram index and are dropped.
 */
void
store_fts_match(const char *text, struct sbuf *idents, struct sbuf *words)
{
	const char	*p = text, *s;
	size_t		 n;

	while (*p != '\0') {
		while (*p != '\0' && !tok_char((unsigned char)*p))
			p++;
		for (s = p; *p != '\0' && tok_char((unsigned char)*p); p++)
			;
		n = (size_t)(p - s);
		while (n > 0 && edge_char((unsigned char)*s)) {
			s++;
			n--;
		}
		while (n > 0 && edge_char((unsigned char)s[n - 1]))
			n--;
		if (utf8_chars(s, n) < 3)
			continue;
		if (is_ident(s, n))
			match_add(idents, s, n);
		if (!is_stopword(s, n))
			match_add(words, s, n);
	}
}

/* ---- The lexical ranking ----------------------------------------------- */

struct lex {
	sqlite3_int64	rowid;
	int		kind;		/* STORE_LEX_* */
};

/* Append to *lx the rows matching expr (bm25, label weighing 4 times
 * content: a label names what the memory is about), not already in it,
 * up to FUSE_DEPTH. -1 with err only for a
 * failure other than the index being absent. */
static int
lex_query(struct store *st, const struct store_query *q, const char *expr,
    int kind, struct lex *lx, size_t *n, struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	struct sbuf	 sql = SBUF_INIT;
	size_t		 i, j;
	int		 step, rc = -1;
	bool		 branch = q->branch != NULL && *q->branch != '\0';

	sbuf_adds(&sql, "SELECT entries_fts.rowid FROM entries_fts JOIN "
	    "entries e ON e.rowid = entries_fts.rowid WHERE entries_fts "
	    "MATCH ?1 AND (?2 OR e.archived = 0) AND (?3 IS NULL OR "
	    "e.branch IS NULL OR e.branch = ?3) AND e.store IN (");
	for (i = 0; i < q->nstores; i++)
		sbuf_addf(&sql, "%s?%zu", i == 0 ? "" : ", ", i + 5);
	/* equal ranks keep table order, as on the vector side */
	sbuf_adds(&sql, ") ORDER BY bm25(entries_fts, 4.0, 1.0), "
	    "entries_fts.rowid LIMIT ?4");
	if (sqlite3_prepare_v2(st->db, sql.buf, -1, &stmt, NULL) !=
	    SQLITE_OK) {
		/* invariant 3: no index, or no FTS5: the vector side alone */
		log_debug("store:fts", "no lexical search: %s",
		    sqlite3_errmsg(st->db));
		rc = 0;
		goto out;
	}
	sqlite3_bind_text(stmt, 1, expr, -1, SQLITE_STATIC);
	sqlite3_bind_int(stmt, 2, q->include_archived);
	if (branch)
		sqlite3_bind_text(stmt, 3, q->branch, -1, SQLITE_STATIC);
	sqlite3_bind_int(stmt, 4, FUSE_DEPTH);
	for (i = 0; i < q->nstores; i++)
		sqlite3_bind_text(stmt, (int)i + 5, q->stores[i], -1,
		    SQLITE_STATIC);
	while (*n < FUSE_DEPTH && (step = sqlite3_step(stmt)) == SQLITE_ROW) {
		sqlite3_int64	rowid = sqlite3_column_int64(stmt, 0);

		for (j = 0; j < *n && lx[j].rowid != rowid; j++)
			;
		if (j == *n) {
			lx[*n].rowid = rowid;
			lx[(*n)++].kind = kind;
		}
	}
	if (*n < FUSE_DEPTH && step != SQLITE_DONE) {
		store_fail(st, err, "full-text search failed");
		goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(stmt);
	sbuf_release(&sql);
	return rc;
}

/* The lexical ranking: rows naming one of the query's identifiers first,
 * then rows matching any of its words. */
static int
lex_rank(struct store *st, const struct store_query *q, struct lex *lx,
    size_t *n, struct err *err)
{
	struct sbuf	idents = SBUF_INIT, words = SBUF_INIT;
	int		rc = 0;

	*n = 0;
	store_fts_match(q->text, &idents, &words);
	if (idents.len > 0)
		rc = lex_query(st, q, idents.buf, STORE_LEX_IDENT, lx, n, err);
	if (rc == 0 && words.len > 0)
		rc = lex_query(st, q, words.buf, STORE_LEX_WORD, lx, n, err);
	sbuf_release(&idents);
	sbuf_release(&words);
	return rc;
}

/* ---- Fusion ------------------------------------------------------------ */

struct fused {
	struct store_hit	h;
	double			rrf;
	size_t			vrank;		/* 0: the vector side missed it */
	bool			in_space;	/* its vector is the query's dim */
};

static double
cosine(const float *q, int dim, const void *blob, int bytes)
{
	double	dot = 0, qq = 0, rr = 0;
	float	*row;
	int	i;

	if (blob == NULL || bytes != dim * 4)
		return 0;	/* another embedding space: no cosine */
	row = xcalloc((size_t)dim, sizeof(float));
	store_blob_decode(blob, (size_t)dim, row);
	for (i = 0; i < dim; i++) {
		dot += (double)q[i] * (double)row[i];
		qq += (double)q[i] * (double)q[i];
		rr += (double)row[i] * (double)row[i];
	}
	free(row);
	return qq == 0 || rr == 0 || isnan(dot) ? 0 : dot / (sqrt(qq) *
	    sqrt(rr));
}

/* Read lexical row l (rank r, 1-based) into f[*nf] with its cosine and
 * the probe that will ask the vector side for its rank. A row gone since
 * (another writer, between the two sides' snapshots) is skipped. */
static int
lex_read(struct store *st, const struct store_query *q, sqlite3_stmt *stmt,
    const struct lex *l, size_t r, struct fused *f, size_t *nf,
    struct store_probe *probe, struct err *err)
{
	struct fused	*x = &f[*nf];
	int		 step;

	sqlite3_reset(stmt);
	sqlite3_bind_int64(stmt, 1, l->rowid);
	if ((step = sqlite3_step(stmt)) == SQLITE_DONE)
		return 0;
	if (step != SQLITE_ROW)
		return store_fail(st, err, "cannot read memory");
	memset(x, 0, sizeof(*x));
	store_entry_read(stmt, 0, &x->h.e);
	x->in_space = q->vec != NULL && sqlite3_column_bytes(stmt,
	    STORE_ENTRY_NCOLS) == q->dim * 4;
	x->h.score = !x->in_space ? 0 : cosine(q->vec, q->dim,
	    sqlite3_column_blob(stmt, STORE_ENTRY_NCOLS), q->dim * 4);
	x->rrf = 1.0 / (FUSE_K + (double)r);
	x->h.lexical = l->kind;
	probe[(*nf)++].score = x->h.score;
	return 0;
}

/* Add vector hit h (rank r, 1-based) to the fused list: to the lexical
 * row it is, or as a row of its own (h moved). */
static void
fuse_vec(struct store_hit *h, size_t r, struct fused *f, size_t *nf)
{
	size_t	i;

	for (i = 0; i < *nf; i++)
		if (strcmp(f[i].h.e.slug, h->e.slug) == 0 &&
		    strcmp(f[i].h.e.store, h->e.store) == 0)
			break;
	if (i == *nf) {
		memset(&f[i], 0, sizeof(f[i]));
		f[i].h = *h;
		(*nf)++;
	} else
		store_entry_release(&h->e);
	f[i].vrank = r;
	f[i].rrf += 1.0 / (FUSE_K + (double)r);
}

/*
 * Invariant 5: a lexical row the vector side did not return within
 * FUSE_DEPTH still has a place in its whole ranking, past FUSE_DEPTH;
 * the int8 pass estimated it (probe). So the only memory naming the
 * query's identifier gets 1/(K + 1) plus a little, above every row that
 * only the embedding ranked.
 */
static void
fuse_deep(struct fused *f, size_t nlex, const struct store_probe *probe,
    size_t nvec)
{
	size_t	i, r;

	if (nvec < FUSE_DEPTH)
		return;		/* the vector side returned all it ranks */
	for (i = 0; i < nlex; i++) {
		if (f[i].vrank != 0 || !f[i].in_space || probe[i].rank == 0)
			continue;
		r = probe[i].rank > FUSE_DEPTH ? probe[i].rank : FUSE_DEPTH + 1;
		f[i].vrank = r;
		f[i].rrf += 1.0 / (FUSE_K + (double)r);
	}
}

static int
fused_cmp(const void *pa, const void *pb)
{
	const struct fused	*a = pa, *b = pb;

	if (a->rrf != b->rrf)
		return a->rrf > b->rrf ? -1 : 1;
	if (a->h.score != b->h.score)
		return a->h.score > b->h.score ? -1 : 1;
	return strcmp(a->h.e.slug, b->h.e.slug);
}

/* Move the best limit fused rows into hits, marking those the vector side
 * alone would not have shown. */
static void
fuse_take(const struct store_query *q, struct fused *f, size_t nf,
    struct store_hits *hits)
{
	size_t	i;

	qsort(f, nf, sizeof(*f), fused_cmp);
	hits->v = xcalloc(nf + 1, sizeof(*hits->v));
	for (i = 0; i < nf; i++) {
		if (i < (size_t)q->limit) {
			f[i].h.lexical_only = f[i].vrank == 0 ||
			    f[i].vrank > (size_t)q->limit;
			hits->v[hits->n++] = f[i].h;
		} else
			store_entry_release(&f[i].h.e);
	}
}

/* The lexical side first (its rows' cosines are the probes), then the
 * vector side, which ranks them among all its rows. */
static int
search_fused(struct store *st, const struct store_query *q,
    struct store_hits *hits, struct err *err)
{
	struct store_query	 vq = *q;
	struct store_hits	 vh = { NULL, 0 };
	struct fused		*f = NULL;
	struct store_probe	*probe = NULL;
	struct lex		*lx = xcalloc(FUSE_DEPTH, sizeof(*lx));
	sqlite3_stmt		*stmt = NULL;
	size_t			 nlx = 0, nf = 0, nlex, i;
	int			 rc = -1;

	if (lex_rank(st, q, lx, &nlx, err) != 0)
		goto out;
	f = xcalloc(nlx + FUSE_DEPTH + 1, sizeof(*f));
	probe = xcalloc(nlx + 1, sizeof(*probe));
	if (nlx > 0 && store_prepare(st, &stmt, "SELECT " STORE_ENTRY_COLS
	    ", embedding FROM entries WHERE rowid = ?", err) != 0)
		goto out;
	for (i = 0; i < nlx; i++)
		if (lex_read(st, q, stmt, &lx[i], i + 1, f, &nf, probe,
		    err) != 0)
			goto out;
	nlex = nf;
	vq.limit = FUSE_DEPTH;
	if (q->mode != STORE_LEXICAL) {
		if (store_vector_probe(st, &vq, probe, nlex, &vh, err) != 0)
			goto out;
		for (i = 0; i < vh.n; i++)
			fuse_vec(&vh.v[i], i + 1, f, &nf);
		fuse_deep(f, nlex, probe, vh.n);
		vh.n = 0;	/* moved into f */
	}
	fuse_take(q, f, nf, hits);
	nf = 0;
	rc = 0;
out:
	for (i = 0; i < nf; i++)
		store_entry_release(&f[i].h.e);
	sqlite3_finalize(stmt);
	store_hits_release(&vh);
	free(probe);
	free(f);
	free(lx);
	return rc;
}

static const char *const mode_names[] = {
	[STORE_HYBRID] = "hybrid",
	[STORE_VECTOR] = "vector",
	[STORE_LEXICAL] = "lexical",
};

int
store_mode_parse(const char *name, enum store_mode *mode)
{
	size_t	i;

	for (i = 0; i < sizeof(mode_names) / sizeof(mode_names[0]); i++)
		if (strcmp(name, mode_names[i]) == 0) {
			*mode = (enum store_mode)i;
			return 0;
		}
	return -1;
}

int
store_search(struct store *st, const struct store_query *q,
    struct store_hits *hits, struct err *err)
{
	memset(hits, 0, sizeof(*hits));
	if (q->text == NULL || q->mode == STORE_VECTOR)
		return store_vector_search(st, q, hits, err);
	if (q->nstores == 0 || q->limit <= 0)
		return 0;
	return search_fused(st, q, hits, err);
}
