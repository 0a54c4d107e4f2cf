/*
 * tools.c — the tool table: one row per agent-facing tool, in the registry
 * order of store-and-tools §4.2, then thatch's own tools; that order is
 * the tools/list order. Nothing else lives here: each row is defined in
 * its family's file (tool_<family>.c, declared in tool_rows.h), and what
 * is generated from a row (validation, schema, help) is tool_schema.c's.
 * So this file depends on every family and none depends on it but the
 * callers that look a tool up.
 */
#include "tools/tool.h"

#include <string.h>

#include "tools/tool_rows.h"

const struct tool *const tool_table[] = {
	/* memory (tool_memory.c) */
	&tool_memory_remember,
	&tool_memory_recall,
	&tool_memory_list,
	&tool_memory_show,
	&tool_memory_forget,
	&tool_store_list,
	/* dedup (tool_dedup.c) */
	&tool_find_duplicates,
	&tool_dedup_mark_checked,
	/* extraction (tool_extraction.c) */
	&tool_extraction_done,
	&tool_get_extraction_payload,
	/* prediction (tool_predict.c) */
	&tool_prediction_query,
	&tool_prediction_update,
	&tool_prediction_list,
	&tool_prediction_delete,
	/* behavior (tool_behavior.c) */
	&tool_behavior_codify,
	&tool_behavior_feedback,
	&tool_behavior_list,
	&tool_behavior_delete,
	/* config, notification (tool_config.c) */
	&tool_config_get,
	&tool_config_set,
	&tool_notify_user,
	/* session archaeology, editor-only (tool_session.c) */
	&tool_session_search,
	&tool_session_get,
	/* watchers, editor-only (tool_watch.c) */
	&tool_watch_create,
	&tool_watch_branch_create,
	&tool_watch_list,
	&tool_watch_cancel,
	&tool_watch_command_create,
	/* chat (tool_chat.c) */
	&tool_chat_register,
	&tool_chat_list,
	&tool_chat_send,
	&tool_chat_read,
	&tool_chat_unregister,
	&tool_chat_broadcast,
	&tool_chat_status,
	/* thatch's own (issue 15): tool_memory.c, tool_hygiene.c */
	&tool_memory_move,
	&tool_store_hygiene,
	NULL
};

const struct tool *
tool_find(const char *name)
{
	const struct tool *const	*t;

	if (name == NULL)
		return NULL;
	for (t = tool_table; *t != NULL; t++)
		if (strcmp((*t)->name, name) == 0)
			return *t;
	return NULL;
}
