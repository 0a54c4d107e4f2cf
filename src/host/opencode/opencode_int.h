/*
 * opencode_int.h — what the files of the opencode core share and nobody
 * else may see: the struct behind the opaque `struct opencode`, the
 * helpers every request handler uses (opencode_core.c), and each
 * subject's handlers, which opencode.c's ops[] table names. Included by
 * opencode.c, opencode_core.c, opencode_context.c, opencode_events.c and
 * opencode_tools.c: one module over five files, like store_int.h's.
 */
#ifndef THATCH_HOST_OPENCODE_INT_H
#define THATCH_HOST_OPENCODE_INT_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "tools/tool.h"

struct err;
struct opencode_alerts;
struct opencode_chat;
struct opencode_watch;
struct opencode_wrapups;
struct sbuf;
struct version_watch;

/* A small set of session ids (a handful per process). */
struct opencode_core_ids {
	char	**v;
	size_t	  n;
};

struct opencode {
	struct tool_ctx	  ctx;		/* first: the glue finds the core */
	struct tool_ctx	 *tools;	/* &ctx */
	const char	*(*repo_fn)(void *);
	void		 *repo_arg;
	char		 *dir;		/* the extbuf directory */
	const char	 *caller;	/* session of the running tool call */
	struct opencode_core_ids compacting, tasks, dispatched, ran;
	struct opencode_chat *chat;	/* owned; opencode_chat.c */
	int		  warm;		/* next warm-up step, -1 done */
	bool		  refresh_hygiene;	/* the cache is behind */
	struct opencode_alerts *alerts;		/* owned (B3) */
	struct opencode_wrapups *wrapups;	/* owned (B8) */
	struct opencode_watch *watch;		/* owned (B7) */
	struct version_watch *version;		/* owned (B10); may be NULL */
};

/*
 * A request handler: what it answers goes into res (fields beside "id")
 * and actions (the {"do": …} list). Returns 0, or -1 with err set, which
 * opencode_handle reports and answers as {"error": …}.
 */
typedef int	opencode_op_fn(struct opencode *, const json_t *req,
		    json_t *res, json_t *actions, struct err *);

/* ---- opencode_core.c: what every handler uses ------------------------- */

/* The set's membership; NULL ids are in no set and are never added. */
bool	opencode_core_ids_has(const struct opencode_core_ids *,
	    const char *id);
void	opencode_core_ids_add(struct opencode_core_ids *, const char *id);
void	opencode_core_ids_del(struct opencode_core_ids *, const char *id);
void	opencode_core_ids_free(struct opencode_core_ids *);

/* Monotonic milliseconds with a fraction, for the timing debug lines. */
double	opencode_core_now_ms(void);

/* The project store, asked of repo_fn on first use. Borrowed. */
const char	*opencode_core_repo(struct opencode *);

/* opencode.c invariant 2: a failed step's line on stderr and in the
 * debug log, "<op>: <why>". */
void	opencode_core_report(const char *op, const struct err *);

/*
 * Append the action {"do": what} to actions and return it (borrowed), or
 * one with its text, its toast fields, or its session.
 */
json_t	*opencode_core_act(json_t *actions, const char *what);
void	opencode_core_act_text(json_t *actions, const char *what,
	    const char *text);
void	opencode_core_act_toast(json_t *actions, const char *text,
	    const char *variant, int ms);
void	opencode_core_act_session(json_t *actions, const char *what,
	    const char *session);

/* ---- opencode_context.c: what the model is told ----------------------- */

opencode_op_fn	opencode_context_system;	/* op "system" */
opencode_op_fn	opencode_context_compacting;	/* op "compacting" */
opencode_op_fn	opencode_context_autocontinue;	/* op "autocontinue" */
opencode_op_fn	opencode_context_message;	/* op "message" */

/* ---- opencode_events.c: session events, extraction children ----------- */

opencode_op_fn	opencode_events_on;		/* op "event" */
opencode_op_fn	opencode_events_spawned;	/* op "spawned" */
opencode_op_fn	opencode_events_spawn_failed;	/* op "spawn_failed" */

/* ---- opencode_tools.c: the tools and the extraction glue -------------- */

opencode_op_fn	opencode_tools_init;		/* op "init" */
opencode_op_fn	opencode_tools_call;		/* op "tool" */
opencode_op_fn	opencode_tools_after;		/* op "after" */

/* The tool context's payload and drain (tool.h), wired by opencode_new
 * into the core's own context only. */
int	opencode_tools_payload(struct tool_ctx *, const char *sid,
	    struct sbuf *out, struct err *);
int	opencode_tools_drain(struct tool_ctx *, const char *sid,
	    struct err *);

#endif
