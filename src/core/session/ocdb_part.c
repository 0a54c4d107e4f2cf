/*
 * ocdb_part.c — what thatch makes of opencode's stored parts: the decoded
 * form, the OpenAI chat-completions transcript, the text rendering and the
 * time stamps it shows (engines-and-extras B6; the shapes are
 * host-contracts §3.4's). It never reads the database (ocdb.c does, and
 * calls this file).
 *
 *  1. Part data is outside input: anything that is not the expected shape
 *     decodes to a part of its own kind with no fields ("unknown" when it
 *     is not even an object with a type), never to an error. Only strings
 *     that are strings are kept (fuzz_ocdb).
 *  2. The transcript pairs every tool_calls entry with its "tool" message,
 *     as chat-completions consumers require, so only tool parts that
 *     finished (completed or error) become calls.
 */
#include "core/session/ocdb.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/jsonx.h"
#include "util/sbuf.h"
#include "util/utf8.h"
#include "util/xmalloc.h"

static void
copy_str(json_t *to, const char *key, const json_t *from, const char *as)
{
	const char	*s = jsonx_str(from, key);

	if (s != NULL)
		json_object_set_new(to, as ? as : key, json_string(s));
}

static void
decode_tool(json_t *p, const json_t *d)
{
	const json_t	*st = json_object_get(d, "state");
	const char	*status = jsonx_str(st, "status");

	copy_str(p, "tool", d, NULL);
	copy_str(p, "callID", d, NULL);
	copy_str(p, "status", st, NULL);
	if (json_object_get(st, "input") != NULL)
		json_object_set(p, "input", json_object_get(st, "input"));
	if (status != NULL && strcmp(status, "error") == 0)
		copy_str(p, "error", st, "output");
	else
		copy_str(p, "output", st, NULL);
}

json_t *
ocdb_part_decode(const char *data, size_t len)
{
	json_t		*d = data != NULL ? jsonx_parse(data, len, "part", NULL) :
			    NULL;
	const char	*type = jsonx_str(d, "type");
	json_t		*p = json_pack("{s:s}", "type", type ? type : "unknown");

	if (type == NULL)
		;
	else if (strcmp(type, "text") == 0 || strcmp(type, "reasoning") == 0) {
		copy_str(p, "text", d, NULL);
		if (json_is_true(json_object_get(d, "synthetic")))
			json_object_set_new(p, "synthetic", json_true());
	} else if (strcmp(type, "tool") == 0)
		decode_tool(p, d);
	else if (strcmp(type, "file") == 0) {
		copy_str(p, "filename", d, NULL);
		copy_str(p, "mime", d, NULL);
		copy_str(p, "url", d, NULL);
	}
	json_decref(d);
	return p;
}

/* ---- transcript -------------------------------------------------------- */

static bool
is_type(const json_t *p, const char *type)
{
	const char	*t = jsonx_str(p, "type");

	return t != NULL && strcmp(t, type) == 0;
}

/* The message's text parts joined by newlines; false when none. */
static bool
message_text(const json_t *parts, bool synthetic, struct sbuf *out)
{
	const json_t	*p;
	size_t		 i;
	bool		 any = false;

	json_array_foreach(parts, i, p) {
		if (!is_type(p, "text") || jsonx_str(p, "text") == NULL ||
		    (!synthetic && json_is_true(json_object_get(p,
		    "synthetic"))))
			continue;
		if (any)
			sbuf_addc(out, '\n');
		sbuf_adds(out, jsonx_str(p, "text"));
		any = true;
	}
	return any;
}

static bool
finished_call(const json_t *p)
{
	const char	*st = jsonx_str(p, "status");

	return is_type(p, "tool") && jsonx_str(p, "callID") != NULL &&
	    jsonx_str(p, "tool") != NULL && st != NULL &&
	    (strcmp(st, "completed") == 0 || strcmp(st, "error") == 0);
}

/* Invariant 2: an assistant step, then one "tool" message per call. */
static void
assistant_turn(json_t *list, const json_t *parts, bool synthetic)
{
	struct sbuf	 sb = SBUF_INIT;
	json_t		*calls = json_array(), *tools = json_array(), *m;
	const json_t	*p, *in;
	char		*args;
	size_t		 i;
	bool		 text;

	sbuf_init(&sb);
	text = message_text(parts, synthetic, &sb);
	json_array_foreach(parts, i, p) {
		if (!finished_call(p))
			continue;
		in = json_object_get(p, "input");
		args = in != NULL ? jsonx_dump(in, 0) : xstrdup("{}");
		json_array_append_new(calls, json_pack("{s:s,s:s,s:{s:s,s:s}}",
		    "id", jsonx_str(p, "callID"), "type", "function",
		    "function", "name", jsonx_str(p, "tool"), "arguments",
		    args));
		json_array_append_new(tools, json_pack("{s:s,s:s,s:s}", "role",
		    "tool", "tool_call_id", jsonx_str(p, "callID"), "content",
		    jsonx_str(p, "output") ? jsonx_str(p, "output") : ""));
		free(args);
	}
	if (text || json_array_size(calls) > 0) {
		m = json_pack("{s:s,s:o}", "role", "assistant", "content",
		    text ? json_string(sb.buf) : json_null());
		if (json_array_size(calls) > 0)
			json_object_set(m, "tool_calls", calls);
		json_array_append_new(list, m);
		json_array_extend(list, tools);
	}
	json_decref(calls);
	json_decref(tools);
	sbuf_release(&sb);
}

