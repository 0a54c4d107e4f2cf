/*
 * test_queue.c — the extraction queue: file names from session ids, the
 * cap, drains, concurrent appenders, titles, summaries and the payload.
 */
#include "check.h"

#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/queue.h"
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
	CHECK_INT(queue_payload(dir, "s", "acme/api", &sb, &err), 0);
	CHECK_INT(queue_append(dir, "s", &c, 1, &err), 0);
	CHECK_INT(queue_payload(dir, "s", "acme/api", &sb, &err), 1);
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

CHECK_MAIN(
	TEST(session_ids_cannot_escape_the_queue_folder),
	TEST(records_keep_the_order_and_shape_of_the_original),
	TEST(only_the_newest_twenty_records_are_kept),
	TEST(a_remember_drains_what_was_queued_before_it),
	TEST(corrupt_lines_do_not_hide_the_others),
	TEST(concurrent_appenders_lose_nothing),
	TEST(titles_and_summaries_follow_the_tool),
	TEST(the_payload_has_the_spec_shape),
	TEST(a_pending_nudge_is_taken_once)
)
