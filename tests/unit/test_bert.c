/*
 * test_bert.c — the tiny random BERT gives transformers.js's vectors to
 * within 1e-5 per component, as passages (the first process: weights
 * packed in memory) and as queries (a later one: the packed copy mapped
 * from the cache), through model_open/model_embed, and again with every
 * ISA's kernels this CPU has (THATCH_ISA forcing each, generic included)
 * and with CBLAS; an unknown or unavailable THATCH_ISA is refused with a
 * reason; a packed copy that is
 * damaged, cut short or cannot be written costs time, never a wrong
 * vector, even when it is cut under a running process; a model file cut
 * under one fails the call with a reason, not SIGBUS; and a model folder that is not a BERT encoder is refused with a
 * message, not a crash.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "embed/model.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/isa.h"
#include "util/jsonx.h"
#include "util/path.h"
#include "util/sbuf.h"
#include "util/xmalloc.h"

#define TINY	"fixtures/embed/tiny-bert"

/* A private $XDG_CACHE_HOME for the packed weights, made on first use. */
static char	 cache_tmpl[] = "/tmp/thatch-test-bert.XXXXXX";
static char	*cache_home;

static struct model *
open_with(const char *dir, enum bert_kernels kernels, struct err *err)
{
	struct model_opts	 o;
	struct paths		 p;
	struct model		*m = NULL;

	if (cache_home == NULL) {
		cache_home = mkdtemp(cache_tmpl);
		setenv("XDG_CACHE_HOME", cache_home, 1);
	}
	paths_init(&p);
	model_opts_init(&o, &p);
	free(o.id);
	o.id = xstrdup(dir);
	o.download = false;
	o.kernels = kernels;
	if (model_open(&o, &m, err) != 0)
		m = NULL;
	model_opts_release(&o);
	paths_release(&p);
	return m;
}

static struct model *
open_model(const char *dir, struct err *err)
{
	return open_with(dir, BERT_KERNELS_BEST, err);
}

static void
check_vectors(const char *file, enum embed_kind kind,
    enum bert_kernels kernels)
{
	struct sbuf	 sb = SBUF_INIT;
	struct err	 err;
	struct model	*m;
	json_t		*cases = NULL, *c, *want;
	const char	*text;
	float		 v[32];
	double		 worst = 0, d;
	size_t		 i, j;

	m = open_with(TINY, kernels, &err);
	CHECK(m != NULL);
	CHECK_INT(fileio_read(file, &sb, &err), 0);
	cases = jsonx_parse(sb.buf, sb.len, file, &err);
	CHECK_INT(json_array_size(cases), 25);
	json_array_foreach(cases, i, c) {
		if (m == NULL)
			break;
		text = jsonx_str(c, "text");
		want = jsonx_get(c, "embedding");
		CHECK_INT(model_embed(m, text, strlen(text), kind, v, &err),
		    0);
		CHECK_INT(json_array_size(want), model_dim(m));
		for (j = 0; j < 32 && j < json_array_size(want); j++) {
			d = fabs(v[j] - json_number_value(json_array_get(want,
			    j)));
			worst = d > worst ? d : worst;
			if (d > 1e-5) {
				CHECK_FAIL("'%.40s' [%zu]: %.8f, want %.8f",
				    text, j, v[j], json_number_value(
				    json_array_get(want, j)));
				break;
			}
		}
	}
	printf("%s (kernels %d): largest difference %.3g\n", file, kernels,
	    worst);
	json_decref(cases);
	sbuf_release(&sb);
	model_close(m);
}

static void
test_passage_vectors_match_transformers_js(void)
{
	check_vectors("fixtures/embed/expected/passages.json", EMBED_PASSAGE,
	    BERT_KERNELS_BEST);
}

static void
test_query_vectors_match_transformers_js(void)
{
	check_vectors("fixtures/embed/expected/queries.json", EMBED_QUERY,
	    BERT_KERNELS_BEST);
}

