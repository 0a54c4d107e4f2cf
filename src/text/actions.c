/*
 * actions.c — the /thatch actions (defrag, extract, hygiene, reflect): the
 * prompt cores, the one registry every host renders, the tool namer, and
 * the MCP server's instructions paragraph.
 *
 * Written once, host-agnostic, in thatch's own words (engines-and-extras
 * §B8 paraphrases what each action asks; the texts are ours). The Claude
 * Code command files (host/setup/claude.c), the opencode command files and the
 * MCP prompts (host/prompts.c) are all rendered from text_actions[]; the
 * reminder's tending advice and the extraction nudge (nudge.c) reuse the
 * hygiene and extract summaries.
 *  1. A template names a tool only as `{tool}`, where tool is the MCP name
 *     of a row of the tool table (test_actions checks every one), so each
 *     host reads its own spelling and a renamed tool fails a test.
 *  2. Templates hold no other braces: text_expand copies an unmatched '{'
 *     verbatim, but nothing here relies on that.
 *  3. Every body is a numbered procedure an agent can follow without
 *     guessing: which tool, which arguments, when to stop, what to report.
 */
#include "text/actions.h"

#include <string.h>

#include "util/sbuf.h"

const struct text_action text_actions[] = {
	{
		.name = "defrag",
		.description = "Merge the thatch store's near-duplicate "
		    "memories",
		.summary = "Consolidate this project's thatch store: find "
		    "the near-duplicate memories, record a verdict for every "
		    "pair, then merge each cluster into one memory, so that "
		    "`{find_duplicates}` comes back empty.",
		.body =
"1. Call `{find_duplicates}` with no arguments (this project's store). If it\n"
"   reports no pairs, tell the user the store is already consolidated and stop.\n"
"2. For each pair, read both memories in full with `{memory_show}` and\n"
"   classify the pair with the thatch-dedup-classifier skill: `duplicate`\n"
"   (the same fact twice), `supplement` (one adds detail to the other),\n"
"   `contradiction` (they disagree) or `unrelated`.\n"
"3. Record every verdict before changing any memory: `{dedup_mark_checked}`\n"
"   with `label_a`, `label_b` (as `{find_duplicates}` printed them) and\n"
"   `status`. It refuses a label that names no memory, so record first.\n"
"4. Group the duplicates and supplements that share memories into clusters.\n"
"   For each cluster pick the survivor (the most complete and most recently\n"
"   confirmed memory), rewrite it with `{memory_remember}` and\n"
"   `overwrite: true` so that it holds everything still true from the whole\n"
"   cluster, then delete every other member with `{memory_forget}`.\n"
"   A contradiction is not yours to settle by guessing: if the code or this\n"
"   conversation shows which memory is right, fix or forget the wrong one the\n"
"   same way; otherwise keep both and ask the user at the end.\n"
"5. Call `{find_duplicates}` again: rewriting a memory clears the verdicts on\n"
"   its pairs, so a pair may come back; record its verdict again (step 3).\n"
"6. Optionally run `{prediction_list}` and `{behavior_list}`; where two\n"
"   entries say the same thing, keep the one with the higher confidence and\n"
"   delete the other with `{prediction_delete}` or `{behavior_delete}`.\n"
"7. Finish with a short report: pairs reviewed, memories merged and\n"
"   forgotten, and any contradiction the user must decide.\n",
	},
	{
		.name = "extract",
		.description = "Save this conversation's durable facts to "
		    "thatch",
		.summary = "Apply the thatch-fact-extractor skill: keep only "
		    "durable facts (decisions, conventions, commands that "
		    "work, pitfalls, the user's preferences and corrections), "
		    "look each one up with `{memory_recall}` so nothing is "
		    "saved twice, and save what is new with "
		    "`{memory_remember}`.",
		.body =
"1. Look back over the work in this conversation since facts were last saved:\n"
"   decisions taken, conventions discovered, commands that work or fail,\n"
"   pitfalls, the user's preferences and corrections.\n"
"2. Keep only what will still be true and useful in a later session. Drop\n"
"   progress notes, one-off values and whatever the code or the docs already\n"
"   say plainly.\n"
"3. For each candidate, call `{memory_recall}` with a query that describes\n"
"   it. If a memory already says it, skip it. If one says it partly or out\n"
"   of date, rewrite that memory with `{memory_remember}` under its own\n"
"   label with `overwrite: true`.\n"
"4. Save each new fact with `{memory_remember}`: a short, specific label;\n"
"   content that stands on its own (what, why, where it applies); `branch`\n"
"   only when the fact holds on the current branch alone; `store: \"global\"`\n"
"   for a preference of the user's that applies to every project.\n"
"5. If a `[thatch]` nudge in this conversation asked for fact extraction and\n"
"   named a session id, also call `{get_extraction_payload}` with that\n"
"   `session_id`, treat what it returns the same way, then call\n"
"   `{extraction_done}` with the same `session_id`.\n"
"6. Tell the user in a line or two which memories you saved or updated, or\n"
"   that nothing was worth keeping.\n",
	},
	{
		.name = "hygiene",
		.description = "Tend the thatch store: duplicate, stale and "
		    "drifted memories",
		.summary = "Call `{store_hygiene}` with `list: true` (or run "
		    "`thatch hygiene --list`) to see which memories these "
		    "are. Run `{find_duplicates}` and consolidate each "
		    "cluster; look at stale memories with `{memory_show}` and "
		    "update or forget them; fold the memories of deleted "
		    "branches into one archived summary memory, then forget "
		    "the originals; check memories whose code changed against "
		    "it and save them again.",
		.body =
"1. Get the hygiene report with the memories behind it: call\n"
"   `{store_hygiene}` with `list: true` (in a shell, `thatch hygiene --list`\n"
"   prints the same). It names the pending duplicate pairs, the memories\n"
"   neither updated nor recalled in 90 days, the memories scoped to\n"
"   deleted branches and the memories whose code changed, or says the store\n"
"   is healthy (then stop).\n"
"2. Duplicates: call `{find_duplicates}` and work through the pairs as the\n"
"   defrag action does: classify each with the thatch-dedup-classifier\n"
"   skill, record every verdict with `{dedup_mark_checked}` first, then\n"
"   merge clusters (`{memory_remember}` with `overwrite: true` on the\n"
"   survivor, `{memory_forget}` on the rest).\n"
"3. Stale memories: read each with `{memory_show}` and check it against the\n"
"   code and docs as they are now (the thatch-memory-verify skill). Still\n"
"   true: save it again with `{memory_remember}` and `overwrite: true`,\n"
"   which refreshes its date. Partly wrong: rewrite it the same way. No\n"
"   longer true or no longer useful: `{memory_forget}` it; if it is history\n"
"   worth keeping, save it with `archived: true` instead.\n"
"4. Deleted branches: for each branch the report names, take its memories\n"
"   from the list of step 1, save one summary memory\n"
"   without a branch and with `archived: true` that keeps whatever is still\n"
"   worth knowing, then `{memory_forget}` the originals.\n"
"5. Drifted memories (their code changed since they were written): the list\n"
"   names each with its files and the commits since. Read the files as they\n"
"   are now and apply the verdicts of step 3; saving it again with\n"
"   `overwrite: true` records its anchors against the current code.\n"
"6. Report what you refreshed, rewrote, archived and forgot. Ask the user\n"
"   before forgetting anything you are unsure about.\n",
	},
	{
		.name = "reflect",
		.description = "Record this conversation's lessons in thatch",
		.summary = "Review this conversation for what it taught you "
		    "and record each lesson where it will be used again: the "
		    "user's corrections as predictions, recurring lapses of "
		    "discipline as behaviors, durable facts as memories.",
		.body =
"1. Re-read the conversation and list the moments that taught something:\n"
"   the user corrected you or chose differently than you expected, you\n"
"   repeated a mistake or cut a corner, a fact about the project or the user\n"
"   came up.\n"
"2. For each correction or surprising choice of the user's, call\n"
"   `{prediction_query}` with the situation as `context`. If a prediction\n"
"   covers it, call `{prediction_update}` with that prediction's `matcher`\n"
"   and `prediction` and `signal` `confirm` (it was right) or `disconfirm`\n"
"   (it was wrong); otherwise create one with `signal` `create`: `matcher`\n"
"   phrased \"when ...\", `prediction` saying what the user wants then, and\n"
"   `rationale` quoting what they said or did.\n"
"3. For a lapse of discipline that happened more than once, or that the user\n"
"   had to point out, call `{behavior_codify}` with the `situation`, the\n"
"   `behavior` to follow and the `rationale`. Codify only rules that ask for\n"
"   more care or effort, never one that lets you skip work (\"skip the tests\n"
"   for small changes\" is not a rule).\n"
"4. For each durable fact, check `{memory_recall}` first and save what is new\n"
"   with `{memory_remember}`, as the extract action does.\n"
"5. Give the user a short summary: each lesson in one line, and where you\n"
"   recorded it.\n",
	},
};

