/*
 * store_fts.c — the full-text side of recall and its fusion with the
 * cosine side (docs/store.md, "Hybrid recall").
 *
 * Agents ask for memories by the names things have (ERR_SSL_PROTOCOL_ERROR,
 * src/core/store/store.c, useEffect), which an embedding model ranks poorly. An
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
 *     found without index-time expansion. The query side does the rest
 *     (store_fts_match): names and their parts, unspaced scripts cut by
 *     script, and two-character words of those scripts found by the
 *     trigrams they begin (short_terms).
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
#include "core/store/store.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/store/store_int.h"
#include "util/ascii.h"
#include "util/err.h"
#include "util/log.h"
#include "util/sbuf.h"
#include "util/utf8.h"
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

/*
 * What a character is to the tokenizer. Scripts written without spaces
 * (Japanese, Chinese) are cut where the script changes, so a question
 * like キャッシュを削除する gives キャッシュ, 削除 and する; hiragana runs
 * under three characters are particles and inflections, left out.
 */
enum cls {
	CLS_SEP,	/* spaces and punctuation, of any script (“ ” 、 。) */
	CLS_WORD,	/* letters, digits and joiners of spaced scripts */
	CLS_HIRA,	/* hiragana */
	CLS_KATA,	/* katakana */
	CLS_HAN,	/* CJK ideographs */
	CLS_HANGUL,
};

/* Joiners of identifiers and paths: part of a token, never its edge. */
static bool
joiner(int32_t c)
{
	return c < 0x80 && c != 0 && strchr("_./:-#@$", (int)c) != NULL;
}

