/*
 * queue.c — the per-session extraction queue on disk.
 *
 * Claude Code and Cursor run every hook as a fresh process, so the tool
 * calls waiting for extraction live in QUEUE_DIR/<safe>.jsonl, one compact
 * JSON record per line, beside the missed-nudge counter <safe>.count and
 * (thatch's own addition for Cursor) a pending nudge <safe>.nudge
 * (hosts-hooks-cli §4, host-contracts C2). This file knows the formats and
 * the file discipline; which calls count as thatch's own is the hook's
 * decision (struct queue_call.verdict).
 *
 * Invariants:
 *  1. Every writer (append, drain, counter) holds an exclusive flock on
 *     the queue directory itself for its read-modify-write. A lock on the
 *     queue file would not do: the cap rewrite renames a new inode over
 *     it, and a second writer blocked on the old inode would then append
 *     to a file nobody reads. One lock per directory also leaves no lock
 *     files behind; hook writes take well under a millisecond.
 *  2. The queue file only ever changes by one O_APPEND write of whole
 *     lines, by rename of a complete temporary file, or by unlink, so a
 *     lock-free reader (peek) sees whole lines. Nothing is fsync'd: the
 *     queue is a cache, and an fsync would cost more than the hook.
 *  3. At most QUEUE_CAP records are on disk after any append.
 *  4. No file name is built from a session id except through safe_id,
 *     whose output has only [A-Za-z0-9_-] and is never empty, "." or "..".
 */
#include "core/queue.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <dirent.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/err.h"
#include "util/fileio.h"
#include "util/jsonx.h"
#include "util/num.h"
#include "util/path.h"
#include "util/sbuf.h"
#include "util/utf8.h"
#include "util/xmalloc.h"

/* Titles and summaries are cut to these many UTF-16 units (§4.7). */
#define TITLE_MAX	80
#define SUMMARY_MAX	120

/* Length of the maximal invalid UTF-8 subpart at s (Unicode §3.9). */
static size_t
invalid_span(const unsigned char *s, size_t n)
{
	unsigned char	lo = 0x80, hi = 0xBF;
	size_t		need, i;

	if (s[0] >= 0xC2 && s[0] <= 0xDF)
		need = 1;
	else if (s[0] >= 0xE0 && s[0] <= 0xEF) {
		need = 2;
		if (s[0] == 0xE0)
			lo = 0xA0;
		else if (s[0] == 0xED)
			hi = 0x9F;
	} else if (s[0] >= 0xF0 && s[0] <= 0xF4) {
		need = 3;
		if (s[0] == 0xF0)
			lo = 0x90;
		else if (s[0] == 0xF4)
			hi = 0x8F;
	} else
		return 1;
	for (i = 1; i <= need && i < n; i++) {
		if (s[i] < lo || s[i] > hi)
			break;
		lo = 0x80;
		hi = 0xBF;
	}
	return i;
}

char *
queue_safe_id(const char *sid)
{
	const unsigned char	*u = (const unsigned char *)sid;
	struct sbuf		 sb = SBUF_INIT;
	size_t			 n = strlen(sid), i = 0, step;
	int32_t			 cp;

	sbuf_init(&sb);
	while (i < n) {
		if ((u[i] >= 'a' && u[i] <= 'z') || (u[i] >= 'A' &&
		    u[i] <= 'Z') || (u[i] >= '0' && u[i] <= '9') ||
		    u[i] == '_' || u[i] == '-') {
			sbuf_addc(&sb, sid[i++]);
			continue;
		}
		step = utf8_decode(sid + i, n - i, &cp);
		if (cp == 0xFFFD && step == 1 && u[i] >= 0x80)
			step = invalid_span(u + i, n - i);
		sbuf_adds(&sb, cp >= 0x10000 ? "__" : "_");
		i += step;
	}
	if (sb.len == 0)
		sbuf_addc(&sb, '_');	/* invariant 4: never an empty name */
	return sbuf_detach(&sb, NULL);
}