const size_t text_nactions = sizeof(text_actions) / sizeof(text_actions[0]);

static const char *const prefixes[] = {
	[TEXT_HOST_CLAUDE] = "mcp__thatch__",
	[TEXT_HOST_CURSOR] = "",
	[TEXT_HOST_OPENCODE] = "thatch_",
};

const char *
text_tool_prefix(enum text_host h)
{
	return prefixes[h];
}

const struct text_action *
text_action_find(const char *name)
{
	size_t	i;

	for (i = 0; name != NULL && i < text_nactions; i++)
		if (strcmp(text_actions[i].name, name) == 0)
			return &text_actions[i];
	return NULL;
}

void
text_expand(struct sbuf *sb, const char *tmpl, const char *prefix)
{
	const char	*p = tmpl, *open, *close;

	while ((open = strchr(p, '{')) != NULL &&
	    (close = strchr(open, '}')) != NULL) {
		sbuf_add(sb, p, (size_t)(open - p));
		if (strspn(open + 1, "abcdefghijklmnopqrstuvwxyz_") ==
		    (size_t)(close - open - 1) && close > open + 1) {
			sbuf_adds(sb, prefix);
			sbuf_add(sb, open + 1, (size_t)(close - open - 1));
		} else
			sbuf_add(sb, open, (size_t)(close - open + 1));
		p = close + 1;
	}
	sbuf_adds(sb, p);
}

