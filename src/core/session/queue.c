/*
 * queue.c — the per-session extraction queue on disk: its files and their
 * discipline. What a record holds and says is queue_record.c's, how
 * strings are cut as they are read is queue_clip.c's.
 *
 * Claude Code and Cursor run every hook as a fresh process, so the tool
 * calls waiting for extraction live in QUEUE_DIR/<safe>.jsonl, one compact
 * JSON record per line, beside the missed-nudge counter <safe>.count and
 * (thatch's own addition for Cursor) a pending nudge <safe>.nudge
 * (hosts-hooks-cli §4, host-contracts C2). This file knows the formats and
 * the file discipline; which calls count as thatch's own is the hook's
 * decision (struct queue_call.verdict).
 *
 * The folder is one other versions of thatch, and people, write too, so
 * nothing read from it is trusted: any line may be anything.
 *
 * Invariants:
 *  1. Every writer (append, drain, counter, nudge, sweep) holds an
 *     exclusive flock on the queue directory itself for its
 *     read-modify-write. A lock on the queue file would not do: a rewrite
 *     renames a new inode over it, and a second writer blocked on the old
 *     inode would then write a file nobody reads. One lock per directory
 *     also leaves no lock files behind; hook writes take well under a
 *     millisecond.
 *  2. A file only ever changes by rename of a complete temporary file
 *     (write_file) or by unlink, so a lock-free reader (peek) sees the old
 *     file or the new one, and a full disk or a killed writer leaves the
 *     old one intact, never a torn line. Nothing is fsync'd: the queue is
 *     a cache, and an fsync would cost more than the hook. Temporary files
 *     are <name>.tmp.<random>, created O_EXCL|O_NOFOLLOW 0600, so nobody
 *     can plant them; one a killed writer left is swept (queue_prune).
 *  3. Every file is opened O_NOFOLLOW and read only if it is a regular
 *     file: a symlink planted as a queue file is refused, not followed,
 *     and a FIFO cannot block a hook.
 *  4. Readers hold at most one line of QUEUE_LINE_MAX bytes and QUEUE_CAP
 *     records: every string of a line is cut to QUEUE_STRING_MAX bytes
 *     as it streams past (queue_clip_feed), so a line of 50 MB costs a scan,
 *     not a parse; a line still longer than QUEUE_LINE_MAX (structure,
 *     not strings) is skipped, and so is a record without a string
 *     "tool". The strings that can be long (output, args) are then cut
 *     further, with no effect on anything a consumer sees (the payload
 *     cuts harder).
 *  5. At most QUEUE_CAP records are on disk after any append, and no line
 *     written is longer than QUEUE_LINE_MAX.
 *  6. No file name is built from a session id except through safe_id,
 *     whose output has only [A-Za-z0-9_-] and is never empty, "." or "..".
 */
#include "core/session/queue.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <dirent.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/anchor/anchor.h"
#include "core/session/queue_int.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/jsonx.h"
#include "util/log.h"
#include "util/os/plat.h"
#include "util/path.h"
#include "util/sbuf.h"
#include "util/utf8.h"
#include "util/xmalloc.h"

/* Counter files are a number: more than this is not ours to parse. */
#define COUNT_MAX	32

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
		step = utf8_decode_subpart(sid + i, n - i, &cp);
		sbuf_adds(&sb, cp >= 0x10000 ? "__" : "_");
		i += step;
	}
	if (sb.len == 0)
		sbuf_addc(&sb, '_');	/* invariant 6: never an empty name */
	return sbuf_detach(&sb, NULL);
}

/* The file name of the session's queue file with extension ext. */
static char *
queue_name(const char *sid, const char *ext)
{
	char	*safe = queue_safe_id(sid), *name;

	name = xasprintf("%s.%s", safe, ext);
	free(safe);
	return name;
}

