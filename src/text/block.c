/*
 * block.c — the instruction block setup writes into CLAUDE.md / AGENTS.md.
 *
 * The MCP hosts' counterpart of opencode's system prompt: eleven parts in
 * the order hosts-hooks-cli §3.5 lists, in thatch's own words, as few as
 * will do (issue 27: the block is read in every session).
 *  1. The block begins with the host's start marker and ends with
 *     TEXT_BLOCK_END; nothing else in it may contain either marker, or a
 *     re-run would replace the wrong span.
 *  2. The tool list comes from the caller (the tool table), never empty;
 *     this file names tools in prose only where the advice needs them.
 */
#include "text/block.h"

#include "util/sbuf.h"

static const char	BODY_HEAD[] =
"## Stores\n"
"\n"
"`global` holds the user's preferences and environment; each project has a\n"
"store named after its git remote (`owner/repo`), found automatically.\n"
"`store_list` shows them; `branch` scopes a memory to a branch.\n"
"\n"
"## At the start of a session\n"
"\n"
"Recall the user's preferences and the project's conventions\n"
"(`memory_recall` searches this project's store and `global`), with\n"
"`branch` off the main branch; `store_list` and `memory_list` when you need\n"
"to browse. Before you work on an area of the code, recall it.\n"
"\n"
"## Skills\n"
"\n"
"Load a `thatch-*` skill when it fits: fact-extractor, dedup-classifier,\n"
"project-primer, code-archaeology, session-reflection, the review lenses.\n"
"\n"
"## When to write\n"
"\n"
"One signal is enough: save at once on feedback, a preference, a\n"
"correction or a durable project fact. After substantial tool work, recall\n"
"to check for duplicates, then remember what is new.\n"
"\n"
"## Predictions and behaviors\n"
"\n"
"A `[thatch] User decision model` block: follow strong predictions, ask the\n"
"user about weak or conflicting ones; `prediction_update` when the user\n"
"confirms or contradicts one (`prediction_query` before creating one);\n"
"reviews are rich material. A `[thatch] Situational behaviors` block: give\n"
"`behavior_feedback` on whether each applied; `behavior_codify` discipline,\n"
"never shortcuts; `behavior_delete` a mistaken rule (built-in ones are in\n"
"`global`).\n"
"\n"
"## What goes where\n"
"\n"
"`global`: the user's preferences and habits; the project store:\n"
"architecture, conventions, decisions, pitfalls; a branch: work in\n"
"progress. Recall first; update with `overwrite: true`; one topic per\n"
"memory; `confidence` from 1\n"
"(a guess) to 10 (verified). Do not store point-in-time facts, commit\n"
"hashes, what the code says, or what is already in ";

static const char	BODY_TAIL[] =
".\n"
"\n"
"## Archived memories\n"
"\n"
"Recall skips them unless `includeArchived: true`. Consolidate a finished\n"
"branch into one archived memory before forgetting the originals; updating\n"
"an archived memory needs an explicit `archived`.\n"
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
		sbuf_addf(sb, "In %s the tools carry the `%s` prefix (`%s%s`): ",
		    h->name, h->prefix, h->prefix, *tools);
	else
		sbuf_addf(sb, "The thatch tools (%s may show them with a "
		    "server prefix): ", h->name);
	/* one line of bare names, the prefix said once: tools/list has the
	 * rest (issue 27) */
	for (t = tools; *t != NULL; t++)
		sbuf_addf(sb, "%s%s", t == tools ? "" : ", ", *t);
	sbuf_adds(sb, ".\nThe rest of this text uses the bare names.\n\n");
	sbuf_adds(sb, BODY_HEAD);
	sbuf_adds(sb, h->file);
	sbuf_adds(sb, BODY_TAIL);
	sbuf_adds(sb, TEXT_BLOCK_END);
}
