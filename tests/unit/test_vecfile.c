/*
 * test_vecfile.c — the vector file beside the database (store_sidecar.c,
 * vecfile.c): a cold search maps it only while it is exactly what the
 * table holds. Every search here runs in a fresh connection (a cold
 * process, as far as the cache can tell) and is compared with a brute-
 * force scan of the table done in the test; writes from "the original"
 * go through a plain sqlite3 connection with the original's SQL.
 */
#include "check.h"

#include <fcntl.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#include "core/store/store.h"
#include "util/err.h"
#include "util/xmalloc.h"

#define DIM	8
#define NROWS	300
#define LIMIT	10

static char	dir_tmpl[] = "/tmp/thatch-test-vecfile.XXXXXX";
static char	*dir;

static char *
db_path(const char *name)
{
	return xasprintf("%s/%s/thatch.db", dir, name);
}

static char *
file_of(const char *db)
{
	return xasprintf("%s-vectors", db);
}

static struct store *
open_db(const char *db)
{
	struct store	*st = NULL;
	struct err	 err = { "" };

	if (store_open(db, &st, &err) != 0)
		CHECK_FAIL("store_open: %s", err.msg);
	return st;
}

static void
random_vec(float *v, int dim)
{
	int	i;

	for (i = 0; i < dim; i++)
		v[i] = (float)rand() / RAND_MAX - 0.5f;
}

/* NROWS memories in stores p and g (1 in 4), some archived, some on a
 * branch, all of dimension DIM. */
static void
seed(const char *db)
{
	struct store		*st = open_db(db);
	struct err		 err = { "" };
	enum store_write_result	 res;
	char			 slug[32];
	float			 v[DIM];
	struct store_write	 w = { .content = "# m\n\nbody", .vec = v,
				    .dim = DIM, .model = "tag-a",
				    .now = "2025-03-07T14:05:09.042Z" };
	int			 i;

	srand(7);
	store_exec(st, "BEGIN", &err);
	for (i = 0; i < NROWS; i++) {
		random_vec(v, DIM);
		snprintf(slug, sizeof(slug), "m%d", i);
		w.store = i % 4 == 0 ? "g" : "p";
		w.slug = w.label = slug;
		w.archived = i % 17 == 0;
		w.branch = i % 5 == 0 ? "feature" : NULL;
		if (store_remember(st, &w, &res, &err) != 0)
			CHECK_FAIL("store_remember: %s", err.msg);
	}
	store_exec(st, "COMMIT", &err);
	store_close(st);
}

/* Raw SQL through a connection of its own, as the original writes. */
static void
raw(const char *db, const char *sql)
{
	sqlite3	*h;
	char	*msg = NULL;

	CHECK_INT(sqlite3_open(db, &h), SQLITE_OK);
	sqlite3_busy_timeout(h, 5000);
	if (sqlite3_exec(h, sql, NULL, NULL, &msg) != SQLITE_OK)
		CHECK_FAIL("%s: %s", sql, msg);
	sqlite3_free(msg);
	sqlite3_close(h);
}

struct hit {
	char	slug[32];
	double	score;
};

/* The §5.2 answer, brute force: non-archived rows of p and g of dim,
 * by exact cosine, ties in rowid order; the branch filter as search's. */
static size_t
brute(const char *db, const float *q, int dim, const char *branch,
    struct hit *out)
{
	sqlite3		*h;
	sqlite3_stmt	*stmt;
	struct hit	*all = xcalloc(NROWS * 2, sizeof(*all)), t;
	size_t		 n = 0, i, j;
	double		 dot, nq, nr;
	const float	*r;
	int		 k;

