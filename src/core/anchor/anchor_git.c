/*
 * anchor_git.c — the worktree anchors are judged in, and the git commands
 * they need: where a gone file went, which commits touched a file.
 *
 *  1. Finding the worktree and its branch reads files only (.git, HEAD):
 *     recall judges anchors on every call and a git process costs ms.
 *  2. git runs only for a file that is gone (a rename to follow) and for
 *     hygiene's list of commits, with a bounded timeout; a git that fails
 *     answers "not renamed" / "no commits", never an error.
 */
#include "core/anchor/anchor_int.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/err.h"
#include "util/fileio.h"
#include "util/os/spawn.h"
#include "util/path.h"
#include "util/sbuf.h"
#include "util/xmalloc.h"

#define GIT_MS	10000

/* The first line of file, trimmed, or NULL. */
static char *
first_line(const char *file)
{
	struct sbuf	sb = SBUF_INIT;
	char		*nl;

	if (fileio_read(file, &sb, NULL) != 0) {
		sbuf_release(&sb);
		return NULL;
	}
	if ((nl = memchr(sb.buf, '\n', sb.len)) != NULL)
		sbuf_setlen(&sb, (size_t)(nl - sb.buf));
	sbuf_rtrim(&sb);
	return sbuf_detach(&sb, NULL);
}

/* The git directory of the worktree at root whose ".git" is dotgit: the
 * directory itself, or where a gitfile ("gitdir: X") points. */
static char *
git_dir(const char *root, const char *dotgit, bool is_dir)
{
	char	*line, *dir;

	if (is_dir)
		return xstrdup(dotgit);
	if ((line = first_line(dotgit)) == NULL ||
	    strncmp(line, "gitdir: ", 8) != 0) {
		free(line);
		return NULL;
	}
	dir = line[8] == '/' ? xstrdup(line + 8) : path_join(root, line + 8);
	free(line);
	return dir;
}

static char *
head_branch(const char *gitdir)
{
	char	*head = path_join(gitdir, "HEAD"), *line, *b = NULL;

	line = first_line(head);
	if (line != NULL && strncmp(line, "ref: refs/heads/", 16) == 0)
		b = xstrdup(line + 16);
	free(line);
	free(head);
	return b;
}

int
anchor_repo_find(const char *dir, struct anchor_repo *r)
{
	struct stat	 sb;
	char		*cur, *dotgit, *up, *gitdir;

	memset(r, 0, sizeof(*r));
	if (dir == NULL || *dir != '/')
		return -1;
	for (cur = xstrdup(dir);; cur = up) {
		dotgit = path_join(cur, ".git");
		if (stat(dotgit, &sb) == 0) {
			gitdir = git_dir(cur, dotgit, S_ISDIR(sb.st_mode));
			free(dotgit);
			r->root = cur;
			r->branch = gitdir ? head_branch(gitdir) : NULL;
			free(gitdir);
			return 0;
		}
		free(dotgit);
		if (strcmp(cur, "/") == 0)
			break;
		up = path_dirname(cur);
		free(cur);
	}
	free(cur);
	return -1;
}

void
anchor_repo_release(struct anchor_repo *r)
{
	free(r->root);
	free(r->branch);
	memset(r, 0, sizeof(*r));
}

/* git's stdout in root, or -1 when it failed. */
static int
git(const char *root, const char *const argv[], struct sbuf *out)
{
	int	status;

	if (spawn_capture(argv, root, GIT_MS, out, &status, NULL) != 0 ||
	    status != 0)
		return -1;
	return 0;
}

char *
anchor_git_head(const char *root)
{
	const char *const	argv[] = { "git", "rev-parse", "--verify", "-q",
				    "HEAD", NULL };
	struct sbuf		out = SBUF_INIT;

	if (git(root, argv, &out) != 0 || out.len == 0) {
		sbuf_release(&out);
		return NULL;
	}
	sbuf_rtrim(&out);
	return sbuf_detach(&out, NULL);
}

char *
anchor_git_renamed(const char *root, const char *head, const char *path)
{
	const char *const	argv[] = { "git", "diff", "-M", "-z",
				    "--name-status", head, "--", NULL };
	struct sbuf		out = SBUF_INIT;
	const char		*p, *end, *from, *to;
	char			*found = NULL;

	if (head == NULL || git(root, argv, &out) != 0) {
		sbuf_release(&out);
		return NULL;
	}
	/* -z: "R<score>\0<from>\0<to>\0", every other status "X\0<path>\0" */
	for (p = out.buf, end = out.buf + out.len; p < end && !found;) {
		bool	renamed = *p == 'R', two = renamed || *p == 'C';

		p += strlen(p) + 1;
		if (p >= end)
			break;
		from = p;
		p += strlen(p) + 1;
		if (!two || p >= end)
			continue;
		to = p;
		p += strlen(p) + 1;
		if (renamed && strcmp(from, path) == 0)
			found = xstrdup(to);
	}
	sbuf_release(&out);
	return found;
}

void
anchor_git_log(const char *root, const char *head, const char *path,
    struct sbuf *out)
{
	struct sbuf	 log = SBUF_INIT, range = SBUF_INIT;
	const char	*argv[] = { "git", "log", "--format=%h %s", NULL,
			    "--", path, NULL };
	char		*line, *save = NULL;
	bool		 first = true;

	if (head == NULL)
		return;
	sbuf_addf(&range, "%s..HEAD", head);
	argv[3] = range.buf;
	if (git(root, argv, &log) == 0)
		for (line = strtok_r(log.buf, "\n", &save); line != NULL;
		    line = strtok_r(NULL, "\n", &save)) {
			sbuf_addf(out, "%s%s", first ? "" : "; ", line);
			first = false;
		}
	sbuf_release(&log);
	sbuf_release(&range);
}
