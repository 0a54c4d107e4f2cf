/*
 * test_util.c — the util layer: JavaScript-identical numbers and JSON,
 * Node's path.join, UTF-16 lengths, the atomic writers' modes, links and
 * temporary files.
 */
#include "check.h"

#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/err.h"
#include "util/fileio.h"
#include "util/jsonx.h"
#include "util/num.h"
#include "util/path.h"
#include "util/sbuf.h"
#include "util/utf8.h"
#include "util/xmalloc.h"

static void
numbers_print_like_javascript(void)
{
	char	b[NUM_BUFSZ];

	CHECK_STR(num_js(1, b), "1");
	CHECK_STR(num_js(0.5, b), "0.5");
	CHECK_STR(num_js(0.6, b), "0.6");
	CHECK_STR(num_js(0.857, b), "0.857");
	CHECK_STR(num_js(0.1 + 0.2, b), "0.30000000000000004");
	CHECK_STR(num_js(-3, b), "-3");
	CHECK_STR(num_js(1e21, b), "1e+21");
	CHECK_STR(num_js(1e-7, b), "1e-7");
	CHECK_STR(num_js(123456789012, b), "123456789012");
	CHECK_STR(num_js(0.000001, b), "0.000001");
	CHECK_STR(num_js(num_round3(0.85749), b), "0.857");
}

static void
fixed_rounds_ties_away_from_zero(void)
{
	char	b[NUM_BUFSZ];

	CHECK_STR(num_fixed(0.125, 2, b), "0.13");	/* C says 0.12 */
	CHECK_STR(num_fixed(0.0625, 3, b), "0.063");
	CHECK_STR(num_fixed(2.5, 0, b), "3");
	CHECK_STR(num_fixed(-0.125, 2, b), "-0.13");
	CHECK_STR(num_fixed(0.615, 2, b), "0.61");	/* 0.6149999... */
	CHECK_STR(num_fixed(0.5, 2, b), "0.50");
	CHECK_STR(num_fixed(0.857142, 3, b), "0.857");
}

static void
json_serialises_like_json_stringify(void)
{
	json_t	*v = json_pack("{s:s, s:f, s:i, s:[b, n], s:{}}", "a",
	    "q\"\\\x1b\n/é\xe2\x80\xa8", "x", 0.6, "n", 3, "l", 1, "o");
	char	*s = jsonx_dump(v, 0);

	CHECK_STR(s, "{\"a\":\"q\\\"\\\\\\u001b\\n/é\xe2\x80\xa8\",\"x\":0.6,"
	    "\"n\":3,\"l\":[true,null],\"o\":{}}");
	free(s);
	s = jsonx_dump(v, 2);
	CHECK(strstr(s, "{\n  \"a\": ") == s);
	CHECK(strstr(s, "\"l\": [\n    true,\n    null\n  ],") != NULL);
	free(s);
	json_decref(v);
}

static void
path_join_is_nodes(void)
{
	static const char *const cases[][3] = {
		{ "/home/u/", ".config", "/home/u/.config" },
		{ "/a//b", "c/", "/a/b/c" },
		{ "/a/b", "../c", "/a/c" },
		{ "a", "../../b", "../b" },
		{ "/", "..", "/" },
		{ "", "", "." },
		{ "a/./b", "", "a/b" },
	};
	size_t	i;
	char	*s;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		s = path_join(cases[i][0], cases[i][1]);
		CHECK_STR(s, cases[i][2]);
		free(s);
	}
	s = path_dirname("/a/b/thatch.db");
	CHECK_STR(s, "/a/b");
	free(s);
	s = path_basename("/a/repo/");
	CHECK_STR(s, "repo");
	free(s);
}

static void
lengths_count_utf16_units(void)
{
	const char	*s = "a\xf0\x9f\x8e\x89" "b";	/* a🎉b */

	CHECK_INT(utf8_js_len(s, strlen(s)), 4);
	CHECK_INT(utf8_js_cut(s, strlen(s), 2), 1);	/* never half an emoji */
	CHECK_INT(utf8_js_cut(s, strlen(s), 3), 5);
}

