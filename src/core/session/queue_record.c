/*
 * queue_record.c — what a queued tool call is and says: the record
 * written for a host's call (hosts-hooks-cli §4.2), its title and the
 * payload's one-line summary (deriveTitle, summarizeArgs, §4.7), and one
 * interaction of the extraction payload. Nothing here touches a file
 * (queue.c does).
 *
 * Titles and summaries print values as JavaScript's String(v) would, and
 * cut in UTF-16 units, as the original did (§4.7).
 */
#include "core/session/queue.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/anchor/anchor.h"
#include "core/session/queue_int.h"
#include "util/jsonx.h"
#include "util/num.h"
#include "util/sbuf.h"
#include "util/utf8.h"
#include "util/xmalloc.h"

/* Titles and summaries are cut to these many UTF-16 units (§4.7). */
#define TITLE_MAX	80
#define SUMMARY_MAX	120

/* JavaScript's String(v) for the values deriveTitle/summarizeArgs print. */
static void
js_text(struct sbuf *sb, const json_t *v)
{
	char	 nb[NUM_BUFSZ];
	size_t	 i;

	if (v == NULL)
		sbuf_adds(sb, "undefined");
	else if (json_is_string(v))
		sbuf_add(sb, json_string_value(v), json_string_length(v));
	else if (json_is_number(v))
		sbuf_adds(sb, num_js(json_number_value(v), nb));
	else if (json_is_boolean(v))
		sbuf_adds(sb, json_is_true(v) ? "true" : "false");
	else if (json_is_null(v))
		sbuf_adds(sb, "null");
	else if (json_is_array(v)) {
		for (i = 0; i < json_array_size(v); i++) {
			if (i > 0)
				sbuf_addc(sb, ',');
			if (!json_is_null(json_array_get(v, i)))
				js_text(sb, json_array_get(v, i));
		}
	} else
		sbuf_adds(sb, "[object Object]");
}

/* A copy of the first max UTF-16 units of s. */
static char *
cut(const char *s, size_t len, size_t max)
{
	return xstrndup(s, utf8_js_cut(s, len, max));
}

/* J(v) cut to max units; a record without args has {} (§4.2). */
static char *
cut_json(const json_t *v, size_t max)
{
	char	*j = v != NULL ? jsonx_dump(v, 0) : xstrdup("{}"), *r;

	r = cut(j, strlen(j), max);
	free(j);
	return r;
}

enum tool_shape { SHAPE_FILE, SHAPE_BASH, SHAPE_PATTERN, SHAPE_OTHER };

static enum tool_shape
shape_of(const char *tool)
{
	if (strcasecmp(tool, "read") == 0 || strcasecmp(tool, "edit") == 0 ||
	    strcasecmp(tool, "write") == 0)
		return SHAPE_FILE;
	if (strcasecmp(tool, "bash") == 0)
		return SHAPE_BASH;
	if (strcasecmp(tool, "grep") == 0 || strcasecmp(tool, "glob") == 0)
		return SHAPE_PATTERN;
	return SHAPE_OTHER;
}

/* FILE of §4.7: filePath (opencode) before file_path (Claude Code). */
static const json_t *
file_arg(const json_t *args)
{
	const json_t	*f = jsonx_get(args, "filePath");

	return f != NULL ? f : jsonx_get(args, "file_path");
}

static char *
command_cut(const json_t *args, size_t max)
{
	const char	*cmd = jsonx_str(args, "command");

	/* deviation (§4.7): a non-string command is "", not a lost batch */
	return cmd == NULL ? xstrdup("") : cut(cmd, strlen(cmd), max);
}

char *
queue_title(const char *tool, const json_t *args)
{
	struct sbuf	 sb = SBUF_INIT;
	const json_t	*v;
	const char	*slash;

	sbuf_init(&sb);
	switch (shape_of(tool)) {
	case SHAPE_FILE:
		if ((v = file_arg(args)) != NULL) {
			js_text(&sb, v);
			slash = strrchr(sb.buf, '/');
			if (slash != NULL)
				memmove(sb.buf, slash + 1, strlen(slash));
			sbuf_setlen(&sb, strlen(sb.buf));
		}
		return sbuf_detach(&sb, NULL);
	case SHAPE_BASH:
		sbuf_release(&sb);
		return command_cut(args, TITLE_MAX);
	case SHAPE_PATTERN:
		if ((v = jsonx_get(args, "pattern")) != NULL)
			js_text(&sb, v);
		return sbuf_detach(&sb, NULL);
	default:
		sbuf_release(&sb);
		return cut_json(args, TITLE_MAX);
	}
}

