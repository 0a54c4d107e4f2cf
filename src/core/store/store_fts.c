/*
 * store_fts.c — the full-text side of recall: the index, the query's
 * tokens and the lexical ranking (docs/store.md, "Hybrid recall").
 *
 * Agents ask for memories by the names things have (ERR_SSL_PROTOCOL_ERROR,
 * src/core/store/store.c, useEffect), which an embedding model ranks
 * poorly. An FTS5 table indexes label and content; store_search.c fuses
 * the ranking made here with the cosine ranking when the query carries
 * its text.
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
 *  4. The ranking applies the vector side's store, branch and archived
 *     rules (§5.2), and ranks by bm25 with the label weighing 4 times the
 *     content, equal ranks in table order; store_search.c fuses it.
 */
#include "core/store/store.h"

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

/* Whether entries row rowid passes q's store, branch and archived rules
 * (invariant 4); a row that is gone does not. */
static int
lex_keep(struct store *st, sqlite3_stmt *row, const struct store_query *q,
    sqlite3_int64 rowid, bool *keep, struct err *err)
{
	const char	*store, *branch;
	size_t		 i;
	int		 step;

	*keep = false;
	sqlite3_reset(row);
	sqlite3_bind_int64(row, 1, rowid);
	if ((step = sqlite3_step(row)) == SQLITE_DONE)
		return 0;
	if (step != SQLITE_ROW)
		return store_fail(st, err, "full-text search failed");
	if (!q->include_archived && sqlite3_column_int(row, 0) != 1)
		return 0;		/* SQL's archived = 0, NULL or not */
	branch = (const char *)sqlite3_column_text(row, 1);
	if (q->branch != NULL && *q->branch != '\0' && branch != NULL &&
	    strcmp(branch, q->branch) != 0)
		return 0;
	store = (const char *)sqlite3_column_text(row, 2);
	for (i = 0; store != NULL && i < q->nstores; i++)
		if (strcmp(store, q->stores[i]) == 0)
			*keep = true;
	return 0;
}

/* A row the index matched and its bm25 (lower is better). */
struct lex_hit {
	double		bm25;
	sqlite3_int64	rowid;
};

/* ORDER BY bm25, rowid: the order SQLite gave when it sorted. */
static int
lex_hit_cmp(const void *pa, const void *pb)
{
	const struct lex_hit	*a = pa, *b = pb;

	if (a->bm25 != b->bm25)
		return a->bm25 < b->bm25 ? -1 : 1;
	return a->rowid < b->rowid ? -1 : a->rowid > b->rowid;
}

/*
 * Every row matching the FTS5 expression match with its bm25, the label
 * weighing 4 times the content (a label names what the memory is about),
 * into *out, ranked (equal ranks in table order, as on the vector side).
 * The index ranks alone: bm25 reads its doclists and row sizes, never
 * entries. The rows are sorted here, not by an ORDER BY: SQLite's sorter
 * spilled 35,000 matches (a query of common words at 100,000 memories)
 * to PMAs, where qsort takes ~3 ms. Only a MATCH with an AND comes here
 * (store_bm25.c ranks the rest). 1: no index (or no FTS5); -1 with err.
 */
static int
lex_hits(struct store *st, const char *match, struct lex_hit **out,
    size_t *n, struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	struct lex_hit	*h = NULL;
	size_t		 cap = 0;
	int		 step;

	*n = 0;
	if (sqlite3_prepare_v2(st->db, "SELECT rowid, bm25(entries_fts, "
	    STORE_BM25_WEIGHTS ") FROM entries_fts WHERE entries_fts MATCH ?1",
	    -1, &stmt, NULL) != SQLITE_OK) {
		/* invariant 3: no index, or no FTS5: the vector side alone */
		log_debug("store:fts", "no lexical search: %s",
		    sqlite3_errmsg(st->db));
		return 1;
	}
	sqlite3_bind_text(stmt, 1, match, -1, SQLITE_STATIC);
	while ((step = sqlite3_step(stmt)) == SQLITE_ROW) {
		if (*n == cap) {
			cap = cap ? cap * 2 : 256;
			h = xreallocarray(h, cap, sizeof(*h));
		}
		h[*n].rowid = sqlite3_column_int64(stmt, 0);
		h[(*n)++].bm25 = sqlite3_column_double(stmt, 1);
	}
	sqlite3_finalize(stmt);
	*out = h;
	if (step != SQLITE_DONE)
		return store_fail(st, err, "full-text search failed");
	if (*n > 1)
		qsort(h, *n, sizeof(*h), lex_hit_cmp);
	return 0;
}

