/*
 * fileio.c — whole-file reads and crash-safe writes.
 *
 * Invariants:
 *  1. A write never leaves a partially written target: the data goes to
 *     a temporary file beside it and is renamed into place only after a
 *     successful write (and fsync); on any failure the temporary file is
 *     removed.
 *  2. A temporary file is ".<name>.tmp.XXXXXX" with a random suffix,
 *     opened O_CREAT|O_EXCL|O_NOFOLLOW: nothing planted at a name another
 *     user can guess is ever opened or followed, and a clash is retried
 *     under a new name. The fixed shape names what a killed process left
 *     (the pack cache's sweep matches its ".bin.tmp.").
 *  3. A temporary file is never more open than the file it becomes: one
 *     that replaces a user's file is 0600 until it has that file's owner
 *     and mode; a new one is created with its final mode, computed by the
 *     kernel (umask, default ACLs), which no fchmod could reproduce.
 *  4. fileio_rewrite replaces what a symbolic link points to, never the
 *     link, and refuses a link it cannot resolve before writing anything.
 *  5. fileio_append issues exactly one write(2) per record (retrying only a
 *     short write), which O_APPEND makes atomic against other appenders for
 *     the record sizes thatch writes.
 */
#include "util/fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/err.h"
#include "util/os/plat.h"
#include "util/path.h"
#include "util/sbuf.h"
#include "util/xmalloc.h"

#define TEMP_MARK	".tmp."
#define TEMP_SUFFIX	6	/* random characters, as mkstemp's XXXXXX */
#define TEMP_BASE_MAX	200	/* of the name kept, so NAME_MAX is never hit */
#define TEMP_TRIES	100

/* What write_atomic does besides writing. */
enum {
	W_SYNC = 1 << 0,	/* fsync before the rename */
	W_USER = 1 << 1		/* fileio_rewrite: follow links, keep mode */
};

int
fileio_read_fd(int fd, struct sbuf *sb, struct err *err)
{
	ssize_t	n;

	for (;;) {
		sbuf_grow(sb, 65536);
		n = read(fd, sb->buf + sb->len, sb->cap - sb->len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return err_errno(err, "read failed");
		if (n == 0)
			break;
		sb->len += (size_t)n;
		sb->buf[sb->len] = '\0';
	}
	return 0;
}

int
fileio_read(const char *path, struct sbuf *sb, struct err *err)
{
	int	fd, rc;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return 1;
		return err_errno(err, "cannot open '%s'", path);
	}
	rc = fileio_read_fd(fd, sb, err);
	close(fd);
	if (rc != 0)
		return err_wrap(err, "cannot read '%s'", path);
	return 0;
}

