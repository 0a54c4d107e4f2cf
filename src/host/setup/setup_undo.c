/*
 * setup_undo.c — `thatch setup --remove`: the reverse of each of setup.c's
 * writers, which claude.c, cursor.c and opencode_setup.c assemble.
 *
 * Invariants:
 *  1. Only what setup writes goes: thatch's MCP entries, hook entries
 *     (recognised as setup recognises them, §3.6), the block with the
 *     blank line setup put before it, thatch-* skills, the command files
 *     of thatch's own commands folder, plugin entries naming thatch.
 *     Every other key, entry, skill and byte of text stays.
 *  2. A file is deleted only when nothing is left in it that setup would
 *     not have made itself (an empty object, a lone Cursor "version",
 *     white space), and only a regular file: a symbolic link is the
 *     user's, so the file it points to is rewritten instead, through
 *     fileio_rewrite (mode and owner kept, atomic), like every write.
 *  3. A file with nothing of thatch's in it is not rewritten at all, and
 *     one that does not parse is not touched (setup would have replaced
 *     it, so nothing thatch wrote can be in it).
 *  4. A folder goes only when it is empty (rmdir), so a user's file in
 *     one of thatch's folders keeps the folder.
 *  5. JSON that is rewritten is re-serialised as setup writes it (the
 *     hosts' own JSON.stringify form)...
 *  6. ...unless setup kept the file's bytes from before it first changed
 *     it (setup.c invariant 6) and what is left means the same (equal
 *     JSON; equal text but for final newlines, which setup_block's
 *     separator hides): then those bytes come back exactly, spacing, a
 *     missing final newline and all. A file with a kept original existed
 *     before, so it is never deleted. The copy is removed with the part.
 */
#include "host/setup/setup_undo.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/setup/setup.h"
#include "text/skills.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/jsonx.h"
#include "util/path.h"
#include "util/sbuf.h"
#include "util/xmalloc.h"

/* Whether what is left means what the original said (invariant 6). */
typedef bool	same_fn(const struct sbuf *orig, const char *, size_t);

/* An original that was not a JSON object (setup replaced it, §3.7) is
 * what an empty remainder means. */
static bool
same_json(const struct sbuf *orig, const char *data, size_t len)
{
	json_t	*a, *b;
	bool	 same;

	a = json_loadb(orig->buf, orig->len, JSON_DECODE_ANY, NULL);
	b = json_loadb(data, len, JSON_DECODE_ANY, NULL);
	same = json_is_object(a) ? json_equal(a, b) : json_object_size(b) == 0;

	json_decref(a);
	json_decref(b);
	return same;
}

/* Equal but for final newlines: setup_block's separator cannot tell. */
static bool
same_text(const struct sbuf *orig, const char *data, size_t len)
{
	size_t	n = orig->len;

	while (n > 0 && orig->buf[n - 1] == '\n')
		n--;
	while (len > 0 && data[len - 1] == '\n')
		len--;
	return n == len && memcmp(orig->buf, data, n) == 0;
}

/* setup_backup's <path>.bak, once it holds just the bytes given back. */
static void
drop_backup(const char *path, const struct sbuf *was)
{
	struct sbuf	 bak = SBUF_INIT;
	char		*file = xasprintf("%s.bak", path);

	sbuf_init(&bak);
	if (fileio_read(file, &bak, NULL) == 0 && bak.len == was->len &&
	    memcmp(bak.buf, was->buf, was->len) == 0)
		(void)unlink(file);
	sbuf_release(&bak);
	free(file);
}

/*
 * The end of every removal. With the original setup kept (setup.c
 * invariant 6) the file existed before, so it stays, and gets its old
 * bytes back when what is left means the same (else, the user changed it
 * since, what is left). Without, a file left with nothing of the user's
 * is deleted (a regular file only: a link is the user's own, so its
 * target is written instead). The kept original goes either way.
 */