/* The queue directory as an fd, or -1 with errno set (ENOENT: none). */
static int
dir_open(const char *dir)
{
	return open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

/* Whether errno says there is no such directory: ENOTDIR when a file
 * sits where a parent of it would be (a broken XDG_CACHE_HOME). */
static bool
no_dir(void)
{
	return errno == ENOENT || errno == ENOTDIR;
}

/* True when dir does not exist: nothing to drain or sweep there. */
static bool
dir_missing(const char *dir)
{
	struct stat	st;

	return stat(dir, &st) != 0 && no_dir();
}

/* Invariant 1: every change happens under fileio_lock_dir(dir). */
static void
unlock_dir(int fd)
{
	if (fd >= 0)
		close(fd);	/* closing drops the flock */
}

/*
 * Invariant 3: open dir/name for reading into *fd. Returns 0, 1 when
 * there is no such file, -1 with err set (a symlink, a FIFO, a folder).
 */
static int
open_file(int dfd, const char *dir, const char *name, int *fd,
    struct err *err)
{
	struct stat	st;

	*fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC);
	if (*fd < 0 && errno == ENOENT)
		return 1;
	if (*fd < 0 && errno == ELOOP)
		return err_set(err, "'%s/%s' is a symbolic link; not followed",
		    dir, name);
	if (*fd < 0)
		return err_errno(err, "cannot open '%s/%s'", dir, name);
	if (fstat(*fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(*fd);
		*fd = -1;
		return err_set(err, "'%s/%s' is not a regular file", dir,
		    name);
	}
	return 0;
}

/*
 * Read at most max bytes of dir/name into sb. Returns 0, 1 when the file
 * is missing or longer than max (not ours to use), -1 with err set.
 */
static int
read_small(int dfd, const char *dir, const char *name, size_t max,
    struct sbuf *sb, struct err *err)
{
	ssize_t	n;
	int	fd, rc;

	if ((rc = open_file(dfd, dir, name, &fd, err)) != 0)
		return rc;
	sbuf_grow(sb, max + 1);
	while ((n = read(fd, sb->buf + sb->len, max + 1 - sb->len)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = err_errno(err, "cannot read '%s/%s'", dir, name);
			break;
		}
		sb->len += (size_t)n;
		if (sb->len > max) {
			rc = 1;
			break;
		}
	}
	sb->buf[sb->len] = '\0';
	close(fd);
	return rc;
}

/* Invariant 2: a fresh temporary name beside name that nobody can guess. */
static char *
temp_name(const char *name)
{
	unsigned char	 b[8];
	struct timespec	 ts;
	unsigned long long v = 0;
	size_t		 i;

	if (plat_random(b, sizeof(b)) == 0) {
		for (i = 0; i < sizeof(b); i++)
			v = v << 8 | b[i];
	} else {
		/* no entropy yet: O_EXCL|O_NOFOLLOW still keep us safe */
		clock_gettime(CLOCK_REALTIME, &ts);
		v = (unsigned long long)ts.tv_nsec << 20 ^
		    (unsigned long long)getpid() ^
		    (unsigned long long)ts.tv_sec;
	}
	return xasprintf("%s.tmp.%016llx", name, v);
}

/*
 * Invariant 2: replace dir/name (dfd) with len bytes of data, or leave it
 * as it was. Returns 0 or -1 with err set (a full disk says so).
 */
static int
write_file(int dfd, const char *dir, const char *name, const char *data,
    size_t len, struct err *err)
{
	char	*tmp = NULL;
	int	 fd = -1, tries, rc = -1;

	for (tries = 0; tries < 8 && fd < 0; tries++) {
		free(tmp);
		tmp = temp_name(name);
		fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
		    O_CLOEXEC, 0600);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		err_errno(err, "cannot create a file in '%s'", dir);
		free(tmp);
		return -1;
	}
	if (fileio_write_fd(fd, data, len) != 0) {
		err_errno(err, "cannot write '%s/%s'", dir, name);
		close(fd);
	} else if (close(fd) != 0)
		err_errno(err, "cannot write '%s/%s'", dir, name);
	else if (renameat(dfd, tmp, dfd, name) != 0)
		err_errno(err, "cannot replace '%s/%s'", dir, name);
	else
		rc = 0;
	if (rc != 0)
		unlinkat(dfd, tmp, 0);
	free(tmp);
	return rc;
}

static int
remove_file(int dfd, const char *dir, const char *name, struct err *err)
{
	if (unlinkat(dfd, name, 0) != 0 && errno != ENOENT)
		return err_errno(err, "cannot remove '%s/%s'", dir, name);
	return 0;
}

/* One line of a queue file into out when it is a usable record. */
static void
take_line(const char *line, size_t len, json_t *out)
{
	json_t	*rec = json_loadb(line, len, JSON_ALLOW_NUL, NULL);

	if (!json_is_object(rec) || !json_is_string(json_object_get(rec,
	    "tool"))) {
		json_decref(rec);
		return;
	}
	queue_clip_record(rec);
	json_array_append_new(out, rec);
	if (json_array_size(out) > QUEUE_CAP)
		json_array_remove(out, 0);	/* what an append keeps */
}

