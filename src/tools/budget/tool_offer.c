/*
 * tool_offer.c — which rows an MCP client is offered (issue 27): every
 * tool definition is read by the model in every session, so the seven
 * chat tools, which only a user who turned chat on calls, cost nothing
 * otherwise.
 *  1. A row without TOOL_MCP is never offered; a TOOL_CHAT row only while
 *     config.json's chat.enabled is true, read at each ask so that turning
 *     it on needs no restart. An invalid config.json is the empty one.
 *  2. tools/list and tools/call ask the same question, so a tool that is
 *     not listed cannot be called either.
 */
#include "tools/budget/tool_offer.h"

#include "core/config.h"
#include "tools/tool.h"

static bool
chat_enabled(const struct tool_ctx *ctx)
{
	struct config	 c;
	bool		 on;

	tool_config_read(ctx, &c);
	on = c.chat.set && c.chat.enabled;
	config_release(&c);
	return on;
}

bool
tool_offered(const struct tool_ctx *ctx, const struct tool *t)
{
	if (!(t->flags & TOOL_MCP))
		return false;
	return !(t->flags & TOOL_CHAT) || chat_enabled(ctx);
}
