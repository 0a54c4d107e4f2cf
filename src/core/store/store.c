/*
 * store.c — opening the SQLite store: the connection's pragmas, the
 * schema, its migrations and the database's private files.
 *
 * Every table of the database is created here, the other core modules'
 * too (chat, engines, repo_paths), so that one transaction brings a file
 * up to date; the other store files add their own objects as setup steps
 * (store_fts.c, store_sidecar.c, store_origin.c). Reading and writing
 * memories is store_entries.c's and searching them store_search.c's; the
 * connection itself, once open, is store_db.c's (store_int.h lists the
 * layers). The store ranks vectors it is handed and knows nothing of how
 * they were made.
 *
 * Invariants:
 *  1. Every connection sets journal_mode=WAL, busy_timeout=5000 and
 *     foreign_keys=ON, in that order, before any other statement.
 *  2. The schema is the original's DDL text, created with CREATE TABLE IF
 *     NOT EXISTS; migrations only add columns, in the original's order, so
 *     a file written by either program opens in the other
 *     (store-and-tools §1.3).
 *  3. PRAGMA user_version is never touched.
 *  4. The four chat tables (§1.4.4, core/session/chat.c uses them) are created
 *     with the newer original's column names; an older chat_sessions
 *     whose name lacks COLLATE NOCASE is rebuilt as the original rebuilds
 *     it, then the columns added later are added (§1.5 step 4), so the
 *     original's later release reads either file.
 *  5. Opening writes nothing when the schema is current: it is read first,
 *     and only what is missing is written, in one transaction. So a
 *     reader never waits for another process's write transaction, and a
 *     read-only file (or directory) can still be read. A schema that
 *     cannot be upgraded now (read-only, locked) but whose memories can
 *     be read is used as it is (THATCH_DEBUG=store:open says so).
 *  6. thatch.db, -wal and -shm are readable by their owner alone (0600):
 *     memories hold secrets.
 */
#include "core/store/store.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <ctype.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/store/store_int.h"
#include "util/err.h"
#include "util/log.h"
#include "util/path.h"
#include "util/sbuf.h"
#include "util/xmalloc.h"

/*
 * store-and-tools §1.4.1, §1.4.2 and §1.4.5, byte for byte (sqlite_master
 * keeps this text), in creation order.
 */