	CHECK_INT(sqlite3_open(db, &h), SQLITE_OK);
	sqlite3_prepare_v2(h, "SELECT slug, embedding FROM entries WHERE "
	    "store IN ('p', 'g') AND archived = 0 AND length(embedding) = ?1 "
	    "AND (?2 IS NULL OR branch IS NULL OR branch = ?2) ORDER BY rowid",
	    -1, &stmt, NULL);
	sqlite3_bind_int(stmt, 1, dim * 4);
	sqlite3_bind_text(stmt, 2, branch, -1, SQLITE_STATIC);
	while (sqlite3_step(stmt) == SQLITE_ROW && n < NROWS * 2) {
		r = sqlite3_column_blob(stmt, 1);
		for (dot = nq = nr = 0, k = 0; k < dim; k++) {
			dot += (double)q[k] * r[k];
			nq += (double)q[k] * q[k];
			nr += (double)r[k] * r[k];
		}
		snprintf(all[n].slug, sizeof(all[n].slug), "%s",
		    (const char *)sqlite3_column_text(stmt, 0));
		all[n++].score = nq == 0 || nr == 0 ? 0 :
		    dot / (sqrt(nq) * sqrt(nr));
	}
	sqlite3_finalize(stmt);
	sqlite3_close(h);
	for (i = 1; i < n; i++)		/* stable: ties keep rowid order */
		for (j = i; j > 0 && all[j].score > all[j - 1].score; j--) {
			t = all[j];
			all[j] = all[j - 1];
			all[j - 1] = t;
		}
	n = n < LIMIT ? n : LIMIT;
	memcpy(out, all, n * sizeof(*out));
	free(all);
	return n;
}

/* Whether check_cold maps the file first, as a process does while its
 * model loads (store_search_preload). */
static bool	preload;

/* A cold vector search of p and g (a new connection) equals brute(). */
static void
check_cold(const char *db, const float *q, int dim, const char *branch)
{
	struct store		*st = open_db(db);
	const char		*stores[] = { "p", "g" };
	struct store_query	 sq = { .stores = stores, .nstores = 2,
				    .vec = q, .dim = dim, .branch = branch,
				    .limit = LIMIT, .min_score = -2 };
	struct store_hits	 h;
	struct hit		 want[LIMIT];
	struct err		 err = { "" };
	size_t			 n = brute(db, q, dim, branch, want), i;

	if (preload)
		CHECK_INT(store_search_preload(st, &err), 0);
	CHECK_INT(store_search(st, &sq, &h, &err), 0);
	CHECK_INT(h.n, n);
	for (i = 0; i < n && i < h.n; i++) {
		CHECK_STR(h.v[i].e.slug, want[i].slug);
		CHECK(h.v[i].score == want[i].score);
	}
	store_hits_release(&h);
	store_close(st);
}

/* Cold searches for a few queries, plus one on the branch. */
static void
check_queries(const char *db)
{
	float	q[DIM];
	int	i;

	for (i = 0; i < 4; i++) {
		random_vec(q, DIM);
		check_cold(db, q, DIM, NULL);
	}
	check_cold(db, q, DIM, "main");
}

static void	search_once(struct store *, const float *);

static ino_t
inode_of(const char *path)
{
	struct stat	sb;

	return lstat(path, &sb) == 0 ? sb.st_ino : 0;
}

static void
a_cold_search_saves_a_private_file_the_next_one_maps(void)
{
	char		*db = db_path("saves"), *vf = file_of(db);
	struct stat	 sb;
	ino_t		 ino;

	seed(db);
	CHECK(lstat(vf, &sb) != 0);		/* opening alone writes none */
	check_queries(db);
	CHECK_INT(lstat(vf, &sb), 0);
	CHECK_INT(sb.st_mode & 0777, 0600);
	ino = inode_of(vf);
	check_queries(db);
	CHECK_INT(inode_of(vf), ino);		/* used, not rebuilt */
	free(vf);
	free(db);
}

/*
 * The file is what a cold search reads: a change made with the triggers
 * switched off (which neither program does; docs/store.md, limits) is
 * invisible to the candidate pass, so the top hit stays the old one.
 */
