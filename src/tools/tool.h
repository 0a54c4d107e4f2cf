/*
 * tool.h — the tools layer as its callers see it: the row format and the
 * table (tools.c), the context handlers get (tool_ctx.c), what is
 * generated from a row (tool_schema.c) and the argument getters handlers
 * use (tool_arg.c). The rows themselves are in tool_rows.h.
 */
#ifndef THATCH_TOOLS_TOOL_H
#define THATCH_TOOLS_TOOL_H

#include <stdbool.h>

#include <jansson.h>

#include "core/notify.h"
#include "embed/model.h"
#include "util/os/clock.h"

struct err;
struct paths;
struct sbuf;
struct store;
struct watchers;

/*
 * Each tool is defined once, as data (DESIGN principle 4, STYLE §3): its
 * name, family, description, the schema of its arguments and its handler.
 * MCP tools/list, argument validation, `thatch help` and the opencode
 * adapter are all generated from these rows; adding a tool is one row in
 * tool_table[] (tools.c) plus its handler in the family's file.
 */

enum tool_arg_type {
	ARG_STRING,
	ARG_INTEGER,		/* any JSON number with an integral value */
	ARG_NUMBER,
	ARG_BOOLEAN,
	ARG_OBJECT,		/* strict: .fields, no other keys */
	ARG_STRINGS,		/* an array of strings */
};

enum tool_arg_flags {
	ARG_REQUIRED = 1 << 0,
	ARG_MIN = 1 << 1,	/* .min is an inclusive lower bound */
	ARG_MAX = 1 << 2,	/* .max is an inclusive upper bound */
	ARG_NONBLANK = 1 << 3,	/* a string with more than whitespace */
};

struct tool_arg {
	const char		*name;
	enum tool_arg_type	 type;
	unsigned		 flags;
	const char		*description;
	double			 min, max;
	const char *const	*choices;	/* NULL-terminated enum, or NULL */
	const struct tool_arg	*fields;	/* ARG_OBJECT: { NULL } ended */
};

/*
 * The store argument most tools take, described once (issue 27: every
 * description is read by the model in every session): a tool acting on one
 * store, and a search, which also reads global.
 */
#define TOOL_ARG_STORE	{ .name = "store", .type = ARG_STRING, \
	.description = "Default: this project's" }
#define TOOL_ARG_STORES	{ .name = "store", .type = ARG_STRING, \
	.description = "Default: this project's and global" }

struct tool_ctx;

/*
 * The READONLY and DESTRUCTIVE bits become the MCP annotations
 * readOnlyHint and destructiveHint (host-contracts §1.6: Claude Code runs
 * a read-only tool in parallel and in plan mode). A tool with neither
 * writes without destroying (destructiveHint false).
 */
enum tool_flags {
	TOOL_MCP = 1 << 0,	/* listed and callable over MCP */
	TOOL_READONLY = 1 << 1,	/* changes nothing the user would miss */
	TOOL_DESTRUCTIVE = 1 << 2, /* deletes what cannot be recovered */
	TOOL_EDITOR = 1 << 3,	/* editor plugin only (store-and-tools §4.17) */
	TOOL_UNCAPPED = 1 << 4,	/* no tool_cap_answer cut: the full read, or a
				   tool with a bound of its own (session_*) */
	TOOL_CHAT = 1 << 5,	/* over MCP only when config.json turns chat on
				   (issue 27: ~1,000 tokens nobody else uses) */
};

/* The rows opencode's plugin offers: MCP's and the editor-only ones. */
#define TOOL_OPENCODE	(TOOL_MCP | TOOL_EDITOR)

/*
 * run gets arguments already validated against .args (required present,
 * types strict, bounds and enums respected, unknown keys dropped) and
 * appends its text to out. Refusals ("not found", "already exists") are
 * text, returned as 0. -1 with err set means the tool failed (database,
 * model); MCP reports it as "Tool error: <err>".
 */
struct tool {
	const char		*name;
	const char		*family;
	const char		*title;		/* for menus: "Recall memories" */
	const char		*description;
	const struct tool_arg	*args;		/* { NULL } terminated */
	unsigned		 flags;
	int			(*run)(struct tool_ctx *, const json_t *,
				    struct sbuf *, struct err *);
};

/* In registry order (store-and-tools §4.2); NULL-terminated (tools.c). */
extern const struct tool *const tool_table[];

/* The row named name, or NULL (tools.c). */
const struct tool *tool_find(const char *name);

/* ---- The context (tool_ctx.c) ------------------------------------------ */

/*
 * Everything a handler may use (DESIGN principle 5: no globals). The host
 * (MCP server, CLI) builds it; fields are borrowed unless marked.
 */
struct tool_ctx {
	struct store		*store;
	const char		*default_store;	/* detected project store */
	const struct paths	*paths;
	struct clock		 clock;
	struct notify_spawner	 notify;	/* notify_user's notifiers */
	struct model_opts	 model_opts;	/* owned */
	struct model		*model;		/* owned; loaded on first use */
	bool			 seeded;	/* default behaviors seeded */
	/*
	 * Set by a write handler whose text is a refusal (nothing was
	 * done: exists, archived, not found). A caller that reads it
	 * clears it first (cli_tool, whose command then exits 1 so that a
	 * script sees it); MCP answers a refusal as text all the same
	 * (§4.1) and never looks.
	 */
	bool			 refused;
	struct watchers		*watch;		/* the host's watchers, or NULL */
	bool			 space_checked;	/* tool_space_notice ran */

