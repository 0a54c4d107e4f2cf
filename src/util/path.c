/*
 * path.c — where thatch's files live, computed once per process.
 *
 * The rules are hosts-hooks-cli §0.4. Two deviations from the original,
 * both deliberate: empty XDG variables count as unset, and the MCP server
 * uses the same path-join as the CLI (the original concatenated, so a
 * trailing slash in XDG_CONFIG_HOME gave the server a different socket).
 *
 * path_private_dir is the one place that decides a directory is private
 * to the user; it only inspects with lstat, never follows a symlink, and
 * never loosens or repairs what it finds (a directory someone else planted
 * stays refused, whoever's it is).
 */
#include "util/path.h"

#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/err.h"
#include "util/sbuf.h"
#include "util/xmalloc.h"

const char *
path_env(const char *name)
{
	const char	*v = getenv(name);

	return v != NULL && *v != '\0' ? v : NULL;
}

static char *
home_dir(void)
{
	const char	*h = path_env("HOME");
	struct passwd	*pw;

	if (h != NULL)
		return xstrdup(h);
	pw = getpwuid(getuid());
	if (pw != NULL && pw->pw_dir != NULL && *pw->pw_dir != '\0')
		return xstrdup(pw->pw_dir);
	return xstrdup("/tmp");
}

static char *
env_or_join(const char *var, const char *base, const char *rest)
{
	const char	*v = path_env(var);

	return v != NULL ? xstrdup(v) : path_join(base, rest);
}

static char *
tmp_dir(void)
{
	static const char *const vars[] = { "TMPDIR", "TMP", "TEMP" };
	const char	*v = NULL;
	size_t		 i, n;
	char		*s;

	for (i = 0; i < sizeof(vars) / sizeof(vars[0]) && v == NULL; i++)
		v = path_env(vars[i]);
	s = xstrdup(v != NULL ? v : "/tmp");
	n = strlen(s);
	if (n > 1 && s[n - 1] == '/')
		s[n - 1] = '\0';
	return s;
}

/*
 * Where a process stands whose directory was removed (a linked worktree
 * removed under it, issue 30): getcwd fails, but Linux still names the
 * directory in /proc/self/cwd, "<path> (deleted)", and a shell's $PWD
 * names it too. The path is the key of the repo_paths cache (core/repo.c
 * walks up from it), so it must be absolute; "/" when nothing names it,
 * which detects as "unknown" (store global), never a store named ".".
 */
static char *
removed_cwd(void)
{
	static const char	 deleted[] = " (deleted)";
	char			 buf[PATH_MAX];
	const char		*pwd = path_env("PWD");
	ssize_t			 n;
	size_t			 cut = sizeof(deleted) - 1;

	n = readlink("/proc/self/cwd", buf, sizeof(buf) - 1);
	if (n > 0 && buf[0] == '/') {
		buf[n] = '\0';
		if ((size_t)n > cut && strcmp(buf + n - cut, deleted) == 0)
			buf[n - cut] = '\0';
		return xstrdup(buf);
	}
	return xstrdup(pwd != NULL && *pwd == '/' ? pwd : "/");
}

static char *
project_dir(void)
{
	const char	*v = path_env("CURSOR_PROJECT_DIR");
	char		*cwd;

	if (v == NULL)
		v = path_env("CLAUDE_PROJECT_DIR");
	if (v != NULL)
		return xstrdup(v);
	cwd = getcwd(NULL, 0);
	return cwd != NULL ? cwd : removed_cwd();
}

void
paths_init(struct paths *p)
{
	char	*thatch_dir;

	memset(p, 0, sizeof(*p));
	p->home = home_dir();
	p->config_home = env_or_join("XDG_CONFIG_HOME", p->home, ".config");
	p->cache_home = env_or_join("XDG_CACHE_HOME", p->home, ".cache");
	if (getenv("THATCH_DB_PATH") != NULL && *getenv("THATCH_DB_PATH"))
		p->db_path = xstrdup(getenv("THATCH_DB_PATH"));
	else {
		thatch_dir = path_join(p->config_home, "thatch");
		p->db_path = path_join(thatch_dir, "thatch.db");
		free(thatch_dir);
	}
	p->db_dir = path_dirname(p->db_path);
	thatch_dir = path_join(p->cache_home, "thatch");
	p->queue_dir = env_or_join("THATCH_QUEUE_DIR", thatch_dir, "queue");
	free(thatch_dir);
	p->tmp_dir = tmp_dir();
	p->runtime_dir = path_env("XDG_RUNTIME_DIR") != NULL ?
	    xstrdup(path_env("XDG_RUNTIME_DIR")) : NULL;
	p->project_dir = project_dir();
	p->claude_dir = env_or_join("CLAUDE_CONFIG_DIR", p->home, ".claude");
	p->cursor_dir = env_or_join("CURSOR_CONFIG_DIR", p->home, ".cursor");
}

void
paths_host_cwd(struct paths *p, const char *dir)
{
	struct stat	st;

	if (dir == NULL || *dir != '/' || path_env("CURSOR_PROJECT_DIR") ||
	    path_env("CLAUDE_PROJECT_DIR") || stat(dir, &st) == 0)
		return;
	free(p->project_dir);
	p->project_dir = xstrdup(dir);
}