/*
 * §4.5 read_records, bounded (invariant 4): the usable records of
 * dir/name, the newest QUEUE_CAP, oldest first, appended to out. A
 * missing file is empty. Returns 0 or -1 with err set.
 */
static int
read_records(int dfd, const char *dir, const char *name, json_t *out,
    struct err *err)
{
	struct queue_clip c = { .state = QUEUE_CLIP_OUT };
	struct sbuf	 line = SBUF_INIT;
	char		 buf[65536], *p, *end, *nl;
	size_t		 skipped = 0;
	ssize_t		 n;
	int		 fd, rc;

	if ((rc = open_file(dfd, dir, name, &fd, err)) != 0)
		return rc == 1 ? 0 : -1;
	sbuf_init(&line);
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = err_errno(err, "cannot read '%s/%s'", dir, name);
			break;
		}
		for (p = buf, end = buf + n; p < end; p = nl + 1) {
			nl = memchr(p, '\n', (size_t)(end - p));
			if (line.len <= QUEUE_LINE_MAX)
				queue_clip_feed(&c, p, (size_t)((nl != NULL ?
				    nl : end) - p), QUEUE_STRING_MAX, &line);
			if (nl == NULL)
				break;
			if (line.len <= QUEUE_LINE_MAX)
				take_line(line.buf, line.len, out);
			else
				skipped++;
			c = (struct queue_clip){ .state = QUEUE_CLIP_OUT };
			sbuf_reset(&line);
		}
	}
	if (rc == 0 && line.len > 0 && line.len <= QUEUE_LINE_MAX)
		take_line(line.buf, line.len, out);
	close(fd);
	sbuf_release(&line);
	if (skipped > 0)
		log_debug("queue:read", "%s/%s: skipped %zu line(s) over %d "
		    "bytes", dir, name, skipped, QUEUE_LINE_MAX);
	return rc;
}

int
queue_peek(const char *dir, const char *sid, json_t **out, struct err *err)
{
	char	*name = queue_name(sid, "jsonl");
	int	 dfd, rc = 0;

	*out = json_array();
	if ((dfd = dir_open(dir)) < 0 && !no_dir())
		rc = err_errno(err, "cannot open queue directory '%s'", dir);
	else if (dfd >= 0) {
		rc = read_records(dfd, dir, name, *out, err);
		close(dfd);
	}
	free(name);
	if (rc != 0) {
		json_decref(*out);
		*out = NULL;
	}
	return rc;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* "<safe>.jsonl" to "<safe>", or NULL for any other name. */
static char *
session_of(const char *name)
{
	size_t	n = strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOP"
		    "QRSTUVWXYZ0123456789_-");

	if (n == 0 || strcmp(name + n, ".jsonl") != 0)
		return NULL;
	return xstrndup(name, n);
}

int
queue_sessions(const char *dir, char ***ids, size_t *n, struct err *err)
{
	struct dirent	*de;
	struct stat	 st;
	DIR		*d;
	char		*id;
	int		 dfd;

	*ids = NULL;
	*n = 0;
	if ((dfd = dir_open(dir)) < 0)
		return no_dir() ? 0 : err_errno(err, "cannot open queue "
		    "directory '%s'", dir);
	if ((d = fdopendir(dfd)) == NULL) {
		close(dfd);
		return err_errno(err, "cannot read queue directory '%s'", dir);
	}
	while ((de = readdir(d)) != NULL) {
		/* invariant 3: only regular files are queues */
		if ((id = session_of(de->d_name)) == NULL)
			continue;
		if (fstatat(dirfd(d), de->d_name, &st,
		    AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode)) {
			free(id);
			continue;
		}
		*ids = xreallocarray(*ids, *n + 1, sizeof(**ids));
		(*ids)[(*n)++] = id;
	}
	closedir(d);
	if (*n > 1)
		qsort(*ids, *n, sizeof(**ids), cmp_str);
	return 0;
}

void
queue_sessions_free(char **ids, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		free(ids[i]);
	free(ids);
}