/* Each ISA's kernels as THATCH_ISA forces them: every path this CPU has. */
static void
test_every_isa_matches_transformers_js(void)
{
	int	i;

	for (i = 0; i < ISA_COUNT; i++) {
		if (!isa_available((enum isa)i))
			continue;
		printf("THATCH_ISA=%s\n", isa_name((enum isa)i));
		setenv("THATCH_ISA", isa_name((enum isa)i), 1);
		check_vectors("fixtures/embed/expected/passages.json",
		    EMBED_PASSAGE, BERT_KERNELS_BEST);
		check_vectors("fixtures/embed/expected/queries.json",
		    EMBED_QUERY, BERT_KERNELS_BEST);
	}
	unsetenv("THATCH_ISA");
	check_vectors("fixtures/embed/expected/passages.json", EMBED_PASSAGE,
	    BERT_KERNELS_GENERIC);
}

/* A name nobody knows, and one this machine cannot run, fail the load. */
static void
test_unavailable_isa_is_refused(void)
{
	const char	*bad[] = { "vax", "" };
	struct model	*m;
	struct err	 err;
	int		 i;

	for (i = ISA_GENERIC; i < ISA_COUNT; i++)
		if (!isa_available((enum isa)i))
			bad[1] = isa_name((enum isa)i);
	for (i = 0; i < 2 && *bad[i] != '\0'; i++) {
		setenv("THATCH_ISA", bad[i], 1);
		m = open_model(TINY, &err);
		CHECK(m == NULL);
		CHECK(strstr(err.msg, "THATCH_ISA=") != NULL);
		model_close(m);
	}
	unsetenv("THATCH_ISA");
}

static void
test_cblas_matches_transformers_js(void)
{
	check_vectors("fixtures/embed/expected/passages.json", EMBED_PASSAGE,
	    BERT_KERNELS_CBLAS);
	check_vectors("fixtures/embed/expected/queries.json", EMBED_QUERY,
	    BERT_KERNELS_CBLAS);
}

static void
test_tag_and_dimension(void)
{
	struct err	 err;
	struct model	*m = open_model(TINY, &err);

	CHECK(m != NULL);
	if (m == NULL)
		return;
	CHECK_INT(model_dim(m), 32);
	CHECK_STR(model_tag(m), TINY);
	model_close(m);
}

/* The one packed-weights file in the private cache (new string), or NULL. */
static char *
pack_file(void)
{
	struct dirent	*de;
	char		*dir = xasprintf("%s/thatch/packed", cache_home), *f = NULL;
	DIR		*d = opendir(dir);

	while (d != NULL && (de = readdir(d)) != NULL) {
		if (strlen(de->d_name) > 4 && strcmp(de->d_name +
		    strlen(de->d_name) - 4, ".bin") == 0) {
			free(f);
			f = xasprintf("%s/%s", dir, de->d_name);
		}
	}
	if (d != NULL)
		closedir(d);
	free(dir);
	return f;
}

/* The tiny model's vector of "packed weights", or -1 if it will not open. */
static int
embed_once(float v[32])
{
	struct err	 err;
	struct model	*m = open_model(TINY, &err);
	int		 rc;

	if (m == NULL) {
		CHECK_FAIL("model_open: %s", err.msg);
		return -1;
	}
	rc = model_embed(m, "packed weights", 14, EMBED_PASSAGE, v, &err);
	model_close(m);
	return rc;
}

static void
test_packed_weights_are_kept_for_the_next_process(void)
{
	struct stat	 a, b;
	float		 v1[32], v2[32];
	char		*f;

	CHECK_INT(embed_once(v1), 0);
	f = pack_file();
	CHECK(f != NULL);
	if (f == NULL)
		return;
	CHECK_INT(stat(f, &a), 0);
	CHECK_INT(embed_once(v2), 0);
	CHECK(memcmp(v1, v2, sizeof(v1)) == 0);
	CHECK_INT(stat(f, &b), 0);
	CHECK(a.st_ino == b.st_ino);	/* mapped, not written again */
	free(f);
}

