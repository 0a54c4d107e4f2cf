/* tool_rows.h — the rows of tool_table[], one per tool, by family
 * (tool_<family>.c; tools.c lists them). */
#ifndef THATCH_TOOLS_TOOL_ROWS_H
#define THATCH_TOOLS_TOOL_ROWS_H

#include "tools/tool.h"

/*
 * Each family file exports one `const struct tool tool_<name>` per tool;
 * tool_table[] in tools.c lists them in registry order (store-and-tools
 * §4.2). Adding a tool: its row here, its pointer there, its handler in the
 * family file. Only rows live here: what a family shares with other files
 * has the family's own header (tool_memory.h, tool_engine.h).
 */

/* tool_memory.c (rows 1-6) */
extern const struct tool tool_memory_remember;
extern const struct tool tool_memory_recall;
extern const struct tool tool_memory_list;
extern const struct tool tool_memory_show;
extern const struct tool tool_memory_forget;
extern const struct tool tool_store_list;

/* tool_dedup.c (rows 7-8) */
extern const struct tool tool_find_duplicates;
extern const struct tool tool_dedup_mark_checked;

/* tool_extraction.c (rows 9-10) */
extern const struct tool tool_extraction_done;
extern const struct tool tool_get_extraction_payload;

/* tool_predict.c, tool_behavior.c (rows 11-18) */
extern const struct tool tool_prediction_query;
extern const struct tool tool_prediction_update;
extern const struct tool tool_prediction_list;
extern const struct tool tool_prediction_delete;
extern const struct tool tool_behavior_codify;
extern const struct tool tool_behavior_feedback;
extern const struct tool tool_behavior_list;
extern const struct tool tool_behavior_delete;

/* tool_config.c (rows 19-21) */
extern const struct tool tool_config_get;
extern const struct tool tool_config_set;
extern const struct tool tool_notify_user;

/* tool_session.c (rows 23-24; editor-only) */
extern const struct tool tool_session_search;
extern const struct tool tool_session_get;

/* tool_watch.c (rows 25-29; editor-only) */
extern const struct tool tool_watch_create;
extern const struct tool tool_watch_branch_create;
extern const struct tool tool_watch_list;
extern const struct tool tool_watch_cancel;
extern const struct tool tool_watch_command_create;

/* tool_chat.c (rows 29-35) */
extern const struct tool tool_chat_register;
extern const struct tool tool_chat_list;
extern const struct tool tool_chat_send;
extern const struct tool tool_chat_read;
extern const struct tool tool_chat_unregister;
extern const struct tool tool_chat_broadcast;
extern const struct tool tool_chat_status;

/* thatch's own, after the original's registry (issue 15): tool_memory.c,
 * tool_hygiene.c */
extern const struct tool tool_memory_move;
extern const struct tool tool_store_hygiene;

#endif
