/*
 * test_queue.c — the extraction queue: file names from session ids, the
 * cap, drains, concurrent appenders, titles, summaries and the payload;
 * and the queue folder as something anyone may have written: every
 * reader on the regression inputs of tests/fuzz/regress/queue, over-long
 * lines, symlinks and FIFOs in place of files, a write that fails half
 * way, and the sweep of killed writers' temporary files.
 */
#include "check.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/anchor/anchor.h"
#include "core/session/queue.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/path.h"
#include "util/sbuf.h"

static char *
tmpdir(void)
{
	char	tpl[] = "/tmp/thatch-queue.XXXXXX";
	char	*d = mkdtemp(tpl);

	return path_join(d, "queue");
}

static void
rmdir_all(char *dir)
{
	char	*parent = path_dirname(dir);
	char	 cmd[512];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", parent);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", parent);
	free(parent);
	free(dir);
}

static void
append_one(const char *dir, const char *sid, const char *tool,
    const char *out, enum queue_verdict v)
{
	struct queue_call	c = { tool, NULL, NULL, v };
	struct err		err;
	json_t			*resp = json_string(out);

	c.response = resp;
	CHECK_INT(queue_append(dir, sid, &c, 1, &err), 0);
	json_decref(resp);
}

static size_t
queued(const char *dir, const char *sid)
{
	json_t	*recs;
	size_t	 n;

	if (queue_peek(dir, sid, &recs, NULL) != 0)
		return (size_t)-1;
	n = json_array_size(recs);
	json_decref(recs);
	return n;
}

static void
session_ids_cannot_escape_the_queue_folder(void)
{
	char	*s;

	CHECK_STR(s = queue_safe_id("0f9580b6-7003-42fb-af90-5f53b1f929e8"),
	    "0f9580b6-7003-42fb-af90-5f53b1f929e8");
	free(s);
	CHECK_STR(s = queue_safe_id("../../etc/passwd"), "______etc_passwd");
	free(s);
	CHECK_STR(s = queue_safe_id(".."), "__");
	free(s);
	CHECK_STR(s = queue_safe_id(""), "_");
	free(s);
	CHECK_STR(s = queue_safe_id("a b\xc3\xa9\xf0\x9f\x98\x80"), "a_b___");
	free(s);
	/* one '_' per maximal invalid subpart, as a UTF-8 decoder does */
	CHECK_STR(s = queue_safe_id("x\xe2\x82y\xff\xfe"), "x_y__");
	free(s);
}

/* `thatch queue`: the sessions with a queue, sorted, found by file name */
static void
sessions_are_listed_by_file_name(void)
{
	char		 *dir = tmpdir(), **ids, *path;
	struct err	  err = { "" };
	size_t		  n;

	CHECK_INT(queue_sessions(dir, &ids, &n, &err), 0);	/* no dir */
	CHECK_INT((int)n, 0);
	append_one(dir, "s b/2", "Read", "x", QUEUE_KEEP);
	append_one(dir, "s-a", "Read", "x", QUEUE_KEEP);
	CHECK_INT(queue_missed_bump(dir, "s-c", &err), 0);	/* count only */
	path = path_join(dir, "planted.jsonl");
	CHECK_INT(symlink("/etc/passwd", path), 0);
	CHECK_INT(queue_sessions(dir, &ids, &n, &err), 0);
	CHECK_INT((int)n, 2);
	if (n == 2) {
		CHECK_STR(ids[0], "s-a");
		CHECK_STR(ids[1], "s_b_2");
		/* a listed id reads its session's queue as it is */
		CHECK_INT((int)queued(dir, ids[1]), 1);
	}
	queue_sessions_free(ids, n);
	free(path);
	rmdir_all(dir);
}

