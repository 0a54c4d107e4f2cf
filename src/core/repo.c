/*
 * repo.c — which store a directory belongs to: the git remote, the main
 * checkout's name, the directory's name, or the repo_paths cache when the
 * directory is gone (store-and-tools §2.3-§2.7).
 *
 * This file runs git and knows nothing of SQL; the cache comes in through
 * struct repo_cache.
 *  1. Detection never fails: every probe failure moves on to the next
 *     step, and the last answer is "unknown".
 *  2. git runs without a shell, stdin from /dev/null, stderr discarded,
 *     with a timeout (spawn_capture).
 *  3. The basename of a directory that no longer exists is never an
 *     identity (for a worktree it is the branch name): only the cache
 *     (its row or an ancestor's) or git in its nearest existing ancestor
 *     can answer for it (§2.3 step 4, engines-and-extras §B9).
 *  4. Only definitive evidence evicts a cache row (§2.5 table): a missing
 *     main checkout or a failed spawn keeps it.
 *  5. The common directory is asked for with --path-format=absolute; a git
 *     older than 2.31 echoes the unknown option and answers relatively,
 *     so the last output line is taken and resolved against the directory.
 *  6. git is not run where it cannot find a repository (maybe_repo): no
 *     .git and no bare repository's shape in the directory or any parent,
 *     and none of the environment variables that point git elsewhere. Each
 *     spawn costs a cold command milliseconds, twice over outside a
 *     repository (hygiene and list ran three).
 */
#include "core/repo.h"

#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/path.h"
#include "util/sbuf.h"
#include "util/os/spawn.h"
#include "util/xmalloc.h"

#define GIT_TIMEOUT_MS	5000

/* Run git args in dir. Returns 0 with *status and the output, -1 when git
 * could not be started there. */
static int
git(const char *dir, const char *const *argv, struct sbuf *out, int *status)
{
	sbuf_reset(out);
	return spawn_capture(argv, dir, GIT_TIMEOUT_MS, out, status, NULL);
}

static bool
is_dir(const char *p)
{
	struct stat	sb;

	return stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
}

static bool
exists_in(const char *dir, const char *name, bool want_dir)
{
	struct stat	 sb;
	char		*p = xasprintf("%s/%s", dir, name);
	bool		 ok = stat(p, &sb) == 0 && (!want_dir ||
			    S_ISDIR(sb.st_mode));

	free(p);
	return ok;
}

/* Invariant 6: false only when git's discovery must fail from dir (it
 * looks for .git, or a bare repository: HEAD, objects/ and refs/, in each
 * directory up to the root). */
static bool
maybe_repo(const char *dir)
{
	static const char *const env[] = { "GIT_DIR", "GIT_WORK_TREE",
	    "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY" };
	char	 real[PATH_MAX], *slash;
	size_t	 i;

	for (i = 0; i < sizeof(env) / sizeof(env[0]); i++)
		if (getenv(env[i]) != NULL)
			return true;
	if (realpath(dir, real) == NULL)
		return true;
	for (;;) {
		if (exists_in(real, ".git", false) ||
		    (exists_in(real, "HEAD", false) &&
		    exists_in(real, "objects", true) &&
		    exists_in(real, "refs", true)))
			return true;
		if ((slash = strrchr(real, '/')) == NULL || slash == real)
			break;
		*slash = '\0';
	}
	return exists_in("/", ".git", false);
}

static bool
starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* §2.4's "same rule": the path has a '/' with text on both sides. */
static char *
owner_repo(const char *path)
{
	const char	*slash = strrchr(path, '/');

	if (slash == NULL || slash == path || slash[1] == '\0')
		return NULL;
	return xstrdup(path);
}

/* The path after "<scheme>AUTHORITY/", or NULL. */
static const char *
after_authority(const char *rest)
{
	const char	*slash = strchr(rest, '/');

	return slash == NULL || slash == rest ? NULL : slash + 1;
}