static int
finish(const struct setup_opts *o, const char *path, const char *data,
    size_t len, bool empty, same_fn *same, enum setup_undo *u,
    struct err *err)
{
	struct sbuf	 was = SBUF_INIT;
	struct stat	 st;
	char		*orig = setup_original(o, path);
	bool		 had, changed;
	int		 rc = 0;

	sbuf_init(&was);
	had = fileio_read(orig, &was, NULL) == 0;
	if (had && same(&was, data, len)) {
		data = was.buf;
		len = was.len;
	}
	if (empty && !had && lstat(path, &st) == 0 && S_ISREG(st.st_mode)) {
		if (unlink(path) != 0)
			rc = err_errno(err, "cannot remove %s", path);
		*u = SETUP_UNDO_DELETED;
	} else {
		rc = setup_write(NULL, path, data, len, &changed, err);
		*u = SETUP_UNDO_EDITED;
	}
	if (rc == 0 && had) {
		(void)unlink(orig);
		drop_backup(path, &was);
	}
	sbuf_release(&was);
	free(orig);
	return rc;
}

int
setup_undo_json(const struct setup_opts *o, const char *path,
    void (*strip)(json_t *, void *), void *arg, enum setup_undo *u,
    struct err *err)
{
	struct sbuf	 sb = SBUF_INIT;
	json_t		*cfg = NULL, *before = NULL;
	int		 rc;

	*u = SETUP_UNDO_NONE;
	sbuf_init(&sb);
	if ((rc = fileio_read(path, &sb, err)) != 0)
		goto out;	/* 1: no file, nothing to undo */
	cfg = json_loadb(sb.buf, sb.len, JSON_DECODE_ANY, NULL);
	if (!json_is_object(cfg))
		goto out;	/* not a file setup wrote: not ours to touch */
	before = json_deep_copy(cfg);
	strip(cfg, arg);
	if (json_equal(before, cfg))
		goto out;
	sbuf_reset(&sb);
	jsonx_dump_sbuf(&sb, cfg, 2);
	sbuf_addc(&sb, '\n');
	rc = finish(o, path, sb.buf, sb.len, json_object_size(cfg) == 0,
	    same_json, u, err);
out:
	json_decref(before);
	json_decref(cfg);
	sbuf_release(&sb);
	return rc < 0 ? -1 : 0;
}

/* Delete key from obj when its value is an empty object or array. */
static void
drop_empty(json_t *obj, const char *key)
{
	json_t	*v = json_object_get(obj, key);

	if ((json_is_object(v) && json_object_size(v) == 0) ||
	    (json_is_array(v) && json_array_size(v) == 0))
		json_object_del(obj, key);
}

static void
strip_mcp(json_t *cfg, void *arg)
{
	json_t	*servers = json_object_get(cfg, "mcpServers");

	(void)arg;
	if (json_is_object(servers) && json_object_del(servers, "thatch") == 0)
		drop_empty(cfg, "mcpServers");
}

int
setup_undo_mcp(const struct setup_opts *o, const char *path,
    enum setup_undo *u, struct err *err)
{
	return setup_undo_json(o, path, strip_mcp, NULL, u, err);
}

struct hooks_undo {
	const char *const	(*events)[2];
	size_t			  n;
	bool			  versioned;
	bool			(*merge)(json_t *, const char *,
				    const char *);
};

static void
strip_hooks(json_t *cfg, void *arg)
{
	const struct hooks_undo	*h = arg;
	json_t			*hooks = json_object_get(cfg, "hooks");
	size_t			 i;

	if (!json_is_object(hooks))
		return;
	for (i = 0; i < h->n; i++)
		h->merge(hooks, h->events[i][0], NULL);
	drop_empty(cfg, "hooks");
	if (h->versioned && json_object_size(cfg) == 1)
		json_object_del(cfg, "version");
}

int
setup_undo_hooks(const struct setup_opts *o, const char *path,
    const char *const (*events)[2], size_t n, bool versioned,
    bool (*merge)(json_t *, const char *, const char *), enum setup_undo *u,
    struct err *err)
{
	struct hooks_undo	h = { events, n, versioned, merge };

