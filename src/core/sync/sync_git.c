/*
 * sync_git.c — the git plumbing of `thatch sync`: read the remote's ref,
 * fetch it into a private ref, walk trees, read blobs, write a commit
 * with fast-import and push it with a lease.
 *
 * This file runs git and knows nothing of memories or SQL.
 *  1. git runs through spawn_run with an argv, never a shell, in the
 *     project directory, with the user's own configuration, credentials
 *     and transport (ssh, https, file) untouched.
 *  2. Nothing here writes the user's branches, index or working tree:
 *     only refs under refs/thatch* and objects. fast-import writes
 *     objects and its one ref; no command used reads or writes the index.
 *  3. A failing git is one line: "git <verb>: " and the first line git
 *     wrote on stderr, without its "fatal: " or "error: ".
 */
#include "core/sync/sync_git.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/err.h"
#include "util/sbuf.h"
#include "util/os/spawn.h"
#include "util/xmalloc.h"

#define GIT_LOCAL_MS	60000
#define GIT_REMOTE_MS	120000	/* a slow ssh handshake is not a failure */
#define GIT_MAXARGS	16

/* err from git's stderr (invariant 3). */
static int
git_fail(struct err *err, const char *verb, const struct sbuf *errout,
    int status)
{
	const char	*s = errout->buf != NULL ? errout->buf : "", *e;
	static const char *const prefixes[] = { "fatal: ", "error: " };

	while (*s == '\n' || *s == ' ')
		s++;
	for (size_t i = 0; i < 2; i++)
		if (strncmp(s, prefixes[i], strlen(prefixes[i])) == 0)
			s += strlen(prefixes[i]);
	if ((e = strchr(s, '\n')) == NULL)
		e = s + strlen(s);
	if (e == s)
		return err_set(err, "git %s: exit status %d", verb, status);
	return err_set(err, "git %s: %.*s", verb, (int)(e - s), s);
}

/*
 * Run `git <args...>` (NULL-terminated) in g->dir with in as stdin;
 * stdout to out (may be NULL). *status gets the exit code when status is
 * not NULL; otherwise any non-zero exit fails.
 */
static int
git_run(const struct sync_git *g, int timeout_ms, const struct sbuf *in,
    struct sbuf *out, int *status, struct err *err, const char *const *args)
{
	const char	*argv[GIT_MAXARGS + 2];
	struct sbuf	 errout = SBUF_INIT;
	struct spawn_io	 io = { NULL, 0, out, &errout };
	size_t		 n = 0;
	int		 st, rc = -1;

	argv[n++] = "git";
	while (*args != NULL && n < GIT_MAXARGS)
		argv[n++] = *args++;
	argv[n] = NULL;
	if (in != NULL) {
		io.in = in->buf != NULL ? in->buf : "";
		io.inlen = in->len;
	}
	if (spawn_run(argv, g->dir, timeout_ms, &io, &st, err) != 0)
		goto out;
	if (status != NULL)
		*status = st;
	else if (st != 0) {
		git_fail(err, argv[1], &errout, st);
		goto out;
	}
	rc = 0;
out:
	sbuf_release(&errout);
	return rc;
}

#define GIT(g, ms, in, out, status, err, ...)				\
	git_run((g), (ms), (in), (out), (status), (err),		\
	    (const char *const[]){ __VA_ARGS__, NULL })

/* Copy a 40-hex oid from the start of s; 0, or -1 when s has none. */
static int
take_oid(const char *s, char oid[SYNC_OID_LEN + 1])
{
	size_t	n = s != NULL ? strspn(s, "0123456789abcdef") : 0;

	if (n != SYNC_OID_LEN)
		return -1;
	memcpy(oid, s, SYNC_OID_LEN);
	oid[SYNC_OID_LEN] = '\0';
	return 0;
}

int
sync_git_remote_head(const struct sync_git *g, const char *ref,
    char oid[SYNC_OID_LEN + 1], bool *exists, struct err *err)
{
	struct sbuf	out = SBUF_INIT, errout = SBUF_INIT;
	struct spawn_io	io = { NULL, 0, &out, &errout };
	const char	*argv[] = { "git", "ls-remote", "--exit-code", g->remote,
			    ref, NULL };
	int		st, rc = -1;

	*exists = false;
	oid[0] = '\0';
	if (spawn_run(argv, g->dir, GIT_REMOTE_MS, &io, &st, err) != 0)
		goto out;
	if (st == 2 && out.len == 0) {		/* reachable, no such ref */
		rc = 0;
		goto out;
	}
	if (st != 0) {
		git_fail(err, "ls-remote", &errout, st);
		goto out;
	}
	if (take_oid(out.buf, oid) != 0) {
		err_set(err, "git ls-remote: unexpected answer for '%s'", ref);
		goto out;
	}
	*exists = true;
	rc = 0;
out:
	sbuf_release(&out);
	sbuf_release(&errout);
	return rc;
}