static const struct {
	const char	*name;
	const char	*ddl;
} tables[] = {
	{ "stores",
	  "CREATE TABLE IF NOT EXISTS stores (\n"
	  "  name TEXT PRIMARY KEY\n"
	  ")" },
	{ "entries",
	  "CREATE TABLE IF NOT EXISTS entries (\n"
	  "  slug      TEXT NOT NULL,\n"
	  "  store     TEXT NOT NULL REFERENCES stores(name),\n"
	  "  label     TEXT NOT NULL,\n"
	  "  content   TEXT NOT NULL,\n"
	  "  embedding BLOB,\n"
	  "  model     TEXT,\n"
	  "  branch    TEXT,\n"
	  "  confidence INTEGER,\n"
	  "  archived  INTEGER NOT NULL DEFAULT 0,\n"
	  "  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),\n"
	  "  updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),\n"
	  "  recall_count INTEGER NOT NULL DEFAULT 0,\n"
	  "  last_recalled_at TEXT,\n"
	  "  PRIMARY KEY (slug, store)\n"
	  ")" },
	{ "dedup_pairs",
	  "CREATE TABLE IF NOT EXISTS dedup_pairs (\n"
	  "  store     TEXT NOT NULL,\n"
	  "  slug_a    TEXT NOT NULL,\n"
	  "  slug_b    TEXT NOT NULL,\n"
	  "  status    TEXT NOT NULL,\n"
	  "  checked_at TEXT NOT NULL,\n"
	  "  PRIMARY KEY (store, slug_a, slug_b)\n"
	  ")" },
	{ "prediction_matchers",
	  "CREATE TABLE IF NOT EXISTS prediction_matchers (\n"
	  "  id          TEXT PRIMARY KEY,\n"
	  "  store       TEXT NOT NULL REFERENCES stores(name),\n"
	  "  description TEXT NOT NULL,\n"
	  "  embedding   BLOB,\n"
	  "  model       TEXT,\n"
	  "  created_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now')),\n"
	  "  updated_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now'))\n"
	  ")" },
	{ "predictions",
	  "CREATE TABLE IF NOT EXISTS predictions (\n"
	  "  id              TEXT PRIMARY KEY,\n"
	  "  store           TEXT NOT NULL REFERENCES stores(name),\n"
	  "  statement       TEXT NOT NULL,\n"
	  "  rationale       TEXT,\n"
	  "  embedding       BLOB,\n"
	  "  model           TEXT,\n"
	  "  confidence      REAL NOT NULL DEFAULT 0.5,\n"
	  "  confirm_count   REAL NOT NULL DEFAULT 0,\n"
	  "  disconfirm_count REAL NOT NULL DEFAULT 0,\n"
	  "  created_at      TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now')),\n"
	  "  updated_at      TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now'))\n"
	  ")" },
	{ "prediction_edges",
	  "CREATE TABLE IF NOT EXISTS prediction_edges (\n"
	  "  matcher_id    TEXT NOT NULL,\n"
	  "  prediction_id TEXT NOT NULL,\n"
	  "  weight        REAL NOT NULL DEFAULT 1.0,\n"
	  "  created_at    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now')),\n"
	  "  PRIMARY KEY (matcher_id, prediction_id),\n"
	  "  FOREIGN KEY (matcher_id) REFERENCES prediction_matchers(id) ON DELETE CASCADE,\n"
	  "  FOREIGN KEY (prediction_id) REFERENCES predictions(id) ON DELETE CASCADE\n"
	  ")" },
	{ "prediction_provenance",
	  "CREATE TABLE IF NOT EXISTS prediction_provenance (\n"
	  "  id            TEXT PRIMARY KEY,\n"
	  "  prediction_id TEXT NOT NULL,\n"
	  "  signal        TEXT NOT NULL,\n"
	  "  detail        TEXT,\n"
	  "  created_at    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now')),\n"
	  "  FOREIGN KEY (prediction_id) REFERENCES predictions(id) ON DELETE CASCADE\n"
	  ")" },
	{ "behavior_matchers",
	  "CREATE TABLE IF NOT EXISTS behavior_matchers (\n"
	  "  id          TEXT PRIMARY KEY,\n"
	  "  store       TEXT NOT NULL REFERENCES stores(name),\n"
	  "  description TEXT NOT NULL,\n"
	  "  embedding   BLOB,\n"
	  "  model       TEXT,\n"
	  "  created_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now')),\n"
	  "  updated_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now'))\n"
	  ")" },
	{ "behaviors",
	  "CREATE TABLE IF NOT EXISTS behaviors (\n"
	  "  id              TEXT PRIMARY KEY,\n"
	  "  store           TEXT NOT NULL REFERENCES stores(name),\n"
	  "  statement       TEXT NOT NULL,\n"
	  "  rationale       TEXT,\n"
	  "  embedding       BLOB,\n"
	  "  model           TEXT,\n"
	  "  confidence      REAL NOT NULL DEFAULT 0.5,\n"
	  "  confirm_count   REAL NOT NULL DEFAULT 0,\n"
	  "  disconfirm_count REAL NOT NULL DEFAULT 0,\n"
	  "  created_at      TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now')),\n"
	  "  updated_at      TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now'))\n"
	  ")" },
	{ "behavior_edges",
	  "CREATE TABLE IF NOT EXISTS behavior_edges (\n"
	  "  matcher_id   TEXT NOT NULL,\n"
	  "  behavior_id  TEXT NOT NULL,\n"
	  "  weight       REAL NOT NULL DEFAULT 1.0,\n"
	  "  created_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now')),\n"
	  "  PRIMARY KEY (matcher_id, behavior_id),\n"
	  "  FOREIGN KEY (matcher_id) REFERENCES behavior_matchers(id) ON DELETE CASCADE,\n"
	  "  FOREIGN KEY (behavior_id) REFERENCES behaviors(id) ON DELETE CASCADE\n"
	  ")" },
	{ "behavior_provenance",
	  "CREATE TABLE IF NOT EXISTS behavior_provenance (\n"
	  "  id           TEXT PRIMARY KEY,\n"
	  "  behavior_id  TEXT NOT NULL,\n"
	  "  signal       TEXT NOT NULL,\n"
	  "  detail       TEXT,\n"
	  "  created_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now')),\n"
	  "  FOREIGN KEY (behavior_id) REFERENCES behaviors(id) ON DELETE CASCADE\n"
	  ")" },
	{ "repo_paths",
	  "CREATE TABLE IF NOT EXISTS repo_paths (\n"
	  "  worktree_path TEXT PRIMARY KEY,\n"
	  "  main_path     TEXT NOT NULL,\n"
	  "  repo_slug     TEXT NOT NULL,\n"
	  "  resolved_at   INTEGER NOT NULL\n"
	  ")" },
	/*
	 * §1.4.4 with the types it leaves open from engines-and-extras B5;
	 * host_kind gets a default so that the migration below can add it to
	 * an older table (whose rows the opencode plugin wrote).
	 */
	{ "chat_sessions",
	  "CREATE TABLE IF NOT EXISTS chat_sessions (\n"
	  "  session_id    TEXT PRIMARY KEY,\n"
	  "  name          TEXT NOT NULL UNIQUE COLLATE NOCASE,\n"
	  "  topic         TEXT,\n"
	  "  project       TEXT,\n"
	  "  host_kind     TEXT NOT NULL DEFAULT 'opencode',\n"
	  "  registered_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now')),\n"
	  "  last_seen     TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now')),\n"
	  "  auto          INTEGER NOT NULL DEFAULT 1,\n"
	  "  worktree      TEXT\n"
	  ")" },
	{ "chat_messages",
	  "CREATE TABLE IF NOT EXISTS chat_messages (\n"
	  "  id            INTEGER PRIMARY KEY AUTOINCREMENT,\n"
	  "  from_session  TEXT NOT NULL,\n"
	  "  to_session    TEXT NOT NULL,\n"
	  "  body          TEXT NOT NULL,\n"
	  "  created_at    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now')),\n"
	  "  delivered_at  TEXT,\n"
	  "  read_at       TEXT,\n"
	  "  via_broadcast INTEGER NOT NULL DEFAULT 0\n"
	  ")" },
	{ "chat_name_counters",
	  "CREATE TABLE IF NOT EXISTS chat_name_counters (\n"
	  "  base TEXT PRIMARY KEY,\n"
	  "  next INTEGER NOT NULL\n"
	  ")" },
	{ "chat_leave_tombstones",
	  "CREATE TABLE IF NOT EXISTS chat_leave_tombstones (\n"
	  "  session_id TEXT PRIMARY KEY,\n"
	  "  left_at    TEXT NOT NULL\n"
	  ")" },
};