/* The lines of recs from index from; invariant 5 drops an over-long one. */
static void
dump_lines(struct sbuf *sb, const json_t *recs, size_t from)
{
	size_t	i, start;

	for (i = from; i < json_array_size(recs); i++) {
		start = sb->len;
		jsonx_dump_sbuf(sb, json_array_get(recs, i), 0);
		sbuf_addc(sb, '\n');
		if (sb->len - start > QUEUE_LINE_MAX) {
			log_debug("queue:append", "record %zu over %d bytes "
			    "not queued", i, QUEUE_LINE_MAX);
			sbuf_setlen(sb, start);
		}
	}
}

static int
drain_locked(int dfd, const char *dir, const char *sid, struct err *err)
{
	char	*count = queue_name(sid, "count");
	char	*queue = queue_name(sid, "jsonl");
	int	 rc;

	rc = remove_file(dfd, dir, count, err);
	if (rc == 0)
		rc = remove_file(dfd, dir, queue, err);
	free(count);
	free(queue);
	return rc;
}

int
queue_append(const char *dir, const char *sid, const struct queue_call *calls,
    size_t n, struct err *err)
{
	json_t		*all = json_array(), *add = json_array();
	struct sbuf	 sb = SBUF_INIT;
	char		*name = queue_name(sid, "jsonl");
	size_t		 i, total;
	int		 fd, rc = -1;

	sbuf_init(&sb);
	if ((fd = fileio_lock_dir(dir, err)) < 0 ||
	    read_records(fd, dir, name, all, err) != 0)
		goto out;
	for (i = 0; i < n; i++) {
		if (calls[i].verdict == QUEUE_DRAIN) {
			/* parity: what was on disk goes, this batch stays */
			if (drain_locked(fd, dir, sid, err) != 0)
				goto out;
			json_array_clear(all);
		} else if (calls[i].verdict == QUEUE_KEEP)
			json_array_append_new(add, queue_record_new(sid,
			    &calls[i]));
	}
	rc = 0;
	if (json_array_size(add) == 0)
		goto out;	/* nothing new (a drain already happened) */
	json_array_extend(all, add);
	total = json_array_size(all);
	dump_lines(&sb, all, total > QUEUE_CAP ? total - QUEUE_CAP : 0);
	rc = write_file(fd, dir, name, sb.buf, sb.len, err);
out:
	unlock_dir(fd);
	if (rc != 0)
		err_wrap(err, "cannot queue tool calls");
	json_decref(all);
	json_decref(add);
	sbuf_release(&sb);
	free(name);
	return rc;
}

int
queue_drain(const char *dir, const char *sid, struct err *err)
{
	int	fd, rc;

	if (dir_missing(dir))
		return 0;
	if ((fd = fileio_lock_dir(dir, err)) < 0)
		return -1;
	rc = drain_locked(fd, dir, sid, err);
	unlock_dir(fd);
	return rc;
}

/* parseInt of the counter file (§4.4) in dfd. */
static int
missed_at(int dfd, const char *dir, const char *sid)
{
	struct sbuf	 sb = SBUF_INIT;
	char		*name = queue_name(sid, "count");
	long		 v = 0;

	sbuf_init(&sb);
	/* parseInt: leading blanks, an optional sign, digits, then anything */
	if (read_small(dfd, dir, name, COUNT_MAX, &sb, NULL) == 0) {
		v = strtol(sb.buf, NULL, 10);
		if (v > 1000000 || v < -1000000)
			v = 0;
	}
	sbuf_release(&sb);
	free(name);
	return (int)v;
}

int
queue_missed(const char *dir, const char *sid)
{
	int	dfd, v;

	if ((dfd = dir_open(dir)) < 0)
		return 0;
	v = missed_at(dfd, dir, sid);
	close(dfd);
	return v;
}

int
queue_missed_bump(const char *dir, const char *sid, struct err *err)
{
	char	*name = queue_name(sid, "count");
	char	 buf[32];
	int	 fd, rc = -1;

	if ((fd = fileio_lock_dir(dir, err)) >= 0) {
		snprintf(buf, sizeof(buf), "%d", missed_at(fd, dir, sid) + 1);
		rc = write_file(fd, dir, name, buf, strlen(buf), err);
	}
	unlock_dir(fd);
	free(name);
	return rc;
}