static void
test_a_damaged_pack_file_is_packed_anew(void)
{
	struct stat	 a, b;
	float		 good[32], v[32];
	char		 zeros[4096] = { 0 };
	char		*f;
	int		 fd;

	CHECK_INT(embed_once(good), 0);
	if ((f = pack_file()) == NULL) {
		CHECK_FAIL("no packed-weights file");
		return;
	}
	/* the header and size stay right, the weights are zeros */
	CHECK_INT(stat(f, &a), 0);
	fd = open(f, O_WRONLY);
	CHECK(pwrite(fd, zeros, sizeof(zeros), 4096) == sizeof(zeros));
	close(fd);
	CHECK_INT(embed_once(v), 0);
	CHECK(memcmp(good, v, sizeof(v)) == 0);
	CHECK_INT(stat(f, &b), 0);
	CHECK(a.st_ino != b.st_ino);	/* replaced by a good one */
	/* cut short */
	CHECK_INT(truncate(f, b.st_size / 2), 0);
	CHECK_INT(embed_once(v), 0);
	CHECK(memcmp(good, v, sizeof(v)) == 0);
	CHECK_INT(stat(f, &a), 0);
	CHECK(a.st_size == b.st_size);
	free(f);
}

static void
test_an_unwritable_cache_still_embeds(void)
{
	float	 good[32], v[32];
	char	*blocker = xasprintf("%s/file", cache_home);
	char	*saved = xstrdup(getenv("XDG_CACHE_HOME"));
	FILE	*fp;

	CHECK_INT(embed_once(good), 0);
	fp = fopen(blocker, "w");
	CHECK(fp != NULL);
	if (fp != NULL)
		fclose(fp);
	setenv("XDG_CACHE_HOME", blocker, 1);	/* a file, not a folder */
	CHECK_INT(embed_once(v), 0);
	CHECK(memcmp(good, v, sizeof(v)) == 0);
	setenv("XDG_CACHE_HOME", saved, 1);
	free(saved);
	free(blocker);
}

/* Copy the tiny model's files into a folder of the private cache. */
static char *
tiny_copy(void)
{
	char	*dir = xasprintf("%s/tiny-copy", cache_home);
	char	*cmd = xasprintf("mkdir -p '%s' && cp %s/* '%s'", dir, TINY,
		    dir);

	CHECK_INT(system(cmd), 0);
	free(cmd);
	return dir;
}

/* Write the tiny model's weights over path in place (same inode). */
static void
restore_in_place(const char *path)
{
	struct sbuf	 sb = SBUF_INIT;
	struct err	 err;
	int		 fd;

	CHECK_INT(fileio_read(TINY "/model.safetensors", &sb, &err), 0);
	fd = open(path, O_WRONLY | O_TRUNC);
	CHECK(fd >= 0 && write(fd, sb.buf, sb.len) == (ssize_t)sb.len);
	close(fd);
	sbuf_release(&sb);
}

/*
 * The model file cut in place under an open model (SIGBUS before
 * mapguard.c): the next embedding fails with a reason and the process
 * lives; once the file is whole again the next one loads it anew.
 */
static void
test_a_model_cut_under_a_running_process(void)
{
	struct err	 err;
	struct model	*m;
	float		 good[32], v[32];
	char		*dir = tiny_copy();
	char		*file = xasprintf("%s/model.safetensors", dir);

	CHECK_INT(embed_once(good), 0);
	m = open_model(dir, &err);
	CHECK(m != NULL);
	if (m == NULL)
		goto out;
	CHECK_INT(model_embed(m, "packed weights", 14, EMBED_PASSAGE, v,
	    &err), 0);
	CHECK(memcmp(good, v, sizeof(v)) == 0);
	CHECK_INT(truncate(file, 1000), 0);
	CHECK_INT(model_embed(m, "packed weights", 14, EMBED_PASSAGE, v,
	    &err), -1);
	CHECK(strstr(err.msg, "model file changed on disk") != NULL);
	CHECK(strstr(err.msg, "truncated") != NULL);
	CHECK_INT(model_embed(m, "packed weights", 14, EMBED_PASSAGE, v,
	    &err), -1);		/* still cut: still a reason, not garbage */
	restore_in_place(file);
	CHECK_INT(model_embed(m, "packed weights", 14, EMBED_PASSAGE, v,
	    &err), 0);
	CHECK(memcmp(good, v, sizeof(v)) == 0);
	model_close(m);
out:
	free(file);
	free(dir);
}