	return setup_undo_json(o, path, strip_hooks, &h, u, err);
}

/* Only white space in [s, s + n). */
static bool
blank(const char *s, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		if (strchr(" \t\r\n", s[i]) == NULL)
			return false;
	return true;
}

int
setup_undo_block(const struct setup_opts *o, const char *path,
    const char *start, const char *end, enum setup_undo *u, struct err *err)
{
	struct sbuf	 old = SBUF_INIT, out = SBUF_INIT;
	const char	*s, *e;
	size_t		 head;
	int		 rc;

	*u = SETUP_UNDO_NONE;
	sbuf_init(&old);
	sbuf_init(&out);
	if ((rc = fileio_read(path, &old, err)) != 0 ||
	    (s = strstr(old.buf, start)) == NULL)
		goto out;
	if ((e = strstr(s, end)) == NULL) {
		*u = SETUP_UNDO_BROKEN;		/* invariant 3 */
		goto out;
	}
	e += strlen(end);
	if (*e == '\n')
		e++;
	head = (size_t)(s - old.buf);
	/* setup_block's separator: one '\n' of the blank line before */
	if (head >= 2 && old.buf[head - 1] == '\n' && old.buf[head - 2] == '\n')
		head--;
	sbuf_add(&out, old.buf, head);
	sbuf_adds(&out, e);
	rc = finish(o, path, out.buf, out.len, blank(out.buf, out.len),
	    same_text, u, err);
out:
	sbuf_release(&old);
	sbuf_release(&out);
	return rc < 0 ? -1 : 0;
}

/* Unlink path (a file or a link, never followed); a missing one is fine. */
static int
unlink_file(const char *path, int *removed, struct err *err)
{
	if (unlink(path) == 0) {
		(*removed)++;
		return 0;
	}
	return errno == ENOENT ? 0 : err_errno(err, "cannot remove %s", path);
}

int
setup_undo_skills(const char *dir, bool opencode, int *removed,
    struct err *err)
{
	struct stat	 st;
	char		*sub, *file;
	size_t		 i;
	int		 rc = 0;

	*removed = 0;
	setup_skills_stale(dir, opencode);
	for (i = 0; i < text_nskills && rc == 0; i++) {
		if (text_skills[i].opencode_only && !opencode)
			continue;
		sub = path_join(dir, text_skills[i].name);
		if (lstat(sub, &st) == 0 && S_ISLNK(st.st_mode))
			rc = unlink_file(sub, removed, err);
		else {
			file = path_join(sub, "SKILL.md");
			rc = unlink_file(file, removed, err);
			free(file);
			setup_undo_prune(sub);
		}
		free(sub);
	}
	setup_undo_prune(dir);
	return rc;
}

int
setup_undo_commands(const char *dir, int *removed, struct err *err)
{
	struct dirent	*de;
	DIR		*d;
	char		*path, *parent;
	size_t		 n;
	int		 rc = 0;

	*removed = 0;
	if ((d = opendir(dir)) == NULL)
		return 0;
	while (rc == 0 && (de = readdir(d)) != NULL) {
		n = strlen(de->d_name);
		if (n < 4 || strcmp(de->d_name + n - 3, ".md") != 0)
			continue;
		path = path_join(dir, de->d_name);
		rc = unlink_file(path, removed, err);
		free(path);
	}
	closedir(d);
	setup_undo_prune(dir);
	parent = path_dirname(dir);
	setup_undo_prune(parent);
	free(parent);
	return rc;
}

void
setup_undo_done(const struct setup_opts *o)
{
	char	*dir = path_join(o->paths->config_home, SETUP_ORIGINALS);
	char	*parent = path_dirname(dir);

	setup_undo_prune(dir);
	setup_undo_prune(parent);	/* CONFIG_HOME/thatch, if setup made it */
	free(parent);
	free(dir);
}

void
setup_undo_prune(const char *dir)
{
	(void)rmdir(dir);	/* fails, harmlessly, unless empty */
}

