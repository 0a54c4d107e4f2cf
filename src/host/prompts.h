/* prompts.h — the /thatch actions as MCP prompts (prompts.c). */
#ifndef THATCH_HOST_PROMPTS_H
#define THATCH_HOST_PROMPTS_H

#include "host/mcp.h"

/* The prompt set of one server. Opaque. */
struct prompts;

/*
 * The actions of text_actions[] as MCP prompts named "thatch-<action>",
 * rendered with the tool spelling of host (Claude Code: mcp__thatch__*;
 * Cursor and any other client: the bare MCP names). Free with
 * prompts_free, after the server that serves them.
 */
struct prompts *prompts_new(enum mcp_host);
void	prompts_free(struct prompts *);

/* The NULL-terminated list for mcp_set_prompts; borrowed from p. */
const struct mcp_prompt *const *prompts_list(const struct prompts *);

#endif
