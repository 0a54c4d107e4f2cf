/*
 * packcache.c — the encoder's packed weights (gemm.h), kept in a file so
 * that only the first process packs them.
 *
 * Packing bge-small's layers copies 85 MB into fresh memory, and on a
 * virtual machine fresh memory is dear: the kernel zeroes every page the
 * host hands over, ~200 ms for 85 MB here, against 10-17 ms to map the
 * same bytes of a file already in the page cache (util/os/hugemap.c). So the
 * first process writes what it packed to $XDG_CACHE_HOME/thatch/packed/,
 * and every later one maps that file like the model itself.
 *  1. The file is a 4 KB header (PACK_MAGIC, then the float count as a
 *     native size_t at PACK_COUNT_AT) and the floats; one that is shorter,
 *     longer or otherwise labelled is not used. The name (model.c) hashes
 *     the model file's identity and the packing layout, so a changed model
 *     or a new layout gets a new file instead of a stale one.
 *  2. A file appears only whole: written to a temporary name, fsync'd,
 *     renamed. A crash leaves at worst a temporary file, never a short or
 *     zero-filled cache that would embed wrongly; bert.c still compares a
 *     sample of every matrix with the model before trusting one.
 *  3. The data starts 4 KB into the file and the mapping on a 2 MB
 *     boundary, so the floats are 64-byte aligned as the kernels need.
 *  4. A file in use has a modification time under PACK_TOUCH old (map
 *     refreshes it once a day); a save removes the folder's other files
 *     unused for PACK_MAX_AGE and temporaries a crashed save left, so
 *     models replaced or given up do not keep 85 MB each for ever.
 *  5. A mapping is guarded from before its header is read until it is
 *     unmapped (util/os/mapguard.c), since gemm.c's threads read it: a
 *     file cut under a running process reads as zeros and
 *     packcache_intact turns false, where the read would raise SIGBUS.
 */
#include "embed/packcache.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/err.h"
#include "util/fileio.h"
#include "util/os/hugemap.h"
#include "util/os/mapguard.h"
#include "util/os/plat.h"
#include "util/path.h"
#include "util/xmalloc.h"

#define PACK_HEADER	4096
#define PACK_MAGIC	"thatch packed weights 1\n"
#define PACK_COUNT_AT	64
#define PACK_TOUCH	(24 * 60 * 60)
#define PACK_MAX_AGE	(30 * 24 * 60 * 60)
#define PACK_TMP_AGE	(24 * 60 * 60)

int
packcache_map(const char *path, size_t floats, struct packcache *pc)
{
	struct stat	 sb;
	size_t		 len = PACK_HEADER + floats * sizeof(float), count;
	char		*map;
	int		 fd, guard;

	memset(pc, 0, sizeof(*pc));
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	if (fstat(fd, &sb) != 0 || (size_t)sb.st_size != len ||
	    (map = hugemap_file(fd, len)) == MAP_FAILED) {
		close(fd);
		return -1;
	}
	guard = mapguard_add(fd, map, len);
	memcpy(&count, map + PACK_COUNT_AT, sizeof(count));
	if (memcmp(map, PACK_MAGIC, sizeof(PACK_MAGIC) - 1) != 0 ||
	    count != floats || !mapguard_intact(guard)) {
		mapguard_remove(guard);
		munmap(map, len);
		close(fd);
		return -1;
	}
	if (time(NULL) - sb.st_mtime > PACK_TOUCH)
		futimens(fd, NULL);	/* invariant 4; failure is harmless */
	close(fd);
	pc->map = map;
	pc->map_len = len;
	pc->guard = guard;
	pc->data = (float *)(void *)(map + PACK_HEADER);
	pc->floats = floats;
	return 0;
}

bool
packcache_intact(const struct packcache *pc)
{
	return mapguard_intact(pc->guard);
}

void
packcache_alloc(size_t floats, struct packcache *pc)
{
	memset(pc, 0, sizeof(*pc));
	pc->data = xaligned_alloc(HUGEMAP_PAGE, floats * sizeof(float));
	plat_hugepage(pc->data, floats * sizeof(float));
	pc->floats = floats;
}

/* Invariant 4: remove what no process has used for long, except keep. */
static void
prune(const char *dir, const char *keep)
{
	struct dirent	*de;
	struct stat	 sb;
	const char	*base = strrchr(keep, '/') ? strrchr(keep, '/') + 1 : keep;
	const char	*ext;
	time_t		 now = time(NULL);
	DIR		*d = opendir(dir);

	while (d != NULL && (de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, base) == 0 ||
		    (ext = strstr(de->d_name, ".bin")) == NULL ||
		    fstatat(dirfd(d), de->d_name, &sb,
		    AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(sb.st_mode))
			continue;
		if ((strcmp(ext, ".bin") == 0 &&
		    now - sb.st_mtime > PACK_MAX_AGE) ||
		    (strncmp(ext, ".bin.tmp.", 9) == 0 &&
		    now - sb.st_mtime > PACK_TMP_AGE))
			unlinkat(dirfd(d), de->d_name, 0);
	}
	if (d != NULL)
		closedir(d);
}

int
packcache_save(const char *path, const struct packcache *pc,
    struct err *err)
{
	char		 header[PACK_HEADER] = PACK_MAGIC, *dir;
	struct iovec	 iov[2] = {
		{ header, sizeof(header) },
		{ pc->data, pc->floats * sizeof(float) },
	};

	memcpy(header + PACK_COUNT_AT, &pc->floats, sizeof(pc->floats));
	if (fileio_write_atomicv(path, iov, 2, 0600, err) != 0)
		return -1;
	dir = path_dirname(path);
	prune(dir, path);
	free(dir);
	return 0;
}

void
packcache_release(struct packcache *pc)
{
	mapguard_remove(pc->guard);
	if (pc->map != NULL)
		munmap(pc->map, pc->map_len);
	else
		free(pc->data);
	memset(pc, 0, sizeof(*pc));
}
