/* tool_offer.h — whether MCP offers a tool row (tool_offer.c). */
#ifndef THATCH_TOOLS_BUDGET_TOOL_OFFER_H
#define THATCH_TOOLS_BUDGET_TOOL_OFFER_H

#include <stdbool.h>

struct tool;
struct tool_ctx;

/* True when t is listed and callable over MCP: a TOOL_MCP row, and for a
 * TOOL_CHAT row, config.json's chat.enabled is true. */
bool	tool_offered(const struct tool_ctx *, const struct tool *);

#endif
