/*
 * test_hook.c — what the hook commands read from the hosts and how they
 * answer: field fallbacks, which tool calls are thatch's own, the three
 * output forms, and the texts the acceptance checks look for; stdin cut
 * to size whatever arrives; and the extraction tools over the file queue
 * saying what really happened.
 */
#include "check.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/hook.h"
#include "text/nudge.h"
#include "tools/tool.h"
#include "util/err.h"
#include "util/jsonx.h"
#include "util/path.h"
#include "util/sbuf.h"
#include "util/xmalloc.h"

static json_t *
parse(const char *s)
{
	int	p[2];
	json_t	*v;

	if (pipe(p) != 0)
		return NULL;
	if (write(p[1], s, strlen(s)) < 0)
		return NULL;
	close(p[1]);
	v = hook_read(p[0], NULL);
	close(p[0]);
	return v;
}

static void
fields_fall_back_in_the_spec_order(void)
{
	json_t	*in;

	in = parse("{\"session_id\":\"claude\",\"conversation_id\":\"cursor\","
	    "\"message\":\"m\",\"input\":\"i\"}");
	CHECK_STR(hook_session(in), "cursor");
	CHECK_STR(json_string_value(hook_prompt(in)), "m");
	json_decref(in);
	in = parse("{\"session_id\":\"s\",\"conversation_id\":null,"
	    "\"prompt\":\"\",\"text\":\"t\"}");
	CHECK_STR(hook_session(in), "s");
	/* an empty prompt is present and shadows later fields (§0.3) */
	CHECK_STR(json_string_value(hook_prompt(in)), "");
	json_decref(in);
	in = parse("{\"tool_output\":\"{\\\"a\\\":1}\","
	    "\"tool_response\":\"r\"}");
	CHECK_STR(json_string_value(hook_tool_response(in)), "{\"a\":1}");
	json_decref(in);
	in = parse("{\"error_message\":\"boom\"}");
	CHECK_STR(json_string_value(hook_tool_response(in)), "boom");
	json_decref(in);
}

static void
input_that_is_no_object_reads_as_empty(void)
{
	json_t	*in;

	CHECK(parse("") == NULL);
	CHECK(parse("{oops") == NULL);
	in = parse("[1,2]");
	CHECK(json_is_object(in) && json_object_size(in) == 0);
	CHECK(hook_session(in) == NULL);
	json_decref(in);
	in = parse("{\"cursor_version\":\"1.7\"}");
	CHECK(hook_in_cursor(in));
	json_decref(in);
}

static void
thatch_tools_are_recognised_in_every_spelling(void)
{
	CHECK_INT(hook_verdict("mcp__thatch__memory_remember", false),
	    QUEUE_DRAIN);
	CHECK_INT(hook_verdict("mcp__thatch__memory_remember", true),
	    QUEUE_SKIP);
	CHECK_INT(hook_verdict("mcp__memory__extraction_done", false),
	    QUEUE_DRAIN);
	CHECK_INT(hook_verdict("MCP:extraction_done", false), QUEUE_DRAIN);
	CHECK_INT(hook_verdict("thatch_memory_recall", false), QUEUE_SKIP);
	CHECK_INT(hook_verdict("mcp__thatch__memory_list", false), QUEUE_SKIP);
	CHECK_INT(hook_verdict("Task", false), QUEUE_SKIP);
	CHECK_INT(hook_verdict("AGENT", false), QUEUE_SKIP);
	CHECK_INT(hook_verdict("Read", false), QUEUE_KEEP);
	CHECK_INT(hook_verdict("mcp__github__create_issue", false),
	    QUEUE_KEEP);
}

static void
outputs_have_each_hosts_shape(void)
{
	char	*buf = NULL;
	size_t	 len = 0;
	FILE	*fp = open_memstream(&buf, &len);

	hook_emit(fp, HOOK_PLAIN, NULL, "[thatch] a\nb");
	hook_emit(fp, HOOK_CURSOR, NULL, "[thatch] \"q\"");
	hook_emit(fp, HOOK_CLAUDE_EVENT, "PostToolBatch", "x");
	fclose(fp);
	CHECK_STR(buf, "[thatch] a\nb\n"
	    "{\"additional_context\":\"[thatch] \\\"q\\\"\"}\n"
	    "{\"hookSpecificOutput\":{\"hookEventName\":\"PostToolBatch\","
	    "\"additionalContext\":\"x\"}}\n");
	free(buf);
}

