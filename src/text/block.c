/*
 * block.c — the instruction block setup writes into CLAUDE.md / AGENTS.md.
 *
 * The MCP hosts' counterpart of opencode's system prompt: eleven parts in
 * the order hosts-hooks-cli §3.5 lists, in thatch's own words.
 *  1. The block begins with the host's start marker and ends with
 *     TEXT_BLOCK_END; nothing else in it may contain either marker, or a
 *     re-run would replace the wrong span.
 *  2. The tool list comes from the caller (the tool table); this file
 *     names tools in prose only where the advice needs them.
 */
#include "text/block.h"

#include "util/sbuf.h"

static const char	BODY_HEAD[] =
"## Stores\n"
"\n"
"- `global` holds what follows the user everywhere: preferences, personality,\n"
"  environment, tools they use.\n"
"- Each project has its own store, named after the git remote (`owner/repo`)\n"
"  and detected automatically; `store_list` shows every store.\n"
"- A memory may be scoped to a branch with the `branch` parameter.\n"
"\n"
"## At the start of a session\n"
"\n"
"1. `store_list` to see which stores exist and their sizes (`memory_list`\n"
"   pages through a store's labels, newest first, when you need to browse).\n"
"2. `memory_recall` the user's preferences and the project's architecture\n"
"   and conventions (without `store` it searches this project's store and\n"
"   `global` together).\n"
"3. On a branch other than the main one, `memory_recall` with `branch` for\n"
"   what is scoped to it.\n"
"\n"
"Before you dive into an area of the code, recall what is known about it.\n"
"\n"
"## Skills\n"
"\n"
"thatch ships skills; load them when the situation fits:\n"
"`thatch-fact-extractor` (turn queued tool output into memories),\n"
"`thatch-dedup-classifier` (resolve near-duplicates from `find_duplicates`),\n"
"`thatch-project-primer` (seed the store for an unfamiliar project),\n"
"`thatch-code-archaeology` (understand existing code before changing it),\n"
"`thatch-session-reflection` (record what a session taught you), the\n"
"`thatch-review-*` lenses and the walkthrough, planning and writing skills.\n"
"\n"
"## When to write\n"
"\n"
"One signal is enough. Save at once when the user gives feedback, states a\n"
"preference, corrects you, or when you learn something durable about the\n"
"project. After substantial tool work, before you answer: recall to check\n"
"for duplicates, then remember what is new.\n"
"\n"
"## The user decision model (predictions)\n"
"\n"
"A `[thatch] User decision model` block lists what this user tends to\n"
"decide in a situation like the current one, each line with its confidence\n"
"and how often it was tested. Follow strong ones; bring weak or conflicting\n"
"ones to the user instead of guessing. When the user confirms or contradicts\n"
"one, call `prediction_update` with its situation as `matcher`, its\n"
"statement as `prediction` and `signal` `confirm` or `disconfirm`. For a new\n"
"one, check `prediction_query` first, then `prediction_update` with\n"
"`signal` `create`. Code-review discussions are rich material.\n"
"\n"
"## Situational behaviors\n"
"\n"
"A `[thatch] Situational behaviors` block lists rules you set for yourself\n"
"that match the situation. Judge each one: when it applies, follow it and\n"
"call `behavior_feedback` with `relevant: true`; when it does not, call it\n"
"with `relevant: false` (this grades relevance, not the rule). The built-in\n"
"rules live in `global`: pass `store: \"global\"` for them. Codify\n"
"discipline, never shortcuts, with `behavior_codify`; remove a mistaken rule\n"
"with `behavior_delete`.\n"
"\n"
"## What goes where\n"
"\n"
"- `global`: the user's preferences, habits and environment.\n"
"- The project store: architecture, conventions, decisions and their\n"
"  reasons, pitfalls.\n"
"- Branch-scoped: work in progress that only matters on that branch.\n"
"- Insights about how to work with this user or codebase belong in the\n"
"  store they apply to.\n"
"\n"
"How to write: recall first; update with `overwrite: true` rather than\n"
"adding a near-copy; one topic per memory; set `confidence` from 1\n"
"(a guess) to 10 (verified with the user or in the code).\n"
"\n"
"Do not store: session-specific or point-in-time facts, commit hashes,\n"
"what can be re-derived from the code, or anything already in ";

static const char	BODY_TAIL[] =
".\n"
"\n"
"## Archived memories\n"
"\n"
"`memory_recall` skips archived memories unless you pass\n"
"`includeArchived: true`.\n"
"When a branch is finished, consolidate its memories into one archived\n"
"memory before forgetting the originals. Updating an archived memory needs\n"
"an explicit `archived` argument.\n"
"\n"
"## Explicit requests\n"
"\n"
"\"Remember X\" - save it right away with `memory_remember`.\n";

void
text_block_render(struct sbuf *sb, const struct text_block_host *h,
    const char *const *tools)
{
	const char *const	*t;

	sbuf_adds(sb, h->start);
	sbuf_adds(sb, " Memories are labelled facts in a local database, found "
	    "again by meaning.\n\n");
	if (*h->prefix != '\0')
		sbuf_addf(sb, "In %s the tools carry the `%s` prefix:\n",
		    h->name, h->prefix);
	else
		sbuf_addf(sb, "The thatch tools (%s may show them with a "
		    "server prefix):\n", h->name);
	for (t = tools; *t != NULL; t++)
		sbuf_addf(sb, "- `%s%s`\n", h->prefix, *t);
	sbuf_adds(sb, "\nThe rest of this text uses the bare names.\n\n");
	sbuf_adds(sb, BODY_HEAD);
	sbuf_adds(sb, h->file);
	sbuf_adds(sb, BODY_TAIL);
	sbuf_adds(sb, TEXT_BLOCK_END);
}