/* The rows of one MATCH in ranking order: store_bm25.c's for an OR of
 * phrases (it scores only the rows that may come next), else bm25()'s
 * for every row, sorted (lex_hits). */
struct lex_order {
	struct bm25_rank	*rank;		/* or NULL: h */
	struct lex_hit		*h;
	size_t			 nh, next;
};

/* 0, 1 when there is no index (nothing to rank), -1 with err. */
static int
lex_open(struct store *st, const char *match, bool any_of,
    struct lex_order *o, struct err *err)
{
	int	rc;

	memset(o, 0, sizeof(*o));
	if (any_of && (rc = store_bm25_rank(st, match, &o->rank, err)) != 1)
		return rc;
	return lex_hits(st, match, &o->h, &o->nh, err);
}

/* The next row: 1 and *rowid, 0 at the end, -1 with err. */
static int
lex_next(struct store *st, struct lex_order *o, sqlite3_int64 *rowid,
    struct err *err)
{
	double	bm25;

	if (o->rank != NULL)
		return store_bm25_next(st, o->rank, rowid, &bm25, err);
	if (o->next == o->nh)
		return 0;
	*rowid = o->h[o->next++].rowid;
	return 1;
}

static void
lex_close(struct lex_order *o)
{
	store_bm25_free(o->rank);
	free(o->h);
}

/*
 * Append to *lx the rows matching the FTS5 expression match (an OR of
 * phrases when any_of), best first, under the vector side's store,
 * branch and archived rules, not already in it, up to max. Only the rows
 * taken are looked up for the rules, in rank order: a query of common
 * words matching every memory used to read every matching row of
 * entries (a join) before its LIMIT, ~10,000 pages at 10,000 memories.
 * -1 with err only for a failure other than the index being absent.
 */
static int
lex_query(struct store *st, const struct store_query *q, const char *match,
    bool any_of, int kind, struct store_lex *lx, size_t max, size_t *n,
    struct err *err)
{
	sqlite3_stmt		*row = NULL;
	struct lex_order	 o;
	sqlite3_int64		 rowid;
	size_t			 j;
	int			 rc, got = 0;
	bool			 keep;

	if (*n >= max)
		return 0;	/* an earlier kind filled lx: nothing to rank */
	if ((rc = lex_open(st, match, any_of, &o, err)) != 0) {
		lex_close(&o);
		return rc < 0 ? -1 : 0;
	}
	while (rc == 0 && *n < max &&
	    (got = lex_next(st, &o, &rowid, err)) == 1) {
		for (j = 0; j < *n && lx[j].rowid != rowid; j++)
			;
		if (j < *n)
			continue;
		if (row == NULL && store_prepare(st, &row, "SELECT archived "
		    "= 0, branch, store FROM entries WHERE rowid = ?", err) != 0)
			rc = -1;
		else if (lex_keep(st, row, q, rowid, &keep, err) != 0)
			rc = -1;
		else if (keep) {
			lx[*n].rowid = rowid;
			lx[(*n)++].kind = kind;
		}
	}
	sqlite3_finalize(row);
	lex_close(&o);
	return got < 0 ? -1 : rc;
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
int
store_fts_rank(struct store *st, const struct store_query *q,
    struct store_lex *lx, size_t max, size_t *n, struct err *err)
{
	struct fts_terms	t = { SBUF_INIT, SBUF_INIT, SBUF_INIT, SBUF_INIT };
	struct sbuf		sm = SBUF_INIT;
	int			rc = 0;

	*n = 0;
	store_fts_match(q->text, &t);
	if (t.idents.len > 0)
		rc = lex_query(st, q, t.idents.buf, true, STORE_LEX_IDENT, lx,
		    max, n, err);
	if (rc == 0 && t.parts.len > 0)
		rc = lex_query(st, q, t.parts.buf, false, STORE_LEX_WORD, lx,
		    max, n, err);
	if (rc == 0 && t.words.len > 0)
		rc = lex_query(st, q, t.words.buf, true, STORE_LEX_WORD, lx,
		    max, n, err);
	if (rc == 0 && t.shorts.len > 0) {
		short_terms(st, t.shorts.buf, &sm);
		if (sm.len > 0)
			rc = lex_query(st, q, sm.buf, true, STORE_LEX_WORD, lx,
			    max, n, err);
	}
	sbuf_release(&sm);
	store_fts_terms_release(&t);
	return rc;
}