char *
repo_parse_remote(const char *url)
{
	char		*s, *out = NULL;
	const char	*path = NULL, *colon;
	size_t		 a = 0, n = strlen(url);

	while (a < n && strchr(" \t\n\r\f\v", url[a]) != NULL)
		a++;
	while (n > a && strchr(" \t\n\r\f\v", url[n - 1]) != NULL)
		n--;
	s = xstrndup(url + a, n - a);
	n = strlen(s);
	while (n > 0 && s[n - 1] == '/')
		s[--n] = '\0';
	if (n >= 4 && strcmp(s + n - 4, ".git") == 0)
		s[n - 4] = '\0';
	if (starts(s, "git@")) {
		colon = strchr(s + 4, ':');
		if (colon != NULL && colon > s + 4)
			path = colon + 1;
	} else if (starts(s, "http://"))
		path = after_authority(s + 7);
	else if (starts(s, "https://"))
		path = after_authority(s + 8);
	else if (starts(s, "ssh://git@"))
		path = after_authority(s + 10);
	else if (starts(s, "git://"))
		path = after_authority(s + 6);
	if (path != NULL)
		out = owner_repo(path);
	free(s);
	return out;
}

/* Step 1: origin's owner/repo, or NULL. */
static char *
remote_slug(const char *dir, struct sbuf *out)
{
	const char *const	argv[] = { "git", "remote", "get-url", "origin",
				    NULL };
	int			status;

	if (git(dir, argv, out, &status) != 0 || status != 0)
		return NULL;
	return repo_parse_remote(out->buf);
}

/*
 * Step 2: the main checkout, i.e. the absolute common git directory with
 * one trailing "/.git" removed (even from a linked worktree). Its last
 * segment is the identity; the path is what the cache keeps. NULL when git
 * has no answer.
 */
static char *
main_checkout(const char *dir, struct sbuf *out)
{
	const char *const	argv[] = { "git", "rev-parse",
				    "--path-format=absolute",
				    "--git-common-dir", NULL };
	char			*line, *common;
	size_t			 n;
	int			 status;

	if (git(dir, argv, out, &status) != 0 || status != 0)
		return NULL;
	sbuf_rtrim(out);
	line = strrchr(out->buf, '\n');	/* invariant 5 */
	line = line == NULL ? out->buf : line + 1;
	if (*line == '\0')
		return NULL;
	common = *line == '/' ? xstrdup(line) : path_join(dir, line);
	n = strlen(common);
	if (n >= 5 && strcmp(common + n - 5, "/.git") == 0)
		common[n - 5] = '\0';
	if (*common == '\0') {
		free(common);
		return NULL;
	}
	return common;
}

static void
cache_put(struct repo_cache *cache, const char *dir, const char *main_path,
    const char *slug)
{
	char	real[PATH_MAX];

	if (cache == NULL || main_path == NULL || realpath(dir, real) == NULL)
		return;
	cache->put(cache, real, main_path, slug);
}

/*
 * §2.5 validation of a hit, run in main_path: 1 valid, 0 not usable (row
 * kept or evicted as the table says).
 */
static int
cache_valid(struct repo_cache *cache, const char *key, const char *main_path,
    const char *slug, struct sbuf *out)
{
	const char *const	argv[] = { "git", "rev-parse",
				    "--git-common-dir", NULL };
	char			*remote, *base;
	int			 status, ok;

	if (!is_dir(main_path))
		return 0;
	if (git(main_path, argv, out, &status) != 0)
		return 0;
	if (status != 0) {
		cache->evict(cache, key);
		return 0;
	}
	remote = remote_slug(main_path, out);
	if (remote != NULL)
		ok = strcmp(remote, slug) == 0;
	else {
		base = path_basename(main_path);
		ok = strcmp(base, slug) == 0;
		free(base);
	}
	free(remote);
	if (!ok)
		cache->evict(cache, key);
	return ok;
}

/* A validated cache hit for a deleted dir: 1 with *main_path and *slug. */
static int
cache_lookup(struct repo_cache *cache, const char *dir, char **main_path,
    char **slug)
{
	struct sbuf	 out;
	char		*keys[2], *parent, *base, real[PATH_MAX];
	int		 i, found = 0;

	*main_path = *slug = NULL;
	if (cache == NULL)
		return 0;
	parent = path_dirname(dir);
	base = path_basename(dir);
	keys[0] = xstrdup(dir);
	keys[1] = realpath(parent, real) != NULL ?
	    xasprintf("%s/%s", strcmp(real, "/") == 0 ? "" : real, base) :
	    NULL;
	sbuf_init(&out);
	for (i = 0; i < 2 && !found; i++) {
		if (keys[i] == NULL || cache->get(cache, keys[i], main_path,
		    slug) != 1)
			continue;
		found = cache_valid(cache, keys[i], *main_path, *slug, &out);
		if (!found) {
			free(*main_path);
			free(*slug);
			*main_path = *slug = NULL;
		}
	}
	sbuf_release(&out);
	free(keys[0]);
	free(keys[1]);
	free(parent);
	free(base);
	return found;
}

