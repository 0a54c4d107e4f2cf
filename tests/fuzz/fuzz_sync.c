/*
 * fuzz_sync.c — the names and tombstones of a sync tree (src/core/
 * sync_merge.c), which come from whoever can push to the project's
 * remote. An input is used twice: as a tree path and as a tombstone.
 *
 * Properties: a path that is ours names a slug that sync_slug_ok accepts
 * and that rebuilds the same path; a tombstone that parses renders back
 * to the same bytes.
 */
#include <stdbool.h>

#include "fuzz.h"

#include "core/sync/sync_merge.h"
#include "util/sbuf.h"
#include "util/xmalloc.h"

static void
check_path(const char *path)
{
	struct sbuf	 again = SBUF_INIT;
	const char	*slug;
	size_t		 len;
	char		*s;
	enum sync_kind	 kind = sync_path_parse(path, &slug, &len);

	if (kind == SYNC_NONE)
		return;
	s = xstrndup(slug, len);
	FUZZ_ASSERT(sync_slug_ok(s));
	FUZZ_ASSERT(strpbrk(s, "/\n\"\\ ") == NULL);
	sbuf_addf(&again, kind == SYNC_LIVE ? SYNC_MEM_DIR "%s" SYNC_MEM_EXT :
	    SYNC_TOMB_DIR "%s", s);
	FUZZ_ASSERT(strcmp(again.buf, path) == 0);
	free(s);
	sbuf_release(&again);
}

static void
check_tomb(const char *buf, size_t n)
{
	struct sbuf	 again = SBUF_INIT;
	char		*t = sync_tomb_parse(buf, n);

	if (t == NULL)
		return;
	sync_tomb_render(t, &again);
	FUZZ_ASSERT(again.len == n && memcmp(again.buf, buf, n) == 0);
	free(t);
	sbuf_release(&again);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char	*s = xstrndup((const char *)data, size);

	check_path(s);
	check_tomb((const char *)data, size);
	free(s);
	return 0;
}
