/* fileio.h — whole-file reads and crash-safe writes (fileio.c). */
#ifndef THATCH_UTIL_FILEIO_H
#define THATCH_UTIL_FILEIO_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/uio.h>

struct err;
struct sbuf;

/*
 * Append the whole file to sb. Returns 0; 1 when the file does not exist
 * (not an error: many callers treat "absent" as a state); -1 with err set.
 */
int	fileio_read(const char *path, struct sbuf *, struct err *);

/* Append everything readable from fd until EOF (stdin for hooks). */
int	fileio_read_fd(int fd, struct sbuf *, struct err *);

/* Write all n bytes to fd, through short writes and EINTR: 0, or -1 with
 * errno set (the caller names what it was writing). */
int	fileio_write_fd(int fd, const void *, size_t);

/*
 * Replace path's contents atomically: write a temporary file
 * ".<name>.tmp.XXXXXX" (random suffix, created O_EXCL|O_NOFOLLOW; the
 * shape that lets a sweep recognise what a killed writer left) in the
 * same directory, fsync it, rename it over path. Readers see the old or
 * the new file, never a mix, and a full disk leaves the old file intact.
 * The file is thatch's own: it ends up with mode (less the umask) and a
 * symbolic link at path is replaced, never followed. Parent directories
 * are created (0755).
 */
int	fileio_write_atomic(const char *path, const void *, size_t,
	    unsigned int mode, struct err *);
/* The same for contents in pieces (a header and a large body). */
int	fileio_write_atomicv(const char *path, const struct iovec *,
	    int iovcnt, unsigned int mode, struct err *);

/*
 * fileio_write_atomic without the fsync: readers still see the old or the
 * new file, never a mix, but a crash may lose the new contents. For caches
 * on the hooks' hot path (the extraction queue), where an fsync costs more
 * than the whole hook.
 */
int	fileio_replace(const char *path, const void *, size_t, unsigned int mode,
	    struct err *);

/*
 * fileio_write_atomic for a file that belongs to the user (a host's
 * config, CLAUDE.md): the file a symbolic link at path points to is
 * replaced and the link stays; an existing file keeps its mode and owner
 * (a 0600 file stays 0600); only a new file gets mode (less the umask).
 * Refused, with nothing written, when fileio_resolve refuses path or the
 * owner cannot be kept.
 */
int	fileio_rewrite(const char *path, const void *, size_t,
	    unsigned int mode, struct err *);

/*
 * The file a write through path lands on: path itself, or the final
 * target of a symbolic link (realpath). Refused with one line naming the
 * link and where it points when the link dangles or cannot be resolved,
 * and when what is there is not a regular file. New string, or NULL with
 * err set.
 */
char	*fileio_resolve(const char *path, struct err *);

/*
 * Append one record with a single write(2) on an O_APPEND descriptor, so
 * concurrent appenders never interleave within a record. Creates the file
 * (mode) and its directory.
 */
int	fileio_append(const char *path, const void *, size_t,
	    unsigned int mode, struct err *);

/* True if path exists (any type). */
bool	fileio_exists(const char *path);

/*
 * Create dir (0700, with its parents) and hold an exclusive flock on it:
 * the directory's fd, closed to release, or -1 with err set. One writer at
 * a time for a folder of small files (the extraction queue, opencode's
 * buffer) that are rewritten whole.
 */
int	fileio_lock_dir(const char *dir, struct err *);

/* The same for one file, created 0600 if missing (never through a
 * link): one process at a time for a job that is not a folder's. */
int	fileio_lock_file(const char *path, struct err *);

#endif