static enum cls
cls_of(int32_t c)
{
	static const struct { int32_t lo, hi; enum cls cls; } ranges[] = {
		{ 0x00a0, 0x00bf, CLS_SEP },	/* NBSP « » ¿ and signs */
		{ 0x00d7, 0x00d7, CLS_SEP },	/* × */
		{ 0x00f7, 0x00f7, CLS_SEP },	/* ÷ */
		{ 0x2000, 0x206f, CLS_SEP },	/* quotes, dashes, … */
		{ 0x3000, 0x303f, CLS_SEP },	/* 、。「」 */
		{ 0x3040, 0x309f, CLS_HIRA },
		{ 0x30a0, 0x30ff, CLS_KATA },	/* with ー */
		{ 0x3130, 0x318f, CLS_HANGUL },
		{ 0x31f0, 0x31ff, CLS_KATA },
		{ 0x3400, 0x4dbf, CLS_HAN },
		{ 0x4e00, 0x9fff, CLS_HAN },
		{ 0xac00, 0xd7af, CLS_HANGUL },
		{ 0xf900, 0xfaff, CLS_HAN },
		{ 0xff01, 0xff0f, CLS_SEP },	/* fullwidth ！＂＃ … ／ */
		{ 0xff1a, 0xff20, CLS_SEP },	/* ：；＜＝＞？＠ */
		{ 0xff3b, 0xff40, CLS_SEP },
		{ 0xff5b, 0xff65, CLS_SEP },
		{ 0xff66, 0xff9f, CLS_KATA },	/* halfwidth */
	};
	size_t	i;

	if (c < 0x80)
		return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
		    (c >= 'A' && c <= 'Z') || joiner(c) ? CLS_WORD : CLS_SEP;
	for (i = 0; i < sizeof(ranges) / sizeof(ranges[0]); i++)
		if (c >= ranges[i].lo && c <= ranges[i].hi)
			return ranges[i].cls;
	return CLS_WORD;
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
 * or mixed case past its first letter (useEffect, HTTPServer), or is an
 * all-capitals word of four or more (ENOENT).
 */
static bool
is_ident(const char *s, size_t n)
{
	bool	lower = false, inner_upper = false, upper = true;
	bool	digit = false, alpha = false;
	size_t	i;

	for (i = 0; i < n; i++) {
		unsigned char	c = (unsigned char)s[i];
		bool		up = ascii_is_upper((char)c);
		bool		low = ascii_is_lower((char)c);

		if (joiner(c))
			return true;
		inner_upper = inner_upper || (i > 0 && up);
		lower = lower || low;
		upper = upper && !low && c < 0x80;
		digit = digit || (c >= '0' && c <= '9');
		alpha = alpha || up || low;
	}
	return (digit && alpha) || (inner_upper && lower) ||
	    (upper && alpha && n >= 4);
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
 * needs no escaping: a token never holds '"' (a separator). */
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
 * The snake_case and camelCase parts of a name, all of them, as one
 * FTS5 AND group added to *parts: the query parseHttpHeader then finds
 * parse_http_header and the other way round (the index finds a part
 * inside a stored name by itself). Parts are cut at '_' and before an
 * upper-case letter that follows a lower-case one or starts a word after
 * capitals (HTTPServer: HTTP, Server). A name of one part, or with a
 * part under three characters (which trigrams cannot find), adds none.
 */
static void
name_parts(const char *s, size_t n, struct sbuf *parts)
{
	struct sbuf	g = SBUF_INIT;
	size_t		i, from = 0, k = 0;

	for (i = 1; i <= n; i++) {
		bool	cut = i == n || s[i] == '_' ||
			    (ascii_is_upper(s[i]) && (ascii_is_lower(s[i - 1]) ||
			    (ascii_is_upper(s[i - 1]) && i + 1 < n &&
			    ascii_is_lower(s[i + 1]))));

		if (!cut)
			continue;
		if (i - from < 3 || (from == 0 && i == n))
			goto out;
		sbuf_adds(&g, k++ == 0 ? "(" : " AND ");
		sbuf_addc(&g, '"');
		sbuf_add(&g, s + from, i - from);
		sbuf_addc(&g, '"');
		from = i + (i < n && s[i] == '_');
	}
	if (parts->len > 0)
		sbuf_adds(parts, " OR ");
	sbuf_add(parts, g.buf, g.len);
	sbuf_addc(parts, ')');
out:
	sbuf_release(&g);
}

/* Joiners a token does not start or end with ("end." "-flag" "::x"),
 * except '#' before a digit (#88). */
static bool
edge_char(const char *s, size_t n, bool start)
{
	if (start && n > 1 && *s == '#' && s[1] >= '0' && s[1] <= '9')
		return false;
	return strchr("./:-#@", *s) != NULL;
}

/* A token of a spaced script. */
static void
word_token(const char *s, size_t n, struct fts_terms *t)
{
	while (n > 0 && edge_char(s, n, true)) {
		s++;
		n--;
	}
	while (n > 0 && edge_char(s + n - 1, 1, false))
		n--;
	if (utf8_chars(s, n) < 3)
		return;
	if (is_ident(s, n)) {
		match_add(&t->idents, s, n);
		name_parts(s, n, &t->parts);
	}
	if (!is_stopword(s, n))
		match_add(&t->words, s, n);
}

/*
 * A run of one script written without spaces. Three characters or more
 * go to the index; a run of ideographs longer than that (a Chinese
 * phrase) also by its trigrams, which find the words inside it (up to
 * TRIGRAM_RUN characters: a longer run is a pasted text, not a query).
 * Two characters (削除, 배포) are a word too short for trigrams: the
 * shorts list, found through the index's vocabulary (short_terms).
 * Hiragana under three are grammar.
 */
#define TRIGRAM_RUN	32
static void
cjk_token(const char *s, size_t n, enum cls cls, struct fts_terms *t)
{
	size_t	at[TRIGRAM_RUN + 1], k = 0, i;
	int32_t	c;

	for (i = 0; i < n && k <= TRIGRAM_RUN; i += utf8_decode(s + i, n - i,
	    &c))
		at[k++] = i;
	if (k == 2 && cls != CLS_HIRA) {
		if (t->shorts.len > 0)
			sbuf_addc(&t->shorts, '\n');
		sbuf_add(&t->shorts, s, n);
	}
	if (k < 3)
		return;
	match_add(&t->words, s, n);
	if (cls != CLS_HAN || k == 3 || k > TRIGRAM_RUN)
		return;
	at[k] = n;
	for (i = 0; i + 3 <= k; i++)
		match_add(&t->words, s + at[i], at[i + 3] - at[i]);
}

/*
 * The query's tokens: idents, parts and words as FTS5 MATCH expressions
 * (the names it holds; every part of each name; every token worth
 * matching), shorts as the newline-separated two-character words of
 * unspaced scripts. Tokens under three characters
 * of other scripts cannot match a trigram index and are dropped.
 */
void
store_fts_match(const char *text, struct fts_terms *t)
{
	size_t	len = strlen(text), i = 0, start, k;
	int32_t	c;
	enum cls cls, run;

	while (i < len) {
		k = utf8_decode(text + i, len - i, &c);
		if ((run = cls_of(c)) == CLS_SEP) {
			i += k;
			continue;
		}
		start = i;
		for (i += k; i < len; i += k) {
			k = utf8_decode(text + i, len - i, &c);
			if ((cls = cls_of(c)) != run)
				break;
		}
		if (run == CLS_WORD)
			word_token(text + start, i - start, t);
		else
			cjk_token(text + start, i - start, run, t);
	}
}

void
store_fts_terms_release(struct fts_terms *t)
{
	sbuf_release(&t->idents);
	sbuf_release(&t->parts);
	sbuf_release(&t->words);
	sbuf_release(&t->shorts);
}

/* ---- The lexical ranking ----------------------------------------------- */

struct lex {
	sqlite3_int64	rowid;
	int		kind;		/* STORE_LEX_* */
};

/*
 * Append to *lx the rows matching the FTS5 expression match (bm25, the
 * label weighing 4 times the content: a label names what the memory is
 * about; equal ranks in table order, as on the vector side), under the
 * vector side's store, branch and archived rules, not already in it, up
 * to FUSE_DEPTH. -1 with err only for a failure other than the index
 * being absent.
 */
static int
lex_query(struct store *st, const struct store_query *q, const char *match,
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
	sqlite3_bind_text(stmt, 1, match, -1, SQLITE_STATIC);
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

/*
 * The index's trigrams that begin with one of the two-character words in
 * shorts (one a line), as an FTS5 MATCH expression in *m: a trigram
 * index cannot look two characters up, but its vocabulary, read through
 * a per-connection fts5vocab table in temp (nothing in the database
 * file), holds every trigram a word begins, in order, so a range finds
 * them without a scan. A word only at the very end of a text begins no
 * trigram and is missed. No vocabulary (no index): *m stays empty.
 */
static void
short_terms(struct store *st, const char *shorts, struct sbuf *m)
{
	sqlite3_stmt	*stmt = NULL;
	struct sbuf	 hi = SBUF_INIT;
	const char	*w, *nl, *t;
	size_t		 n;

	if (sqlite3_exec(st->db, "CREATE VIRTUAL TABLE IF NOT EXISTS "
	    "temp.thatch_fts_vocab USING fts5vocab(main, 'entries_fts', "
	    "'row')", NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(st->db, "SELECT term FROM "
	    "temp.thatch_fts_vocab WHERE term >= ?1 AND term < ?2 LIMIT 500",
	    -1, &stmt, NULL) != SQLITE_OK) {
		log_debug("store:fts", "no vocabulary: %s",
		    sqlite3_errmsg(st->db));
		goto out;
	}
	for (w = shorts; w != NULL; w = nl == NULL ? NULL : nl + 1) {
		nl = strchr(w, '\n');
		n = nl == NULL ? strlen(w) : (size_t)(nl - w);
		sbuf_reset(&hi);
		sbuf_add(&hi, w, n);
		sbuf_adds(&hi, "\xf4\x8f\xbf\xbf");	/* U+10FFFF, the last */
		sqlite3_reset(stmt);
		sqlite3_bind_text(stmt, 1, w, (int)n, SQLITE_STATIC);
		sqlite3_bind_text(stmt, 2, hi.buf, (int)hi.len,
		    SQLITE_STATIC);
		while (sqlite3_step(stmt) == SQLITE_ROW) {
			if (m->len > 0)
				sbuf_adds(m, " OR ");
			sbuf_addc(m, '"');
			for (t = (const char *)sqlite3_column_text(stmt, 0);
			    t != NULL && *t != '\0'; t++) {
				if (*t == '"')
					sbuf_addc(m, '"');	/* FTS5 quoting */
				sbuf_addc(m, *t);
			}
			sbuf_addc(m, '"');
		}
	}
out:
	sqlite3_finalize(stmt);
	sbuf_release(&hi);
}

/* The lexical ranking: rows naming one of the query's identifiers first,
 * then rows holding every part of one (in another case convention), then
 * rows matching any of its words, then rows holding one of its
 * two-character words of an unspaced script. */
static int
lex_rank(struct store *st, const struct store_query *q, struct lex *lx,
    size_t *n, struct err *err)
{
	struct fts_terms	t = { SBUF_INIT, SBUF_INIT, SBUF_INIT, SBUF_INIT };
	struct sbuf		sm = SBUF_INIT;
	int			rc = 0;

	*n = 0;
	store_fts_match(q->text, &t);
	if (t.idents.len > 0)
		rc = lex_query(st, q, t.idents.buf, STORE_LEX_IDENT, lx, n,
		    err);
	if (rc == 0 && t.parts.len > 0)
		rc = lex_query(st, q, t.parts.buf, STORE_LEX_WORD, lx, n, err);
	if (rc == 0 && t.words.len > 0)
		rc = lex_query(st, q, t.words.buf, STORE_LEX_WORD, lx, n, err);
	if (rc == 0 && t.shorts.len > 0) {
		short_terms(st, t.shorts.buf, &sm);
		if (sm.len > 0)
			rc = lex_query(st, q, sm.buf, STORE_LEX_WORD, lx, n,
			    err);
	}
	sbuf_release(&sm);
	store_fts_terms_release(&t);
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
