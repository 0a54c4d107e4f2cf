/*
 * fileio.c — whole-file reads and crash-safe writes.
 *
 * Invariants:
 *  1. fileio_write_atomic never leaves a partially written target: the
 *     data goes to "<path>.tmp.<pid>" first and is renamed into place only
 *     after a successful write and fsync; on any failure the temporary file
 *     is removed.
 *  2. fileio_append issues exactly one write(2) per record (retrying only a
 *     short write), which O_APPEND makes atomic against other appenders for
 *     the record sizes thatch writes.
 */
#include "util/fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/err.h"
#include "util/path.h"
#include "util/sbuf.h"
#include "util/xmalloc.h"

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

static int
write_all(int fd, const void *p, size_t n)
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

static int
write_atomic(const char *path, const struct iovec *iov, int iovcnt,
    unsigned int mode, int sync, struct err *err)
{
	char	*tmp = NULL;
	int	 fd = -1, rc = -1, i;

	if (ensure_parent(path, err) != 0)
		goto out;
	tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	if (fd < 0) {
		err_errno(err, "cannot create '%s'", tmp);
		goto out;
	}
	for (i = 0; i < iovcnt; i++) {
		if (write_all(fd, iov[i].iov_base, iov[i].iov_len) != 0) {
			err_errno(err, "cannot write '%s'", path);
			goto out;
		}
	}
	if (sync && fsync(fd) != 0) {
		err_errno(err, "cannot write '%s'", path);
		goto out;
	}
	if (close(fd) != 0) {
		fd = -1;
		err_errno(err, "cannot write '%s'", path);
		goto out;
	}
	fd = -1;
	if (rename(tmp, path) != 0) {
		err_errno(err, "cannot replace '%s'", path);
		goto out;
	}
	rc = 0;
out:
	if (fd >= 0)
		close(fd);
	if (rc != 0 && tmp != NULL)
		unlink(tmp);
	free(tmp);
	return rc;
}

int
fileio_write_atomic(const char *path, const void *data, size_t len,
    unsigned int mode, struct err *err)
{
	struct iovec	iov = { (void *)(uintptr_t)data, len };

	return write_atomic(path, &iov, 1, mode, 1, err);
}

int
fileio_write_atomicv(const char *path, const struct iovec *iov, int iovcnt,
    unsigned int mode, struct err *err)
{
	return write_atomic(path, iov, iovcnt, mode, 1, err);
}

int
fileio_replace(const char *path, const void *data, size_t len,
    unsigned int mode, struct err *err)
{
	struct iovec	iov = { (void *)(uintptr_t)data, len };

	return write_atomic(path, &iov, 1, mode, 0, err);
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
	if (write_all(fd, data, len) != 0)
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
