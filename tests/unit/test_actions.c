/*
 * test_actions.c — the /thatch actions registry (engines-and-extras §B8):
 * the parity of the three renderings (Claude Code command files, MCP
 * prompts, opencode command files), tool names that exist and are spelled
 * per host, and the nudges that reuse the action cores.
 */
#include "check.h"

#include <stdlib.h>
#include <string.h>

#include "host/prompts.h"
#include "text/actions.h"
#include "text/nudge.h"
#include "tools/tool.h"
#include "util/sbuf.h"

static const char *const hosts_names[] = { "claude", "cursor", "opencode" };

/* The documented set: four actions, every host; wrap-ups are excluded. */
static void
every_host_gets_the_same_four_actions(void)
{
	static const char *const want[] = {
		"defrag", "extract", "hygiene", "reflect"
	};
	const struct mcp_prompt *const	*p;
	struct prompts			*ps = prompts_new(MCP_HOST_CURSOR);
	struct sbuf			 sb = SBUF_INIT;
	size_t				 i;

	CHECK_INT(text_nactions, 4);
	for (i = 0; i < text_nactions && i < 4; i++)
		CHECK_STR(text_actions[i].name, want[i]);
	CHECK(text_action_find("compact") == NULL);
	CHECK(text_action_find("exit") == NULL);
	for (i = 0, p = prompts_list(ps); *p != NULL; p++, i++) {
		sbuf_init(&sb);
		text_action_name(&sb, &text_actions[i], TEXT_HOST_CURSOR);
		CHECK_STR((*p)->name, sb.buf);
		CHECK_STR((*p)->description, text_actions[i].description);
		sbuf_release(&sb);
	}
	CHECK_INT(i, text_nactions);
	sbuf_init(&sb);
	text_action_name(&sb, &text_actions[0], TEXT_HOST_CLAUDE);
	sbuf_adds(&sb, " ");
	text_action_name(&sb, &text_actions[0], TEXT_HOST_CURSOR);
	sbuf_adds(&sb, " ");
	text_action_name(&sb, &text_actions[0], TEXT_HOST_OPENCODE);
	CHECK_STR(sb.buf, "thatch:defrag thatch-defrag thatch/defrag");
	sbuf_release(&sb);
	prompts_free(ps);
}

/* Invariant 1 of actions.c: every {tool} is an MCP tool of the table. */
static void
every_placeholder_names_an_mcp_tool(void)
{
	const char	*texts[2], *p, *e;
	char		 name[64];
	size_t		 i, j, n;
	int		 seen = 0;

	for (i = 0; i < text_nactions; i++) {
		texts[0] = text_actions[i].summary;
		texts[1] = text_actions[i].body;
		for (j = 0; j < 2; j++)
			for (p = texts[j]; (p = strchr(p, '{')) != NULL; p = e) {
				e = strchr(p, '}');
				CHECK(e != NULL);
				if (e == NULL)
					break;
				n = (size_t)(e - p - 1);
				CHECK(n > 0 && n < sizeof(name));
				memcpy(name, p + 1, n);
				name[n] = '\0';
				if (tool_find(name) == NULL ||
				    !(tool_find(name)->flags & TOOL_MCP))
					CHECK_FAIL("%s names {%s}",
					    text_actions[i].name, name);
				seen++;
			}
	}
	CHECK(seen > 20);
}

/* Cursor's text with every `tool` of the table spelled `<pre>tool`. */
static void
respell(struct sbuf *out, const char *bare, const char *pre)
{
	const char	*p = bare, *open, *close;
	char		 name[64];
	size_t		 n;

	while ((open = strchr(p, '`')) != NULL &&
	    (close = strchr(open + 1, '`')) != NULL) {
		n = (size_t)(close - open - 1);
		sbuf_add(out, p, (size_t)(open + 1 - p));
		if (n < sizeof(name)) {
			memcpy(name, open + 1, n);
			name[n] = '\0';
			if (tool_find(name) != NULL)
				sbuf_adds(out, pre);
		}
		sbuf_add(out, open + 1, n + 1);
		p = close + 1;
	}
	sbuf_adds(out, p);
}

/*
 * The parity pin: the three renderings differ only in the tool spelling
 * (Claude Code's and opencode's texts are Cursor's with each tool name
 * respelled), and the command files are front-matter with the
 * description prompts/list gives, then exactly that text.
 */
