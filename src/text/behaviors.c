/*
 * behaviors.c — the texts of the default behaviors (engines-and-extras
 * §A9), thatch's own wording of the original's nine rules.
 *
 *  1. Situations list the phrasings that should trigger the rule, because
 *     matching is by meaning; their first sentence names the situation,
 *     since it is all a block line shows (core/engine/engine_text.c). Behaviors
 *     are concrete checklists that open with an imperative, so the
 *     line reads "consider whether to <behavior>" / "do <behavior>".
 *  2. Editing a text re-seeds that one default (its seed-version is a hash
 *     of its texts, core/engine/behavior.c), resetting what it learned; keys never
 *     change.
 */
#include "text/behaviors.h"

const struct text_behavior text_behaviors[] = {
	{
		.key = "session-wrap-up",
		.situation =
		    "The user is wrapping up the session or signing off. "
		    "They say things like \"that's it for today\", \"I'm "
		    "done\", \"let's stop here\", \"thanks, bye\" or \"good "
		    "night\".",
		.behavior =
		    "Sweep for loose ends before saying goodbye, without "
		    "changing anything: run git status for uncommitted or "
		    "untracked files, look for scratch files, debug output "
		    "or temporary branches left behind, and list what you "
		    "find. Fix nothing unless the user asks.",
		.rationale =
		    "Loose ends left at sign-off are forgotten by the next "
		    "session.",
	},
	{
		.key = "work-finalization",
		.situation =
		    "The user is finalizing work by committing, merging, "
		    "closing a ticket, shipping, releasing or tagging. "
		    "Phrases like \"commit this\", \"merge it\", \"ship "
		    "it\", \"close the issue\" or \"cut a release\".",
		.behavior =
		    "Run a read-only check before finalizing: stray or "
		    "unrelated changes in the diff, branch memories that "
		    "should be folded into one archived record, and "
		    "follow-up TODOs or tickets worth filing. Report them; "
		    "change nothing on your own.",
		.rationale =
		    "Finalizing is the last cheap moment to catch stray "
		    "changes and record follow-ups.",
	},
	{
		.key = "research-new-project",
		.situation =
		    "The user starts on an unfamiliar codebase, project or "
		    "area of tickets. They say \"let's look at this repo\", "
		    "\"I'm new to this code\", \"get familiar with the "
		    "project\" or pick up a ticket in a part of the code not "
		    "touched before.",
		.behavior =
		    "Investigate before changing anything: how well the area "
		    "is tested, where names drift, which migrations are half "
		    "done, and which patterns the code already follows. Load "
		    "the thatch-code-archaeology skill and read the history "
		    "of the area first.",
		.rationale =
		    "Changes made before understanding a codebase fight its "
		    "existing patterns.",
	},
	{
		.key = "day-turnover-coding",
		.situation =
		    "The user resumes coding work on a new day. They say "
		    "\"good morning\", \"let's continue where we left "
		    "off\", \"back to the feature\" or \"picking this up "
		    "again today\".",
		.behavior =
		    "Fetch the remote and measure how far the main branch "
		    "has moved past this branch's merge-base; if the gap is "
		    "large, suggest a rebase before more work. Check for "
		    "uncommitted changes left from the day before.",
		.rationale =
		    "A branch that drifted overnight is cheapest to rebase "
		    "before new work lands on it.",
	},
	{
		.key = "day-turnover-pr",
		.situation =
		    "The user resumes work on a branch that has an open pull "
		    "or merge request, on a new day. They say \"back to the "
		    "PR\", \"any news on the MR?\" or \"let's keep going on "
		    "the review feedback\".",
		.behavior =
		    "Pull the review comments added upstream since the last "
		    "session through the forge CLI (gh or glab) and show the "
		    "ones not seen yet. Check for uncommitted changes left "
		    "from the day before.",
		.rationale =
		    "Reviewers answer overnight; working without reading "
		    "them repeats settled discussions.",
	},
	{
		.key = "day-turnover-review",
		.situation =
		    "The user resumes a code review they were in the middle "
		    "of, on a new day. They say \"let's finish reviewing "
		    "that PR\", \"continue the review\" or \"where were we "
		    "with their change?\".",
		.behavior =
		    "Check for new comments, replies to the user's earlier "
		    "comments, and commits pushed since the last review "
		    "round, and summarize them before reviewing further.",
		.rationale =
		    "A review resumed without the latest round comments on "
		    "code that no longer exists.",
	},
	{
		.key = "snag-dead-end",
		.situation =
		    "The work hit a dead end, a red herring or a surprise. "
		    "Something that looked like the cause was not, an "
		    "approach turned out to be wrong, or the user says "
		    "\"that wasn't it\", \"weird\" or \"dead end\".",
		.behavior =
		    "Save a memory of the snag with memory_remember: what "
		    "looked promising, why it was wrong, and what the real "
		    "cause turned out to be. Only save it; do not start "
		    "fixing anything because of this rule.",
		.rationale =
		    "Dead ends are repeated unless the reason they were dead "
		    "is written down.",
	},
	{
		.key = "debugging-git-archaeology",
		.situation =
		    "The user is debugging a failure and you are about to "
		    "propose a fix. They say \"why does this break?\", "
		    "\"find the bug\", \"this used to work\" or \"fix this "
		    "error\".",
		.behavior =
		    "Read the git history of the affected paths before "
		    "proposing the fix: look for leftovers of removed "
		    "behavior, stale renames and partial migrations that "
		    "explain the failure. Load the thatch-code-archaeology skill.",
		.rationale =
		    "Many bugs are half-finished changes whose history "
		    "explains them.",
	},
	{
		.key = "planning-git-archaeology",
		.situation =
		    "The user is planning, redesigning or refactoring. They "
		    "say \"how should we restructure this?\", \"let's "
		    "redesign\", \"plan the refactor\" or \"what's a better "
		    "architecture here?\".",
		.behavior =
		    "Read the commits that shaped the current design before "
		    "proposing an approach, to learn its intent and "
		    "constraints. Load the thatch-code-archaeology skill.",
		.rationale =
		    "A redesign that ignores why the code is shaped this way "
		    "tends to reintroduce old problems.",
	},
};

const size_t text_behaviors_count =
    sizeof(text_behaviors) / sizeof(text_behaviors[0]);
