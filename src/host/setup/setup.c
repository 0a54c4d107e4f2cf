/*
 * setup.c — the toolkit of `thatch setup`: the writers every host's
 * installer is built from.
 *
 * The pieces claude.c, cursor.c and opencode_setup.c assemble
 * (hosts-hooks-cli §3, §8): the program path, JSON config files merged in
 * place, the instruction block, the skills folder, the command files. It
 * knows no host: the host files and the host table (setup_host.c) sit
 * above it, and nothing here calls up into them. Run by `thatch setup`
 * and, silently, by the MCP server's auto-refresh (§2.7), so nothing here
 * prints except the backup note of an unreadable config file.
 *
 * Invariants:
 *  1. Only thatch's own content changes: other keys, servers, hooks, text
 *     around the block and other skills stay as they were (JSON files are
 *     re-serialised, so number spellings and escapes may normalise; keys
 *     keep their order).
 *  2. Every write is atomic (temporary file + rename) and skipped when
 *     the bytes would not change, so a re-run touches nothing.
 *  3. A damaged block (start marker, no end marker) is never rewritten:
 *     the caller reports it.
 *  4. A user's file keeps its mode and owner, and a symbolic link to it
 *     stays a link (fileio_rewrite): setup never makes a private config
 *     readable, nor breaks a dotfile manager's links. A link that cannot
 *     be followed is refused before the first write (setup_preflight).
 *  5. In a host's commands directory only the thatch/ folder is touched;
 *     in it, a *.md that no action renders is removed (a renamed or
 *     retired action), anything else is left alone.
 *  6. The first time setup changes a file the user already had (a config
 *     or instructions file, never a skill or command file, which are
 *     thatch's), its bytes are kept, private, in
 *     CONFIG_HOME/thatch/setup/<SHA-256 of the path> until --remove, so
 *     that --remove can give them back exactly (setup_undo.c invariant
 *     6). A later run keeps the first copy: only it is from before.
 */
#include "host/setup/setup.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "text/block.h"
#include "text/skills.h"
#include "text/wrapups.h"
#include "tools/tool.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/jsonx.h"
#include "util/log.h"
#include "util/os/plat.h"
#include "util/path.h"
#include "util/sbuf.h"
#include "util/sha256.h"
#include "util/os/spawn.h"
#include "util/xmalloc.h"

void
setup_report_release(struct setup_report *r)
{
	free(r->mcp_config);
	free(r->instructions);
	free(r->hooks);
	free(r->skills_dir);
	free(r->approval);
	free(r->commands_dir);
	memset(r, 0, sizeof(*r));
}

