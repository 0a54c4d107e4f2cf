/*
 * anchor_path.c — the repository-relative path an anchor takes, from a
 * path a host's tool call named (absolute, or relative to the project),
 * so that extraction can offer the files a session read or edited as
 * anchors without the agent working them out.
 *
 *  1. Both sides are resolved (realpath) when they exist, so a project
 *     reached through a symbolic link still matches its worktree; a path
 *     that does not resolve is compared as written.
 *  2. A path outside the worktree, or the worktree itself, has no
 *     anchor: nothing is offered rather than a path that leaves it.
 */
#include "core/anchor/anchor.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/anchor/anchor_int.h"
#include "util/path.h"
#include "util/xmalloc.h"

/* path resolved, or a copy of it as written (invariant 1). */
static char *
resolved(const char *path)
{
	char	*r = realpath(path, NULL);

	return r != NULL ? r : xstrdup(path);
}

char *
anchor_root(const char *dir)
{
	struct anchor_repo	 repo;
	char			*root;

	if (dir == NULL || anchor_repo_find(dir, &repo) != 0)
		return NULL;
	root = resolved(repo.root);
	anchor_repo_release(&repo);
	return root;
}

char *
anchor_relpath(const char *root, const char *base, const char *path)
{
	char	*full, *rel = NULL, *p, *s;
	size_t	 n = strlen(root);

	if (*path == '\0')
		return NULL;
	full = *path == '/' || base == NULL ? xstrdup(path) :
	    path_join(base, path);
	p = resolved(full);
	if (strncmp(p, root, n) == 0 && p[n] == '/' && p[n + 1] != '\0' &&
	    anchor_parse(p + n + 1, &rel, &s, NULL) == 0)
		free(s);	/* a '#' in a file name is no symbol here */
	else {
		free(rel);
		rel = NULL;
	}
	if (rel != NULL && strcmp(rel, p + n + 1) != 0) {
		free(rel);	/* a ':L' or '#' in the name: offer none */
		rel = NULL;
	}
	free(p);
	free(full);
	return rel;
}
