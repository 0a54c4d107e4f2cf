/* opencode.h — the core behind opencode's thatch plugin (opencode.c). */
#ifndef THATCH_HOST_OPENCODE_H
#define THATCH_HOST_OPENCODE_H

#include <jansson.h>

#include "util/os/clock.h"

struct err;
struct paths;
struct store;

/*
 * The plugin (share/opencode/thatch.js) spawns one `thatch opencode` per
 * opencode process and forwards every hook and session event to it as a
 * request line; the answer says what to apply (docs/opencode.md has the
 * protocol). Everything the plugin does is decided here: texts,
 * thresholds, filtering, the buffer lifecycle (core/session/extbuf.h), child
 * bookkeeping, and every tool. Opaque.
 */
struct opencode;

/*
 * A core with its own tool context over st and paths (borrowed), whose
 * extraction glue is the buffer of core/session/extbuf.h, and whose project store
 * is repo(arg), asked once, on the first request that needs it.
 */
struct opencode *opencode_new(struct store *st, const struct paths *,
	    struct clock, const char *(*repo)(void *), void *arg);
void	opencode_free(struct opencode *);

/*
 * Answer one request object (a new response object carrying the request's
 * id). Never fails: a hook that goes wrong answers {"error": …}, after a
 * "[thatch] <op>: …" line on stderr and a debug line. Exposed for tests.
 */
json_t	*opencode_handle(struct opencode *, const json_t *req);

/*
 * Serve newline-delimited requests from in_fd until end of input, one
 * compact response line each on out_fd, warming the model up while the
 * plugin is quiet (THATCH_WARMUP=0 turns that off). Returns 0, or -1 with
 * err set on a write error.
 */
int	opencode_run(struct opencode *, int in_fd, int out_fd, struct err *);

#endif