/* A shell word for s: itself when harmless, else single-quoted. */
static char *
shell_word(const char *s)
{
	struct sbuf	 sb = SBUF_INIT;
	const char	*p;

	if (strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789_./+-@%:,=") == strlen(s))
		return xstrdup(s);
	sbuf_init(&sb);
	sbuf_addc(&sb, '\'');
	for (p = s; *p != '\0'; p++) {
		if (*p == '\'')
			sbuf_adds(&sb, "'\\''");
		else
			sbuf_addc(&sb, *p);
	}
	sbuf_addc(&sb, '\'');
	return sbuf_detach(&sb, NULL);
}

char *
setup_self(struct err *err)
{
	char	 *found, *word;

	if ((found = spawn_which("thatch")) == NULL &&
	    (found = plat_exe_path()) == NULL) {
		err_errno(err, "cannot find the thatch executable");
		return NULL;
	}
	word = shell_word(found);
	free(found);
	return word;
}

char *
setup_command(const struct setup_opts *o, const char *args)
{
	return xasprintf("%s %s", o->self, args);
}

json_t *
setup_json_load(const char *path, struct err *err)
{
	struct sbuf	 sb = SBUF_INIT;
	json_t		*v = NULL;
	int		 rc;

	sbuf_init(&sb);
	if ((rc = fileio_read(path, &sb, err)) < 0)
		goto out;
	if (rc == 0)
		v = json_loadb(sb.buf, sb.len, JSON_DECODE_ANY, NULL);
	if (rc == 0 && !json_is_object(v)) {
		json_decref(v);
		v = NULL;
		/* deviation (§3.7): keep what we cannot merge */
		if (setup_backup(path, err) != 0)
			goto out;
	}
	if (v == NULL)
		v = json_object();
out:
	sbuf_release(&sb);
	return v;
}

int
setup_backup(const char *path, struct err *err)
{
	struct sbuf	 sb = SBUF_INIT;
	char		*bak = xasprintf("%s.bak", path);
	int		 rc;

	sbuf_init(&sb);
	rc = fileio_read(path, &sb, err);
	/* replaces whatever is at <path>.bak, a planted link too, unfollowed */
	if (rc == 0)
		rc = fileio_write_atomic(bak, sb.buf, sb.len, 0600, err);
	if (rc == 0)
		fprintf(stderr, "[thatch setup] %s could not be merged as it "
		    "was; saved a copy as %s\n", path, bak);
	sbuf_release(&sb);
	free(bak);
	return rc < 0 ? -1 : 0;
}

char *
setup_original(const struct setup_opts *o, const char *path)
{
	char	hex[SHA256_HEX_LEN], *name, *file;

	sha256_hex(path, strlen(path), hex);
	name = xasprintf(SETUP_ORIGINALS "/%s", hex);
	file = path_join(o->paths->config_home, name);
	free(name);
	return file;
}

/*
 * Invariant 6: the bytes of a user's file before setup first changes it
 * (old NULL: there was no file, so a copy left from an earlier one is
 * stale). Losing them costs only the exact bytes on --remove, so a
 * failure is a warning, not a failed install.
 */
static void
keep_original(const struct setup_opts *o, const char *path,
    const struct sbuf *old)
{
	struct err	 err;
	char		*file = setup_original(o, path), *dir;

	dir = path_dirname(file);
	if (old == NULL)
		(void)unlink(file);
	else if (!fileio_exists(file) && (path_mkdir_p(dir, 0700, &err) != 0 ||
	    fileio_write_atomic(file, old->buf, old->len, 0600, &err) != 0))
		log_warn("cannot keep the original of %s for setup --remove: "
		    "%s", path, err.msg);
	free(dir);
	free(file);
}

int
setup_write(const struct setup_opts *keep, const char *path, const char *data,
    size_t len, bool *changed, struct err *err)
{
	struct sbuf	 old = SBUF_INIT;
	int		 rc;

	sbuf_init(&old);
	rc = fileio_read(path, &old, NULL);
	*changed = !(rc == 0 && old.len == len &&
	    memcmp(old.buf, data, len) == 0);
	if (*changed && keep != NULL)
		keep_original(keep, path, rc == 0 ? &old : NULL);
	sbuf_release(&old);
	if (!*changed)
		return 0;
	return fileio_rewrite(path, data, len, 0644, err);	/* invariant 4 */
}

int
setup_json_save(const struct setup_opts *o, const char *path, const json_t *v,
    struct err *err)
{
	struct sbuf	sb = SBUF_INIT;
	bool		changed;
	int		rc;

	sbuf_init(&sb);
	jsonx_dump_sbuf(&sb, v, 2);
	sbuf_addc(&sb, '\n');
	rc = setup_write(o, path, sb.buf, sb.len, &changed, err);
	sbuf_release(&sb);
	return rc;
}

int
setup_preflight(const struct setup_report *r, struct err *err)
{
	const char *const	 files[] = {
		r->mcp_config, r->instructions, r->hooks, r->approval
	};
	char			*dst;
	size_t			 i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		if (files[i] == NULL)
			continue;
		if ((dst = fileio_resolve(files[i], err)) == NULL)
			return -1;
		free(dst);
	}
	return 0;
}

/* A JavaScript-falsy value, or none: Cursor's version rule (§3.4). */
static bool
falsy(const json_t *v)
{
	return v == NULL || json_is_null(v) || json_is_false(v) ||
	    (json_is_number(v) && json_number_value(v) == 0) ||
	    (json_is_string(v) && json_string_length(v) == 0);
}

int
setup_hooks(const struct setup_opts *o, const char *path,
    const char *const (*events)[2], size_t n, bool versioned,
    bool (*merge)(json_t *, const char *, const char *), struct err *err)
{
	json_t	*cfg, *hooks;
	char	*cmd;
	size_t	 i;
	bool	 clean = true;
	int	 rc = -1;

	if ((cfg = setup_json_load(path, err)) == NULL)
		return -1;
	if (versioned && falsy(json_object_get(cfg, "version")))
		json_object_set_new(cfg, "version", json_integer(1));
	hooks = json_object_get(cfg, "hooks");
	if (!json_is_object(hooks)) {
		clean = hooks == NULL;
		hooks = json_object();
		json_object_set_new(cfg, "hooks", hooks);
	}
	for (i = 0; i < n; i++) {
		cmd = setup_command(o, events[i][1]);
		clean = merge(hooks, events[i][0], cmd) && clean;
		free(cmd);
	}
	if (clean || setup_backup(path, err) == 0)
		rc = setup_json_save(o, path, cfg, err);
	json_decref(cfg);
	return rc;
}