static void
the_file_stands_in_for_the_table(void)
{
	char		*db = db_path("stands"), *vf = file_of(db);
	struct store	*st;
	sqlite3		*h;
	float		 q[DIM] = { 1, 1, 1, 1, 1, 1, 1, 1 };
	const char	*stores[] = { "p", "g" };
	struct store_query sq = { .stores = stores, .nstores = 2, .vec = q,
			    .dim = DIM, .limit = 1, .min_score = -2 };
	struct store_hits hits;
	struct err	 err = { "" };

	seed(db);
	check_queries(db);			/* saves the file */
	CHECK_INT(sqlite3_open(db, &h), SQLITE_OK);
	sqlite3_db_config(h, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, NULL);
	sqlite3_exec(h, "UPDATE entries SET embedding = X'0000803F0000803F"
	    "0000803F0000803F0000803F0000803F0000803F0000803F' "
	    "WHERE slug = 'm1'", NULL, NULL, NULL);
	sqlite3_close(h);
	st = open_db(db);
	CHECK_INT(store_search(st, &sq, &hits, &err), 0);
	CHECK_INT(hits.n, 1);
	if (hits.n == 1)
		CHECK(strcmp(hits.v[0].e.slug, "m1") != 0);
	store_hits_release(&hits);
	store_close(st);
	unlink(vf);				/* without the file: seen */
	st = open_db(db);
	CHECK_INT(store_search(st, &sq, &hits, &err), 0);
	CHECK_INT(hits.n, 1);
	if (hits.n == 1)
		CHECK_STR(hits.v[0].e.slug, "m1");
	store_hits_release(&hits);
	store_close(st);
	free(vf);
	free(db);
}

/*
 * Two cold processes released at once, each finding no file: whatever
 * the interleaving, one whole current file is left (each writes its own
 * temporary file and renames it), and the next cold search maps it.
 */