static void
records_keep_the_order_and_shape_of_the_original(void)
{
	char			*dir = tmpdir(), *path;
	struct queue_call	 c[2];
	struct sbuf		 sb = SBUF_INIT;
	json_t			*args = json_pack("{s:s}", "file_path",
				    "/repo/src/a.c");
	json_t			*resp = json_pack("[{s:s,s:s}]", "type", "text",
				    "text", "hi");
	struct err		 err;

	c[0] = (struct queue_call){ "Read", args, json_string("int x;"),
	    QUEUE_KEEP };
	c[1] = (struct queue_call){ "mcp__other__echo", NULL, resp,
	    QUEUE_KEEP };
	CHECK_INT(queue_append(dir, "s/1", c, 2, &err), 0);
	json_decref((json_t *)c[0].response);
	path = path_join(dir, "s_1.jsonl");
	sbuf_init(&sb);
	CHECK_INT(fileio_read(path, &sb, NULL), 0);
	CHECK_STR(sb.buf,
	    "{\"tool\":\"Read\",\"sessionID\":\"s/1\",\"args\":{\"file_path\":"
	    "\"/repo/src/a.c\"},\"title\":\"a.c\",\"output\":\"int x;\"}\n"
	    "{\"tool\":\"mcp__other__echo\",\"sessionID\":\"s/1\",\"args\":{},"
	    "\"title\":\"{}\",\"output\":\"[{\\\"type\\\":\\\"text\\\","
	    "\\\"text\\\":\\\"hi\\\"}]\"}\n");
	sbuf_release(&sb);
	free(path);
	json_decref(args);
	json_decref(resp);
	rmdir_all(dir);
}

static void
only_the_newest_twenty_records_are_kept(void)
{
	char	*dir = tmpdir(), name[16];
	json_t	*recs;
	int	 i;

	for (i = 0; i < 25; i++) {
		snprintf(name, sizeof(name), "out%d", i);
		append_one(dir, "s", "Bash", name, QUEUE_KEEP);
	}
	CHECK_INT(queue_peek(dir, "s", &recs, NULL), 0);
	CHECK_INT(json_array_size(recs), 20);
	CHECK_STR(json_string_value(json_object_get(json_array_get(recs, 0),
	    "output")), "out5");
	json_decref(recs);
	rmdir_all(dir);
}

static void
a_remember_drains_what_was_queued_before_it(void)
{
	char			*dir = tmpdir();
	struct queue_call	 c[3] = {
		{ "Grep", NULL, NULL, QUEUE_KEEP },
		{ "mcp__thatch__memory_remember", NULL, NULL, QUEUE_DRAIN },
		{ "Glob", NULL, NULL, QUEUE_KEEP },
	};
	struct err		 err;

	append_one(dir, "s", "Bash", "old", QUEUE_KEEP);
	CHECK_INT(queue_missed_bump(dir, "s", &err), 0);
	CHECK_INT(queue_missed(dir, "s"), 1);
	CHECK_INT(queue_append(dir, "s", c, 3, &err), 0);
	CHECK_INT(queued(dir, "s"), 2);	/* the batch's own calls survive */
	CHECK_INT(queue_missed(dir, "s"), 0);
	CHECK_INT(queue_drain(dir, "s", &err), 0);
	CHECK_INT(queued(dir, "s"), 0);
	CHECK_INT(queue_drain(dir, "never-seen", &err), 0);
	rmdir_all(dir);
}

static void
corrupt_lines_do_not_hide_the_others(void)
{
	char	*dir = tmpdir(), *path;
	char	 text[] = "{\"tool\":\"A\"}\nnot json\n\n{\"tool\":\"B\"}";

	path = path_join(dir, "s.jsonl");
	CHECK_INT(fileio_write_atomic(path, text, sizeof(text) - 1, 0600,
	    NULL), 0);
	CHECK_INT(queued(dir, "s"), 2);
	CHECK_INT(queued(dir, "missing"), 0);
	free(path);
	rmdir_all(dir);
}

static void
concurrent_appenders_lose_nothing(void)
{
	char	*dir = tmpdir(), name[32];
	pid_t	 kids[4];
	int	 i, k, st;

	append_one(dir, "s", "Bash", "seed", QUEUE_KEEP);
	for (k = 0; k < 4; k++) {
		if ((kids[k] = fork()) == 0) {
			for (i = 0; i < 4; i++) {
				snprintf(name, sizeof(name), "k%d-%d", k, i);
				append_one(dir, "s", "Bash", name, QUEUE_KEEP);
			}
			free(dir);	/* what the child inherited (valgrind) */
			_exit(check_test_failed);
		}
	}
	for (k = 0; k < 4; k++) {
		waitpid(kids[k], &st, 0);
		CHECK_INT(WEXITSTATUS(st), 0);
	}
	CHECK_INT(queued(dir, "s"), 17);
	for (k = 0; k < 4; k++)
		append_one(dir, "s", "Bash", "more", QUEUE_KEEP);
	CHECK_INT(queued(dir, "s"), 20);
	rmdir_all(dir);
}

