/*
 * test_hook.c — what the hook commands read from the hosts and how they
 * answer: field fallbacks, which tool calls are thatch's own, the three
 * output forms, and the texts the acceptance checks look for.
 */
#include "check.h"

#include <stdlib.h>
#include <unistd.h>

#include "host/hook.h"
#include "text/nudge.h"
#include "util/sbuf.h"

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

CHECK_MAIN(
	TEST(fields_fall_back_in_the_spec_order),
	TEST(input_that_is_no_object_reads_as_empty),
	TEST(thatch_tools_are_recognised_in_every_spelling),
	TEST(outputs_have_each_hosts_shape),
	TEST(nudge_texts_carry_what_checks_look_for)
)