int
setup_mcp_entry(const struct setup_opts *o, const char *path, struct err *err)
{
	json_t	*cfg, *servers, *entry;
	int	 rc;

	if ((cfg = setup_json_load(path, err)) == NULL)
		return -1;
	servers = json_object_get(cfg, "mcpServers");
	if (!json_is_object(servers)) {
		servers = json_object();
		json_object_set_new(cfg, "mcpServers", servers);
	}
	/* the whole entry is ours: no env (§3.2, host-contracts C12) */
	entry = json_pack("{s:s, s:s, s:[s]}", "type", "stdio", "command",
	    o->self, "args", "mcp");
	json_object_set_new(servers, "thatch", entry);
	rc = setup_json_save(o, path, cfg, err);
	json_decref(cfg);
	return rc;
}

int
setup_block(const struct setup_opts *o, const char *path, const char *block,
    const char *start, const char *end, bool *broken, struct err *err)
{
	struct sbuf	 old = SBUF_INIT, out = SBUF_INIT;
	const char	*s, *e;
	bool		 changed;
	int		 rc;

	*broken = false;
	sbuf_init(&old);
	sbuf_init(&out);
	if ((rc = fileio_read(path, &old, err)) < 0)
		goto out;
	if (rc == 1) {
		sbuf_adds(&out, block);
		sbuf_addc(&out, '\n');
	} else if ((s = strstr(old.buf, start)) != NULL) {
		if ((e = strstr(s, end)) == NULL) {
			*broken = true;		/* invariant 3 */
			rc = 0;
			goto out;
		}
		sbuf_add(&out, old.buf, (size_t)(s - old.buf));
		sbuf_adds(&out, block);		/* has no trailing blanks */
		sbuf_adds(&out, e + strlen(end));
	} else {
		/* parity: an empty file gets "\n\n" too (§3.5) */
		sbuf_add(&out, old.buf, old.len);
		sbuf_adds(&out, old.len > 0 && old.buf[old.len - 1] == '\n' ?
		    "\n" : "\n\n");
		sbuf_adds(&out, block);
		sbuf_addc(&out, '\n');
	}
	rc = setup_write(o, path, out.buf, out.len, &changed, err);
out:
	sbuf_release(&old);
	sbuf_release(&out);
	return rc;
}

int
setup_instructions(const struct setup_opts *o, const char *path,
    const struct text_block_host *h, bool *broken, struct err *err)
{
	const struct tool *const	*t;
	const char			**names;
	struct sbuf			 block = SBUF_INIT;
	size_t				 n = 0;
	int				 rc;

	for (t = tool_table; *t != NULL; t++)
		n++;
	names = xcalloc(n + 1, sizeof(*names));
	for (n = 0, t = tool_table; *t != NULL; t++)
		if (((*t)->flags & (TOOL_MCP | TOOL_CHAT)) == TOOL_MCP)
			names[n++] = (*t)->name;	/* chat: tools/list */
	sbuf_init(&block);
	text_block_render(&block, h, names);
	rc = setup_block(o, path, block.buf, h->start, TEXT_BLOCK_END, broken,
	    err);
	sbuf_release(&block);
	free(names);
	return rc;
}

/* rm -rf that never follows a symbolic link; failures are ignored. */
static void
remove_tree(const char *path)
{
	struct stat	 st;
	struct dirent	*de;
	DIR		*d;
	char		*sub;

	if (lstat(path, &st) != 0)
		return;
	if (S_ISDIR(st.st_mode) && (d = opendir(path)) != NULL) {
		while ((de = readdir(d)) != NULL) {
			if (strcmp(de->d_name, ".") == 0 ||
			    strcmp(de->d_name, "..") == 0)
				continue;
			sub = path_join(path, de->d_name);
			remove_tree(sub);
			free(sub);
		}
		closedir(d);
		rmdir(path);
	} else
		unlink(path);
}

static bool
shipped(const char *name, bool opencode)
{
	size_t	i;

	for (i = 0; i < text_nskills; i++)
		if ((opencode || !text_skills[i].opencode_only) &&
		    strcmp(text_skills[i].name, name) == 0)
			return true;
	return false;
}

void
setup_skills_stale(const char *dir, bool opencode)
{
	struct dirent	*de;
	struct stat	 st;
	DIR		*d;
	char		*path;

	if ((d = opendir(dir)) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, "thatch-", 7) != 0 ||
		    shipped(de->d_name, opencode))
			continue;
		path = path_join(dir, de->d_name);
		if (lstat(path, &st) == 0 && (S_ISLNK(st.st_mode) ||
		    S_ISDIR(st.st_mode)))
			remove_tree(path);
		free(path);
	}
	closedir(d);
}

