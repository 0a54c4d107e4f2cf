/* opencode_watch.h — watchers in the opencode core: the timer, the
 * session gates and the deliveries (opencode_watch.c). */
#ifndef THATCH_HOST_OPENCODE_WATCH_H
#define THATCH_HOST_OPENCODE_WATCH_H

#include <jansson.h>

struct err;
struct tool_ctx;

/* Opaque. */
struct opencode_watch;

/*
 * The watchers of one opencode process, polled every $THATCH_WATCH_SECONDS
 * (default 60; 1-3600), wired into ctx (ctx->watch) for the watcher
 * tools. Freeing stops the timer: nothing keeps running.
 */
struct opencode_watch *opencode_watch_new(struct tool_ctx *ctx);
void	opencode_watch_free(struct opencode_watch *);

/*
 * A session event: status busy / idle gate delivery; an idle appends a
 * prompt action with the session's queued events; session.deleted
 * cancels its watchers.
 */
void	opencode_watch_event(struct opencode_watch *, const char *type,
	    const json_t *props, json_t *actions);

/*
 * Before a blocking read of in_fd: while watchers exist, wait for input
 * only until the next poll round is due, start the rounds that fall due
 * (on a thread: requests are answered meanwhile) and, when one ends,
 * write what idle sessions get as unsolicited answer lines
 * ({"actions": [prompt…]}, no id) on out_fd. Returns 0 when in_fd is
 * readable (or there is nothing to wait for), -1 with err set when
 * out_fd cannot be written.
 */
int	opencode_watch_wait(struct opencode_watch *, int in_fd, int out_fd,
	    struct err *);

/*
 * Write what idle sessions have waiting, as opencode_watch_wait does; the
 * loop calls it before each answer, so an answer that shows a round's
 * results never comes before that round's prompts.
 */
int	opencode_watch_flush(struct opencode_watch *, int out_fd,
	    struct err *);

#endif