static char *
queue_file(const char *dir, const char *sid, const char *ext)
{
	char	*safe = queue_safe_id(sid), *name, *path;

	name = xasprintf("%s.%s", safe, ext);
	path = path_join(dir, name);
	free(name);
	free(safe);
	return path;
}

/* Invariant 1: returns the locked directory fd, or -1 with err set. */
static int
lock_dir(const char *dir, struct err *err)
{
	int	fd;

	if (path_mkdir_p(dir, 0700, err) != 0)
		return -1;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return err_errno(err, "cannot open queue directory '%s'", dir);
	while (flock(fd, LOCK_EX) != 0) {
		if (errno != EINTR) {
			err_errno(err, "cannot lock '%s'", dir);
			close(fd);
			return -1;
		}
	}
	return fd;
}

static void
unlock_dir(int fd)
{
	if (fd >= 0)
		close(fd);	/* closing drops the flock */
}

static int
remove_file(const char *path, struct err *err)
{
	if (unlink(path) != 0 && errno != ENOENT)
		return err_errno(err, "cannot remove '%s'", path);
	return 0;
}

/* §4.5 read_records: parse what is there, skipping broken lines. */
static int
read_records(const char *path, json_t *out, struct err *err)
{
	struct sbuf	 sb = SBUF_INIT;
	char		*line, *nl;
	json_t		*rec;
	int		 rc;

	sbuf_init(&sb);
	rc = fileio_read(path, &sb, err);
	if (rc < 0) {
		sbuf_release(&sb);
		return -1;
	}
	for (line = sb.buf; line != NULL; line = nl != NULL ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		if (nl != NULL)
			*nl = '\0';
		rec = json_loads(line, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
		if (json_is_object(rec))
			json_array_append_new(out, rec);
		else
			json_decref(rec);
	}
	sbuf_release(&sb);
	return 0;
}

int
queue_peek(const char *dir, const char *sid, json_t **out, struct err *err)
{
	char	*path = queue_file(dir, sid, "jsonl");
	int	 rc;

	*out = json_array();
	rc = read_records(path, *out, err);
	free(path);
	if (rc != 0) {
		json_decref(*out);
		*out = NULL;
	}
	return rc;
}

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

static char *
cut_json(const json_t *v, size_t max)
{
	char	*j = jsonx_dump(v, 0), *r;

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

/* One record of §4.2, keys in order. */
static json_t *
record_new(const char *sid, const struct queue_call *c)
{
	json_t	*args, *rec;
	char	*title, *out;

	args = json_is_object(c->args) ? json_deep_copy(c->args) :
	    json_object();
	title = queue_title(c->tool, args);
	if (c->response == NULL)
		out = xstrdup("");	/* deviation (§4.2): no lost batch */
	else if (json_is_string(c->response))
		out = xstrndup(json_string_value(c->response),
		    json_string_length(c->response));
	else
		out = cut_json(c->response, QUEUE_OUTPUT_MAX);
	rec = json_object();
	json_object_set_new(rec, "tool", json_string(c->tool));
	json_object_set_new(rec, "sessionID", json_string(sid));
	json_object_set_new(rec, "args", args);
	json_object_set_new(rec, "title", json_string(title));
	json_object_set_new(rec, "output", json_string(out));
	free(title);
	free(out);
	return rec;
}

static void
dump_lines(struct sbuf *sb, const json_t *recs, size_t from)
{
	size_t	i;

	for (i = from; i < json_array_size(recs); i++) {
		jsonx_dump_sbuf(sb, json_array_get(recs, i), 0);
		sbuf_addc(sb, '\n');
	}
}

static int
drain_locked(const char *dir, const char *sid, struct err *err)
{
	char	*count = queue_file(dir, sid, "count");
	char	*queue = queue_file(dir, sid, "jsonl");
	int	 rc;

	rc = remove_file(count, err);
	if (rc == 0)
		rc = remove_file(queue, err);
	free(count);
	free(queue);
	return rc;
}

int
queue_append(const char *dir, const char *sid, const struct queue_call *calls,
    size_t n, struct err *err)
{
	json_t		*existing = json_array(), *add = json_array();
	struct sbuf	 sb = SBUF_INIT;
	char		*path = queue_file(dir, sid, "jsonl");
	size_t		 i, total, drop;
	int		 fd = -1, rc = -1;

	sbuf_init(&sb);
	if ((fd = lock_dir(dir, err)) < 0)
		goto out;
	if (read_records(path, existing, err) != 0)
		goto out;
	for (i = 0; i < n; i++) {
		if (calls[i].verdict == QUEUE_DRAIN) {
			/* parity: what was on disk goes, this batch stays */
			if (drain_locked(dir, sid, err) != 0)
				goto out;
			json_array_clear(existing);
		} else if (calls[i].verdict == QUEUE_KEEP)
			json_array_append_new(add, record_new(sid, &calls[i]));
	}
	total = json_array_size(existing) + json_array_size(add);
	if (total <= QUEUE_CAP) {
		dump_lines(&sb, add, 0);
		rc = sb.len == 0 ? 0 : fileio_append(path, sb.buf, sb.len, 0600,
		    err);
		goto out;
	}
	drop = total - QUEUE_CAP;
	json_array_extend(existing, add);
	dump_lines(&sb, existing, drop);
	rc = fileio_replace(path, sb.buf, sb.len, 0600, err);
out:
	unlock_dir(fd);
	if (rc != 0)
		err_wrap(err, "cannot queue tool calls");
	json_decref(existing);
	json_decref(add);
	sbuf_release(&sb);
	free(path);
	return rc;
}

int
queue_drain(const char *dir, const char *sid, struct err *err)
{
	int	fd, rc;

	if (!fileio_exists(dir))
		return 0;
	if ((fd = lock_dir(dir, err)) < 0)
		return -1;
	rc = drain_locked(dir, sid, err);
	unlock_dir(fd);
	return rc;
}

int
queue_missed(const char *dir, const char *sid)
{
	struct sbuf	 sb = SBUF_INIT;
	char		*path = queue_file(dir, sid, "count");
	long		 v = 0;

	sbuf_init(&sb);
	/* parseInt: leading blanks, an optional sign, digits, then anything */
	if (fileio_read(path, &sb, NULL) == 0) {
		v = strtol(sb.buf, NULL, 10);
		if (v > 1000000 || v < -1000000)
			v = 0;
	}
	sbuf_release(&sb);
	free(path);
	return (int)v;
}

int
queue_missed_bump(const char *dir, const char *sid, struct err *err)
{
	char	*path = queue_file(dir, sid, "count");
	char	 buf[32];
	int	 fd, rc = -1;

	if ((fd = lock_dir(dir, err)) < 0)
		goto out;
	snprintf(buf, sizeof(buf), "%d", queue_missed(dir, sid) + 1);
	rc = fileio_replace(path, buf, strlen(buf), 0600, err);
out:
	unlock_dir(fd);
	free(path);
	return rc;
}

int
queue_payload(const char *dir, const char *sid, const char *project_store,
    struct sbuf *out, struct err *err)
{
	json_t		*recs = NULL, *list, *o, *it;
	const char	*tool, *text;
	char		*summary, *clip, *head;
	size_t		 i, len;

	if (queue_peek(dir, sid, &recs, err) != 0)
		return -1;
	if (json_array_size(recs) == 0) {
		json_decref(recs);
		return 0;
	}
	list = json_array();
	json_array_foreach(recs, i, it) {
		tool = jsonx_str(it, "tool") ? jsonx_str(it, "tool") : "";
		text = jsonx_str(it, "output") ? jsonx_str(it, "output") : "";
		len = strlen(text);
		head = cut(text, len, QUEUE_OUTPUT_MAX);
		clip = xasprintf("%s%s", head, strlen(head) < len ? "..." : "");
		free(head);
		summary = queue_summary(tool, jsonx_get(it, "args"));
		o = json_object();
		json_object_set_new(o, "tool", json_string(tool));
		json_object_set_new(o, "title", json_string(
		    jsonx_str(it, "title") ? jsonx_str(it, "title") : ""));
		json_object_set_new(o, "args", json_string(summary));
		json_object_set_new(o, "output", json_string(clip));
		json_array_append_new(list, o);
		free(summary);
		free(clip);
	}
	o = json_object();
	json_object_set_new(o, "interactions", list);
	json_object_set_new(o, "projectStore", json_string(project_store));
	json_object_set_new(o, "globalStore", json_string("global"));
	jsonx_dump_sbuf(out, o, 0);
	json_decref(o);
	json_decref(recs);
	return 1;
}

/* A pending nudge file is one flag byte ('1': extraction) then the text. */
int
queue_pending_put(const char *dir, const char *sid, const char *text,
    bool extraction, struct err *err)
{
	char	*path = queue_file(dir, sid, "nudge");
	char	*body = xasprintf("%c%s", extraction ? '1' : '0', text);
	int	 rc;

	rc = fileio_replace(path, body, strlen(body), 0600, err);
	free(body);
	free(path);
	return rc;
}

int
queue_pending_take(const char *dir, const char *sid, struct sbuf *out,
    bool *extraction, struct err *err)
{
	struct sbuf	 sb = SBUF_INIT;
	char		*path = queue_file(dir, sid, "nudge");
	char		*mine = xasprintf("%s.%ld", path, (long)getpid());
	int		 rc = 0;

	sbuf_init(&sb);
	/* rename claims it: of two concurrent takers exactly one wins */
	if (rename(path, mine) != 0) {
		if (errno != ENOENT)
			rc = err_errno(err, "cannot take '%s'", path);
		goto out;
	}
	rc = fileio_read(mine, &sb, err) == 0 ? 1 : -1;
	unlink(mine);
	if (rc == 1 && sb.len > 0) {
		*extraction = sb.buf[0] == '1';
		sbuf_add(out, sb.buf + 1, sb.len - 1);
	} else if (rc == 1)
		rc = 0;
out:
	sbuf_release(&sb);
	free(path);
	free(mine);
	return rc;
}

/* Whether name is one of ours: <safe>.jsonl, .count, .nudge or a claimed
 * nudge <safe>.nudge.<pid>; temporaries of fileio_replace are its own. */
static bool
queue_owned(const char *name)
{
	static const char	*const ext[] = { ".jsonl", ".count", ".nudge" };
	const char		*dot = strchr(name, '.'), *p;
	size_t			 i;

	if (dot == NULL || dot == name)
		return false;
	for (i = 0; i < sizeof(ext) / sizeof(ext[0]); i++)
		if (strcmp(dot, ext[i]) == 0)
			return true;
	if (strncmp(dot, ".nudge.", 7) != 0 || dot[7] == '\0')
		return false;
	for (p = dot + 7; *p >= '0' && *p <= '9'; p++)
		;
	return *p == '\0';
}

int
queue_prune(const char *dir, long max_age, long now, struct err *err)
{
	struct dirent	*de;
	struct stat	 st;
	DIR		*d;
	int		 fd, removed = 0;

	if (!fileio_exists(dir))
		return 0;
	if ((fd = lock_dir(dir, err)) < 0)
		return -1;
	if ((d = fdopendir(dup(fd))) == NULL) {
		err_errno(err, "cannot read queue directory '%s'", dir);
		unlock_dir(fd);
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		if (!queue_owned(de->d_name) ||
		    fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
		    !S_ISREG(st.st_mode) || now - st.st_mtime < max_age)
			continue;
		if (unlinkat(fd, de->d_name, 0) == 0)
			removed++;
	}
	closedir(d);
	unlock_dir(fd);
	return removed;
}
