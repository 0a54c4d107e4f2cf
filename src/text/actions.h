/* actions.h — the /thatch actions, written once for every host (actions.c). */
#ifndef THATCH_TEXT_ACTIONS_H
#define THATCH_TEXT_ACTIONS_H

#include <stddef.h>

struct sbuf;

/*
 * The hosts an action is rendered for (engines-and-extras §B8). Each has
 * its own spelling of thatch's tools and of the action's name:
 *   Claude Code  tools mcp__thatch__<tool>  /thatch:<name>   (command file)
 *   Cursor       tools <tool>               thatch-<name>    (MCP prompt)
 *   opencode     tools thatch_<tool>        /thatch/<name>   (command file)
 * Any other MCP client gets Cursor's rendering: the bare MCP names.
 */
enum text_host {
	TEXT_HOST_CLAUDE,
	TEXT_HOST_CURSOR,
	TEXT_HOST_OPENCODE,
};

/* The tool namer: the prefix host puts before a tool's MCP name. Static. */
const char *text_tool_prefix(enum text_host);

/*
 * One action. summary and body are templates in which `{tool}` stands for
 * a tool of the table, spelled per host when rendered; summary is the
 * one-sentence core the nudges reuse, so a nudge and its command cannot
 * say different things.
 */
struct text_action {
	const char	*name;		/* "defrag" */
	const char	*description;	/* front-matter, prompts/list */
	const char	*summary;	/* template, one paragraph */
	const char	*body;		/* template, numbered steps */
};

/* Every action, in menu order; wrap-ups (compact, exit) are not here:
 * they need opencode's idle hook (hosts-hooks-cli §3.10). */
extern const struct text_action text_actions[];
extern const size_t text_nactions;

/* The action named name ("defrag"), or NULL. */
const struct text_action *text_action_find(const char *name);

/* Append template with every `{tool}` spelled as prefix + tool. */
void	text_expand(struct sbuf *, const char *tmpl, const char *prefix);

/* Append the action's text for the agent: summary, then the steps. */
void	text_action_render(struct sbuf *, const struct text_action *,
	    enum text_host);

/*
 * Append the command file of the action for host (Claude Code, opencode):
 * YAML front-matter with the description, a blank line, the text.
 */
void	text_action_file(struct sbuf *, const struct text_action *,
	    enum text_host);

/*
 * The name a user types or picks for the action on host: "thatch:defrag"
 * (Claude Code, the file thatch/defrag.md), "thatch-defrag" (the MCP
 * prompt), "thatch/defrag" (opencode). Appended to sb.
 */
void	text_action_name(struct sbuf *, const struct text_action *,
	    enum text_host);

/*
 * The initialize instructions of the MCP server (host-contracts §1.6):
 * one short paragraph on what thatch is and when to call recall and
 * remember, tools spelled with prefix.
 */
void	text_mcp_instructions(struct sbuf *, const char *prefix);

#endif