static void
two_builders_leave_one_whole_file(void)
{
	char		*db = db_path("builders"), *vf = file_of(db);
	int		 go[2], status, k;
	pid_t		 pid[2];
	float		 q[DIM];
	char		 c;
	ino_t		 ino;

	seed(db);
	random_vec(q, DIM);
	CHECK_INT(pipe(go), 0);
	for (k = 0; k < 2; k++) {
		if ((pid[k] = fork()) == 0) {
			struct store	*st = open_db(db);

			close(go[1]);
			if (read(go[0], &c, 1) != 0)
				CHECK_FAIL("released by a byte, not EOF");
			search_once(st, q);
			store_close(st);
			free(vf);	/* the parent's, copied: valgrind */
			free(db);
			_exit(check_test_failed);
		}
	}
	close(go[0]);
	close(go[1]);			/* both read EOF: go */
	for (k = 0; k < 2; k++) {
		CHECK_INT(waitpid(pid[k], &status, 0), pid[k]);
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	ino = inode_of(vf);
	CHECK(ino != 0);
	check_queries(db);
	CHECK_INT(inode_of(vf), ino);
	free(vf);
	free(db);
}

/*
 * A store big enough that the copied-out matrix is allocated on 2 MiB
 * boundaries (store_cache.c, big_regrow): a stale file refreshed from
 * the table, and a mapped matrix patched by our own write, both copy
 * the rows out of the mapping first.
 */
static void
big_matrices_are_copied_out_of_the_mapping(void)
{
	enum { BIG = 3000, BDIM = 384 };
	char			*db = db_path("big");
	struct store		*st;
	struct err		 err = { "" };
	enum store_write_result	 res;
	float			*v = xmalloc(BDIM * sizeof(*v)), q[BDIM];
	char			 slug[32];
	struct store_write	 w = { .store = "p", .content = "c", .vec = v,
				    .dim = BDIM, .model = "tag-a",
				    .archived = -1, .now = "2025" };
	const char		*stores[] = { "p" };
	struct store_query	 sq = { .stores = stores, .nstores = 1,
				    .vec = q, .dim = BDIM, .limit = 1,
				    .min_score = -2 };
	struct store_hits	 h;
	int			 i;

	st = open_db(db);
	store_exec(st, "BEGIN", &err);
	for (i = 0; i < BIG; i++) {
		random_vec(v, BDIM);
		snprintf(slug, sizeof(slug), "b%d", i);
		w.slug = w.label = slug;
		if (store_remember(st, &w, &res, &err) != 0)
			CHECK_FAIL("store_remember: %s", err.msg);
	}
	store_exec(st, "COMMIT", &err);
	store_close(st);
	random_vec(q, BDIM);
	st = open_db(db);
	search_once(st, q);			/* writes the file */
	store_close(st);
	raw(db, "UPDATE entries SET archived = 1 WHERE slug = 'b7'");
	memcpy(v, q, sizeof(q));		/* b9 becomes the query */
	st = open_db(db);
	CHECK_INT(store_search(st, &sq, &h, &err), 0);	/* stale: refresh */
	store_hits_release(&h);
	w.slug = w.label = "b9";
	w.overwrite = true;
	CHECK_INT(store_remember(st, &w, &res, &err), 0);	/* a patch */
	CHECK_INT(store_search(st, &sq, &h, &err), 0);
	CHECK_INT(h.n, 1);
	if (h.n == 1)
		CHECK_STR(h.v[0].e.slug, "b9");
	store_hits_release(&h);
	store_close(st);
	st = open_db(db);			/* mapped, then patched */
	CHECK_INT(store_search(st, &sq, &h, &err), 0);
	store_hits_release(&h);
	w.slug = w.label = "b11";
	CHECK_INT(store_remember(st, &w, &res, &err), 0);
	CHECK_INT(store_search(st, &sq, &h, &err), 0);
	CHECK_INT(h.n, 1);
	if (h.n == 1)	/* b9 and b11 tie: table order */
		CHECK_STR(h.v[0].e.slug, "b9");
	store_hits_release(&h);
	store_close(st);
	free(v);
	free(db);
}

/* Each write the original can make, then cold searches: exact. */
static void
foreign_writes_make_the_file_stale(void)
{
	static const char *const writes[] = {
		"INSERT INTO entries (slug, store, label, content, embedding, "
		"model, created_at, updated_at) VALUES ('new', 'p', 'new', 'x', "
		"X'0000803F0000803F0000803F0000803F0000803F0000803F0000803F"
		"0000803F', 'tag-a', '2025', '2025')",
		"UPDATE entries SET embedding = X'000080BF0000803F000080BF"
		"0000803F000080BF0000803F000080BF0000803F' WHERE slug = 'm3'",
		"DELETE FROM entries WHERE slug IN ('m2', 'm5', 'm6')",
		"UPDATE entries SET archived = 1 WHERE slug IN ('m7', 'm9')",
		"UPDATE entries SET archived = 0 WHERE slug = 'm17'",
		"UPDATE entries SET branch = 'main' WHERE slug = 'm10'",
		"UPDATE entries SET store = 'g' WHERE slug = 'm11'",
		"INSERT OR REPLACE INTO entries (slug, store, label, content, "
		"embedding, model, created_at, updated_at) VALUES ('m13', 'p', "
		"'m13', 'y', X'0000803F000080BF0000803F000080BF0000803F000080BF"
		"0000803F000080BF', 'tag-a', '2025', '2025')",
	};
	char	*db = db_path("foreign");
	size_t	 i;

	seed(db);
	check_queries(db);
	for (i = 0; i < sizeof(writes) / sizeof(writes[0]); i++) {
		raw(db, writes[i]);
		check_queries(db);
	}
	free(db);
}

/*
 * A cold process maps the file while its model loads, before it knows the
 * query's dimension: the search that follows reads what it would have
 * read, uses a current file as it is, and still refreshes a stale one
 * from the table and saves it for the next process.
 */
static void
a_preloaded_file_serves_the_search(void)
{
	char	*db = db_path("preload"), *vf = file_of(db);
	ino_t	 ino;

	seed(db);
	preload = true;
	check_queries(db);		/* no file: the first search makes it */
	ino = inode_of(vf);
	CHECK(ino != 0);
	check_queries(db);
	CHECK_INT(inode_of(vf), ino);	/* used, not rebuilt */
	raw(db, "UPDATE entries SET archived = 1 WHERE slug IN ('m7', 'm9')");
	raw(db, "DELETE FROM entries WHERE slug = 'm2'");
	check_queries(db);		/* stale: refreshed, exact, saved */
	CHECK(inode_of(vf) != ino);
	ino = inode_of(vf);
	check_queries(db);
	CHECK_INT(inode_of(vf), ino);
	preload = false;
	free(vf);
	free(db);
}

/* A recall stamp (and any write that moves no cached column) keeps it. */
static void
a_recall_stamp_keeps_the_file(void)
{
	char	*db = db_path("stamp"), *vf = file_of(db);
	ino_t	 ino;

	seed(db);
	check_queries(db);
	ino = inode_of(vf);
	raw(db, "UPDATE entries SET recall_count = recall_count + 1, "
	    "last_recalled_at = '2025' WHERE slug IN ('m1', 'm2')");
	raw(db, "UPDATE entries SET label = 'renamed', content = 'c' "
	    "WHERE slug = 'm4'");
	check_queries(db);
	CHECK_INT(inode_of(vf), ino);
	free(vf);
	free(db);
}

static void
write_bytes(const char *path, const void *p, size_t n, mode_t mode)
{
	int	fd;

	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
	CHECK(fd >= 0 && write(fd, p, n) == (ssize_t)n);
	fchmod(fd, mode);
	close(fd);
}

static bool
same_bytes(const char *path, const char *img, size_t size)
{
	char	*buf = xmalloc(size + 1);
	int	 fd = open(path, O_RDONLY);
	bool	 same = fd >= 0 && read(fd, buf, size + 1) == (ssize_t)size &&
		    memcmp(buf, img, size) == 0;

	if (fd >= 0)
		close(fd);
	free(buf);
	return same;
}

/* Cut, flipped, foreign-mode, symlinked and empty files: ignored, and
 * the next cold search leaves a good one. */
static void
a_damaged_file_is_ignored_and_rebuilt(void)
{
	char		*db = db_path("damaged"), *vf = file_of(db);
	char		*other = xasprintf("%s.other", vf), *img;
	struct stat	 sb;
	size_t		 size;
	int		 round, fd;

	seed(db);
	check_queries(db);
	CHECK_INT(stat(vf, &sb), 0);
	size = (size_t)sb.st_size;
	img = xmalloc(size);
	fd = open(vf, O_RDONLY);
	CHECK(fd >= 0 && read(fd, img, size) == (ssize_t)size);
	close(fd);
	for (round = 0; round < 6; round++) {
		switch (round) {
		case 0:	write_bytes(vf, img, size / 2, 0600); break;
		case 1:	img[size / 2] ^= 0x10;
			write_bytes(vf, img, size, 0600);
			img[size / 2] ^= 0x10;
			break;
		case 2:	img[100] ^= 1;		/* a descriptor */
			write_bytes(vf, img, size, 0600);
			img[100] ^= 1;
			break;
		case 3:	write_bytes(vf, img, size, 0666); break;
		case 4:	write_bytes(other, img, size, 0600);
			unlink(vf);
			CHECK_INT(symlink(other, vf), 0);
			break;
		case 5:	write_bytes(vf, "", 0, 0600); break;
		}
		check_queries(db);
		CHECK_INT(lstat(vf, &sb), 0);
		CHECK(S_ISREG(sb.st_mode) && (size_t)sb.st_size == size);
		CHECK_INT(sb.st_mode & 0777, 0600);
		CHECK(same_bytes(vf, img, size));	/* rebuilt whole */
	}
	unlink(other);
	free(other);
	free(img);
	free(vf);
	free(db);
}

/* A file cut while a connection has it mapped: the search reads the
 * table instead (mapguard), still exact. */
static void
a_file_cut_under_a_mapping_is_dropped(void)
{
	char			*db = db_path("cut"), *vf = file_of(db);
	struct store		*st;
	const char		*stores[] = { "p", "g" };
	float			 q[DIM];
	struct store_query	 sq = { .stores = stores, .nstores = 2,
				    .vec = q, .dim = DIM, .limit = LIMIT,
				    .min_score = -2 };
	struct store_hits	 h;
	struct hit		 want[LIMIT];
	struct err		 err = { "" };
	size_t			 n, i;

	seed(db);
	check_queries(db);
	st = open_db(db);
	random_vec(q, DIM);
	CHECK_INT(store_search(st, &sq, &h, &err), 0);	/* maps the file */
	store_hits_release(&h);
	CHECK_INT(truncate(vf, 0), 0);
	random_vec(q, DIM);
	n = brute(db, q, DIM, NULL, want);
	CHECK_INT(store_search(st, &sq, &h, &err), 0);
	CHECK_INT(h.n, n);
	for (i = 0; i < n && i < h.n; i++)
		CHECK_STR(h.v[i].e.slug, want[i].slug);
	store_hits_release(&h);
	store_close(st);
	free(vf);
	free(db);
}

/* Another dimension's query: exact over its own rows, file rebuilt. */
static void
another_dimension_rebuilds_the_file(void)
{
	char	*db = db_path("dims");
	char	 sql[256];
	float	 q[4] = { 1, -1, 0.5f, 0 };
	int	 i;

	seed(db);
	check_queries(db);
	for (i = 0; i < 40; i++) {
		snprintf(sql, sizeof(sql), "UPDATE entries SET embedding = "
		    "X'%08X%08X0000803F00000000', model = 'tag-b' "
		    "WHERE slug = 'm%d'", 0x0000803Fu + (unsigned)i, 0x000080BFu,
		    i * 7);
		raw(db, sql);
	}
	check_cold(db, q, 4, NULL);
	check_cold(db, q, 4, NULL);
	check_queries(db);
	free(db);
}

/* A vector search of p and g in st, hits dropped. */
static void
search_once(struct store *st, const float *q)
{
	const char		*stores[] = { "p", "g" };
	struct store_query	 sq = { .stores = stores, .nstores = 2,
				    .vec = q, .dim = DIM, .limit = 3,
				    .min_score = -2 };
	struct store_hits	 h;
	struct err		 err = { "" };

	CHECK_INT(store_search(st, &sq, &h, &err), 0);
	store_hits_release(&h);
}

/* The space notice's count from the cache (after a cold search from the
 * table, then from the file) equals the count SQL gives. */
static void
other_space_counts_match_sql(void)
{
	char				*db = db_path("space"), *vf = file_of(db);
	struct store			*st;
	struct store_space		 sp = { DIM, "tag-a" };
	struct store_space_count	 cached, direct;
	struct err			 err = { "" };
	float				 q[DIM];
	int				 round;

	seed(db);
	raw(db, "UPDATE entries SET model = 'tag-b' WHERE slug IN "
	    "('m1', 'm2', 'm3'); UPDATE entries SET model = NULL WHERE "
	    "slug = 'm5'; UPDATE entries SET embedding = NULL WHERE slug = "
	    "'m6'; UPDATE entries SET embedding = X'0000803F' WHERE slug = "
	    "'m7'");
	random_vec(q, DIM);
	st = open_db(db);
	CHECK_INT(store_count_other_space(st, "p", &sp, &direct, &err), 0);
	CHECK_INT(direct.memories, 6);
	store_close(st);
	for (round = 0; round < 2; round++) {
		if (round == 0)
			unlink(vf);
		st = open_db(db);
		search_once(st, q);
		CHECK_INT(store_count_other_space(st, "p", &sp, &cached,
		    &err), 0);
		CHECK_INT(cached.memories, direct.memories);
		store_close(st);
	}
	free(vf);
	free(db);
}

static void
teardown(void)
{
	char	cmd[256];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		CHECK_FAIL("cannot remove %s", dir);
}

static void
setup(void)
{
	dir = mkdtemp(dir_tmpl);
	CHECK(dir != NULL);
}

CHECK_MAIN(
	TEST(setup),
	TEST(a_cold_search_saves_a_private_file_the_next_one_maps),
	TEST(the_file_stands_in_for_the_table),
	TEST(two_builders_leave_one_whole_file),
	TEST(big_matrices_are_copied_out_of_the_mapping),
	TEST(foreign_writes_make_the_file_stale),
	TEST(a_recall_stamp_keeps_the_file),
	TEST(a_preloaded_file_serves_the_search),
	TEST(a_damaged_file_is_ignored_and_rebuilt),
	TEST(a_file_cut_under_a_mapping_is_dropped),
	TEST(another_dimension_rebuilds_the_file),
	TEST(other_space_counts_match_sql),
	TEST(teardown)
)