static void
renderings_differ_only_in_tool_spelling(void)
{
	static const enum text_host hosts[] = {
		TEXT_HOST_CLAUDE, TEXT_HOST_CURSOR, TEXT_HOST_OPENCODE
	};
	struct sbuf	 bare = SBUF_INIT, got = SBUF_INIT, want = SBUF_INIT;
	struct sbuf	 file = SBUF_INIT;
	size_t		 i, h;

	CHECK_STR(text_tool_prefix(TEXT_HOST_CLAUDE), "mcp__thatch__");
	CHECK_STR(text_tool_prefix(TEXT_HOST_CURSOR), "");
	CHECK_STR(text_tool_prefix(TEXT_HOST_OPENCODE), "thatch_");
	for (i = 0; i < text_nactions; i++) {
		const struct text_action *a = &text_actions[i];

		sbuf_init(&bare);
		text_action_render(&bare, a, TEXT_HOST_CURSOR);
		CHECK(strchr(bare.buf, '{') == NULL);
		CHECK(strstr(bare.buf, "thatch_") == NULL);
		for (h = 0; h < 3; h++) {
			sbuf_init(&got);
			sbuf_init(&want);
			sbuf_init(&file);
			text_action_render(&got, a, hosts[h]);
			respell(&want, bare.buf, text_tool_prefix(hosts[h]));
			if (strcmp(got.buf, want.buf) != 0)
				CHECK_FAIL("%s for %s:\n%s", a->name,
				    hosts_names[h], got.buf);
			text_action_file(&file, a, hosts[h]);
			sbuf_reset(&want);
			sbuf_addf(&want, "---\ndescription: \"%s\"\n---\n\n%s",
			    a->description, got.buf);
			CHECK_STR(file.buf, want.buf);
			sbuf_release(&got);
			sbuf_release(&want);
			sbuf_release(&file);
		}
		sbuf_release(&bare);
	}
}

/* MCP prompts carry the spelling of the detected host. */
static void
prompts_render_with_the_host_spelling(void)
{
	struct prompts	*claude = prompts_new(MCP_HOST_CLAUDE);
	struct prompts	*cursor = prompts_new(MCP_HOST_CURSOR);
	const struct mcp_prompt	*p;
	char		*t;

	p = prompts_list(claude)[1];
	CHECK_STR(p->name, "thatch-extract");
	t = p->render(p, NULL);
	CHECK(strstr(t, "`mcp__thatch__memory_remember`") != NULL);
	free(t);
	p = prompts_list(cursor)[1];
	t = p->render(p, NULL);
	CHECK(strstr(t, "`memory_remember`") != NULL);
	CHECK(strstr(t, "mcp__") == NULL);
	free(t);
	prompts_free(claude);
	prompts_free(cursor);
}

/* The nudges quote the action cores, so they cannot drift apart. */
static void
nudges_reuse_the_action_cores(void)
{
	struct sbuf	 sb = SBUF_INIT, core = SBUF_INIT;

	sbuf_init(&sb);
	sbuf_init(&core);
	text_nudge_reminder(&sb, "o/r", NULL,
	    "Store \"o/r\": 1 duplicate-candidate "
	    "pair pending review.");
	text_expand(&core, text_action_find("hygiene")->summary, "");
	CHECK(strstr(sb.buf, core.buf) != NULL);
	sbuf_reset(&sb);
	sbuf_reset(&core);
	text_nudge_extract(&sb, 2, 0, "S1", "mcp__thatch__");
	text_expand(&core, text_action_find("extract")->summary,
	    "mcp__thatch__");
	CHECK(strstr(sb.buf, core.buf) != NULL);
	sbuf_release(&sb);
	sbuf_release(&core);
}

static void
expand_leaves_other_braces_alone(void)
{
	struct sbuf	sb = SBUF_INIT;

	sbuf_init(&sb);
	text_expand(&sb, "a {x_y} {Not} {} { b", "p_");
	CHECK_STR(sb.buf, "a p_x_y {Not} {} { b");
	sbuf_release(&sb);
}

static void
instructions_name_recall_and_remember(void)
{
	struct sbuf	sb = SBUF_INIT;

	sbuf_init(&sb);
	text_mcp_instructions(&sb, "mcp__thatch__");
	CHECK(strstr(sb.buf, "`mcp__thatch__memory_recall`") != NULL);
	CHECK(strstr(sb.buf, "`mcp__thatch__memory_remember`") != NULL);
	CHECK(strchr(sb.buf, '\n') == NULL);
	sbuf_release(&sb);
}

CHECK_MAIN(
	TEST(every_host_gets_the_same_four_actions),
	TEST(every_placeholder_names_an_mcp_tool),
	TEST(renderings_differ_only_in_tool_spelling),
	TEST(prompts_render_with_the_host_spelling),
	TEST(nudges_reuse_the_action_cores),
	TEST(expand_leaves_other_braces_alone),
	TEST(instructions_name_recall_and_remember)
)
