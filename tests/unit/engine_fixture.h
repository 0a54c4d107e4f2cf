/*
 * engine_fixture.h — what the engine tests share: a real SQLite file in a
 * temporary directory (engines-and-extras §A12: WAL differs in memory),
 * the original's deterministic mock embedder (§A12), and vectors with a
 * chosen cosine to a fixed query.
 */
#ifndef THATCH_TESTS_ENGINE_FIXTURE_H
#define THATCH_TESTS_ENGINE_FIXTURE_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/engine/engine.h"
#include "core/store/store.h"
#include "util/err.h"
#include "util/sbuf.h"

#define MOCK_DIM	384
#define NOW		"2026-03-01T10:20:30.456Z"

static char fixture_dir[64];

static inline struct store *
fixture_open(void)
{
	struct store	*st = NULL;
	struct err	 err;
	char		 path[128];

	snprintf(fixture_dir, sizeof(fixture_dir), "/tmp/thatch-engine.XXXXXX");
	if (mkdtemp(fixture_dir) == NULL)
		abort();
	snprintf(path, sizeof(path), "%s/thatch.db", fixture_dir);
	if (store_open(path, &st, &err) != 0) {
		fprintf(stderr, "store_open: %s\n", err.msg);
		abort();
	}
	return st;
}

static inline void
fixture_close(struct store *st)
{
	char	cmd[128];

	store_close(st);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fixture_dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", fixture_dir);
}

/* §A12: rolling hash over UTF-16 units (ASCII here), then xorshift32. */
static inline void
mock_embed(const char *text, float *out)
{
	uint32_t	h = 0, s;
	int		i;

	for (; *text != '\0'; text++)
		h = h * 31u + (unsigned char)*text;
	s = h ^ 0x9E3779B9u;
	for (i = 0; i < MOCK_DIM; i++) {
		s ^= s << 13;
		s ^= s >> 17;
		s ^= s << 5;
		out[i] = (float)((double)(int32_t)s / 2147483648.0);
	}
}

/* A 4-d unit vector with cosine c to (1, 0, 0, 0), turned by axis. */
static inline void
vec_at(double c, int axis, float out[4])
{
	memset(out, 0, 4 * sizeof(float));
	out[0] = (float)c;
	out[1 + axis % 3] = (float)sqrt(1 - c * c);
}

static const float QUERY4[4] = { 1, 0, 0, 0 };

/* Run one COUNT(*) statement. */
static inline long
fixture_count(struct store *st, const char *sql)
{
	sqlite3_stmt	*stmt = NULL;
	struct err	 err;
	long		 n = -1;

	if (store_prepare(st, &stmt, sql, &err) == 0 &&
	    sqlite3_step(stmt) == SQLITE_ROW)
		n = sqlite3_column_int64(stmt, 0);
	sqlite3_finalize(stmt);
	return n;
}

#endif