static void
titles_and_summaries_follow_the_tool(void)
{
	json_t	*a;
	char	*s;

	a = json_pack("{s:s}", "filePath", "/x/y/z.ts");
	CHECK_STR(s = queue_title("edit", a), "z.ts");
	free(s);
	CHECK_STR(s = queue_summary("Edit", a), "file: /x/y/z.ts");
	free(s);
	json_decref(a);
	a = json_object();
	CHECK_STR(s = queue_summary("write", a), "file: undefined");
	free(s);
	CHECK_STR(s = queue_title("Grep", a), "");
	free(s);
	CHECK_STR(s = queue_summary("grep", a), "pattern: undefined");
	free(s);
	json_decref(a);
	a = json_pack("{s:n,s:[i,s]}", "pattern", "x", 1, "b");
	CHECK_STR(s = queue_summary("glob", a), "pattern: null");
	free(s);
	CHECK_STR(s = queue_title("glob", a), "");
	free(s);
	json_decref(a);
	a = json_pack("{s:i}", "command", 3);
	CHECK_STR(s = queue_title("Bash", a), "");
	free(s);
	json_decref(a);
	a = json_pack("{s:s}", "q", "0123456789012345678901234567890123456789"
	    "0123456789012345678901234567890123456789");
	s = queue_title("WebSearch", a);
	CHECK_INT(strlen(s), 80);
	free(s);
	json_decref(a);
}

static void
the_payload_has_the_spec_shape(void)
{
	char			*dir = tmpdir();
	char			 big[700];
	struct sbuf		 sb = SBUF_INIT;
	json_t			*args = json_pack("{s:s}", "command",
				    "git log --oneline -5");
	json_t			*resp;
	struct queue_call	 c = { "Bash", args, NULL, QUEUE_KEEP };
	struct err		 err;

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	resp = json_string(big);
	c.response = resp;
	sbuf_init(&sb);
	CHECK_INT(queue_payload(dir, "s", "acme/api", NULL, &sb, &err), 0);
	CHECK_INT(queue_append(dir, "s", &c, 1, &err), 0);
	CHECK_INT(queue_payload(dir, "s", "acme/api", NULL, &sb, &err), 1);
	CHECK(strncmp(sb.buf, "{\"interactions\":[{\"tool\":\"Bash\",\"title\":"
	    "\"git log --oneline -5\",\"args\":\"git log --oneline -5\","
	    "\"output\":\"xxx", 93) == 0);
	CHECK(strstr(sb.buf, "xxx...\"}],\"projectStore\":\"acme/api\","
	    "\"globalStore\":\"global\"}") != NULL);
	CHECK_INT(strspn(strstr(sb.buf, "xxx"), "x"), 500);
	sbuf_release(&sb);
	json_decref(args);
	json_decref(resp);
	rmdir_all(dir);
}

static void
a_pending_nudge_is_taken_once(void)
{
	char		*dir = tmpdir();
	struct sbuf	 sb = SBUF_INIT;
	struct err	 err;
	bool		 ex = false;

	sbuf_init(&sb);
	CHECK_INT(queue_pending_take(dir, "c1", &sb, &ex, &err), 0);
	CHECK_INT(queue_pending_put(dir, "c1", "first", false, &err), 0);
	CHECK_INT(queue_pending_put(dir, "c1", "newest", true, &err), 0);
	CHECK_INT(queue_pending_take(dir, "c1", &sb, &ex, &err), 1);
	CHECK_STR(sb.buf, "newest");
	CHECK(ex);
	CHECK_INT(queue_pending_take(dir, "c1", &sb, &ex, &err), 0);
	sbuf_release(&sb);
	rmdir_all(dir);
}


