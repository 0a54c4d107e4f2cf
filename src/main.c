/*
 * main.c — the command table and main().
 *
 * One row per subcommand, in usage order (STYLE §2); the usage text, `help`
 * and the unknown-command message are all generated from cmd_table[] by the
 * machinery in cli/cmd.c, which gets the table as an argument. So a new
 * subcommand is one file and one row here, and nothing calls back into this
 * file.
 */
#include "cli/cmd.h"

static const struct cmd_entry *const cmd_table[] = {
	&cmd_version_entry,
	&cmd_help_entry,
	&cmd_stores_entry,
	&cmd_list_entry,
	&cmd_show_entry,
	&cmd_remember_entry,
	&cmd_edit_entry,
	&cmd_mv_entry,
	&cmd_forget_entry,
	&cmd_search_entry,
	&cmd_export_entry,
	&cmd_import_entry,
	&cmd_mcp_entry,
	&cmd_opencode_entry,
	&cmd_reminder_entry,
	&cmd_hygiene_entry,
	&cmd_queue_entry,
	&cmd_prime_entry,
	&cmd_buffer_batch_entry,
	&cmd_buffer_tool_entry,
	&cmd_flush_tools_entry,
	&cmd_flush_predictions_entry,
	&cmd_setup_entry,
	&cmd_doctor_entry,
	&cmd_tools_entry,
	&cmd_embed_entry,
	&cmd_model_entry,
	&cmd_session_entry,
	&cmd_chat_entry,
	&cmd_sync_entry,
	&cmd_reembed_entry,
	NULL
};

int
main(int argc, char **argv)
{
	return cmd_main(cmd_table, argc, argv);
}