int
queue_payload(const char *dir, const char *sid, const char *project_store,
    const char *project_dir, struct sbuf *out, struct err *err)
{
	json_t	*recs = NULL, *list, *o, *it;
	char	*root;
	size_t	 i;

	if (queue_peek(dir, sid, &recs, err) != 0)
		return -1;
	if (json_array_size(recs) == 0) {
		json_decref(recs);
		return 0;
	}
	list = json_array();
	root = anchor_root(project_dir);
	json_array_foreach(recs, i, it)
		json_array_append_new(list, queue_record_interaction(it,
		    project_dir, root));
	free(root);
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
	char	*name = queue_name(sid, "nudge");
	char	*body = xasprintf("%c%s", extraction ? '1' : '0', text);
	int	 fd, rc = -1;

	if ((fd = fileio_lock_dir(dir, err)) >= 0)
		rc = write_file(fd, dir, name, body, strlen(body), err);
	unlock_dir(fd);
	free(body);
	free(name);
	return rc;
}

int
queue_pending_take(const char *dir, const char *sid, struct sbuf *out,
    bool *extraction, struct err *err)
{
	struct sbuf	 sb = SBUF_INIT;
	char		*name = queue_name(sid, "nudge");
	char		*mine = xasprintf("%s.%ld", name, (long)getpid());
	int		 dfd, rc = 0;

	sbuf_init(&sb);
	if ((dfd = dir_open(dir)) < 0)
		goto out;
	/* rename claims it: of two concurrent takers exactly one wins */
	if (renameat(dfd, name, dfd, mine) != 0) {
		if (errno != ENOENT)
			rc = err_errno(err, "cannot take '%s/%s'", dir, name);
		goto out;
	}
	rc = read_small(dfd, dir, mine, QUEUE_LINE_MAX, &sb, err);
	unlinkat(dfd, mine, 0);
	if (rc == 0 && sb.len > 0) {
		*extraction = sb.buf[0] == '1';
		sbuf_add(out, sb.buf + 1, sb.len - 1);
		rc = 1;
	} else if (rc == 1)
		rc = 0;		/* too long to be ours: dropped */
out:
	if (dfd >= 0)
		close(dfd);
	sbuf_release(&sb);
	free(name);
	free(mine);
	return rc;
}

/*
 * How long the sweep leaves name alone, or -1 when it is not ours:
 * <safe>.jsonl, .count and .nudge live for max_age; a claimed nudge
 * <safe>.nudge.<pid> and a temporary <safe>.<ext>.tmp.<suffix> (this
 * version's random one, or an older one's pid) for QUEUE_TMP_AGE, since
 * their writer or taker is long dead by then (invariant 2).
 */
static long
lifetime(const char *name, long max_age)
{
	static const char	*const ext[] = { "jsonl", "count", "nudge" };
	const char		*p = name, *rest;
	size_t			 i, len;

	p += strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789_-");
	if (p == name || *p++ != '.')
		return -1;
	for (i = 0; i < sizeof(ext) / sizeof(ext[0]); i++) {
		len = strlen(ext[i]);
		if (strncmp(p, ext[i], len) == 0)
			break;
	}
	if (i == sizeof(ext) / sizeof(ext[0]))
		return -1;
	rest = p + len;
	if (*rest == '\0')
		return max_age;
	if (i == 2 && rest[1] != '\0' && rest[0] == '.' &&
	    strspn(rest + 1, "0123456789") == strlen(rest + 1))
		return QUEUE_TMP_AGE;
	if (strncmp(rest, ".tmp.", 5) == 0 && rest[5] != '\0' &&
	    strspn(rest + 5, "0123456789abcdefABCDEF") == strlen(rest + 5))
		return QUEUE_TMP_AGE;
	return -1;
}

int
queue_prune(const char *dir, long max_age, long now, struct err *err)
{
	struct dirent	*de;
	struct stat	 st;
	DIR		*d;
	long		 age;
	int		 fd, removed = 0;

	if (dir_missing(dir))
		return 0;
	if ((fd = fileio_lock_dir(dir, err)) < 0)
		return -1;
	if ((d = fdopendir(dup(fd))) == NULL) {
		err_errno(err, "cannot read queue directory '%s'", dir);
		unlock_dir(fd);
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		/* a symlink planted as a queue file goes too (invariant 3) */
		if ((age = lifetime(de->d_name, max_age)) < 0 ||
		    fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
		    !(S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)) ||
		    now - st.st_mtime < age)
			continue;
		if (unlinkat(fd, de->d_name, 0) == 0)
			removed++;
	}
	closedir(d);
	unlock_dir(fd);
	return removed;
}
