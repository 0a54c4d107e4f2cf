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

#include <stdlib.h>

#include "core/config.h"
#include "tools/tool.h"
#include "util/path.h"
#include "util/sbuf.h"

static bool
chat_enabled(const struct tool_ctx *ctx)
{
	struct config	 c;
	struct sbuf	 ignored = SBUF_INIT;
	char		*path = path_join(ctx->paths->db_dir, "config.json");
	bool		 on;

	config_load(path, &c, &ignored);
	on = c.chat.set && c.chat.enabled;
	config_release(&c);
	sbuf_release(&ignored);
	free(path);
	return on;
}

bool
tool_offered(const struct tool_ctx *ctx, const struct tool *t)
{
	if (!(t->flags & TOOL_MCP))
		return false;
	return !(t->flags & TOOL_CHAT) || chat_enabled(ctx);
}