json_t *
ocdb_transcript(const json_t *got, bool synthetic)
{
	json_t		*list = json_array();
	const json_t	*m, *parts;
	const char	*role;
	struct sbuf	 sb = SBUF_INIT;
	size_t		 i;

	sbuf_init(&sb);
	json_array_foreach(json_object_get(got, "messages"), i, m) {
		role = jsonx_str(m, "role");
		parts = json_object_get(m, "parts");
		if (role == NULL)
			continue;
		if (strcmp(role, "assistant") == 0)
			assistant_turn(list, parts, synthetic);
		else if (strcmp(role, "user") == 0) {
			sbuf_reset(&sb);
			if (message_text(parts, synthetic, &sb))
				json_array_append_new(list, json_pack(
				    "{s:s,s:s}", "role", "user", "content",
				    sb.buf));
		}
	}
	sbuf_release(&sb);
	return json_pack("{s:o}", "messages", list);
}

/* ---- text -------------------------------------------------------------- */

const char *
ocdb_time(int64_t ms, char buf[OCDB_TIME_LEN])
{
	time_t		t = (time_t)(ms / 1000);
	struct tm	tm;

	if (localtime_r(&t, &tm) == NULL ||
	    strftime(buf, OCDB_TIME_LEN, "%Y-%m-%d %H:%M", &tm) == 0)
		snprintf(buf, OCDB_TIME_LEN, "?");
	return buf;
}


/* s indented by two spaces, cut at OCDB_COMPACT_CUT when compact. */
static void
block(struct sbuf *out, const char *s, bool compact)
{
	size_t	 len = strlen(s), cut = compact ? utf8_js_cut(s, len,
		    OCDB_COMPACT_CUT) : len;
	char	*head = xstrndup(s, cut), *line, *nl;

	for (line = head; line != NULL; line = nl) {
		if ((nl = strchr(line, '\n')) != NULL)
			*nl++ = '\0';
		if (*line == '\0' && nl == NULL)
			break;
		sbuf_adds(out, "    ");
		utf8_escape(out, line, 0);
		sbuf_addc(out, '\n');
	}
	if (cut < len)
		sbuf_addf(out, "    … (%zu more characters)\n",
		    utf8_js_len(s + cut, len - cut));
	free(head);
}

static void
render_part(struct sbuf *out, const json_t *p, bool compact)
{
	const char	*type = jsonx_str(p, "type");
	char		*in;

	if (is_type(p, "text") || is_type(p, "reasoning")) {
		sbuf_addf(out, "  [%s%s]\n", type, json_is_true(
		    json_object_get(p, "synthetic")) ? ", synthetic" : "");
		block(out, jsonx_str(p, "text") ? jsonx_str(p, "text") : "",
		    compact);
	} else if (is_type(p, "tool")) {
		in = json_object_get(p, "input") ? jsonx_dump(json_object_get(
		    p, "input"), 0) : xstrdup("{}");
		utf8_addf(out, "  [tool %s, %s] %s\n", jsonx_str(p, "tool"),
		    jsonx_str(p, "status"), in);
		if (jsonx_str(p, "output") != NULL)
			block(out, jsonx_str(p, "output"), compact);
		free(in);
	} else if (is_type(p, "file"))
		utf8_addf(out, "  [file] %s (%s) %s\n", jsonx_str(p,
		    "filename"), jsonx_str(p, "mime"), jsonx_str(p, "url"));
	else if (!compact || (strcmp(type, "step-start") != 0 &&
	    strcmp(type, "step-finish") != 0))
		utf8_addf(out, "  [%s]\n", type);
}

static void
render_head(struct sbuf *out, const json_t *got)
{
	const json_t	*s = json_object_get(got, "session"), *c;
	char		 t1[OCDB_TIME_LEN], t2[OCDB_TIME_LEN];
	size_t		 i;

	utf8_addf(out, "session %s  %s\n", jsonx_str(s, "id"),
	    jsonx_str(s, "title"));
	utf8_addf(out, "directory: %s\n", jsonx_str(s, "directory"));
	if (jsonx_str(s, "parent_id") != NULL)
		utf8_addf(out, "parent: %s\n", jsonx_str(s, "parent_id"));
	sbuf_addf(out, "created %s, updated %s\n", ocdb_time(json_integer_value(
	    json_object_get(s, "time_created")), t1), ocdb_time(
	    json_integer_value(json_object_get(s, "time_updated")), t2));
	json_array_foreach(json_object_get(got, "children"), i, c)
		utf8_addf(out, "child: %s  %s\n", jsonx_str(c, "id"),
		    jsonx_str(c, "title"));
}

void
ocdb_render(const json_t *got, size_t max_messages, bool compact,
    struct sbuf *out)
{
	const json_t	*msgs = json_object_get(got, "messages"), *m, *p;
	size_t		 n = json_array_size(msgs), from = 0, i, j;
	char		 t[OCDB_TIME_LEN];

	render_head(out, got);
	if (max_messages > 0 && n > max_messages)
		from = n - max_messages;
	sbuf_addf(out, "%zu messages", n);
	if (from > 0)
		sbuf_addf(out, " (the first %zu not shown)", from);
	sbuf_addc(out, '\n');
	for (i = from; i < n; i++) {
		m = json_array_get(msgs, i);
		utf8_addf(out, "\n%s %s", jsonx_str(m, "role"), jsonx_str(m,
		    "id"));
		sbuf_addf(out, " at %s\n", ocdb_time(json_integer_value(
		    json_object_get(m, "time")), t));
		json_array_foreach(json_object_get(m, "parts"), j, p)
			render_part(out, p, compact);
	}
}