/* §1.5 step 3: columns older entries tables lack, in the original's order. */
static const struct {
	const char	*column;
	const char	*ddl;
} entries_migrations[] = {
	{ "recall_count",
	  "ALTER TABLE entries ADD COLUMN recall_count INTEGER NOT NULL DEFAULT 0" },
	{ "last_recalled_at",
	  "ALTER TABLE entries ADD COLUMN last_recalled_at TEXT" },
	{ "archived",
	  "ALTER TABLE entries ADD COLUMN archived INTEGER NOT NULL DEFAULT 0" },
};

static int
has_column(struct store *st, const char *table, const char *column,
    int *found, struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	char		*sql = xasprintf("PRAGMA table_info(%s)", table);
	int		 rc = -1, step;

	*found = 0;
	if (store_prepare(st, &stmt, sql, err) != 0)
		goto out;
	while ((step = sqlite3_step(stmt)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(stmt, 1);
		if (name != NULL && strcmp(name, column) == 0)
			*found = 1;
	}
	if (step != SQLITE_DONE) {
		err_set(err, "database '%s': %s", st->path,
		    sqlite3_errmsg(st->db));
		goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(stmt);
	free(sql);
	return rc;
}

/* The CREATE text of the schema object (type, name), or NULL when absent. */
static int
schema_sql(struct store *st, const char *type, const char *name, char **sql,
    struct err *err)
{
	sqlite3_stmt	*stmt = NULL;
	int		 step;

	*sql = NULL;
	if (store_prepare(st, &stmt, "SELECT sql FROM sqlite_master "
	    "WHERE type = ? AND name = ?", err) != 0)
		return -1;
	sqlite3_bind_text(stmt, 1, type, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 2, name, -1, SQLITE_STATIC);
	step = sqlite3_step(stmt);
	if (step == SQLITE_ROW)
		*sql = xstrdup(sqlite3_column_text(stmt, 0) ?
		    (const char *)sqlite3_column_text(stmt, 0) : "");
	sqlite3_finalize(stmt);
	if (step != SQLITE_ROW && step != SQLITE_DONE)
		return store_fail(st, err, "cannot read the schema");
	return 0;
}

static int
table_sql(struct store *st, const char *table, char **sql, struct err *err)
{
	return schema_sql(st, "table", table, sql, err);
}

/*
 * The steps of §1.5. Each one looks with reads alone, counts in *todo what
 * it finds missing and, only when write is set, adds it; setup_schema
 * runs them read-only first, so that opening a current database writes
 * nothing (invariant 5).
 */
static int
create_tables(struct store *st, bool write, int *todo, struct err *err)
{
	char	*sql;
	size_t	 i;

	for (i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		if (table_sql(st, tables[i].name, &sql, err) != 0)
			return -1;
		if (sql != NULL) {
			free(sql);
			continue;
		}
		(*todo)++;
		if (write && store_exec(st, tables[i].ddl, err) != 0)
			return -1;
	}
	return 0;
}

static int
add_column(struct store *st, bool write, int *todo, const char *table,
    const char *column, const char *ddl, struct err *err)
{
	int	found;

	if (has_column(st, table, column, &found, err) != 0)
		return -1;
	if (found)
		return 0;
	(*todo)++;
	return write ? store_exec(st, ddl, err) : 0;
}

static int
migrate_entries(struct store *st, bool write, int *todo, struct err *err)
{
	size_t	i;

	for (i = 0; i < sizeof(entries_migrations) /
	    sizeof(entries_migrations[0]); i++)
		if (add_column(st, write, todo, "entries",
		    entries_migrations[i].column, entries_migrations[i].ddl,
		    err) != 0)
			return -1;
	return 0;
}

/* §1.5 step 2. */
static int
seed_global(struct store *st, bool write, int *todo, struct err *err)
{
	bool	found;

	if (store_has_store(st, "global", &found, err) != 0)
		return -1;
	if (found)
		return 0;
	(*todo)++;
	return write ? store_exec(st, "INSERT OR IGNORE INTO stores (name) "
	    "VALUES ('global')", err) : 0;
}

/*
 * §1.5 step 4: a chat_sessions table from an older original whose name
 * column lacks COLLATE NOCASE is rebuilt exactly as the original rebuilds
 * it (the one table rebuild §1.3 rule 1 allows; rows whose names collide
 * case-insensitively collapse to the first), then the columns the newer
 * original added are added, and the inbox index. Runs after
 * create_tables (which skipped the old table) inside setup_schema's
 * transaction.
 */
static const char CHAT_REBUILD[] =
	"CREATE TABLE chat_sessions_migrated (\n"
	"  session_id    TEXT PRIMARY KEY,\n"
	"  name          TEXT NOT NULL UNIQUE COLLATE NOCASE,\n"
	"  project       TEXT,\n"
	"  registered_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now')),\n"
	"  last_seen     TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now'))\n"
	");\n"
	"INSERT OR IGNORE INTO chat_sessions_migrated (session_id, name, project, "
	"registered_at, last_seen) SELECT session_id, name, project, "
	"registered_at, last_seen FROM chat_sessions ORDER BY rowid;\n"
	"DROP TABLE chat_sessions;\n"
	"ALTER TABLE chat_sessions_migrated RENAME TO chat_sessions;\n";

static const struct {
	const char	*table, *column, *ddl;
} chat_migrations[] = {
	{ "chat_sessions", "topic",
	  "ALTER TABLE chat_sessions ADD COLUMN topic TEXT" },
	{ "chat_sessions", "host_kind",
	  "ALTER TABLE chat_sessions ADD COLUMN host_kind TEXT NOT NULL "
	  "DEFAULT 'opencode'" },
	{ "chat_sessions", "auto",
	  "ALTER TABLE chat_sessions ADD COLUMN auto INTEGER NOT NULL "
	  "DEFAULT 1" },
	{ "chat_sessions", "worktree",
	  "ALTER TABLE chat_sessions ADD COLUMN worktree TEXT" },
	{ "chat_messages", "via_broadcast",
	  "ALTER TABLE chat_messages ADD COLUMN via_broadcast INTEGER NOT "
	  "NULL DEFAULT 0" },
};

#define CHAT_INBOX_INDEX	"CREATE INDEX IF NOT EXISTS chat_messages_inbox " \
	"ON chat_messages(to_session, read_at)"

static int
migrate_chat(struct store *st, bool write, int *todo, struct err *err)
{
	char	*sessions = NULL, *index = NULL, *p;
	size_t	 i;
	int	 rc = -1, nocase = 0;

	if (table_sql(st, "chat_sessions", &sessions, err) != 0 ||
	    schema_sql(st, "index", "chat_messages_inbox", &index, err) != 0)
		goto out;
	for (p = sessions; p != NULL && *p != '\0' && !nocase; p++)
		nocase = strncasecmp(p, "COLLATE NOCASE", 14) == 0;
	if (sessions != NULL && !nocase) {
		(*todo)++;
		if (write && store_exec(st, CHAT_REBUILD, err) != 0)
			goto out;
	}
	for (i = 0; i < sizeof(chat_migrations) / sizeof(chat_migrations[0]);
	    i++)
		if (add_column(st, write, todo, chat_migrations[i].table,
		    chat_migrations[i].column, chat_migrations[i].ddl,
		    err) != 0)
			goto out;
	if (index == NULL) {
		(*todo)++;
		if (write && store_exec(st, CHAT_INBOX_INDEX, err) != 0)
			goto out;
	}
	rc = 0;
out:
	free(sessions);
	free(index);
	return rc;
}

/* In order: a step may read what the steps before it create. */
static int (*const setup_steps[])(struct store *, bool, int *,
    struct err *) = {
	create_tables,
	migrate_entries,
	seed_global,
	migrate_chat,
	store_fts_setup,
	store_sidecar_setup,
	store_origin_setup,
};
#define NSETUP_STEPS	(sizeof(setup_steps) / sizeof(setup_steps[0]))

/* Turn SQLite's terse codes into a sentence a user can act on. */
static int
open_failure(struct store *st, int code, struct err *err)
{
	const char	*why = sqlite3_errmsg(st->db);

	switch (code & 0xff) {
	case SQLITE_NOTADB:
	case SQLITE_CORRUPT:
		return err_set(err, "'%s' is not a thatch database (%s); "
		    "move it aside or set THATCH_DB_PATH", st->path, why);
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return err_set(err, "database '%s' is locked by another "
		    "process (waited 5 s)", st->path);
	case SQLITE_READONLY:
	case SQLITE_CANTOPEN:
	case SQLITE_PERM:
		return err_set(err, "cannot open database '%s' for writing: %s",
		    st->path, why);
	default:
		return err_set(err, "cannot open database '%s': %s", st->path,
		    why);
	}
}

static int
run_setup(struct store *st, const char *sql, struct err *err)
{
	int	code = sqlite3_exec(st->db, sql, NULL, NULL, NULL);

	return code == SQLITE_OK ? 0 : open_failure(st, code, err);
}

/*
 * The schema could not be brought up to date (code: the file is read-only,
 * or another process held the write lock past the timeout) and err says
 * so. If the memories can still be read, carry on without the upgrade,
 * which a later open retries (invariant 5); else fail.
 */
static int
upgrade_failed(struct store *st, int code)
{
	size_t	i;
	int	found = 1;

	code &= 0xff;
	if (code != SQLITE_BUSY && code != SQLITE_READONLY)
		return -1;
	for (i = 0; found && i < sizeof(entries_migrations) /
	    sizeof(entries_migrations[0]); i++)
		if (has_column(st, "entries", entries_migrations[i].column,
		    &found, NULL) != 0)
			return -1;
	if (!found)
		return -1;
	/* debug only: a read-only file would say it on every command */
	log_debug("store:open", "database '%s' is %s: its schema is "
	    "upgraded on a later open", st->path, code == SQLITE_BUSY ?
	    "locked" : "read-only");
	return 0;
}

/* §1.5, writing only what is missing, in one transaction. */
static int
setup_schema(struct store *st, struct err *err)
{
	size_t	i;
	int	todo = 0, code;

	for (i = 0; i < NSETUP_STEPS && todo == 0; i++)
		if (setup_steps[i](st, false, &todo, err) != 0)
			return open_failure(st, sqlite3_errcode(st->db), err);
	if (todo == 0)
		return 0;
	code = sqlite3_exec(st->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
	for (i = 0; code == SQLITE_OK && i < NSETUP_STEPS; i++)
		if (setup_steps[i](st, true, &todo, err) != 0)
			code = sqlite3_errcode(st->db);
	if (code == SQLITE_OK)
		code = sqlite3_exec(st->db, "COMMIT", NULL, NULL, NULL);
	if (code == SQLITE_OK)
		return 0;
	open_failure(st, code, err);
	store_rollback(st);
	return upgrade_failed(st, code);
}

/*
 * Invariant 6: the database is the user's alone. A missing file is created
 * 0600 here whatever the umask (SQLite then gives -wal and -shm the mode
 * of the database); once a file has opened as a database, narrow() takes
 * group and other bits off it and its -wal and -shm when they are ours
 * (a file an older version made 0644). Names SQLite treats specially (""
 * and ":memory:") have no file.
 */
static const char *const db_suffixes[] = { "", "-wal", "-shm" };

static bool
has_file(const char *path)
{
	return *path != '\0' && strcmp(path, ":memory:") != 0;
}

static void
narrow(const char *path)
{
	struct stat	 sb;
	char		*p;
	size_t		 i;

	for (i = 0; has_file(path) &&
	    i < sizeof(db_suffixes) / sizeof(db_suffixes[0]); i++) {
		p = xasprintf("%s%s", path, db_suffixes[i]);
		if (stat(p, &sb) == 0 && S_ISREG(sb.st_mode) &&
		    sb.st_uid == geteuid() && (sb.st_mode & 077) != 0 &&
		    chmod(p, sb.st_mode & 0700) == 0)
			log_warn("made '%s' private (it was mode %04o)", p,
			    (unsigned)(sb.st_mode & 07777));
		free(p);
	}
}

static int
create_private(const char *path, struct err *err)
{
	int	fd, rc = 0;

	if (!has_file(path))
		return 0;
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	    0600);
	if (fd < 0)
		return errno == EEXIST ? 0 : err_errno(err, "cannot create "
		    "database '%s'", path);
	if (fchmod(fd, 0600) != 0)
		rc = err_errno(err, "cannot make database '%s' private", path);
	close(fd);
	return rc;
}

/*
 * "file:" URI of path opened immutable: every byte but the unreserved
 * ones percent-encoded, an absolute path after an empty authority.
 */
static char *
immutable_uri(const char *path)
{
	static const char	 hex[] = "0123456789ABCDEF";
	struct sbuf		 u = SBUF_INIT;
	const unsigned char	*p;

	sbuf_adds(&u, *path == '/' ? "file://" : "file:");
	for (p = (const unsigned char *)path; *p != '\0'; p++) {
		if (isalnum(*p) || strchr("/._~-", *p) != NULL)
			sbuf_addc(&u, (char)*p);
		else
			sbuf_addf(&u, "%%%c%c", hex[*p >> 4], hex[*p & 15]);
	}
	sbuf_adds(&u, "?immutable=1");
	return sbuf_detach(&u, NULL);
}

/*
 * A WAL database in a directory we may not write cannot be read the
 * normal way once its -shm is gone (SQLite would have to create one),
 * whether or not the file itself is writable. Without a -wal either every
 * commit is in the main file and nobody is writing through WAL, so it is
 * opened immutable: reads work, writes fail as read-only (invariant 5).
 */
static bool
wants_immutable(struct store *st, int code)
{
	char	*wal;
	bool	 none;

	if ((code & 0xff) != SQLITE_READONLY)
		return false;
	wal = xasprintf("%s-wal", st->path);
	none = access(wal, F_OK) != 0 && errno == ENOENT;
	free(wal);
	return none;
}

/* Open the connection and run invariant 1's pragmas. */
static int
connect(struct store *st, bool immutable, struct err *err)
{
	char	*uri = immutable ? immutable_uri(st->path) : NULL;
	int	 code;

	code = sqlite3_open_v2(uri ? uri : st->path, &st->db,
	    SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX |
	    (uri ? SQLITE_OPEN_URI : 0), NULL);
	free(uri);
	if (code != SQLITE_OK) {
		if (st->db == NULL)
			return err_set(err, "cannot open database '%s': out "
			    "of memory", st->path);
		return open_failure(st, code, err);
	}
	sqlite3_extended_result_codes(st->db, 0);
	/* busy_timeout first in effect: the WAL switch itself may wait. */
	sqlite3_busy_timeout(st->db, STORE_BUSY_MS);
	code = sqlite3_exec(st->db, "PRAGMA journal_mode = WAL", NULL, NULL,
	    NULL);
	if (code != SQLITE_OK && !immutable && wants_immutable(st, code)) {
		sqlite3_close_v2(st->db);
		st->db = NULL;
		return connect(st, true, err);
	}
	if (code != SQLITE_OK)
		return open_failure(st, code, err);
	if (run_setup(st, "PRAGMA busy_timeout = 5000", err) != 0 ||
	    run_setup(st, "PRAGMA foreign_keys = ON", err) != 0)
		return -1;
	return 0;
}

int
store_open(const char *path, struct store **out, struct err *err)
{
	struct store	*st;
	char		*dir;

	*out = NULL;
	st = xcalloc(1, sizeof(*st));
	st->path = xstrdup(path);
	dir = path_dirname(path);
	if (*path != '\0' && path_mkdir_p(dir, 0700, err) != 0) {
		free(dir);
		goto fail;
	}
	free(dir);
	if (create_private(path, err) != 0 || connect(st, false, err) != 0 ||
	    setup_schema(st, err) != 0)
		goto fail;
	narrow(path);
	*out = st;
	return 0;
fail:
	store_close(st);
	return -1;
}

int
store_open_readonly(const char *path, struct store **out, struct err *err)
{
	struct store	*st;
	char		*wal, *uri;
	int		 code;

	*out = NULL;
	st = xcalloc(1, sizeof(*st));
	st->path = xstrdup(path);
	wal = xasprintf("%s-wal", path);
	/* no -wal: opened immutable, so that not even a -shm is made */
	uri = access(wal, F_OK) == 0 ? NULL : immutable_uri(path);
	free(wal);
	code = sqlite3_open_v2(uri ? uri : path, &st->db, SQLITE_OPEN_READONLY |
	    SQLITE_OPEN_NOMUTEX | (uri ? SQLITE_OPEN_URI : 0), NULL);
	free(uri);
	if (code != SQLITE_OK) {
		if (st->db == NULL)
			err_set(err, "cannot open database '%s': out of "
			    "memory", path);
		else
			err_set(err, "cannot open database '%s': %s", path,
			    sqlite3_errmsg(st->db));
		store_close(st);
		return -1;
	}
	sqlite3_busy_timeout(st->db, STORE_BUSY_MS);
	*out = st;
	return 0;
}