	/*
	 * Extraction glue the host wires in (hosts-hooks-cli §2.8); NULL
	 * when the host has none. payload appends the payload to out and
	 * returns 1, or 0 when the queue is empty; drain deletes the
	 * session's queue and counter and returns 0. Both return -1 with
	 * err set when the queue cannot be read or deleted.
	 */
	int			 (*payload)(struct tool_ctx *, const char *sid,
				    struct sbuf *out, struct err *);
	int			 (*drain)(struct tool_ctx *, const char *sid,
				    struct err *);

	/*
	 * The calling conversation when the host has one (opencode): the
	 * chat tools' identity ("as" is ignored, store-and-tools §4.16), the
	 * watchers' owner, the session search's own session to leave out;
	 * NULL on MCP, where the chat tools act as the "as" name. echo, when
	 * set, gets the call's transcript echo ("[chat] …" lines) for the
	 * host to post (engines-and-extras B5).
	 */
	const char		*session;
	const char		*host_kind;	/* "opencode"; NULL: "mcp" */
	struct sbuf		*echo;
	bool			 cli;		/* a thatch command, not an
						   agent: the provenance */
};

/* Initialise ctx (model options from the environment); release frees the
 * model and options, not the borrowed fields. */
void	tool_ctx_init(struct tool_ctx *, struct store *, const char *dflt,
	    const struct paths *);
void	tool_ctx_release(struct tool_ctx *);

/*
 * The model, loaded on first use and kept warm; each call until it has
 * happened also seeds the default behaviors if the database takes a write
 * now. Returns NULL with err set when the model cannot be loaded (the
 * message says how to fix it).
 */
struct model *tool_model(struct tool_ctx *, struct err *);

/*
 * One step of warming ctx up before a call needs it (the MCP server's idle
 * time). Step 0 loads the model from disk, never downloading, and seeds
 * the default behaviors (tool_model); steps 1 and 2 load the store's
 * vector cache of the default store and of "global" with a search that
 * stamps nothing. Returns 1 when step + 1 comes next, 0 after the last
 * step, or -1 with err set (the model cannot be loaded without the
 * network, or the search failed); calls that need the model later load
 * it as usual.
 */
int	tool_warm(struct tool_ctx *, int step, struct err *);

/* config.json beside the database into c (config_load: an invalid file is
 * the empty config, its warning dropped), for the tools that follow a
 * setting (tool_config.c). */
struct config;
void	tool_config_read(const struct tool_ctx *, struct config *);

/* Embed text with the context's model into a new vector of *dim floats. */
float	*tool_embed(struct tool_ctx *, const char *, enum embed_kind,
	    int *dim, struct err *);

/*
 * tool_embed, with fn(arg, err) run on a second thread beside the model's
 * work (its load in a cold process, its embedding) so that a search's
 * other work (its lexical ranking) costs no time of its own; seeding,
 * which writes the store, waits for fn. fn must touch neither the model
 * nor ctx. Returns the vector, or NULL with err (fn's failure first, else
 * the model's).
 */
float	*tool_embed_while(struct tool_ctx *, const char *, enum embed_kind,
	    int *dim, int (*fn)(void *, struct err *), void *arg,
	    struct err *);

/* ---- Generated from a row (tool_schema.c) ------------------------------ */

/*
 * Validate args (NULL means {}) against t->args. Returns 0, or -1 with the
 * "Invalid arguments: <path>: <reason>; ..." text (every problem, in schema
 * order) appended to msg. An ARG_OBJECT's fields are checked the same way
 * under the dotted path "<arg>.<field>"; a key it does not declare is a
 * problem of "<arg>" (store-and-tools §4.14: sections are strict).
 */
int	tool_validate(const struct tool *, const json_t *, struct sbuf *msg);

/* The MCP inputSchema object for t (new reference). */
json_t	*tool_schema(const struct tool *);

/* Append t's help text (name, description, one line per argument) to out;
 * `thatch tools` prints it. */
void	tool_help(const struct tool *, struct sbuf *out);

/* ---- Arguments (tool_arg.c) -------------------------------------------- */

/*
 * The target store of a store-scoped tool (store-and-tools §2.6): the
 * "store" argument when non-empty, else the default; "unknown" becomes
 * "global". Borrowed from args or ctx.
 */
const char *tool_target_store(const struct tool_ctx *, const json_t *args);

/* Argument getters for validated args: absent gives the default. */
const char *tool_arg_str(const json_t *, const char *name, const char *dflt);
long long tool_arg_int(const json_t *, const char *name, long long dflt);
double	tool_arg_num(const json_t *, const char *name, double dflt);
/* -1 absent, 0 false, 1 true (memory_remember's archived is tri-state). */
int	tool_arg_bool(const json_t *, const char *name);

#endif