/* utf8_escape(s, flags) as a new string. */
static char *
escaped(const char *s, unsigned flags)
{
	struct sbuf	sb = SBUF_INIT;

	utf8_escape(&sb, s, flags);
	return sbuf_detach(&sb, NULL);
}

static void
controls_are_escaped_for_terminals(void)
{
	static const struct {
		const char	*in;
		unsigned	 flags;
		const char	*want;
	} cases[] = {
		{ "plain \xc3\xa9t\xc3\xa9 \xf0\x9f\x8e\x89", 0,
		  "plain \xc3\xa9t\xc3\xa9 \xf0\x9f\x8e\x89" },
		{ "a\nb\tc\rd", 0, "a\\nb\\tc\\rd" },
		{ "\x1b[31mred\x1b[0m", 0, "\\x1b[31mred\\x1b[0m" },
		{ "bell\x07 del\x7f", 0, "bell\\x07 del\\x7f" },
		{ "csi\xc2\x9b" "2J nel\xc2\x85", 0, "csi\\u009b2J nel\\u0085" },
		{ "raw\x9b" "2J", 0, "raw\\x9b2J" },	/* not UTF-8 */
		{ "back\\slash", 0, "back\\slash" },
		{ "line 1\n\tline 2\r\n", UTF8_ESC_TEXT, "line 1\n\tline 2\r\n" },
		{ "over\rwrite \x1b[2J", UTF8_ESC_TEXT,
		  "over\\rwrite \\x1b[2J" },
	};
	struct sbuf	 sb = SBUF_INIT;
	char		*s;
	size_t		 i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		s = escaped(cases[i].in, cases[i].flags);
		CHECK_STR(s, cases[i].want);
		free(s);
	}
	utf8_addf(&sb, "[%s] %s (c:%d) 100%%", "st\x1b", "", 7);
	CHECK_STR(sb.buf, "[st\\x1b]  (c:7) 100%");
	sbuf_release(&sb);
}

/*
 * Bytes that are not UTF-8 become U+FFFD, one per maximal invalid subpart,
 * as JavaScript's decoder gives them (hosts-hooks-cli §4.1): a hook whose
 * input holds a stray byte still reads the rest.
 */
static void
invalid_utf8_is_repaired_per_subpart(void)
{
#define R "\xef\xbf\xbd"
	static const struct {
		const char	*in, *want;
	} cases[] = {
		{ "plain \xc3\xa9t\xc3\xa9", "plain \xc3\xa9t\xc3\xa9" },
		{ "kept " R " as it is", "kept " R " as it is" },
		{ "a\xe2\x82z", "a" R "z" },		/* truncated: one */
		{ "\xff\xfe", R R },			/* two bad bytes: two */
		{ "\xf0\x90\x80!", R "!" },		/* 3 of a 4-byte one */
		{ "\xed\xa0\x80", R R R },		/* a surrogate: three */
		{ "\xc0\xaf", R R },			/* overlong */
		{ "tail \xf0\x9f", "tail " R },
	};
#undef R
	struct sbuf	sb = SBUF_INIT;
	size_t		i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		sbuf_init(&sb);
		utf8_repair(&sb, cases[i].in, strlen(cases[i].in));
		CHECK_STR(sb.buf, cases[i].want);
		sbuf_release(&sb);
	}
}

static void
sbuf_grows_and_detaches(void)
{
	struct sbuf	sb = SBUF_INIT;
	char		*s;
	int		 i;

	sbuf_init(&sb);
	CHECK_STR(sb.buf, "");
	for (i = 0; i < 1000; i++)
		sbuf_addf(&sb, "%d,", i);
	CHECK(sb.len > 3000);
	sbuf_setlen(&sb, 2);
	s = sbuf_detach(&sb, NULL);
	CHECK_STR(s, "0,");
	CHECK_STR(sb.buf, "");
	free(s);
}

/* A fresh directory under /tmp, removed by rm_dir. */
static char *
scratch(void)
{
	char	tpl[] = "/tmp/thatch-util.XXXXXX";

	return xstrdup(mkdtemp(tpl));
}