int
sync_git_fetch(const struct sync_git *g, const char *ref, const char *local,
    struct err *err)
{
	char	*spec = xasprintf("+%s:%s", ref, local);
	int	 rc;

	rc = GIT(g, GIT_REMOTE_MS, NULL, NULL, NULL, err, "fetch", "--quiet",
	    "--no-tags", "--no-write-fetch-head", "--no-recurse-submodules",
	    g->remote, spec);
	free(spec);
	return rc;
}

int
sync_git_ref(const struct sync_git *g, const char *ref,
    char oid[SYNC_OID_LEN + 1], bool *exists, struct err *err)
{
	struct sbuf	out = SBUF_INIT;
	int		st, rc = -1;

	*exists = false;
	oid[0] = '\0';
	if (GIT(g, GIT_LOCAL_MS, NULL, &out, &st, err, "rev-parse", "--quiet",
	    "--verify", ref) != 0)
		goto out;
	if (st == 0 && take_oid(out.buf, oid) == 0)
		*exists = true;
	rc = 0;
out:
	sbuf_release(&out);
	return rc;
}

bool
sync_git_has_commit(const struct sync_git *g, const char *oid)
{
	char	*obj = xasprintf("%s^{commit}", oid);
	int	 st = 1;

	if (GIT(g, GIT_LOCAL_MS, NULL, NULL, &st, NULL, "cat-file", "-e",
	    obj) != 0)
		st = 1;
	free(obj);
	return st == 0;
}

bool
sync_git_is_ancestor(const struct sync_git *g, const char *a, const char *b)
{
	int	st = 1;

	if (GIT(g, GIT_LOCAL_MS, NULL, NULL, &st, NULL, "merge-base",
	    "--is-ancestor", a, b) != 0)
		st = 1;
	return st == 0;
}

int
sync_git_authors(const struct sync_git *g, const char *range,
    const char *dir, int (*fn)(const char *, const char *, const char *,
    void *), void *arg, struct err *err)
{
	struct sbuf	 out = SBUF_INIT;
	char		 commit[SYNC_OID_LEN + 1] = "", *mail = NULL;
	const char	*s, *end, *sp;
	int		 rc = -1;

	/* %x01 starts a commit's line: no path holds it (-z is not used so
	 * that the header and the names are lines alike) */
	if (GIT(g, GIT_LOCAL_MS, NULL, &out, NULL, err, "log", "--no-renames",
	    "--format=%x01%H %ae", "--name-only", range, "--", dir) != 0)
		goto out;
	for (s = out.buf != NULL ? out.buf : ""; *s != '\0'; s = end +
	    (*end != '\0')) {
		if ((end = strchr(s, '\n')) == NULL)
			end = s + strlen(s);
		if (*s == '\x01') {
			free(mail);
			mail = NULL;
			if (take_oid(s + 1, commit) != 0 ||
			    (sp = memchr(s, ' ', (size_t)(end - s))) == NULL)
				commit[0] = '\0';
			else
				mail = xstrndup(sp + 1, (size_t)(end - sp - 1));
		} else if (end > s && *commit != '\0' && mail != NULL) {
			char	*path = xstrndup(s, (size_t)(end - s));
			int	 stop = fn(path, commit, mail, arg);

			free(path);
			if (stop)
				break;
		}
	}
	rc = 0;
out:
	free(mail);
	sbuf_release(&out);
	return rc;
}

int
sync_git_tree(const struct sync_git *g, const char *commit,
    int (*fn)(const char *, const char *, void *), void *arg,
    struct err *err)
{
	struct sbuf	 out = SBUF_INIT;
	char		 oid[SYNC_OID_LEN + 1];
	const char	*s, *end, *tab;
	int		 rc = -1;

	if (GIT(g, GIT_LOCAL_MS, NULL, &out, NULL, err, "ls-tree", "-r", "-z",
	    "--full-tree", commit) != 0)
		goto out;
	/* "<mode> blob <oid>\t<path>\0" */
	for (s = out.buf; s != NULL && s < out.buf + out.len; s = end + 1) {
		end = s + strlen(s);
		tab = strchr(s, '\t');
		if (tab == NULL || strncmp(s, "100644 blob ", 12) != 0 ||
		    take_oid(s + 12, oid) != 0)
			continue;	/* not a plain file: not ours */
		if (fn(tab + 1, oid, arg) != 0)
			break;
	}
	rc = 0;
out:
	sbuf_release(&out);
	return rc;
}

int
sync_git_blobs(const struct sync_git *g, const char *const *oids, size_t n,
    int (*fn)(size_t, const char *, size_t, void *), void *arg,
    struct err *err)
{
	struct sbuf	 in = SBUF_INIT, out = SBUF_INIT;
	const char	*s, *nl;
	char		*end;
	unsigned long	 len;
	size_t		 i;
	int		 rc = -1;