static void
nudge_texts_carry_what_checks_look_for(void)
{
	struct sbuf		 sb = SBUF_INIT;
	const char *const	 labels[] = { "a", "b" };

	sbuf_init(&sb);
	text_nudge_extract(&sb, 1, 0, "S", "mcp__thatch__");
	CHECK(strstr(sb.buf, "1 queued tool interaction is") != NULL);
	CHECK(strstr(sb.buf, "fact-extractor") != NULL);
	CHECK(strstr(sb.buf, "background sub-agent") != NULL);
	sbuf_reset(&sb);
	text_nudge_extract(&sb, 4, 7, "MiXed", "");
	CHECK(strstr(sb.buf, "4 queued tool interactions") != NULL);
	CHECK(strstr(sb.buf, "session_id \"MiXed\"") != NULL);
	CHECK(strstr(sb.buf, "thatch-fact-extractor") != NULL);
	sbuf_reset(&sb);
	text_nudge_write(&sb);
	CHECK(strstr(sb.buf, "did you learn") != NULL);
	sbuf_reset(&sb);
	text_nudge_recall(&sb, 1, labels);
	CHECK_STR(sb.buf, "[thatch] 1 stored memory relates to this prompt "
	    "(\"a\"). Use memory_recall to read it before you respond.");
	sbuf_reset(&sb);
	text_nudge_recall(&sb, 2, labels);
	CHECK(strstr(sb.buf, "2 stored memories relate to this prompt "
	    "(\"a\", \"b\").") != NULL);
	sbuf_release(&sb);
}


/* hook_read of len bytes that a pipe could not hold. */
static json_t *
parse_big(const char *s, size_t len, struct err *err)
{
	FILE	*fp = tmpfile();
	json_t	*v;

	if (fp == NULL || fwrite(s, 1, len, fp) != len || fflush(fp) != 0)
		return NULL;
	rewind(fp);
	v = hook_read(fileno(fp), err);
	fclose(fp);
	return v;
}

/* {"a":"<unit x n>","b":"after"}, through hook_read: a's value. */
static json_t *
long_string(const char *unit, size_t n, struct err *err)
{
	struct sbuf	 sb = SBUF_INIT;
	json_t		*v;
	size_t		 i;

	sbuf_init(&sb);
	sbuf_adds(&sb, "{\"a\":\"");
	for (i = 0; i < n; i++)
		sbuf_adds(&sb, unit);
	sbuf_adds(&sb, "\",\"b\":\"after\"}");
	v = parse_big(sb.buf, sb.len, err);
	sbuf_release(&sb);
	return v;
}

static void
long_strings_on_stdin_are_cut_between_characters(void)
{
	static const char *const	units[] = { "x", "\xc3\xa9",
		"\xf0\x9f\x98\x80", "\\u00e9", "\\ud83d\\ude00", "\\\"",
		"ab\\n", NULL };
	const char *const		*u;
	struct err			 err;
	json_t				*in;
	size_t				 len;

	for (u = units; *u != NULL; u++) {
		in = long_string(*u, HOOK_STRING_MAX, &err);
		CHECK(in != NULL);
		if (in == NULL) {
			fprintf(stderr, "  (%s: %s)\n", *u, err.msg);
			continue;
		}
		len = json_string_length(json_object_get(in, "a"));
		/* cut, and never more than a character past the bound */
		CHECK(len > HOOK_STRING_MAX / 7 && len <= HOOK_STRING_MAX + 4);
		CHECK_STR(jsonx_str(in, "b"), "after");
		json_decref(in);
	}
	in = long_string("x", HOOK_STRING_MAX * 3, &err);
	CHECK_INT(json_string_length(json_object_get(in, "a")),
	    HOOK_STRING_MAX);
	json_decref(in);
	in = long_string("x", 100, &err);
	CHECK_INT(json_string_length(json_object_get(in, "a")), 100);
	json_decref(in);
}

