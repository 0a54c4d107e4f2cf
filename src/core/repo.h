/* repo.h — which store a directory belongs to, from git (repo.c). */
#ifndef THATCH_CORE_REPO_H
#define THATCH_CORE_REPO_H

#include <stddef.h>

/*
 * The repo_paths identity cache (store-and-tools §2.5), injected so this
 * module stays database-free: repo_cache.h gives the SQL one, tests give
 * fakes. get returns 1 with *main_path and *slug (new strings) on a hit,
 * 0 on a miss or any failure; put upserts (skipping an identical row);
 * evict deletes. Any of the three may fail silently: the cache is an
 * optimisation of last resort, never a reason to fail detection.
 */
struct repo_cache {
	int	(*get)(struct repo_cache *, const char *path, char **main_path,
		    char **slug);
	void	(*put)(struct repo_cache *, const char *path,
		    const char *main_path, const char *slug);
	void	(*evict)(struct repo_cache *, const char *path);
};

/*
 * owner/repo from a git remote URL by the four patterns of §2.4 (after
 * trimming whitespace, trailing '/' and one ".git"), or NULL when it does
 * not parse. New string.
 */
char	*repo_parse_remote(const char *url);

/*
 * The store identity REPO of directory dir (§2.3, hosts-hooks-cli §0.5):
 * origin's owner/repo, else the main checkout's directory name (worktree
 * safe, --path-format=absolute), else dir's last segment; for a directory
 * that no longer exists, the validated cache entry of it or of its longest
 * cached ancestor, else the git identity of its nearest existing ancestor
 * (never a basename). "unknown" when nothing
 * qualifies; never fails. A step 1 or 2 answer is written to the cache.
 * cache may be NULL. New string. This is the raw REPO: store-scoped
 * commands map it with repo_store_name.
 */
char	*repo_detect(const char *dir, struct repo_cache *cache);

/* "unknown" -> "global", anything else unchanged (§2.6). Borrowed: the
 * result is repo itself or a static string. */
const char *repo_store_name(const char *repo);

/*
 * Where git commands about dir can run (§2.5 spawn-cwd fallback): dir if
 * it exists, else the main checkout repo_detect's step 4 finds, else NULL. New
 * string.
 */
char	*repo_spawn_cwd(const char *dir, struct repo_cache *cache);

/*
 * The local branch names of dir's repository (§2.7), run from
 * repo_spawn_cwd: each line of `git for-each-ref
 * --format=%(refname:short) refs/heads`, trimmed, empties dropped. Any
 * failure gives n 0, which means "unknown", never "no branches". *out is
 * a new array of new strings; free with repo_branches_free.
 */
void	 repo_branches(const char *dir, struct repo_cache *cache,
	    char ***out, size_t *n);
void	 repo_branches_free(char **, size_t);

#endif