	if (n == 0)
		return 0;
	for (i = 0; i < n; i++)
		sbuf_addf(&in, "%s\n", oids[i]);
	if (GIT(g, GIT_LOCAL_MS, &in, &out, NULL, err, "cat-file",
	    "--batch") != 0)
		goto out;
	/* "<oid> blob <size>\n<bytes>\n" per object */
	for (i = 0, s = out.buf; i < n; i++) {
		nl = memchr(s, '\n', out.len - (size_t)(s - out.buf));
		if (nl == NULL || (size_t)(nl - s) < SYNC_OID_LEN + 6 ||
		    strncmp(s + SYNC_OID_LEN, " blob ", 6) != 0) {
			err_set(err, "git cat-file: cannot read blob %s",
			    oids[i]);
			goto out;
		}
		len = strtoul(s + SYNC_OID_LEN + 6, &end, 10);
		if (end != nl || len > out.len - (size_t)(nl + 1 - out.buf)) {
			err_set(err, "git cat-file: short blob %s", oids[i]);
			goto out;
		}
		if (fn(i, nl + 1, len, arg) != 0)
			break;
		s = nl + 1 + len + 1;
	}
	rc = 0;
out:
	sbuf_release(&in);
	sbuf_release(&out);
	return rc;
}

int
sync_git_import(const struct sync_git *g, const struct sbuf *stream,
    char oid[SYNC_OID_LEN + 1], struct err *err)
{
	struct sbuf	out = SBUF_INIT;
	int		rc = -1;

	/* get-mark answers on stdout (the default --cat-blob-fd) */
	if (GIT(g, GIT_LOCAL_MS, stream, &out, NULL, err, "fast-import",
	    "--quiet", "--force", "--done", "--date-format=now") != 0)
		goto out;
	if (take_oid(out.buf, oid) != 0) {
		err_set(err, "git fast-import: no commit id in its answer");
		goto out;
	}
	rc = 0;
out:
	sbuf_release(&out);
	return rc;
}

char *
sync_git_ident(const struct sync_git *g)
{
	struct sbuf	 out = SBUF_INIT;
	char		*gt, *s = NULL;
	int		 st = 1;

	/* "Name <mail> <time> <tz>": the time is fast-import's "now" */
	if (GIT(g, GIT_LOCAL_MS, NULL, &out, &st, NULL, "var",
	    "GIT_COMMITTER_IDENT") == 0 && st == 0 && out.buf != NULL &&
	    (gt = strrchr(out.buf, '>')) != NULL)
		s = xstrndup(out.buf, (size_t)(gt + 1 - out.buf));
	sbuf_release(&out);
	return s;
}

int
sync_git_push(const struct sync_git *g, const char *commit, const char *ref,
    const char *expect, bool *rejected, struct err *err)
{
	struct sbuf	 out = SBUF_INIT, errout = SBUF_INIT;
	struct spawn_io	 io = { NULL, 0, &out, &errout };
	char		*lease = xasprintf("--force-with-lease=%s:%s", ref, expect);
	char		*spec = xasprintf("%s:%s", commit, ref);
	const char	*argv[] = { "git", "push", "--porcelain", "--no-verify",
			    "--quiet", g->remote, lease, spec, NULL };
	int		 st, rc = -1;

	*rejected = false;
	if (spawn_run(argv, g->dir, GIT_REMOTE_MS, &io, &st, err) != 0)
		goto out;
	/* porcelain: "!\t<src>:<dst>\t[rejected] (stale info)" */
	if (st != 0 && out.buf != NULL &&
	    strstr(out.buf, "\t[rejected]") != NULL) {
		*rejected = true;
		rc = 0;
		goto out;
	}
	if (st != 0) {
		git_fail(err, "push", &errout, st);
		goto out;
	}
	rc = 0;
out:
	sbuf_release(&out);
	sbuf_release(&errout);
	free(lease);
	free(spec);
	return rc;
}

int
sync_git_set_ref(const struct sync_git *g, const char *ref, const char *oid,
    struct err *err)
{
	if (*oid == '\0')
		return GIT(g, GIT_LOCAL_MS, NULL, NULL, NULL, err, "update-ref",
		    "-d", ref);
	return GIT(g, GIT_LOCAL_MS, NULL, NULL, NULL, err, "update-ref", ref,
	    oid);
}

bool
sync_git_ref_ok(const struct sync_git *g, const char *ref)
{
	int	st = 1;

	if (GIT(g, GIT_LOCAL_MS, NULL, NULL, &st, NULL, "check-ref-format",
	    ref) != 0)
		return false;
	return st == 0;
}