/* Write text as dir/name (the folder made first), as another writer would. */
static void
plant(const char *dir, const char *name, const char *text, size_t len)
{
	char	*path = path_join(dir, name);
	FILE	*fp;

	CHECK_INT(path_mkdir_p(dir, 0700, NULL), 0);
	fp = fopen(path, "wb");
	CHECK(fp != NULL);
	if (fp != NULL) {
		CHECK_INT(fwrite(text, 1, len, fp), len);
		fclose(fp);
	}
	free(path);
}

/* The lines of dir/name: -1 if any is not an object with a string tool. */
static int
lines_that_are_records(const char *dir, const char *name)
{
	char		*path = path_join(dir, name), *line, *nl;
	struct sbuf	 sb = SBUF_INIT;
	json_t		*rec;
	int		 n = 0;

	sbuf_init(&sb);
	if (fileio_read(path, &sb, NULL) != 0)
		n = -1;
	for (line = sb.buf; n >= 0 && *line != '\0'; line = nl + 1) {
		if ((nl = strchr(line, '\n')) == NULL) {
			n = -1;		/* a torn last line */
			break;
		}
		rec = json_loadb(line, (size_t)(nl - line), JSON_ALLOW_NUL,
		    NULL);
		n = json_is_string(json_object_get(rec, "tool")) ? n + 1 : -1;
		json_decref(rec);
	}
	sbuf_release(&sb);
	free(path);
	return n;
}

/* Every reader and the writer on one queue file's contents. */
static void
replay(const char *file, const char *text, size_t len)
{
	char		*dir = tmpdir();
	struct sbuf	 sb = SBUF_INIT;
	json_t		*recs = NULL, *pay, *it;
	struct err	 err;
	size_t		 n, i;
	bool		 ex;
	int		 failed = check_test_failed;

	check_test_failed = 0;
	plant(dir, "s.jsonl", text, len);
	plant(dir, "s.count", text, len);
	plant(dir, "s.nudge", text, len);
	CHECK_INT(queue_peek(dir, "s", &recs, &err), 0);
	n = json_array_size(recs);
	CHECK(n <= QUEUE_CAP);
	json_array_foreach(recs, i, it)
		CHECK(json_is_string(json_object_get(it, "tool")));
	json_decref(recs);
	sbuf_init(&sb);
	CHECK_INT(queue_payload(dir, "s", "p", NULL, &sb, &err), n > 0 ? 1 : 0);
	pay = json_loads(sb.buf, JSON_ALLOW_NUL, NULL);
	CHECK(n == 0 || json_array_size(json_object_get(pay,
	    "interactions")) == n);
	json_array_foreach(json_object_get(pay, "interactions"), i, it) {
		CHECK(json_is_string(json_object_get(it, "args")));
		CHECK(json_is_string(json_object_get(it, "output")));
	}
	json_decref(pay);
	(void)queue_missed(dir, "s");
	sbuf_reset(&sb);
	CHECK(queue_pending_take(dir, "s", &sb, &ex, &err) >= 0);
	append_one(dir, "s", "Bash", "after", QUEUE_KEEP);
	CHECK_INT(lines_that_are_records(dir, "s.jsonl"),
	    n + 1 > QUEUE_CAP ? QUEUE_CAP : (int)n + 1);
	CHECK(queue_prune(dir, 0, (long)time(NULL) + 1, &err) >= 0);
	CHECK_INT(queued(dir, "s"), 0);
	if (check_test_failed)
		fprintf(stderr, "  (on %s)\n", file);
	check_test_failed |= failed;
	sbuf_release(&sb);
	rmdir_all(dir);
}