static void
rm_dir(char *dir)
{
	char	*cmd = xasprintf("rm -rf '%s'", dir);

	CHECK_INT(system(cmd), 0);
	free(cmd);
	free(dir);
}

/* Entries of dir besides . and ..; leftovers of a writer show up here. */
static int
entries(const char *dir)
{
	struct dirent	*de;
	DIR		*d = opendir(dir);
	int		 n = 0;

	while (d != NULL && (de = readdir(d)) != NULL)
		n += strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0;
	if (d != NULL)
		closedir(d);
	return n;
}

static unsigned int
mode_of(const char *path)
{
	struct stat	st;

	return stat(path, &st) == 0 ? st.st_mode & 07777 : 01000000;
}

static char *
contents(const char *path)
{
	struct sbuf	sb = SBUF_INIT;

	sbuf_init(&sb);
	if (fileio_read(path, &sb, NULL) != 0)
		sbuf_adds(&sb, "(unreadable)");
	return sbuf_detach(&sb, NULL);
}

#define CHECK_FILE(path, want) do {					\
	char *c_ = contents(path);					\
	CHECK_STR(c_, want);						\
	free(c_);							\
} while (0)

static void
rewrite_keeps_an_existing_files_mode(void)
{
	char		*dir = scratch(), *f = path_join(dir, "mcp.json");
	struct err	 err = { "" };
	mode_t		 old = umask(022);

	CHECK_INT(fileio_rewrite(f, "a", 1, 0644, &err), 0);
	CHECK_INT(mode_of(f), 0644);		/* new: mode less umask */
	CHECK_INT(chmod(f, 0600), 0);
	CHECK_INT(fileio_rewrite(f, "bb", 2, 0644, &err), 0);
	CHECK_INT(mode_of(f), 0600);		/* a private file stays so */
	CHECK_FILE(f, "bb");
	umask(077);
	CHECK_INT(chmod(f, 0640), 0);
	CHECK_INT(fileio_rewrite(f, "c", 1, 0644, &err), 0);
	CHECK_INT(mode_of(f), 0640);		/* the umask is for new files */
	free(f);
	f = path_join(dir, "new.json");
	CHECK_INT(fileio_rewrite(f, "d", 1, 0644, &err), 0);
	CHECK_INT(mode_of(f), 0600);
	CHECK_INT(entries(dir), 2);		/* no temporary file left */
	umask(old);
	free(f);
	rm_dir(dir);
}

static void
rewrite_keeps_the_owner_as_root(void)
{
	char		*dir = scratch(), *f = path_join(dir, "settings.json");
	struct stat	 st;
	struct err	 err = { "" };

	if (geteuid() == 0) {	/* only root can hand a file to another uid */
		CHECK_INT(fileio_rewrite(f, "a", 1, 0644, &err), 0);
		CHECK_INT(chown(f, 12345, 12346), 0);
		CHECK_INT(chmod(f, 0640), 0);
		CHECK_INT(fileio_rewrite(f, "b", 1, 0644, &err), 0);
		CHECK_INT(stat(f, &st), 0);
		CHECK_INT(st.st_uid, 12345);
		CHECK_INT(st.st_gid, 12346);
		CHECK_INT(st.st_mode & 07777, 0640);
	}
	free(f);
	rm_dir(dir);
}

static void
rewrite_writes_through_a_link(void)
{
	char		*dir = scratch(), *real = path_join(dir, "dotfiles.json");
	char		*link = path_join(dir, "settings.json"), buf[256];
	struct stat	 st;
	struct err	 err = { "" };
	ssize_t		 n;

	CHECK_INT(fileio_rewrite(real, "old", 3, 0600, &err), 0);
	CHECK_INT(symlink("dotfiles.json", link), 0);
	CHECK_INT(fileio_rewrite(link, "new", 3, 0644, &err), 0);
	CHECK_INT(lstat(link, &st), 0);
	CHECK(S_ISLNK(st.st_mode));
	n = readlink(link, buf, sizeof(buf) - 1);
	CHECK_INT(n, 13);
	buf[n < 0 ? 0 : n] = '\0';
	CHECK_STR(buf, "dotfiles.json");
	CHECK_FILE(real, "new");
	CHECK_INT(mode_of(real), 0600);
	CHECK_INT(entries(dir), 2);
	free(link);
	free(real);
	rm_dir(dir);
}

