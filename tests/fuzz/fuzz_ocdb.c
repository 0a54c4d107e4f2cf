/*
 * fuzz_ocdb.c — reading opencode's session database (src/core/session/ocdb.c,
 * ocdb_part.c). An input is rows opencode (or a damaged or future
 * opencode) might have written: its first line is a message's data
 * column, each further line one part's data column. They go into a
 * database with opencode 1.18's three tables and are read back the ways
 * `thatch session` and the tools do: get, transcript, render, search.
 *
 * Properties: every decoded part has a string type; in the transcript
 * every assistant message's tool_calls are followed by exactly as many
 * "tool" messages with the same ids in order; the first text part's
 * first characters are found by search when its raw JSON has no escape
 * (the prefilter's promise, ocdb.c invariant 3).
 */
#include <sqlite3.h>

#include <jansson.h>

#include "fuzz.h"

#include "core/session/ocdb.h"
#include "util/err.h"
#include "util/sbuf.h"

static char	 path[4096];

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	sqlite3	*db;

	(void)argc;
	(void)argv;
	snprintf(path, sizeof(path), "%s/opencode.db", fuzz_env());
	FUZZ_ASSERT(sqlite3_open(path, &db) == SQLITE_OK);
	FUZZ_ASSERT(sqlite3_exec(db, "PRAGMA journal_mode=WAL;"
	    "CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT, "
	    "parent_id TEXT, slug TEXT, directory TEXT, title TEXT, version "
	    "TEXT, time_created INTEGER, time_updated INTEGER, time_archived "
	    "INTEGER);"
	    "CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT, "
	    "time_created INTEGER, time_updated INTEGER, data TEXT);"
	    "CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT, "
	    "session_id TEXT, time_created INTEGER, time_updated INTEGER, "
	    "data TEXT);"
	    "INSERT INTO session VALUES ('ses_f', 'p', NULL, 's', '/d', 't', "
	    "'1', 1, 2, NULL);", NULL, NULL, NULL) == SQLITE_OK);
	sqlite3_close(db);
	return 0;
}

/* The input's rows into the database (replacing the last input's). */
static void
load(const uint8_t *data, size_t size, char *first_text, size_t cap)
{
	const uint8_t	*p = data, *end = data + size, *nl;
	sqlite3		*db;
	sqlite3_stmt	*msg, *part;
	json_t		*d;
	char		 id[32];
	int		 n = 0;

	FUZZ_ASSERT(sqlite3_open(path, &db) == SQLITE_OK);
	FUZZ_ASSERT(sqlite3_exec(db, "DELETE FROM message; DELETE FROM part",
	    NULL, NULL, NULL) == SQLITE_OK);
	FUZZ_ASSERT(sqlite3_prepare_v2(db, "INSERT INTO message VALUES "
	    "('msg_1', 'ses_f', 1, 1, ?1)", -1, &msg, NULL) == SQLITE_OK);
	FUZZ_ASSERT(sqlite3_prepare_v2(db, "INSERT INTO part VALUES (?1, "
	    "'msg_1', 'ses_f', 1, 1, ?2)", -1, &part, NULL) == SQLITE_OK);
	for (; p <= end; p = nl + 1, n++) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		if (n == 0) {
			sqlite3_bind_text(msg, 1, (const char *)p, (int)(nl - p),
			    SQLITE_STATIC);
			FUZZ_ASSERT(sqlite3_step(msg) == SQLITE_DONE);
			continue;
		}
		snprintf(id, sizeof(id), "prt_%04d", n);
		sqlite3_reset(part);
		sqlite3_bind_text(part, 1, id, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(part, 2, (const char *)p, (int)(nl - p),
		    SQLITE_STATIC);
		FUZZ_ASSERT(sqlite3_step(part) == SQLITE_DONE);
		d = json_loadb((const char *)p, (size_t)(nl - p), 0, NULL);
		if (*first_text == '\0' && memchr(p, '\\', (size_t)(nl - p)) ==
		    NULL && json_is_string(json_object_get(d, "type")) &&
		    strcmp(json_string_value(json_object_get(d, "type")),
		    "text") == 0 && json_is_string(json_object_get(d, "text")))
			snprintf(first_text, cap, "%s", json_string_value(
			    json_object_get(d, "text")));
		json_decref(d);
	}
	sqlite3_finalize(msg);
	sqlite3_finalize(part);
	sqlite3_close(db);
}

static void
check_transcript(const json_t *t)
{
	const json_t	*msgs = json_object_get(t, "messages"), *m, *calls;
	size_t		 i, k, n = json_array_size(msgs);

	for (i = 0; i < n; i++) {
		m = json_array_get(msgs, i);
		FUZZ_ASSERT(json_is_string(json_object_get(m, "role")));
		if ((calls = json_object_get(m, "tool_calls")) == NULL)
			continue;
		FUZZ_ASSERT(json_array_size(calls) > 0);
		for (k = 0; k < json_array_size(calls); k++) {
			m = json_array_get(msgs, i + 1 + k);
			FUZZ_ASSERT(m != NULL);
			FUZZ_ASSERT(strcmp(json_string_value(json_object_get(m,
			    "role")), "tool") == 0);
			FUZZ_ASSERT(json_equal(json_object_get(m,
			    "tool_call_id"), json_object_get(json_array_get(
			    calls, k), "id")));
		}
		i += k;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ocdb_query	 q = { NULL, NULL, NULL, 0 };
	struct ocdb		*db;
	struct sbuf		 sb = SBUF_INIT;
	struct err		 err;
	const json_t		*m, *p;
	json_t			*got, *t;
	char			 text[4096] = "", query[16];
	size_t			 i, j, n;

	load(data, size, text, sizeof(text));
	FUZZ_ASSERT(ocdb_open(path, &db, &err) == 0);
	FUZZ_ASSERT(ocdb_get(db, "ses_f", &got, &err) == 0 && got != NULL);
	json_array_foreach(json_object_get(got, "messages"), i, m)
		json_array_foreach(json_object_get(m, "parts"), j, p)
			FUZZ_ASSERT(json_is_string(json_object_get(p, "type")));
	t = ocdb_transcript(got, true);
	check_transcript(t);
	json_decref(t);
	sbuf_init(&sb);
	ocdb_render(got, 0, false, &sb);
	ocdb_render(got, 1, true, &sb);
	json_decref(got);
	/* a few bytes of the first text, ending on a character boundary */
	for (n = strlen(text) < 6 ? strlen(text) : 6; n > 0 &&
	    ((unsigned char)text[n] & 0xC0) == 0x80; n--)
		;
	memcpy(query, text, n);
	query[n] = '\0';
	if (n > 0) {
		q.text = query;
		sbuf_reset(&sb);
		FUZZ_ASSERT(ocdb_search(db, &q, &sb, &i, &err) == 0);
		FUZZ_ASSERT(i >= 1);
	}
	sbuf_release(&sb);
	ocdb_close(db);
	return 0;
}