char *
queue_summary(const char *tool, const json_t *args)
{
	struct sbuf	 sb = SBUF_INIT;
	const json_t	*v;

	sbuf_init(&sb);
	switch (shape_of(tool)) {
	case SHAPE_FILE:
		/* parity (§4.7): an absent path prints "undefined" */
		sbuf_adds(&sb, "file: ");
		js_text(&sb, file_arg(args));
		return sbuf_detach(&sb, NULL);
	case SHAPE_BASH:
		sbuf_release(&sb);
		return command_cut(args, SUMMARY_MAX);
	case SHAPE_PATTERN:
		v = json_object_get(args, "pattern");	/* null prints null */
		sbuf_adds(&sb, "pattern: ");
		js_text(&sb, v);
		return sbuf_detach(&sb, NULL);
	default:
		sbuf_release(&sb);
		return cut_json(args, SUMMARY_MAX);
	}
}

/*
 * The tools whose arguments name a file the agent read or edited (or
 * searched in), and the keys naming it: opencode's, then Claude Code's.
 * At most FILE_KEYS paths a call, so a payload's files stay bounded.
 */
#define FILE_KEYS	2
static const struct {
	const char	*tool;
	const char	*keys[FILE_KEYS];
} file_tools[] = {
	{ "read", { "filePath", "file_path" } },
	{ "edit", { "filePath", "file_path" } },
	{ "write", { "filePath", "file_path" } },
	{ "multiedit", { "filePath", "file_path" } },
	{ "notebookedit", { "notebook_path", NULL } },
	{ "grep", { "path", NULL } },
	{ "glob", { "path", NULL } },
};

json_t *
queue_files(const char *tool, const json_t *args, const char *base,
    const char *root)
{
	const char	*v;
	json_t		*files = NULL;
	char		*rel;
	size_t		 i, k, j;

	for (i = 0; root != NULL && i < sizeof(file_tools) /
	    sizeof(file_tools[0]); i++) {
		if (strcasecmp(tool, file_tools[i].tool) != 0)
			continue;
		for (k = 0; k < FILE_KEYS && file_tools[i].keys[k]; k++) {
			if ((v = jsonx_str(args, file_tools[i].keys[k])) ==
			    NULL || (rel = anchor_relpath(root, base, v)) ==
			    NULL)
				continue;
			if (files == NULL)
				files = json_array();
			for (j = 0; j < json_array_size(files) && strcmp(rel,
			    json_string_value(json_array_get(files, j))); j++)
				;
			if (j == json_array_size(files))
				json_array_append_new(files, json_string(rel));
			free(rel);
		}
	}
	return files;
}

/* The output of §4.2 for a host's response (clipped by record_clip). */
static json_t *
output_of(const json_t *response)
{
	char	*cut;
	json_t	*v;

	if (response == NULL)
		return json_string("");	/* deviation (§4.2): no lost batch */
	if (json_is_string(response))
		return json_deep_copy(response);
	cut = cut_json(response, QUEUE_OUTPUT_MAX);
	v = json_string(cut);
	free(cut);
	return v;
}

/* One record of §4.2, keys in order, clipped like a read one
 * (queue_clip.c). */
json_t *
queue_record_new(const char *sid, const struct queue_call *c)
{
	json_t	*args, *rec;
	char	*title;

	args = json_is_object(c->args) ? json_deep_copy(c->args) :
	    json_object();
	title = queue_title(c->tool, args);
	rec = json_object();
	json_object_set_new(rec, "tool", json_string(c->tool));
	json_object_set_new(rec, "sessionID", json_string(sid));
	json_object_set_new(rec, "args", args);
	json_object_set_new(rec, "title", json_string(title));
	json_object_set_new(rec, "output", output_of(c->response));
	free(title);
	queue_clip_record(rec);
	return rec;
}

/* The record's string at key, or "" (a foreign record may lack it). */
static const char *
field(const json_t *rec, const char *key, size_t *len)
{
	const json_t	*v = json_object_get(rec, key);

	*len = json_is_string(v) ? json_string_length(v) : 0;
	return json_is_string(v) ? json_string_value(v) : "";
}

/* One interaction of the payload (§4.7) from one record. */
json_t *
queue_record_interaction(const json_t *rec, const char *base,
    const char *root)
{
	const char	*tool, *text, *title;
	char		*summary;
	size_t		 len, tlen, keep;
	struct sbuf	 out = SBUF_INIT;
	json_t		*o, *files;

	tool = field(rec, "tool", &len);
	title = field(rec, "title", &tlen);
	text = field(rec, "output", &len);
	keep = utf8_js_cut(text, len, QUEUE_OUTPUT_MAX);
	sbuf_init(&out);
	sbuf_add(&out, text, keep);
	if (keep < len)
		sbuf_adds(&out, "...");
	summary = queue_summary(tool, json_object_get(rec, "args"));
	o = json_object();
	json_object_set_new(o, "tool", json_string(tool));
	json_object_set_new(o, "title", json_stringn(title, tlen));
	json_object_set_new(o, "args", json_string(summary));
	json_object_set_new(o, "output", json_stringn(out.buf, out.len));
	if ((files = queue_files(tool, json_object_get(rec, "args"), base,
	    root)) != NULL)
		json_object_set_new(o, "files", files);
	free(summary);
	sbuf_release(&out);
	return o;
}