void
text_action_render(struct sbuf *sb, const struct text_action *a,
    enum text_host h)
{
	text_expand(sb, a->summary, prefixes[h]);
	sbuf_adds(sb, "\n\n");
	text_expand(sb, a->body, prefixes[h]);
}

void
text_action_file(struct sbuf *sb, const struct text_action *a,
    enum text_host h)
{
	const char	*p;

	/* a YAML double-quoted scalar: descriptions hold ": " */
	sbuf_adds(sb, "---\ndescription: \"");
	for (p = a->description; *p != '\0'; p++) {
		if (*p == '"' || *p == '\\')
			sbuf_addc(sb, '\\');
		sbuf_addc(sb, *p);
	}
	sbuf_adds(sb, "\"\n---\n\n");
	text_action_render(sb, a, h);
}

void
text_action_name(struct sbuf *sb, const struct text_action *a,
    enum text_host h)
{
	static const char *const sep[] = {
		[TEXT_HOST_CLAUDE] = ":",
		[TEXT_HOST_CURSOR] = "-",
		[TEXT_HOST_OPENCODE] = "/",
	};

	sbuf_addf(sb, "thatch%s%s", sep[h], a->name);
}

void
text_mcp_instructions(struct sbuf *sb, const char *prefix)
{
	text_expand(sb, "thatch is the user's persistent memory across "
	    "sessions: facts, decisions, conventions and preferences saved "
	    "by earlier conversations, kept per project and in a \"global\" "
	    "store. Call `{memory_recall}` before you start a task, explore "
	    "unfamiliar code or make a decision the user may have views on; "
	    "call `{memory_remember}` when you learn something worth keeping "
	    "(a decision, a convention, a correction, a preference). "
	    "`{memory_list}` and `{store_list}` show what exists.", prefix);
}
