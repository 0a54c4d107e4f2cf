/* cmd.h — the subcommand entry every src/cli/cmd_<name>.c exports (main.c). */
#ifndef THATCH_CLI_CMD_H
#define THATCH_CLI_CMD_H

#include <stdio.h>

struct cli_ctx;

/*
 * What the dispatcher prepares before calling exec, as git's RUN_SETUP bits
 * do: CMD_STORE opens the database (lazily: --version never touches it);
 * CMD_HOOK marks a host hook, whose failures are reported on stderr as
 * "[thatch <name>] failed: ..." and which always exits 0.
 */
enum cmd_flags {
	CMD_STORE = 1 << 0,
	CMD_HOOK = 1 << 1,
};

/* exec's special returns: print usage (exit 2) / print ctx->err (exit 1). */
enum {
	CMD_USAGE = -1,
	CMD_FAILED = -2,
};

/*
 * One row of cmd_table[] in main.c. exec gets the arguments after the
 * subcommand name and returns an exit status, CMD_USAGE or CMD_FAILED.
 * usage is the synopsis after the name; summary a few words for --help.
 */
struct cmd_entry {
	const char	*name;
	const char	*alias;
	const char	*usage;
	const char	*summary;
	enum cmd_flags	 flags;
	int		(*exec)(struct cli_ctx *, int, char **);
};

extern const struct cmd_entry cmd_version_entry;
extern const struct cmd_entry cmd_help_entry;
extern const struct cmd_entry cmd_stores_entry;
extern const struct cmd_entry cmd_list_entry;
extern const struct cmd_entry cmd_show_entry;
extern const struct cmd_entry cmd_forget_entry;
extern const struct cmd_entry cmd_search_entry;
extern const struct cmd_entry cmd_mcp_entry;
extern const struct cmd_entry cmd_opencode_entry;
extern const struct cmd_entry cmd_reminder_entry;
extern const struct cmd_entry cmd_hygiene_entry;
extern const struct cmd_entry cmd_prime_entry;
extern const struct cmd_entry cmd_buffer_batch_entry;
extern const struct cmd_entry cmd_buffer_tool_entry;
extern const struct cmd_entry cmd_flush_tools_entry;
extern const struct cmd_entry cmd_flush_predictions_entry;
extern const struct cmd_entry cmd_setup_entry;
extern const struct cmd_entry cmd_tools_entry;
extern const struct cmd_entry cmd_embed_entry;
extern const struct cmd_entry cmd_model_entry;

/* The table itself and the usage text built from it (main.c). */
extern const struct cmd_entry *const cmd_table[];
const struct cmd_entry *cmd_find(const char *);
void	cmd_usage(FILE *);

#endif