/*
 * Steps 1 and 2 in an existing dir: the identity, with *main_path (new
 * string or NULL) the main checkout; NULL when git gives neither.
 */
static char *
git_identity(const char *dir, char **main_path, struct sbuf *out)
{
	char	*slug = NULL;

	*main_path = NULL;
	if (!maybe_repo(dir))
		return NULL;
	slug = remote_slug(dir, out);
	*main_path = main_checkout(dir, out);
	if (slug == NULL && *main_path != NULL) {
		slug = path_basename(*main_path);
		if (*slug == '\0') {
			free(slug);
			slug = NULL;
		}
	}
	return slug;
}

/*
 * Step 4 for a dir that no longer exists (engines-and-extras §B9): the
 * validated cache entry of dir or of its longest cached ancestor, so that
 * a subdirectory of a removed worktree resolves too; the walk stops at
 * the nearest ancestor that exists, whose steps 1 and 2 answer (a
 * worktree inside its repository). Never a basename (invariant 3).
 * Returns 1 with *main_path (where git can run) and *slug, 0 otherwise.
 */
static int
gone_lookup(const char *dir, struct repo_cache *cache, char **main_path,
    char **slug)
{
	struct sbuf	 out;
	char		*d = xstrdup(dir), *up;
	int		 found = 0;

	*main_path = *slug = NULL;
	sbuf_init(&out);
	while (!found) {
		if (is_dir(d)) {
			*slug = git_identity(d, main_path, &out);
			if (*slug != NULL && *main_path == NULL)
				*main_path = xstrdup(d);
			found = *slug != NULL;
			break;
		}
		if ((found = cache_lookup(cache, d, main_path, slug)))
			break;
		up = path_dirname(d);
		if (strcmp(up, d) == 0 || *up != '/') {
			free(up);
			break;
		}
		free(d);
		d = up;
	}
	if (!found) {
		free(*main_path);
		*main_path = NULL;
	}
	free(d);
	sbuf_release(&out);
	return found;
}

char *
repo_detect(const char *dir, struct repo_cache *cache)
{
	struct sbuf	 out;
	char		*slug = NULL, *main_path = NULL;

	if (!is_dir(dir)) {
		if (gone_lookup(dir, cache, &main_path, &slug)) {
			free(main_path);
			return slug;
		}
		return xstrdup("unknown");	/* invariant 3 */
	}
	sbuf_init(&out);
	slug = git_identity(dir, &main_path, &out);
	if (slug != NULL)
		cache_put(cache, dir, main_path, slug);
	else {
		slug = path_basename(dir);
		if (*slug == '\0') {
			free(slug);
			slug = xstrdup("unknown");
		}
	}
	free(main_path);
	sbuf_release(&out);
	return slug;
}

const char *
repo_store_name(const char *repo)
{
	return strcmp(repo, "unknown") == 0 ? "global" : repo;
}

char *
repo_spawn_cwd(const char *dir, struct repo_cache *cache)
{
	char	*main_path, *slug;

	if (is_dir(dir))
		return xstrdup(dir);
	if (!gone_lookup(dir, cache, &main_path, &slug))
		return NULL;
	free(slug);
	return main_path;
}

void
repo_branches(const char *dir, struct repo_cache *cache, char ***out,
    size_t *n)
{
	const char *const	argv[] = { "git", "for-each-ref",
				    "--format=%(refname:short)", "refs/heads",
				    NULL };
	struct sbuf		 buf;
	char			*cwd = repo_spawn_cwd(dir, cache), *line, *next;
	char			*end;
	int			 status;

	*out = NULL;
	*n = 0;
	if (cwd == NULL || !maybe_repo(cwd)) {
		free(cwd);
		return;
	}
	sbuf_init(&buf);
	if (git(cwd, argv, &buf, &status) == 0 && status == 0) {
		for (line = buf.buf; line != NULL && *line != '\0';
		    line = next) {
			next = strchr(line, '\n');
			if (next != NULL)
				*next++ = '\0';
			while (*line == ' ' || *line == '\t' || *line == '\r')
				line++;
			end = line + strlen(line);
			while (end > line && strchr(" \t\r", end[-1]) != NULL)
				*--end = '\0';
			if (*line == '\0')
				continue;
			*out = xreallocarray(*out, *n + 1, sizeof(char *));
			(*out)[(*n)++] = xstrdup(line);
		}
	}
	sbuf_release(&buf);
	free(cwd);
}

void
repo_branches_free(char **v, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}