static void
oversized_stdin_is_refused(void)
{
	struct sbuf	 sb = SBUF_INIT;
	struct err	 err;
	size_t		 i;

	sbuf_init(&sb);
	sbuf_addc(&sb, '[');
	for (i = 0; i < HOOK_INPUT_MAX / 2 + 1; i++)
		sbuf_adds(&sb, "0,");
	sbuf_adds(&sb, "0]");
	CHECK(parse_big(sb.buf, sb.len, &err) == NULL);
	CHECK(strstr(err.msg, "over 16 MiB") != NULL);
	sbuf_release(&sb);
}

/* Run the tool name with {"session_id":sid} in ctx: its status. */
static int
run_tool(struct tool_ctx *ctx, const char *name, const char *sid,
    struct sbuf *out, struct err *err)
{
	json_t	*args = json_pack("{s:s}", "session_id", sid);
	int	 rc;

	sbuf_reset(out);
	rc = tool_find(name)->run(ctx, args, out, err);
	json_decref(args);
	return rc;
}

static void
extraction_tools_say_what_happened(void)
{
	char			 tpl[] = "/tmp/thatch-hook.XXXXXX";
	struct paths		 p;
	struct tool_ctx		 ctx;
	struct sbuf		 out = SBUF_INIT;
	struct queue_call	 c = { "Bash", NULL, NULL, QUEUE_KEEP };
	struct err		 err;
	json_t			*recs;
	char			*count, *queue, cmd[64];

	paths_init(&p);
	free(p.queue_dir);
	p.queue_dir = xstrdup(mkdtemp(tpl));
	tool_ctx_init(&ctx, NULL, "proj", &p);
	hook_wire_queue(&ctx);
	sbuf_init(&out);
	CHECK_INT(queue_append(p.queue_dir, "s", &c, 1, &err), 0);
	CHECK_INT(run_tool(&ctx, "get_extraction_payload", "s", &out, &err),
	    0);
	CHECK(strstr(out.buf, "\"interactions\":[{\"tool\":\"Bash\"") != NULL);
	/* a counter that cannot be deleted: the queue stays, and says so */
	count = path_join(p.queue_dir, "s.count");
	CHECK_INT(mkdir(count, 0700), 0);
	CHECK_INT(run_tool(&ctx, "extraction_done", "s", &out, &err), -1);
	CHECK(strstr(err.msg, "were not released") != NULL);
	CHECK_STR(out.buf, "");
	CHECK_INT(queue_peek(p.queue_dir, "s", &recs, &err), 0);
	CHECK_INT(json_array_size(recs), 1);
	json_decref(recs);
	rmdir(count);
	CHECK_INT(run_tool(&ctx, "extraction_done", "s", &out, &err), 0);
	CHECK_STR(out.buf, "[acknowledged]");
	CHECK_INT(run_tool(&ctx, "get_extraction_payload", "s", &out, &err),
	    0);
	CHECK_STR(out.buf, "No queued tool interactions found for this "
	    "session.");
	/* a planted symlink is an error, not someone else's records */
	queue = path_join(p.queue_dir, "s.jsonl");
	CHECK_INT(symlink("/etc/passwd", queue), 0);
	CHECK_INT(run_tool(&ctx, "get_extraction_payload", "s", &out, &err),
	    -1);
	CHECK(strstr(err.msg, "symbolic link") != NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", p.queue_dir);
	CHECK_INT(system(cmd), 0);
	free(count);
	free(queue);
	sbuf_release(&out);
	tool_ctx_release(&ctx);
	paths_release(&p);
}

CHECK_MAIN(
	TEST(fields_fall_back_in_the_spec_order),
	TEST(input_that_is_no_object_reads_as_empty),
	TEST(thatch_tools_are_recognised_in_every_spelling),
	TEST(outputs_have_each_hosts_shape),
	TEST(nudge_texts_carry_what_checks_look_for),
	TEST(long_strings_on_stdin_are_cut_between_characters),
	TEST(oversized_stdin_is_refused),
	TEST(extraction_tools_say_what_happened)
)
