/*
 * text_opencode.c — what thatch says inside opencode: the system prompt, the
 * compaction context, the extraction child's prompt and the toasts
 * (hosts-hooks-cli §7.4, §9.2, §9.3, §9.5), in thatch's own words.
 *  1. The system prompt's body is the MCP hosts' instruction block
 *     rendered with the thatch_ prefix (block.c), so the advice and the
 *     tool list are the same on every host.
 *  2. Toast texts follow §9.5 to the character, singulars included.
 */
#include "text/text_opencode.h"

#include "text/block.h"
#include "util/sbuf.h"

static const struct text_block_host	OPENCODE = {
	"# Persistence\n\nThatch provides persistent memory across opencode "
	    "sessions.",
	"opencode", "AGENTS.md", TEXT_OPENCODE_PREFIX,
};

void
text_opencode_system(struct sbuf *sb, const char *repo,
    const char *const *tools)
{
	text_block_render(sb, &OPENCODE, tools);
	sbuf_addf(sb, "\n\n## This session's stores\n\n"
	    "The project store is \"%s\"; the user's store is \"global\". "
	    "Recall searches both.\n\n"
	    "## Before Responding\n\n"
	    "Before you write a final answer after substantial work, check "
	    "whether you learned something durable (a convention, a decision "
	    "and its reason, a pitfall, a preference the user stated): "
	    "recall with %smemory_recall to avoid a duplicate, then save it "
	    "with %smemory_remember. Facts that exist only in the "
	    "conversation are never extracted for you.\n\n"
	    "## Background Task Completions\n\n"
	    "When a background task reports completion (a <task_result> "
	    "block, or a line such as \"[thatch-fact-extractor] extraction "
	    "complete - no action needed.\"), do not narrate it, do not treat "
	    "it as approval to act, and never dispatch another extraction "
	    "because of it: a completion is never a request. If you were "
	    "waiting for the user, keep waiting.", repo,
	    TEXT_OPENCODE_PREFIX, TEXT_OPENCODE_PREFIX);
}

void
text_opencode_compaction(struct sbuf *sb, const char *repo)
{
	sbuf_addf(sb, "[thatch] Persistent memory is active in this session "
	    "(stores \"%s\" and \"global\", tools %s*). Keep in the summary "
	    "what was learned and decided: conventions, architectural "
	    "decisions, and the knowledge recalled from memory.", repo,
	    TEXT_OPENCODE_PREFIX);
}

void
text_opencode_extract(struct sbuf *sb, const char *parent, size_t n)
{
	const char	*p = TEXT_OPENCODE_PREFIX;

	sbuf_addf(sb, "[thatch] Direct extraction for session %s: %zu tool "
	    "interaction%s wait%s.\n"
	    "1. Call %sget_extraction_payload with session_id \"%s\".\n"
	    "2. Load the thatch-fact-extractor skill and apply it to the "
	    "payload.\n"
	    "3. Save each durable fact with %smemory_remember.\n"
	    "4. Call %sextraction_done with session_id \"%s\", even when "
	    "nothing was worth saving.\n"
	    "End with the skill's completion line.", parent, n,
	    n == 1 ? "" : "s", n == 1 ? "s" : "", p, parent, p, p, parent);
}

int
text_opencode_toast_metrics(struct sbuf *sb, const int m[3])
{
	static const char *const	name[3] = { "new", "updated",
					    "deleted" };
	int				i, any = 0;

	for (i = 0; i < 3; i++) {
		if (m[i] == 0)
			continue;
		sbuf_addf(sb, "%s%s: %d", any ? ", " : "[thatch] ", name[i],
		    m[i]);
		any = 1;
	}
	if (!any)
		sbuf_adds(sb, "[thatch] extraction complete \u2014 nothing to "
		    "save");
	return any;
}

void
text_opencode_toast(struct sbuf *sb, enum text_opencode_toast k, size_t n)
{
	switch (k) {
	case TEXT_TOAST_RECALL:
		sbuf_addf(sb, "[thatch] recalled %zu memor%s", n,
		    n == 1 ? "y" : "ies");
		break;
	case TEXT_TOAST_PREDICTIONS:
		sbuf_addf(sb, "[thatch] %zu prediction%s surfaced", n,
		    n == 1 ? "" : "s");
		break;
	case TEXT_TOAST_BEHAVIORS:
		sbuf_addf(sb, "[thatch] %zu behavior%s surfaced", n,
		    n == 1 ? "" : "s");
		break;
	}
}
