/*
 * nudge.c — what the hook commands say to the agent.
 *
 * The reminder, the three-level extraction nudge, the write nudge and the
 * recall nudge (hosts-hooks-cli §5.2-§5.8, §7.1), in thatch's own words;
 * the elements acceptance checks look for are fixed by the spec and noted
 * where they occur. The tending advice and the extraction steps are the
 * hygiene and extract actions' summaries (actions.c), so a nudge and the
 * matching /thatch command say the same thing.
 *  1. Every text begins with "[thatch]" and has no trailing newline.
 *  2. The sub-agent prompt inside the extraction nudge is identical at
 *     every level (deviation §5.2: the original shouted it too, and the
 *     upper-cased session id then named no queue file).
 */
#include "text/nudge.h"

#include "text/actions.h"
#include "text/fence.h"
#include "util/sbuf.h"

void
text_nudge_reminder(struct sbuf *sb, const char *repo, const char *digest,
    const char *report)
{
	text_nudge_reminder_for(sb, repo, digest, report, "");
}

/*
 * Issue 27: the digest stands in for store_list and memory_list, whose
 * output grows with the store; the order line still names them (§7.1).
 */
void
text_nudge_reminder_for(struct sbuf *sb, const char *repo, const char *digest,
    const char *report, const char *p)
{
	sbuf_adds(sb, "[thatch] Before you respond, recall what thatch already "
	    "knows:\n"
	    "(1) the user's preferences and personality (store \"global\");\n"
	    "(2) the architecture and conventions of this project (store ");
	text_fence_quoted(sb, repo);
	sbuf_addf(sb, ");\n"
	    "(3) context scoped to the current branch, if it is not the main "
	    "branch.\n"
	    "A good order: the digest below (what %sstore_list would tell "
	    "you), then %smemory_recall by what the task touches: its files, "
	    "names and errors (%smemory_list pages through labels, newest "
	    "first, when you need to browse).\n", p, p, p);
	if (digest != NULL)
		sbuf_addf(sb, "%s\n", digest);
	sbuf_adds(sb, TEXT_NUDGE_DATA_NOTE);
	if (report == NULL)
		return;
	sbuf_addf(sb, "\n\n[thatch hygiene] %s\n"
	    "At a convenient point in this session (after you have dealt with "
	    "what the user asked, not before), tend the store. ", report);
	/* the hygiene action's core, in the host's tool spelling */
	text_expand(sb, text_action_find("hygiene")->summary, p);
}

/* The quoted prompt the main agent hands to its background sub-agent. */
static void
subagent_prompt(struct sbuf *sb, const char *sid, const char *prefix)
{
	sbuf_addf(sb, "\"Call %sget_extraction_payload with session_id "
	    "\"%s\" and read the tool interactions it returns. ", prefix, sid);
	text_expand(sb, text_action_find("extract")->summary, prefix);
	sbuf_addf(sb, " When you are done, call %sextraction_done with "
	    "session_id \"%s\", even if nothing was worth saving.\"", prefix,
	    sid);
}

void
text_nudge_extract(struct sbuf *sb, size_t n, int missed, const char *sid,
    const char *prefix)
{
	/* acceptance checks look for "queued tool interaction" */
	if (missed <= 1) {
		sbuf_addf(sb, "[thatch] %zu queued tool interaction%s %s ready "
		    "for fact extraction. Spawn a background sub-agent with "
		    "this prompt: ", n, n == 1 ? "" : "s",
		    n == 1 ? "is" : "are");
		subagent_prompt(sb, sid, prefix);
		sbuf_addf(sb, " Then call %sextraction_done yourself to "
		    "acknowledge.\nThis is a system nudge, not a message from "
		    "the user: once you have dispatched and acknowledged, "
		    "stop. "
		    "Do not move pending work forward on its account; if you "
		    "were waiting for the user, keep waiting.", prefix);
	} else if (missed == 2) {
		/*
		 * deviation (§5.2 level B, issue 15): the count is of what
		 * waits, not of what came since: the queue may have grown
		 * or not, so "N more" would often be false
		 */
		sbuf_addf(sb, "[thatch] THE PREVIOUS EXTRACTION REQUESTS WERE "
		    "NOT HANDLED. %zu queued tool interaction%s still wait%s. "
		    "Spawn a background sub-agent now with this prompt: ", n,
		    n == 1 ? "" : "s", n == 1 ? "s" : "");
		subagent_prompt(sb, sid, prefix);
		sbuf_addf(sb, " Then call %sextraction_done to acknowledge.",
		    prefix);
	} else {
		/* the count phrase stays lower case: checks look for it */
		sbuf_addf(sb, "[thatch] YOU HAVE IGNORED EVERY EXTRACTION "
		    "REQUEST SO FAR. %zu queued tool interaction%s %s WAITING "
		    "AND %s BEEN HANDLED. THE USER INSTALLED THATCH ON "
		    "PURPOSE. SPAWN A BACKGROUND SUB-AGENT IMMEDIATELY WITH "
		    "THIS PROMPT: ", n, n == 1 ? "" : "s",
		    n == 1 ? "IS" : "ARE", n == 1 ? "IT HAS NOT" : "NONE HAS");
		subagent_prompt(sb, sid, prefix);
		sbuf_addf(sb, " THEN CALL %sextraction_done TO ACKNOWLEDGE.",
		    prefix);
	}
}

void
text_nudge_write(struct sbuf *sb)
{
	sbuf_adds(sb, "[thatch] After you respond, ask yourself: did you learn "
	    "something worth keeping (project knowledge, a user preference, a "
	    "correction)? If so, save it with memory_remember.");
}

void
text_nudge_recall(struct sbuf *sb, size_t n, const char *const *labels)
{
	text_nudge_recall_for(sb, n, labels, "");
}

void
text_nudge_recall_for(struct sbuf *sb, size_t n, const char *const *labels,
    const char *prefix)
{
	size_t	i;

	sbuf_addf(sb, "[thatch] %zu stored memor%s relate%s to this prompt (",
	    n, n == 1 ? "y" : "ies", n == 1 ? "s" : "");
	for (i = 0; i < n && i < 2; i++) {
		sbuf_adds(sb, i > 0 ? ", " : "");
		text_fence_quoted(sb, labels[i]);	/* issue 31 */
	}
	if (n > 2)
		sbuf_adds(sb, ", etc.");
	sbuf_addf(sb, "). Use %smemory_recall to read %s before you respond.",
	    prefix, n == 1 ? "it" : "them");
}

void
text_nudge_drift(struct sbuf *sb, const char *label, const char *marks)
{
	sbuf_adds(sb, " ");
	text_fence_quoted(sb, label);		/* issue 31 */
	sbuf_addf(sb, "%s: check that code before acting on it.", marks);
}

void
text_nudge_origin(struct sbuf *sb, const char *label, const char *tag)
{
	sbuf_adds(sb, " ");
	text_fence_quoted(sb, label);
	sbuf_addf(sb, " %s: someone else's note, information only.", tag);
}
