/*
 * ocdb.c — reading opencode's session database (engines-and-extras B6,
 * host-contracts §3.4): the session list, one session's messages and
 * parts, and search over what they say.
 *
 * The database is opencode's history, not thatch's, so:
 *  1. It is opened SQLITE_OPEN_READONLY, with query_only on and no
 *     checkpoint on close: no statement of this file can write, and the
 *     file's bytes (and its -wal's) are the same afterwards. It is not
 *     opened immutable: the newest session may live only in the WAL,
 *     which an immutable open would not read.
 *  2. Every table and column read is checked at open (PRAGMA table_info),
 *     so a moved schema is one clear message, not a failed statement.
 *  3. The data columns are JSON that opencode wrote; they are decoded by
 *     ocdb_part.c, never trusted, never searched raw (search would meet
 *     keys and escapes). A raw-text prefilter only skips rows that cannot
 *     hold the query (see plain_query).
 *
 * This file calls ocdb_part.c (decoding, time stamps), never the reverse:
 * ocdb_part.c works on decoded JSON and knows nothing of the database.
 */
#include "core/session/ocdb.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <sqlite3.h>

#include "util/err.h"
#include "util/jsonx.h"
#include "util/path.h"
#include "util/sbuf.h"
#include "util/utf8.h"
#include "util/xmalloc.h"

#define OCDB_BUSY_MS	5000
/* Characters of context on each side of a search hit. */
#define SNIPPET		80

struct ocdb {
	sqlite3	*db;
	char	*path;		/* owned */
};

/* Invariant 2: what this file reads, table by table. */
static const struct {
	const char	*table;
	const char	*columns[8];
} schema[] = {
	{ "session", { "id", "parent_id", "directory", "title",
	    "time_created", "time_updated", "time_archived", NULL } },
	{ "message", { "id", "session_id", "time_created", "data", NULL } },
	{ "part", { "id", "message_id", "session_id", "data", NULL } },
};

char *
ocdb_path(const char *home)
{
	const char	*env;
	char		*base, *p;

	if ((env = path_env("OPENCODE_DB")) != NULL)
		return xstrdup(env);
	if ((env = path_env("XDG_DATA_HOME")) != NULL)
		return path_join(env, "opencode/opencode.db");
	base = path_join(home, ".local/share");
	p = path_join(base, "opencode/opencode.db");
	free(base);
	return p;
}

static int
check_table(struct ocdb *oc, size_t t, struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	char		 sql[64];
	bool		 seen[8] = { false };
	size_t		 i;
	int		 rc = -1;

	snprintf(sql, sizeof(sql), "PRAGMA table_info(%s)", schema[t].table);
	if (sqlite3_prepare_v2(oc->db, sql, -1, &stmt, NULL) != SQLITE_OK) {
		err_set(err, "cannot read opencode database %s: %s", oc->path,
		    sqlite3_errmsg(oc->db));
		goto out;
	}
	while (sqlite3_step(stmt) == SQLITE_ROW)
		for (i = 0; schema[t].columns[i] != NULL; i++)
			if (strcmp((const char *)sqlite3_column_text(stmt, 1),
			    schema[t].columns[i]) == 0)
				seen[i] = true;
	for (i = 0; schema[t].columns[i] != NULL; i++)
		if (!seen[i]) {
			err_set(err, "opencode database %s has no %s.%s: its "
			    "schema is not the one thatch reads (opencode "
			    "1.18); session commands cannot use it", oc->path,
			    schema[t].table, schema[t].columns[i]);
			goto out;
		}
	rc = 0;
out:
	sqlite3_finalize(stmt);
	return rc;
}