/* The packed copy cut under a process that maps it: packed anew, and the
 * call that found it cut still returns the right vector. */
static void
test_a_pack_file_cut_under_a_running_process(void)
{
	struct stat	 a, b;
	struct err	 err;
	struct model	*m;
	float		 good[32], v[32];
	char		*f, *cmd = xasprintf("rm -rf '%s/thatch/packed'",
			    cache_home);

	CHECK_INT(system(cmd), 0);	/* so that pack_file finds ours */
	free(cmd);
	CHECK_INT(embed_once(good), 0);
	m = open_model(TINY, &err);	/* maps the file embed_once kept */
	f = pack_file();
	CHECK(m != NULL && f != NULL);
	if (m == NULL || f == NULL)
		goto out;
	CHECK_INT(stat(f, &a), 0);
	CHECK_INT(truncate(f, 5000), 0);
	CHECK_INT(model_embed(m, "packed weights", 14, EMBED_PASSAGE, v,
	    &err), 0);
	CHECK(memcmp(good, v, sizeof(v)) == 0);
	CHECK_INT(stat(f, &b), 0);
	CHECK(a.st_size == b.st_size && a.st_ino != b.st_ino);	/* anew */
out:
	model_close(m);
	free(f);
}

/* A file in the packed-weights folder, last modified days ago. */
static char *
aged(const char *name, int days)
{
	struct timespec	 t[2];
	char		*f = xasprintf("%s/thatch/packed/%s", cache_home, name);
	FILE		*fp = fopen(f, "w");

	if (fp != NULL)
		fclose(fp);
	clock_gettime(CLOCK_REALTIME, &t[0]);
	t[0].tv_sec -= (time_t)days * 24 * 60 * 60;
	t[1] = t[0];
	CHECK_INT(utimensat(AT_FDCWD, f, t, 0), 0);
	return f;
}

static void
test_saving_sweeps_packed_weights_unused_for_a_month(void)
{
	float	 v[32];
	char	*f, *old, *tmp, *recent, *other;

	CHECK_INT(embed_once(v), 0);
	if ((f = pack_file()) == NULL) {
		CHECK_FAIL("no packed-weights file");
		return;
	}
	old = aged("0123.bin", 31);
	tmp = aged("4567.bin.tmp.99", 2);
	recent = aged("89ab.bin", 29);
	other = aged("notes.txt", 400);
	CHECK_INT(truncate(f, 100), 0);		/* the next open saves */
	CHECK_INT(embed_once(v), 0);
	CHECK(access(old, F_OK) != 0);
	CHECK(access(tmp, F_OK) != 0);
	CHECK(access(recent, F_OK) == 0);
	CHECK(access(other, F_OK) == 0);
	CHECK(access(f, F_OK) == 0);
	unlink(recent);
	unlink(other);
	free(f);
	free(old);
	free(tmp);
	free(recent);
	free(other);
}

/* Last: remove the private cache. */
static void
test_cleanup(void)
{
	char	*cmd = xasprintf("rm -rf '%s'", cache_home);

	CHECK_INT(system(cmd), 0);
	free(cmd);
}

CHECK_MAIN(
	TEST(test_passage_vectors_match_transformers_js),
	TEST(test_query_vectors_match_transformers_js),
	TEST(test_every_isa_matches_transformers_js),
	TEST(test_unavailable_isa_is_refused),
	TEST(test_cblas_matches_transformers_js),
	TEST(test_tag_and_dimension),
	TEST(test_packed_weights_are_kept_for_the_next_process),
	TEST(test_a_damaged_pack_file_is_packed_anew),
	TEST(test_an_unwritable_cache_still_embeds),
	TEST(test_saving_sweeps_packed_weights_unused_for_a_month),
	TEST(test_a_model_cut_under_a_running_process),
	TEST(test_a_pack_file_cut_under_a_running_process),
	TEST(test_cleanup)
)