static void
every_reader_takes_the_regression_inputs(void)
{
	const char	*corpus = "fuzz/regress/queue";
	struct dirent	*de;
	struct sbuf	 sb = SBUF_INIT;
	DIR		*d = opendir(corpus);
	char		*path;
	int		 files = 0;

	CHECK(d != NULL);
	while (d != NULL && (de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		path = path_join(corpus, de->d_name);
		sbuf_init(&sb);
		CHECK_INT(fileio_read(path, &sb, NULL), 0);
		replay(de->d_name, sb.buf, sb.len);
		sbuf_release(&sb);
		free(path);
		files++;
	}
	if (d != NULL)
		closedir(d);
	CHECK(files >= 10);
}

static void
a_record_without_args_has_a_payload(void)
{
	char		*dir = tmpdir();
	const char	 line[] = "{\"tool\":\"WebFetch\",\"sessionID\":\"s1\","
			    "\"title\":\"t\",\"output\":\"o\"}\n";
	struct sbuf	 sb = SBUF_INIT;
	struct err	 err;

	plant(dir, "s1.jsonl", line, sizeof(line) - 1);
	sbuf_init(&sb);
	CHECK_INT(queue_payload(dir, "s1", "p", NULL, &sb, &err), 1);
	CHECK_STR(sb.buf, "{\"interactions\":[{\"tool\":\"WebFetch\","
	    "\"title\":\"t\",\"args\":\"{}\",\"output\":\"o\"}],"
	    "\"projectStore\":\"p\",\"globalStore\":\"global\"}");
	sbuf_release(&sb);
	rmdir_all(dir);
}

static void
long_lines_are_cut_or_skipped(void)
{
	char		*dir = tmpdir();
	struct sbuf	 sb = SBUF_INIT;
	json_t		*recs;
	size_t		 i;

	sbuf_init(&sb);
	/* an older version's 2 MiB output is read, cut as it streams past */
	sbuf_adds(&sb, "{\"tool\":\"A\"}\n{\"tool\":\"Big\",\"output\":\"");
	for (i = 0; i < 2 * QUEUE_LINE_MAX; i++)
		sbuf_addc(&sb, 'x');
	/* a line that is long without long strings is skipped */
	sbuf_adds(&sb, "\"}\n{\"tool\":\"Wide\",\"args\":[0");
	for (i = 0; i < QUEUE_LINE_MAX; i++)
		sbuf_adds(&sb, ",0");
	sbuf_adds(&sb, "]}\n{\"tool\":\"B\"}\n");
	plant(dir, "s.jsonl", sb.buf, sb.len);
	CHECK_INT(queue_peek(dir, "s", &recs, NULL), 0);
	CHECK_INT(json_array_size(recs), 3);
	CHECK_STR(json_string_value(json_object_get(json_array_get(recs, 1),
	    "tool")), "Big");
	CHECK_INT(json_string_length(json_object_get(json_array_get(recs, 1),
	    "output")), QUEUE_OUTPUT_MAX + 3);
	json_decref(recs);
	append_one(dir, "s", "C", "c", QUEUE_KEEP);
	CHECK_INT(lines_that_are_records(dir, "s.jsonl"), 4);
	sbuf_release(&sb);
	rmdir_all(dir);
}

static void
long_strings_are_stored_cut(void)
{
	char			*dir = tmpdir(), *big = malloc(5001);
	struct queue_call	 c = { "Bash", NULL, NULL, QUEUE_KEEP };
	json_t			*recs, *rec;
	struct err		 err;

	memset(big, 'x', 5000);
	big[5000] = '\0';
	c.args = json_pack("{s:s,s:[s]}", "command", big, "more", big);
	c.response = json_string(big);
	CHECK_INT(queue_append(dir, "s", &c, 1, &err), 0);
	CHECK_INT(queue_peek(dir, "s", &recs, &err), 0);
	rec = json_array_get(recs, 0);
	/* 500 units and "...": the payload cuts it to the same text */
	CHECK_INT(json_string_length(json_object_get(rec, "output")), 503);
	CHECK_STR(json_string_value(json_object_get(rec, "output")) + 497,
	    "xxx...");
	CHECK_INT(json_string_length(json_array_get(json_object_get(
	    json_object_get(rec, "args"), "more"), 0)), 1003);
	CHECK_STR(json_string_value(json_object_get(rec, "title")) + 77,
	    "xxx");
	json_decref(recs);
	json_decref((json_t *)c.args);
	json_decref((json_t *)c.response);
	free(big);
	rmdir_all(dir);
}

/* The names in dir that look like temporary files. */
static int
temporaries(const char *dir)
{
	struct dirent	*de;
	DIR		*d = opendir(dir);
	int		 n = 0;

	while (d != NULL && (de = readdir(d)) != NULL)
		n += strstr(de->d_name, ".tmp.") != NULL;
	if (d != NULL)
		closedir(d);
	return n;
}

static void
a_failed_write_leaves_the_queue_as_it_was(void)
{
	char		*dir = tmpdir(), *path;
	struct sbuf	 before = SBUF_INIT, after = SBUF_INIT;
	struct rlimit	 rl;
	struct stat	 st;
	struct err	 err;
	pid_t		 kid;
	int		 status;

	append_one(dir, "s", "Bash", "first", QUEUE_KEEP);
	append_one(dir, "s", "Bash", "second", QUEUE_KEEP);
	path = path_join(dir, "s.jsonl");
	CHECK_INT(stat(path, &st), 0);
	sbuf_init(&before);
	CHECK_INT(fileio_read(path, &before, NULL), 0);
	/* a disk that fills up half way: the rewrite cannot finish */
	if ((kid = fork()) == 0) {
		signal(SIGXFSZ, SIG_IGN);
		rl.rlim_cur = rl.rlim_max = (rlim_t)st.st_size + 16;
		setrlimit(RLIMIT_FSIZE, &rl);
		status = queue_append(dir, "s", &(struct queue_call){ "Bash",
		    NULL, NULL, QUEUE_KEEP }, 1, &err) == -1 &&
		    strstr(err.msg, "cannot write") != NULL ? 0 : 1;
		free(path);	/* what the child inherited (valgrind) */
		sbuf_release(&before);
		free(dir);
		_exit(status);
	}
	CHECK(waitpid(kid, &status, 0) == kid && WIFEXITED(status) &&
	    WEXITSTATUS(status) == 0);
	sbuf_init(&after);
	CHECK_INT(fileio_read(path, &after, NULL), 0);
	CHECK_STR(after.buf, before.buf);
	CHECK_INT(temporaries(dir), 0);
	append_one(dir, "s", "Bash", "third", QUEUE_KEEP);
	CHECK_INT(lines_that_are_records(dir, "s.jsonl"), 3);
	sbuf_release(&before);
	sbuf_release(&after);
	free(path);
	rmdir_all(dir);
}

static void
symlinks_and_fifos_are_refused(void)
{
	char		*dir = tmpdir(), *target, *path;
	const char	 rec[] = "{\"tool\":\"Secret\",\"output\":"
			    "\"theirs\"}\n";
	struct sbuf	 sb = SBUF_INIT;
	json_t		*recs = NULL;
	struct err	 err;

	target = path_join(dir, "../target");
	plant(dir, "../target", rec, sizeof(rec) - 1);
	path = path_join(dir, "s.jsonl");
	CHECK_INT(symlink(target, path), 0);
	CHECK_INT(queue_peek(dir, "s", &recs, &err), -1);
	CHECK(strstr(err.msg, "symbolic link") != NULL);
	CHECK_INT(queue_append(dir, "s", &(struct queue_call){ "Bash", NULL,
	    NULL, QUEUE_KEEP }, 1, &err), -1);
	free(path);
	path = path_join(dir, "s.count");
	CHECK_INT(symlink(target, path), 0);
	CHECK_INT(queue_missed(dir, "s"), 0);
	CHECK_INT(queue_missed_bump(dir, "s", &err), 0);
	sbuf_init(&sb);
	CHECK_INT(fileio_read(target, &sb, NULL), 0);
	CHECK_STR(sb.buf, rec);		/* never written through */
	free(path);
	/* a FIFO would block the hook's open for ever */
	alarm(10);
	path = path_join(dir, "f.jsonl");
	CHECK_INT(mkfifo(path, 0600), 0);
	CHECK_INT(queue_peek(dir, "f", &recs, &err), -1);
	CHECK(strstr(err.msg, "not a regular file") != NULL);
	alarm(0);
	sbuf_release(&sb);
	free(path);
	free(target);
	rmdir_all(dir);
}

static void
files_are_private_and_temporaries_swept(void)
{
	char			*dir = tmpdir(), *path;
	static const char	*const names[] = { "s.jsonl.tmp.4242",
		"s.jsonl.tmp.0123456789abcdef", "s.count.tmp.7",
		"s.nudge.4243", "s.jsonl.tmp.fresh0", "notes.tmp.1" };
	struct timespec		 ts[2];
	struct stat		 st;
	struct err		 err;
	mode_t			 old = umask(0);
	long			 now = (long)time(NULL);
	size_t			 i;

	append_one(dir, "s", "Bash", "kept", QUEUE_KEEP);
	umask(old);
	path = path_join(dir, "s.jsonl");
	CHECK_INT(stat(path, &st), 0);
	CHECK_INT(st.st_mode & 0777, 0600);
	CHECK_INT(stat(dir, &st), 0);
	CHECK_INT(st.st_mode & 0777, 0700);
	CHECK_INT(temporaries(dir), 0);
	free(path);
	/* what killed hooks leave: older ones a pid, this one random hex */
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		plant(dir, names[i], "tool output", 11);
		path = path_join(dir, names[i]);
		ts[0].tv_sec = ts[1].tv_sec = i == 4 ? now : now - 600;
		ts[0].tv_nsec = ts[1].tv_nsec = 0;
		CHECK_INT(utimensat(AT_FDCWD, path, ts, 0), 0);
		free(path);
	}
	CHECK_INT(queue_prune(dir, QUEUE_MAX_AGE, now, &err), 4);
	CHECK_INT(temporaries(dir), 2);		/* the fresh one, not ours */
	CHECK_INT(queued(dir, "s"), 1);
	rmdir_all(dir);
}