static void
rewrite_refuses_what_it_cannot_follow(void)
{
	char		*dir = scratch(), *link = path_join(dir, "mcp.json");
	char		*fifo = path_join(dir, "fifo"), *sub = path_join(dir, "d");
	char		*want;
	struct err	 err = { "" };

	CHECK_INT(symlink("gone/mcp.json", link), 0);
	CHECK_INT(fileio_rewrite(link, "x", 1, 0644, &err), -1);
	want = xasprintf("%s is a symlink to gone/mcp.json, which does not "
	    "exist", link);
	CHECK_STR(err.msg, want);
	free(want);
	CHECK(fileio_resolve(link, &err) == NULL);
	CHECK_INT(mkfifo(fifo, 0600), 0);	/* reading it would hang */
	CHECK(fileio_resolve(fifo, &err) == NULL);
	want = xasprintf("%s is not a regular file", fifo);
	CHECK_STR(err.msg, want);
	free(want);
	CHECK_INT(mkdir(sub, 0700), 0);
	CHECK_INT(unlink(link), 0);
	CHECK_INT(symlink("d", link), 0);
	CHECK_INT(fileio_rewrite(link, "x", 1, 0644, &err), -1);
	CHECK(strstr(err.msg, "which is not a regular file") != NULL);
	CHECK_INT(entries(dir), 3);		/* nothing was created */
	CHECK_INT(entries(sub), 0);
	free(sub);
	free(fifo);
	free(link);
	rm_dir(dir);
}

static void
write_atomic_replaces_a_planted_link(void)
{
	char		*dir = scratch(), *victim = path_join(dir, "victim");
	char		*bak = path_join(dir, "settings.json.bak");
	struct stat	 st;
	struct err	 err = { "" };

	CHECK_INT(fileio_write_atomic(victim, "keep", 4, 0644, &err), 0);
	CHECK_INT(symlink(victim, bak), 0);
	CHECK_INT(fileio_write_atomic(bak, "copy", 4, 0600, &err), 0);
	CHECK_FILE(victim, "keep");
	CHECK_INT(lstat(bak, &st), 0);
	CHECK(S_ISREG(st.st_mode));
	CHECK_INT(st.st_mode & 0777, 0600);
	CHECK_FILE(bak, "copy");
	CHECK_INT(entries(dir), 2);
	free(bak);
	free(victim);
	rm_dir(dir);
}

static void
a_failed_write_leaves_no_temporary_file(void)
{
	char		*dir = scratch(), *sub = path_join(dir, "cache");
	struct err	 err = { "" };

	CHECK_INT(mkdir(sub, 0700), 0);
	/* the rename over a directory fails after the data was written */
	CHECK_INT(fileio_write_atomic(sub, "x", 1, 0600, &err), -1);
	CHECK(strstr(err.msg, "cannot replace") != NULL);
	CHECK_INT(entries(dir), 1);
	CHECK_INT(fileio_replace(sub, "x", 1, 0600, &err), -1);
	CHECK_INT(entries(dir), 1);
	free(sub);
	rm_dir(dir);
}

CHECK_MAIN(
	TEST(numbers_print_like_javascript),
	TEST(fixed_rounds_ties_away_from_zero),
	TEST(json_serialises_like_json_stringify),
	TEST(path_join_is_nodes),
	TEST(lengths_count_utf16_units),
	TEST(controls_are_escaped_for_terminals),
	TEST(invalid_utf8_is_repaired_per_subpart),
	TEST(sbuf_grows_and_detaches),
	TEST(rewrite_keeps_an_existing_files_mode),
	TEST(rewrite_keeps_the_owner_as_root),
	TEST(rewrite_writes_through_a_link),
	TEST(rewrite_refuses_what_it_cannot_follow),
	TEST(write_atomic_replaces_a_planted_link),
	TEST(a_failed_write_leaves_no_temporary_file)
)
