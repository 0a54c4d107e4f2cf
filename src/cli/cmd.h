/*
 * cmd.h — the command table's row format, which every src/cli/cmd_<name>.c
 * exports one of (main.c lists them), and the machinery that runs a table
 * (cmd.c).
 *
 * A row declares everything the command line knows about a subcommand:
 * its options, how many positional arguments it takes, the environment it
 * reads and an example. The parser (cli_parse, cli.c), the usage line after
 * a mistake and `thatch help <cmd>` (cmd.c) are all generated from the
 * row, so help cannot drift from what is accepted (like git's parse-options
 * tables). To add a subcommand: a cmd_<name>.c with one `struct cmd_entry`,
 * its extern below, and its pointer in cmd_table[] (main.c). Handlers read
 * their options with cli_opt()/cli_flag() and get only the positionals.
 */
#ifndef THATCH_CLI_CMD_H
#define THATCH_CLI_CMD_H

#include <stdio.h>

struct cli_ctx;

/*
 * What the dispatcher prepares before calling exec, as git's RUN_SETUP bits
 * do: CMD_STORE opens the database (lazily: --version never touches it);
 * CMD_HOOK marks a host hook, whose failures — usage mistakes included —
 * are reported on stderr and which always exits 0 (a non-zero hook status
 * breaks the agent's turn; exit 2 blocks the prompt in Claude Code).
 */
enum cmd_flags {
	CMD_STORE = 1 << 0,
	CMD_HOOK = 1 << 1,
};

/*
 * Groups of environment variables a command reads through shared code,
 * which `thatch help <cmd>` lists from the row (cmd.c): a row names
 * its group instead of copying the group's variables, so every command
 * that loads the model lists the same ones.
 */
enum cmd_reads {
	READS_PROJECT = 1 << 0,	/* detects the project and its store */
	READS_MODEL = 1 << 1,	/* loads (and may download) the model */
};

/* exec's special returns: print usage (exit 2) / print ctx->err (exit 1). */
enum {
	CMD_USAGE = -1,
	CMD_FAILED = -2,
};

/* Most options one row may declare (the parser's fixed value array). */
#define CMD_MAXOPTS	12
/* max_args for "any number" (the handler then checks them itself). */
#define CMD_ANY		(-1)

/*
 * One option: a long name ("--json"), the placeholder of its value when it
 * takes one ("<store>", given as `--store x` or `--store=x`; NULL for a
 * flag), and its help line. -h/--help is every command's and not listed.
 */
struct cmd_opt {
	const char	*name;
	const char	*arg;
	const char	*help;
};

/*
 * One row of cmd_table[]. args is the positionals' synopsis ("<label>
 * [store]"); min_args/max_args bound their number (max CMD_ANY: no bound).
 * opts ends with a row whose name is NULL (or is NULL for none). env names
 * the environment variables the command reads beyond THATCH_DB_PATH and
 * THATCH_DEBUG, which all do, and beyond its reads groups ("EDITOR");
 * example is one
 * command line. exec gets the positionals only and returns an exit status,
 * CMD_USAGE or CMD_FAILED.
 */
struct cmd_entry {
	const char		*name;
	const char		*alias[2];
	const char		*args;
	int			 min_args, max_args;
	const struct cmd_opt	*opts;
	const char		*env;
	enum cmd_reads		 reads;
	const char		*example;
	const char		*summary;
	enum cmd_flags		 flags;
	int			(*exec)(struct cli_ctx *, int, char **);
};

extern const struct cmd_entry cmd_version_entry;
extern const struct cmd_entry cmd_help_entry;
extern const struct cmd_entry cmd_stores_entry;
extern const struct cmd_entry cmd_list_entry;
extern const struct cmd_entry cmd_show_entry;
extern const struct cmd_entry cmd_forget_entry;
extern const struct cmd_entry cmd_search_entry;
extern const struct cmd_entry cmd_export_entry;
extern const struct cmd_entry cmd_import_entry;
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
extern const struct cmd_entry cmd_doctor_entry;
extern const struct cmd_entry cmd_tools_entry;
extern const struct cmd_entry cmd_embed_entry;
extern const struct cmd_entry cmd_model_entry;
extern const struct cmd_entry cmd_remember_entry;
extern const struct cmd_entry cmd_edit_entry;
extern const struct cmd_entry cmd_mv_entry;
extern const struct cmd_entry cmd_queue_entry;
extern const struct cmd_entry cmd_session_entry;
extern const struct cmd_entry cmd_chat_entry;
extern const struct cmd_entry cmd_sync_entry;
extern const struct cmd_entry cmd_reembed_entry;

/*
 * The machinery (cmd.c); `table` is a NULL-terminated array of rows such as
 * main.c's cmd_table[], borrowed.
 *
 * cmd_main runs `thatch argv[1] argv[2...]` from table and returns the exit
 * status; the table stays in cli_ctx.table while the command runs. cmd_find
 * returns the row named `name` (or aliased so), or NULL. cmd_usage prints
 * the usage text built from the table.
 */
int	cmd_main(const struct cmd_entry *const *table, int argc, char **argv);
const struct cmd_entry *cmd_find(const struct cmd_entry *const *table,
	    const char *name);
void	cmd_usage(const struct cmd_entry *const *table, FILE *);

/* One command's synopsis line / its full help, from its row (cmd.c). */
void	cmd_synopsis(FILE *, const struct cmd_entry *);
void	cmd_help_print(FILE *, const struct cmd_entry *);

#endif