void
paths_release(struct paths *p)
{
	free(p->home);
	free(p->config_home);
	free(p->db_path);
	free(p->db_dir);
	free(p->cache_home);
	free(p->queue_dir);
	free(p->tmp_dir);
	free(p->runtime_dir);
	free(p->project_dir);
	free(p->claude_dir);
	free(p->cursor_dir);
	memset(p, 0, sizeof(*p));
}

/* 0 when dir is a real directory of ours that nobody else may enter. */
static int
check_private(const char *dir, struct err *err)
{
	struct stat	st;

	if (lstat(dir, &st) != 0)
		return err_errno(err, "cannot use '%s'", dir);
	if (!S_ISDIR(st.st_mode))
		return err_set(err, "'%s' is not a directory", dir);
	if (st.st_uid != geteuid())
		return err_set(err, "'%s' belongs to uid %ld, not to uid %ld",
		    dir, (long)st.st_uid, (long)geteuid());
	if ((st.st_mode & 0777) != 0700)
		return err_set(err, "'%s' has mode %03o, not 700", dir,
		    (unsigned)(st.st_mode & 0777));
	return 0;
}

char *
path_private_dir(const struct paths *p, bool create, struct err *err)
{
	char	name[32], *dir;

	if (p->runtime_dir != NULL && check_private(p->runtime_dir, err) == 0)
		return xstrdup(p->runtime_dir);
	snprintf(name, sizeof(name), "thatch-%ld", (long)geteuid());
	dir = path_join(p->tmp_dir, name);
	/* EEXIST is the common case; the check below judges what is there */
	if (create && mkdir(dir, 0700) != 0 && errno != EEXIST) {
		err_errno(err, "cannot create '%s'", dir);
		free(dir);
		return NULL;
	}
	if (check_private(dir, err) != 0) {
		free(dir);
		return NULL;
	}
	return dir;
}

/* Push segment [s, s+n) onto out, resolving "." and ".." lexically. */
static void
push_segment(struct sbuf *out, int absolute, const char *s, size_t n)
{
	char	*slash;

	if (n == 0 || (n == 1 && s[0] == '.'))
		return;
	if (n == 2 && s[0] == '.' && s[1] == '.') {
		/* pop unless empty or already a chain of ".." (relative) */
		slash = strrchr(out->buf, '/');
		const char *last = slash ? slash + 1 : out->buf;
		if (out->len > (size_t)absolute && strcmp(last, "..") != 0) {
			size_t keep = slash ? (size_t)(slash - out->buf) : 0;
			if (absolute && keep == 0)
				keep = 1;
			sbuf_setlen(out, keep);
			return;
		}
		if (absolute)
			return;		/* "/.." is "/" */
	}
	if (out->len > 0 && out->buf[out->len - 1] != '/')
		sbuf_addc(out, '/');
	sbuf_add(out, s, n);
}

char *
path_join(const char *a, const char *b)
{
	struct sbuf	 in = SBUF_INIT, out = SBUF_INIT;
	const char	*s, *e;
	int		 absolute;

	sbuf_init(&in);
	sbuf_init(&out);
	sbuf_adds(&in, a);
	if (*a != '\0' && *b != '\0')
		sbuf_addc(&in, '/');
	sbuf_adds(&in, b);
	if (in.len == 0) {
		sbuf_release(&in);
		return xstrdup(".");
	}
	absolute = in.buf[0] == '/';
	if (absolute)
		sbuf_addc(&out, '/');
	for (s = in.buf; *s != '\0'; s = *e ? e + 1 : e) {
		e = strchr(s, '/');
		if (e == NULL)
			e = s + strlen(s);
		push_segment(&out, absolute, s, (size_t)(e - s));
	}
	if (out.len == 0)
		sbuf_addc(&out, '.');
	sbuf_release(&in);
	return sbuf_detach(&out, NULL);
}

char *
path_dirname(const char *p)
{
	size_t	n = strlen(p);

	while (n > 1 && p[n - 1] == '/')
		n--;
	while (n > 0 && p[n - 1] != '/')
		n--;
	if (n == 0)
		return xstrdup(".");
	while (n > 1 && p[n - 1] == '/')
		n--;
	return xstrndup(p, n);
}

char *
path_basename(const char *p)
{
	size_t	end = strlen(p), start;

	while (end > 0 && p[end - 1] == '/')
		end--;
	start = end;
	while (start > 0 && p[start - 1] != '/')
		start--;
	return xstrndup(p + start, end - start);
}

int
path_mkdir_p(const char *dir, unsigned int mode, struct err *err)
{
	char		*buf = xstrdup(dir), *s;
	struct stat	 st;
	int		 rc = -1;

	if (*dir == '\0') {
		err_set(err, "cannot create an empty directory path");
		goto out;
	}
	for (s = buf + 1; ; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		char c = *s;
		*s = '\0';
		if (mkdir(buf, mode) != 0 && errno != EEXIST) {
			err_errno(err, "cannot create directory '%s'", buf);
			goto out;
		}
		*s = c;
		if (c == '\0')
			break;
	}
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		err_set(err, "'%s' is not a directory", dir);
		goto out;
	}
	rc = 0;
out:
	free(buf);
	return rc;
}
