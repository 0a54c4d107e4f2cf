/*
 * tmpdb.h — fresh databases for the tool, dedup and hygiene tests: each
 * tmpdb_open(name) is a new SQLite file under one private temporary
 * directory, which tmpdb_cleanup (the last test) removes.
 */
#ifndef THATCH_TESTS_TMPDB_H
#define THATCH_TESTS_TMPDB_H

#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "core/store/store.h"
#include "util/err.h"
#include "util/xmalloc.h"

static char	tmpdb_tmpl[] = "/tmp/thatch-test.XXXXXX";
static char	*tmpdb_dir;

static inline struct store *
tmpdb_open(const char *name)
{
	struct store	*st = NULL;
	struct err	 err = { "" };
	char		*path;

	if (tmpdb_dir == NULL)
		tmpdb_dir = mkdtemp(tmpdb_tmpl);
	path = xasprintf("%s/%s/thatch.db", tmpdb_dir, name);
	if (store_open(path, &st, &err) != 0)
		CHECK_FAIL("store_open: %s", err.msg);
	free(path);
	return st;
}

static inline void
tmpdb_cleanup(void)
{
	char	cmd[256];

	if (tmpdb_dir == NULL)
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdb_dir);
	if (system(cmd) != 0)
		CHECK_FAIL("cannot remove %s", tmpdb_dir);
}

#endif