int
fileio_write_fd(int fd, const void *p, size_t n)
{
	const char	*s = p;
	ssize_t		 w;

	while (n > 0) {
		w = write(fd, s, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

static int
ensure_parent(const char *path, struct err *err)
{
	char	*dir = path_dirname(path);
	int	 rc = path_mkdir_p(dir, 0755, err);

	free(dir);
	return rc;
}

static const char	temp_chars[] = "abcdefghijklmnopqrstuvwxyz"
			    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

/* TEMP_SUFFIX random characters of temp_chars into s (invariant 2). */
static int
random_suffix(char s[TEMP_SUFFIX + 1], struct err *err)
{
	unsigned char	b[TEMP_SUFFIX];
	size_t		i;

	if (plat_random(b, sizeof(b)) != 0)
		return err_errno(err, "cannot get random bytes");
	for (i = 0; i < sizeof(b); i++)
		s[i] = temp_chars[b[i] % (sizeof(temp_chars) - 1)];
	s[sizeof(b)] = '\0';
	return 0;
}

/*
 * Create a fresh temporary file beside path (invariant 2) with mode;
 * *tmp receives its name. Returns the descriptor, or -1 with err set.
 */
static int
temp_open(const char *path, unsigned int mode, char **tmp, struct err *err)
{
	char	*dir = path_dirname(path), *base = path_basename(path);
	char	 rnd[TEMP_SUFFIX + 1];
	int	 fd = -1, i;

	*tmp = NULL;
	for (i = 0; i < TEMP_TRIES && fd < 0; i++) {
		free(*tmp);
		*tmp = NULL;
		if (random_suffix(rnd, err) != 0)
			break;
		*tmp = xasprintf("%s/.%.*s" TEMP_MARK "%s", dir, TEMP_BASE_MAX,
		    base, rnd);
		fd = open(*tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
		    O_CLOEXEC, mode);
		if (fd < 0 && errno != EEXIST) {
			err_errno(err, "cannot create a temporary file for "
			    "'%s'", path);
			break;
		}
	}
	if (fd < 0 && i == TEMP_TRIES)
		err_set(err, "cannot create a temporary file for '%s': every "
		    "name tried exists", path);
	if (fd < 0) {
		free(*tmp);
		*tmp = NULL;
	}
	free(dir);
	free(base);
	return fd;
}

/*
 * Give the temporary file fd what the user's file it replaces has:
 * owner first (a chown clears set-id bits), then mode (invariant 3).
 */
static int
keep_attrs(int fd, const struct stat *old, const char *path, struct err *err)
{
	struct stat	st;

	if (fstat(fd, &st) != 0)
		return err_errno(err, "cannot write '%s'", path);
	if ((st.st_uid != old->st_uid || st.st_gid != old->st_gid) &&
	    fchown(fd, old->st_uid, old->st_gid) != 0)
		return err_errno(err, "cannot keep the owner (uid %ld, gid "
		    "%ld) of '%s'", (long)old->st_uid, (long)old->st_gid, path);
	if (fchmod(fd, old->st_mode & 07777) != 0)
		return err_errno(err, "cannot keep the mode of '%s'", path);
	return 0;
}

/* Make the rename itself durable; the data already is, so a failure
 * here only means a crash may bring the old file back. */
static void
sync_dir(const char *path)
{
	char	*dir = path_dirname(path);
	int	 fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0) {
		(void)fsync(fd);
		close(fd);
	}
	free(dir);
}

static int
write_atomic(const char *path, const struct iovec *iov, int iovcnt,
    unsigned int mode, int flags, struct err *err)
{
	struct stat	 old;
	char		*dst, *tmp = NULL;
	bool		 keep = false;
	int		 fd = -1, rc = -1, i;

	if (flags & W_USER) {
		if ((dst = fileio_resolve(path, err)) == NULL)
			return -1;
		keep = lstat(dst, &old) == 0;
	} else
		dst = xstrdup(path);
	if (ensure_parent(dst, err) != 0)
		goto out;
	if ((fd = temp_open(dst, keep ? 0600 : mode, &tmp, err)) < 0)
		goto out;
	if (keep && keep_attrs(fd, &old, dst, err) != 0)
		goto out;
	for (i = 0; i < iovcnt; i++) {
		if (fileio_write_fd(fd, iov[i].iov_base, iov[i].iov_len) != 0) {
			err_errno(err, "cannot write '%s'", dst);
			goto out;
		}
	}
	if ((flags & W_SYNC) && fsync(fd) != 0) {
		err_errno(err, "cannot write '%s'", dst);
		goto out;
	}
	if (close(fd) != 0) {
		fd = -1;
		err_errno(err, "cannot write '%s'", dst);
		goto out;
	}
	fd = -1;
	if (rename(tmp, dst) != 0) {
		err_errno(err, "cannot replace '%s'", dst);
		goto out;
	}
	if (flags & W_SYNC)
		sync_dir(dst);
	rc = 0;
out:
	if (fd >= 0)
		close(fd);
	if (rc != 0 && tmp != NULL)
		unlink(tmp);
	free(tmp);
	free(dst);
	return rc;
}

int
fileio_write_atomic(const char *path, const void *data, size_t len,
    unsigned int mode, struct err *err)
{
	struct iovec	iov = { (void *)(uintptr_t)data, len };

	return write_atomic(path, &iov, 1, mode, W_SYNC, err);
}

int
fileio_write_atomicv(const char *path, const struct iovec *iov, int iovcnt,
    unsigned int mode, struct err *err)
{
	return write_atomic(path, iov, iovcnt, mode, W_SYNC, err);
}

int
fileio_replace(const char *path, const void *data, size_t len,
    unsigned int mode, struct err *err)
{
	struct iovec	iov = { (void *)(uintptr_t)data, len };

	return write_atomic(path, &iov, 1, mode, 0, err);
}

int
fileio_rewrite(const char *path, const void *data, size_t len,
    unsigned int mode, struct err *err)
{
	struct iovec	iov = { (void *)(uintptr_t)data, len };

	return write_atomic(path, &iov, 1, mode, W_SYNC | W_USER, err);
}

char *
fileio_resolve(const char *path, struct err *err)
{
	struct stat	 st;
	char		 to[PATH_MAX], *real;
	ssize_t		 n;

	if (lstat(path, &st) != 0)
		return xstrdup(path);	/* new, or the write says why not */
	if (!S_ISLNK(st.st_mode)) {
		if (!S_ISREG(st.st_mode)) {
			err_set(err, "%s is not a regular file", path);
			return NULL;
		}
		return xstrdup(path);
	}
	if ((n = readlink(path, to, sizeof(to) - 1)) < 0)
		n = 0;
	to[n] = '\0';
	if ((real = realpath(path, NULL)) == NULL) {
		if (errno == ENOENT)
			err_set(err, "%s is a symlink to %s, which does not "
			    "exist", path, to);
		else
			err_errno(err, "%s is a symlink to %s, which cannot "
			    "be resolved", path, to);
		return NULL;
	}
	if (stat(real, &st) != 0 || !S_ISREG(st.st_mode)) {
		err_set(err, "%s is a symlink to %s, which is not a regular "
		    "file", path, to);
		free(real);
		return NULL;
	}
	return real;
}

int
fileio_append(const char *path, const void *data, size_t len,
    unsigned int mode, struct err *err)
{
	int	fd, rc = 0;

	if (ensure_parent(path, err) != 0)
		return -1;
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, mode);
	if (fd < 0)
		return err_errno(err, "cannot open '%s'", path);
	if (fileio_write_fd(fd, data, len) != 0)
		rc = err_errno(err, "cannot append to '%s'", path);
	if (close(fd) != 0 && rc == 0)
		rc = err_errno(err, "cannot append to '%s'", path);
	return rc;
}

bool
fileio_exists(const char *path)
{
	struct stat	st;

	return lstat(path, &st) == 0;
}

/* Wait for an exclusive flock on fd, open on path: fd, or -1 (closed). */
static int
lock_fd(int fd, const char *path, struct err *err)
{
	while (flock(fd, LOCK_EX) != 0) {
		if (errno != EINTR) {
			err_errno(err, "cannot lock '%s'", path);
			close(fd);
			return -1;
		}
	}
	return fd;
}

int
fileio_lock_dir(const char *dir, struct err *err)
{
	int	fd;

	if (path_mkdir_p(dir, 0700, err) != 0)
		return -1;
	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return err_errno(err, "cannot open directory '%s'", dir);
	return lock_fd(fd, dir, err);
}

int
fileio_lock_file(const char *path, struct err *err)
{
	int	fd;

	if ((fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC,
	    0600)) < 0)
		return err_errno(err, "cannot open '%s'", path);
	return lock_fd(fd, path, err);
}