/* issue 29: the files a call touched, as anchors, each once */
static void
a_call_names_its_repository_files(void)
{
	char	*dir = tmpdir(), *proj = path_dirname(dir), *root, *git;
	char	 args[1024], *text;
	json_t	*a, *f;

	git = path_join(proj, ".git");
	CHECK(mkdir(git, 0700) == 0);
	root = anchor_root(proj);
	CHECK(root != NULL);
	snprintf(args, sizeof(args), "{\"file_path\":\"%s/src/a.c\","
	    "\"filePath\":\"src/a.c\"}", proj);
	a = json_loads(args, 0, NULL);
	f = queue_files("MultiEdit", a, proj, root);
	text = f != NULL ? json_dumps(f, JSON_COMPACT) : NULL;
	CHECK_STR(text != NULL ? text : "(null)", "[\"src/a.c\"]");
	free(text);
	json_decref(f);
	json_decref(a);
	a = json_pack("{s:s}", "file_path", "/etc/hostname");
	CHECK(queue_files("Read", a, proj, root) == NULL);
	CHECK(queue_files("Bash", a, proj, root) == NULL);
	json_decref(a);
	a = json_pack("{s:s}", "path", "../elsewhere");
	CHECK(queue_files("grep", a, proj, root) == NULL);
	CHECK(queue_files("grep", a, proj, NULL) == NULL);
	json_decref(a);
	free(root);
	free(git);
	free(proj);
	rmdir_all(dir);
}

CHECK_MAIN(
	TEST(session_ids_cannot_escape_the_queue_folder),
	TEST(sessions_are_listed_by_file_name),
	TEST(records_keep_the_order_and_shape_of_the_original),
	TEST(only_the_newest_twenty_records_are_kept),
	TEST(a_remember_drains_what_was_queued_before_it),
	TEST(corrupt_lines_do_not_hide_the_others),
	TEST(concurrent_appenders_lose_nothing),
	TEST(titles_and_summaries_follow_the_tool),
	TEST(a_call_names_its_repository_files),
	TEST(the_payload_has_the_spec_shape),
	TEST(a_pending_nudge_is_taken_once),
	TEST(every_reader_takes_the_regression_inputs),
	TEST(a_record_without_args_has_a_payload),
	TEST(long_lines_are_cut_or_skipped),
	TEST(long_strings_are_stored_cut),
	TEST(a_failed_write_leaves_the_queue_as_it_was),
	TEST(symlinks_and_fifos_are_refused),
	TEST(files_are_private_and_temporaries_swept)
)