int
setup_skills(const char *dir, int *written, int *unchanged, struct err *err)
{
	return setup_skills_for(dir, false, written, unchanged, err);
}

int
setup_skills_for(const char *dir, bool opencode, int *written, int *unchanged,
    struct err *err)
{
	char	*file, *name;
	bool	 changed;
	size_t	 i;
	int	 rc = 0;

	*written = *unchanged = 0;
	if (path_mkdir_p(dir, 0755, err) != 0)
		return -1;
	setup_skills_stale(dir, opencode);
	/*
	 * §8.3 rule 2 (the pre-rename names, only up to version 0.1.35) never
	 * applies: thatch's own version line starts above it.
	 */
	for (i = 0; i < text_nskills && rc == 0; i++) {
		if (text_skills[i].opencode_only && !opencode)
			continue;
		name = xasprintf("%s/SKILL.md", text_skills[i].name);
		file = path_join(dir, name);
		rc = setup_write(NULL, file, text_skills[i].content,
		    strlen(text_skills[i].content), &changed, err);
		if (rc == 0 && changed)
			(*written)++;
		else if (rc == 0)
			(*unchanged)++;
		free(file);
		free(name);
	}
	return rc;
}

/* Stale command files: *.md in dir that no action renders (invariant 5);
 * opencode's also has the wrap-ups (text/wrapups.h). */
static void
remove_stale_commands(const char *dir, enum text_host h)
{
	struct dirent	*de;
	struct stat	 st;
	DIR		*d;
	char		*path, *name;
	size_t		 n;

	if ((d = opendir(dir)) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		n = strlen(de->d_name);
		if (n < 4 || strcmp(de->d_name + n - 3, ".md") != 0)
			continue;
		name = xstrndup(de->d_name, n - 3);
		path = path_join(dir, de->d_name);
		if (text_action_find(name) == NULL && (h != TEXT_HOST_OPENCODE ||
		    text_wrapup_find(name) == NULL) && lstat(path, &st) == 0 &&
		    (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)))
			unlink(path);
		free(path);
		free(name);
	}
	closedir(d);
}

static int
write_command(const char *dir, const struct text_action *a, enum text_host h,
    int *written, int *unchanged, struct err *err)
{
	struct sbuf	 body = SBUF_INIT;
	char		*file, *name;
	bool		 changed;
	int		 rc;

	sbuf_init(&body);
	text_action_file(&body, a, h);
	name = xasprintf("%s.md", a->name);
	file = path_join(dir, name);
	rc = setup_write(NULL, file, body.buf, body.len, &changed, err);
	if (rc == 0)
		(*(changed ? written : unchanged))++;
	free(file);
	free(name);
	sbuf_release(&body);
	return rc;
}

int
setup_commands(const char *dir, enum text_host h, int *written,
    int *unchanged, struct err *err)
{
	size_t	i;
	int	rc = 0;

	*written = *unchanged = 0;
	if (path_mkdir_p(dir, 0755, err) != 0)
		return -1;
	remove_stale_commands(dir, h);
	for (i = 0; i < text_nactions && rc == 0; i++)
		rc = write_command(dir, &text_actions[i], h, written,
		    unchanged, err);
	for (i = 0; h == TEXT_HOST_OPENCODE && i < text_nwrapups && rc == 0;
	    i++)
		rc = write_command(dir, &text_wrapups[i], h, written,
		    unchanged, err);
	log_debug("setup:commands", "%s: %d written, %d unchanged", dir,
	    *written, *unchanged);
	return rc;
}

char *
setup_project_top(struct paths *p)
{
	const char *const	 argv[] = { "git", "rev-parse",
				    "--show-toplevel", NULL };
	struct sbuf		 out = SBUF_INIT;
	char			 here[PATH_MAX], top[PATH_MAX];
	char			*from = NULL;
	int			 status;

	if (path_env("CURSOR_PROJECT_DIR") != NULL ||
	    path_env("CLAUDE_PROJECT_DIR") != NULL)
		return NULL;	/* the host, or the user, named it */
	sbuf_init(&out);
	if (spawn_capture(argv, p->project_dir, 5000, &out, &status,
	    NULL) == 0 && status == 0) {
		sbuf_rtrim(&out);
		if (out.len > 0 && realpath(out.buf, top) != NULL &&
		    realpath(p->project_dir, here) != NULL &&
		    strcmp(top, here) != 0) {
			from = p->project_dir;
			p->project_dir = xstrdup(top);
		}
	}
	sbuf_release(&out);
	return from;
}