int
ocdb_open(const char *path, struct ocdb **out, struct err *err)
{
	struct ocdb	*oc;
	struct stat	 sb;
	size_t		 t;

	*out = NULL;
	if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
		return err_set(err, "opencode database not found at %s (set "
		    "OPENCODE_DB)", path);
	oc = xcalloc(1, sizeof(*oc));
	oc->path = xstrdup(path);
	/* invariant 1 */
	if (sqlite3_open_v2(path, &oc->db, SQLITE_OPEN_READONLY, NULL) !=
	    SQLITE_OK) {
		err_set(err, "cannot open opencode database %s: %s", path,
		    sqlite3_errmsg(oc->db));
		goto fail;
	}
	sqlite3_db_config(oc->db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
	sqlite3_busy_timeout(oc->db, OCDB_BUSY_MS);
	sqlite3_exec(oc->db, "PRAGMA query_only=1", NULL, NULL, NULL);
	for (t = 0; t < sizeof(schema) / sizeof(schema[0]); t++)
		if (check_table(oc, t, err) != 0)
			goto fail;
	*out = oc;
	return 0;
fail:
	ocdb_close(oc);
	return -1;
}

void
ocdb_close(struct ocdb *oc)
{
	if (oc == NULL)
		return;
	sqlite3_close(oc->db);
	free(oc->path);
	free(oc);
}

static int
prepare(struct ocdb *oc, const char *sql, sqlite3_stmt **stmt,
    struct err *err)
{
	if (sqlite3_prepare_v2(oc->db, sql, -1, stmt, NULL) == SQLITE_OK)
		return 0;
	return err_set(err, "cannot read opencode database %s: %s", oc->path,
	    sqlite3_errmsg(oc->db));
}

static int
step_failed(struct ocdb *oc, struct err *err)
{
	return err_set(err, "cannot read opencode database %s: %s", oc->path,
	    sqlite3_errmsg(oc->db));
}

static char *
column_dup(sqlite3_stmt *stmt, int i)
{
	const unsigned char	*s = sqlite3_column_text(stmt, i);

	return s != NULL ? xstrdup((const char *)s) : NULL;
}

#define SESSION_COLS \
	"id, parent_id, directory, title, time_created, time_updated, " \
	"coalesce(time_archived, 0)"

static void
session_row(sqlite3_stmt *stmt, struct ocdb_session *s)
{
	s->id = column_dup(stmt, 0);
	s->parent_id = column_dup(stmt, 1);
	s->directory = column_dup(stmt, 2);
	s->title = column_dup(stmt, 3);
	s->created = sqlite3_column_int64(stmt, 4);
	s->updated = sqlite3_column_int64(stmt, 5);
	s->archived = sqlite3_column_int64(stmt, 6);
	if (s->id == NULL)
		s->id = xstrdup("");
	if (s->directory == NULL)
		s->directory = xstrdup("");
	if (s->title == NULL)
		s->title = xstrdup("");
}

int
ocdb_list(struct ocdb *oc, const struct ocdb_filter *f,
    struct ocdb_sessions *out, struct err *err)
{
	static const char	 sql[] = "SELECT " SESSION_COLS " FROM session"
	    " WHERE (?1 IS NULL OR directory = ?1)"
	    " AND (?2 OR parent_id IS NULL)"
	    " AND (?3 OR coalesce(time_archived, 0) = 0)"
	    " ORDER BY time_updated DESC, id DESC LIMIT ?4";
	sqlite3_stmt		*stmt = NULL;
	size_t			 cap = 0;
	int			 r, rc = -1;

	out->v = NULL;
	out->n = 0;
	if (prepare(oc, sql, &stmt, err) != 0)
		goto out;
	if (f->directory != NULL)
		sqlite3_bind_text(stmt, 1, f->directory, -1, SQLITE_STATIC);
	sqlite3_bind_int(stmt, 2, f->children);
	sqlite3_bind_int(stmt, 3, f->archived);
	sqlite3_bind_int64(stmt, 4, f->limit > 0 ? (sqlite3_int64)f->limit :
	    -1);
	while ((r = sqlite3_step(stmt)) == SQLITE_ROW) {
		if (out->n == cap) {
			cap = cap ? cap * 2 : 16;
			out->v = xreallocarray(out->v, cap, sizeof(*out->v));
		}
		session_row(stmt, &out->v[out->n++]);
	}
	if (r != SQLITE_DONE) {
		step_failed(oc, err);
		goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(stmt);
	if (rc != 0)
		ocdb_sessions_release(out);
	return rc;
}

void
ocdb_session_release(struct ocdb_session *s)
{
	free(s->id);
	free(s->parent_id);
	free(s->directory);
	free(s->title);
}

void
ocdb_sessions_release(struct ocdb_sessions *l)
{
	size_t	i;

	for (i = 0; i < l->n; i++)
		ocdb_session_release(&l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

static json_t *
nullable(const char *s)
{
	return s != NULL ? json_string(s) : json_null();
}

/* A message's role, from its data column (untrusted). */
static char *
message_role(const char *data, size_t len)
{
	json_t	*m = data != NULL ? jsonx_parse(data, len, "message", NULL) :
		    NULL;
	char	*role = xstrdup(jsonx_str(m, "role") ? jsonx_str(m, "role") :
		    "unknown");

	json_decref(m);
	return role;
}

static int
get_children(struct ocdb *oc, const char *id, json_t *got, struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	json_t		*list = json_array();
	int		 r, rc = -1;

	json_object_set_new(got, "children", list);
	if (prepare(oc, "SELECT id, title FROM session WHERE parent_id = ?1 "
	    "ORDER BY time_created, id", &stmt, err) != 0)
		goto out;
	sqlite3_bind_text(stmt, 1, id, -1, SQLITE_STATIC);
	while ((r = sqlite3_step(stmt)) == SQLITE_ROW)
		json_array_append_new(list, json_pack("{s:s?,s:s?}", "id",
		    (const char *)sqlite3_column_text(stmt, 0), "title",
		    (const char *)sqlite3_column_text(stmt, 1)));
	rc = r == SQLITE_DONE ? 0 : step_failed(oc, err);
out:
	sqlite3_finalize(stmt);
	return rc;
}

static int
get_parts(struct ocdb *oc, sqlite3_stmt *parts, const char *mid,
    json_t *list, struct err *err)
{
	int	r;

	sqlite3_reset(parts);
	sqlite3_bind_text(parts, 1, mid, -1, SQLITE_TRANSIENT);
	while ((r = sqlite3_step(parts)) == SQLITE_ROW)
		json_array_append_new(list, ocdb_part_decode(
		    (const char *)sqlite3_column_text(parts, 0),
		    (size_t)sqlite3_column_bytes(parts, 0)));
	return r == SQLITE_DONE ? 0 : step_failed(oc, err);
}

static int
get_messages(struct ocdb *oc, const char *id, json_t *got, struct err *err)
{
	sqlite3_stmt	*msgs = NULL, *parts = NULL;
	json_t		*list = json_array(), *m, *pl;
	char		*role;
	int		 r, rc = -1;

	json_object_set_new(got, "messages", list);
	if (prepare(oc, "SELECT id, time_created, data FROM message WHERE "
	    "session_id = ?1 ORDER BY time_created, id", &msgs, err) != 0 ||
	    prepare(oc, "SELECT data FROM part WHERE message_id = ?1 ORDER "
	    "BY id", &parts, err) != 0)
		goto out;
	sqlite3_bind_text(msgs, 1, id, -1, SQLITE_STATIC);
	while ((r = sqlite3_step(msgs)) == SQLITE_ROW) {
		role = message_role((const char *)sqlite3_column_text(msgs, 2),
		    (size_t)sqlite3_column_bytes(msgs, 2));
		pl = json_array();
		m = json_pack("{s:s?,s:s,s:I,s:o}", "id", (const char *)
		    sqlite3_column_text(msgs, 0), "role", role, "time",
		    (json_int_t)sqlite3_column_int64(msgs, 1), "parts", pl);
		free(role);
		json_array_append_new(list, m);
		if (get_parts(oc, parts, jsonx_str(m, "id") ? jsonx_str(m,
		    "id") : "", pl, err) != 0)
			goto out;
	}
	rc = r == SQLITE_DONE ? 0 : step_failed(oc, err);
out:
	sqlite3_finalize(msgs);
	sqlite3_finalize(parts);
	return rc;
}

bool
ocdb_find(const char *home, const char *sid, struct ocdb_session *s,
    struct err *err)
{
	struct ocdb	*db = NULL;
	char		*path = ocdb_path(home);
	bool		 found = false;

	err->msg[0] = '\0';
	if (ocdb_open(path, &db, err) == 0 &&
	    ocdb_session(db, sid, s, &found, err) != 0)
		found = false;
	ocdb_close(db);
	free(path);
	return found;
}

int
ocdb_session(struct ocdb *oc, const char *id, struct ocdb_session *s,
    bool *found, struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	int		 r, rc = -1;

	*found = false;
	if (prepare(oc, "SELECT " SESSION_COLS " FROM session WHERE id = ?1",
	    &stmt, err) != 0)
		goto out;
	sqlite3_bind_text(stmt, 1, id, -1, SQLITE_STATIC);
	if ((r = sqlite3_step(stmt)) == SQLITE_ROW) {
		session_row(stmt, s);
		*found = true;
	} else if (r != SQLITE_DONE) {
		step_failed(oc, err);
		goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(stmt);
	return rc;
}

int
ocdb_get(struct ocdb *oc, const char *id, json_t **out, struct err *err)
{
	struct ocdb_session	 s;
	json_t			*got = NULL;
	bool			 found;
	int			 rc = -1;

	*out = NULL;
	if (ocdb_session(oc, id, &s, &found, err) != 0)
		return -1;
	if (!found)
		return 0;
	got = json_object();
	json_object_set_new(got, "session", json_pack("{s:s,s:o,s:s,s:s,"
	    "s:I,s:I}", "id", s.id, "parent_id", nullable(s.parent_id),
	    "title", s.title, "directory", s.directory, "time_created",
	    (json_int_t)s.created, "time_updated", (json_int_t)s.updated));
	ocdb_session_release(&s);
	if (get_children(oc, id, got, err) != 0 ||
	    get_messages(oc, id, got, err) != 0)
		goto out;
	*out = got;
	got = NULL;
	rc = 0;
out:
	json_decref(got);
	return rc;
}

static char *
str_dup(const json_t *o, const char *key)
{
	return jsonx_str(o, key) != NULL ? xstrdup(jsonx_str(o, key)) : NULL;
}

int
ocdb_last_reply(struct ocdb *oc, const char *sid, struct sbuf *text,
    char **provider, char **model, struct err *err)
{
	sqlite3_stmt	*msg = NULL, *parts = NULL;
	json_t		*d = NULL, *list = json_array(), *p;
	size_t		 i, n = 0;
	int		 r, rc = -1;

	*provider = *model = NULL;
	/* the role lives in the JSON: newest first, the first assistant's */
	if (prepare(oc, "SELECT id, data FROM message WHERE session_id = ?1 "
	    "ORDER BY time_created DESC, id DESC", &msg, err) != 0 ||
	    prepare(oc, "SELECT data FROM part WHERE message_id = ?1 ORDER "
	    "BY id", &parts, err) != 0)
		goto out;
	sqlite3_bind_text(msg, 1, sid, -1, SQLITE_STATIC);
	while ((r = sqlite3_step(msg)) == SQLITE_ROW) {
		d = jsonx_parse((const char *)sqlite3_column_text(msg, 1),
		    (size_t)sqlite3_column_bytes(msg, 1), "message", NULL);
		if (jsonx_str(d, "role") != NULL &&
		    strcmp(jsonx_str(d, "role"), "assistant") == 0)
			break;
		json_decref(d);
		d = NULL;
	}
	if (r != SQLITE_ROW) {
		rc = r == SQLITE_DONE ? 0 : step_failed(oc, err);
		goto out;
	}
	*provider = str_dup(d, "providerID");
	*model = str_dup(d, "modelID");
	if (get_parts(oc, parts, (const char *)sqlite3_column_text(msg, 0),
	    list, err) != 0)
		goto out;
	json_array_foreach(list, i, p)
		if (strcmp(jsonx_str(p, "type"), "text") == 0 &&
		    jsonx_str(p, "text") != NULL) {
			if (n++ > 0)
				sbuf_addc(text, '\n');
			sbuf_adds(text, jsonx_str(p, "text"));
		}
	rc = 1;
out:
	sqlite3_finalize(msg);
	sqlite3_finalize(parts);
	json_decref(d);
	json_decref(list);
	return rc;
}

/* ---- search ------------------------------------------------------------ */

/*
 * Invariant 3: the raw data column may be prefiltered only when every hit
 * in the decoded text is also a hit in the raw JSON: true when the query
 * has no character JSON escapes (quote, backslash, controls). opencode
 * writes the rest raw (JSON.stringify), and lower() folds ASCII only, as
 * find_ci does.
 */
static bool
plain_query(const char *q)
{
	for (; *q != '\0'; q++)
		if (*q == '"' || *q == '\\' || (unsigned char)*q < 0x20)
			return false;
	return true;
}

/* Byte offset of the first ASCII-case-insensitive match, or -1. */
static long
find_ci(const char *hay, const char *needle)
{
	size_t	n = strlen(needle), i, j;

	if (n == 0)
		return 0;
	for (i = 0; hay[i] != '\0'; i++) {
		for (j = 0; j < n && hay[i + j] != '\0' &&
		    tolower((unsigned char)hay[i + j]) ==
		    tolower((unsigned char)needle[j]); j++)
			;
		if (j == n)
			return (long)i;
	}
	return -1;
}

/* Back off to the start of a UTF-8 sequence. */
static size_t
char_start(const char *s, size_t i)
{
	while (i > 0 && ((unsigned char)s[i] & 0xC0) == 0x80)
		i--;
	return i;
}

/* "…<±SNIPPET chars>…" around the hit at pos, on one line. */
static void
snippet(struct sbuf *out, const char *s, size_t pos, size_t n)
{
	size_t	len = strlen(s), from, to, i;
	char	*cut;

	from = pos > SNIPPET ? char_start(s, pos - SNIPPET) : 0;
	to = pos + n + SNIPPET < len ? char_start(s, pos + n + SNIPPET) : len;
	cut = xstrndup(s + from, to - from);
	for (i = 0; cut[i] != '\0'; i++)
		if (cut[i] == '\n' || cut[i] == '\r' || cut[i] == '\t')
			cut[i] = ' ';
	sbuf_adds(out, "…");
	utf8_escape(out, cut, 0);
	sbuf_adds(out, "…");
	free(cut);
}

/* The first decoded field of part p holding q: its text, or NULL. */
static char *
part_match(const json_t *p, const char *q, long *pos)
{
	static const char *const	 fields[] = { "text", "tool", "output",
					    NULL };
	const char *const		*f;
	json_t				*in;
	char				*s;

	for (f = fields; *f != NULL; f++)
		if (jsonx_str(p, *f) != NULL &&
		    (*pos = find_ci(jsonx_str(p, *f), q)) >= 0)
			return xstrdup(jsonx_str(p, *f));
	if ((in = json_object_get(p, "input")) != NULL) {
		s = jsonx_dump(in, 0);
		if ((*pos = find_ci(s, q)) >= 0)
			return s;
		free(s);
	}
	return NULL;
}

static void
search_hit(struct sbuf *out, sqlite3_stmt *stmt, const char *field,
    size_t pos, size_t n)
{
	char	 t[OCDB_TIME_LEN];
	char	*role = message_role((const char *)sqlite3_column_text(stmt,
		    3), (size_t)sqlite3_column_bytes(stmt, 3));

	utf8_addf(out, "%s %s %s %s ", (const char *)sqlite3_column_text(stmt,
	    0), (const char *)sqlite3_column_text(stmt, 1),
	    (const char *)sqlite3_column_text(stmt, 2), role);
	sbuf_addf(out, "%s: ", ocdb_time(sqlite3_column_int64(stmt, 4), t));
	snippet(out, field, pos, n);
	sbuf_addc(out, '\n');
	free(role);
}

int
ocdb_search(struct ocdb *oc, const struct ocdb_query *q, struct sbuf *out,
    size_t *nhits, struct err *err)
{
	static const char	 sql[] = "SELECT p.session_id, "
	    "coalesce(s.title, ''), p.message_id, m.data, m.time_created, "
	    "p.data FROM part p JOIN message m ON m.id = p.message_id "
	    "LEFT JOIN session s ON s.id = p.session_id "
	    "WHERE (?1 IS NULL OR p.session_id = ?1) "
	    "AND (?2 IS NULL OR instr(lower(p.data), lower(?2)) > 0) "
	    "AND (?3 IS NULL OR p.session_id <> ?3) "
	    "ORDER BY m.time_created DESC, p.message_id DESC, p.id DESC";
	sqlite3_stmt		*stmt = NULL;
	json_t			*p;
	char			*field;
	long			 pos;
	int			 r = SQLITE_DONE, rc = -1;

	*nhits = 0;
	if (prepare(oc, sql, &stmt, err) != 0)
		goto out;
	if (q->session != NULL)
		sqlite3_bind_text(stmt, 1, q->session, -1, SQLITE_STATIC);
	if (plain_query(q->text))
		sqlite3_bind_text(stmt, 2, q->text, -1, SQLITE_STATIC);
	if (q->exclude != NULL)
		sqlite3_bind_text(stmt, 3, q->exclude, -1, SQLITE_STATIC);
	while ((q->limit == 0 || *nhits < q->limit) &&
	    (r = sqlite3_step(stmt)) == SQLITE_ROW) {
		p = ocdb_part_decode((const char *)sqlite3_column_text(stmt,
		    5), (size_t)sqlite3_column_bytes(stmt, 5));
		if ((field = part_match(p, q->text, &pos)) != NULL) {
			search_hit(out, stmt, field, (size_t)pos,
			    strlen(q->text));
			(*nhits)++;
			free(field);
		}
		json_decref(p);
	}
	rc = r == SQLITE_DONE || r == SQLITE_ROW ? 0 : step_failed(oc, err);
out:
	sqlite3_finalize(stmt);
	return rc;
}
