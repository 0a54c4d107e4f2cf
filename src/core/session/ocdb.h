/* ocdb.h — opencode's own session database, read only (ocdb.c). */
#ifndef THATCH_CORE_OCDB_H
#define THATCH_CORE_OCDB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

struct err;
struct sbuf;

/*
 * Session archaeology (engines-and-extras B6): what earlier opencode
 * sessions did, from the database opencode keeps (host-contracts §3.4).
 * Opaque; opened read-only with its WAL, never written, never
 * checkpointed.
 */
struct ocdb;

/* One row of opencode's session table. Strings owned; parent_id NULL
 * for a top-level session; times in epoch ms, archived 0 when not. */
struct ocdb_session {
	char	*id, *parent_id, *directory, *title;
	int64_t	 created, updated, archived;
};

struct ocdb_sessions {
	struct ocdb_session	*v;
	size_t			 n;
};

/* Which sessions ocdb_list returns. directory NULL means every one. */
struct ocdb_filter {
	const char	*directory;
	bool		 children, archived;
	size_t		 limit;
};

/*
 * The database's path: $OPENCODE_DB, else $XDG_DATA_HOME/opencode/
 * opencode.db, else ~/.local/share/opencode/opencode.db (home borrowed).
 * New string.
 */
char	*ocdb_path(const char *home);

/*
 * Open path read-only (its WAL included: the newest session may live only
 * there) and check that the tables and columns this file reads exist.
 * Returns 0, or -1 with err set: "opencode database not found at <path>
 * (set OPENCODE_DB)", or which table lacks which column when opencode's
 * schema moved.
 */
int	ocdb_open(const char *path, struct ocdb **, struct err *);
void	ocdb_close(struct ocdb *);

/* The session with that id into *s (released by the caller when *found),
 * *found false when there is none. Returns 0 or -1. */
int	ocdb_session(struct ocdb *, const char *id, struct ocdb_session *s,
	    bool *found, struct err *);
void	ocdb_session_release(struct ocdb_session *);

/*
 * ocdb_session in the database at ocdb_path(home), opened and closed for
 * the call (for a host that needs one row now and then). true with *s
 * filled (released by the caller); false when there is no such session
 * (err "") or the database cannot be read (err says why).
 */
bool	ocdb_find(const char *home, const char *sid, struct ocdb_session *s,
	    struct err *);

/*
 * The last assistant message of session sid (by time_created, id): its
 * text parts, joined by newlines, appended to text, and the provider and
 * model it ran on in *provider and *model (new strings, NULL when not
 * recorded). Returns 1, 0 when sid has no assistant message, or -1.
 */
int	ocdb_last_reply(struct ocdb *, const char *sid, struct sbuf *text,
	    char **provider, char **model, struct err *);

/* Sessions newest time_updated first, filtered. Returns 0 or -1. */
int	ocdb_list(struct ocdb *, const struct ocdb_filter *,
	    struct ocdb_sessions *, struct err *);
void	ocdb_sessions_release(struct ocdb_sessions *);

/*
 * One session decoded: {"session": {id, parent_id, title, directory,
 * time_created, time_updated}, "children": [{id, title}], "messages":
 * [{id, role, time, parts: [decoded part…]}]}, messages ordered by
 * (time_created, id), parts by id. *got is NULL (and 0 returned) when no
 * session has that id. The caller decrefs *got.
 */
int	ocdb_get(struct ocdb *, const char *id, json_t **got, struct err *);

/*
 * A part's data column decoded to what thatch shows of it, never NULL:
 * {"type":"text"|"reasoning", "text", "synthetic"}, {"type":"tool",
 * "tool", "callID", "status", "input", "output"} (output is the error for
 * a failed call), {"type":"file", "filename", "mime", "url"}, or just
 * {"type"} for every other kind, "unknown" when the data is not a part.
 * The parser of opencode's rows (tests/fuzz/fuzz_ocdb.c).
 */
json_t	*ocdb_part_decode(const char *data, size_t len);

/*
 * The OpenAI chat-completions messages of a decoded session ({"messages":
 * […]}): user text, assistant text with the tool_calls of its completed
 * (or failed) tool parts, each call followed by its "tool" message;
 * reasoning, files and step markers left out, synthetic text too unless
 * asked for. New reference.
 */
json_t	*ocdb_transcript(const json_t *got, bool synthetic);

/*
 * A decoded session as text for eyes, terminal controls made visible.
 * Only the last max_messages messages (0: all), saying how many came
 * before. compact leaves out step markers and cuts each text and tool
 * output at OCDB_COMPACT_CUT characters.
 */
#define OCDB_COMPACT_CUT	2000
void	ocdb_render(const json_t *got, size_t max_messages, bool compact,
	    struct sbuf *out);

/* What ocdb_search looks for: in session, or every session (NULL) but
 * exclude (NULL: none), the searcher's own. */
struct ocdb_query {
	const char	*text;
	const char	*session;
	const char	*exclude;
	size_t		 limit;
};

/*
 * Case-insensitive (ASCII) substring search over decoded content only —
 * text and reasoning, tool names, tool input as JSON, tool output — never
 * the JSON keys around them; newest first, one hit per part, at most
 * limit. Appends one line per hit: "<session> <title> <message> <role>
 * <time>: …<snippet>…". Sets *nhits. Returns 0 or -1.
 */
int	ocdb_search(struct ocdb *, const struct ocdb_query *, struct sbuf *out,
	    size_t *nhits, struct err *);

/* Local "YYYY-MM-DD HH:MM" of epoch ms into buf (17 bytes and a NUL);
 * "?" when the time cannot be shown (ocdb_part.c). */
#define OCDB_TIME_LEN	18
const char *ocdb_time(int64_t ms, char buf[OCDB_TIME_LEN]);

#endif
