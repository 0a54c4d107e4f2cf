/*
 * opencode_watch.c — the opencode side of watchers (engines-and-extras
 * B7, hosts-hooks-cli §9.2): one process-wide timer, the busy / idle
 * gate, and delivery as a prompt to the watching session.
 *
 *  1. The timer runs only while watchers exist, inside the core's loop
 *     (opencode_watch_wait), so there is no thread and nothing to stop
 *     but the registry: freeing it ends every watcher.
 *  2. A poll round runs between requests; a request arriving meanwhile
 *     waits for the round (gh calls, commands of at most 30 s).
 *  3. Events reach a session only when it is idle: at its idle event (in
 *     that answer) or, when it is idle already, as an unsolicited line
 *     right after the round that queued them. Either way one prompt per
 *     round's worth of changes.
 */
#include "host/opencode_watch.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "core/watch.h"
#include "tools/tool.h"
#include "util/clock.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/jsonx.h"
#include "util/log.h"
#include "util/path.h"
#include "util/xmalloc.h"

struct opencode_watch {
	struct watchers	*w;		/* owned */
	int64_t		 next;		/* monotonic ms of the next round */
};

static int
cadence(void)
{
	const char	*s = path_env("THATCH_WATCH_SECONDS");
	char		*end;
	long		 v;

	if (s == NULL)
		return 60;
	v = strtol(s, &end, 10);
	return *end == '\0' && v >= 1 && v <= 3600 ? (int)v : 60;
}

struct opencode_watch *
opencode_watch_new(struct tool_ctx *ctx)
{
	struct opencode_watch	*ow = xcalloc(1, sizeof(*ow));

	ow->w = watchers_new(watch_runner_system(), cadence());
	ctx->watch = ow->w;
	return ow;
}

void
opencode_watch_free(struct opencode_watch *ow)
{
	if (ow == NULL)
		return;
	watchers_free(ow->w);
	free(ow);
}

static json_t *
prompt(const char *sid, const char *text)
{
	return json_pack("{s:s,s:s,s:s}", "do", "prompt", "session", sid,
	    "text", text);
}

void
opencode_watch_event(struct opencode_watch *ow, const char *type,
    const json_t *props, json_t *actions)
{
	const char	*sid = jsonx_str(props, "sessionID"), *status;
	char		*text;

	if (sid == NULL)
		sid = jsonx_str(json_object_get(props, "info"), "id");
	if (sid == NULL)
		return;
	status = jsonx_str(json_object_get(props, "status"), "type");
	if (strcmp(type, "session.deleted") == 0) {
		watchers_forget(ow->w, sid);
		return;
	}
	if (strcmp(type, "session.status") == 0 && status != NULL &&
	    strcmp(status, "idle") != 0) {
		watchers_status(ow->w, sid, true);
		return;
	}
	if (strcmp(type, "session.idle") != 0 && (strcmp(type,
	    "session.status") != 0 || status == NULL))
		return;
	watchers_status(ow->w, sid, false);
	if (watchers_take_for(ow->w, sid, &text)) {
		log_debug("watchers:deliver", "%s at its idle", sid);
		json_array_append_new(actions, prompt(sid, text));
		free(text);
	}
}

/* Invariant 3: what idle sessions got from the round, one line each. */
static int
push(struct opencode_watch *ow, int out, struct err *err)
{
	json_t	*line;
	char	*sid, *text, *s;
	int	 rc = 0;

	while (rc == 0 && watchers_take(ow->w, &sid, &text)) {
		log_debug("watchers:deliver", "%s, idle already", sid);
		line = json_pack("{s:[o]}", "actions", prompt(sid, text));
		s = jsonx_dump(line, 0);
		if (fileio_write_fd(out, s, strlen(s)) != 0 ||
		    fileio_write_fd(out, "\n", 1) != 0)
			rc = err_errno(err, "write to the plugin");
		free(s);
		json_decref(line);
		free(sid);
		free(text);
	}
	return rc;
}

int
opencode_watch_wait(struct opencode_watch *ow, int in, int out,
    struct err *err)
{
	struct pollfd	pfd = { in, POLLIN, 0 };
	int64_t		now;
	int		r;

	for (;;) {
		if (!watchers_any(ow->w)) {
			ow->next = 0;
			return 0;
		}
		now = clock_mono_ms();
		if (ow->next == 0)	/* the first round: right away */
			ow->next = now;
		if (now < ow->next) {
			r = poll(&pfd, 1, (int)(ow->next - now));
			if (r > 0 || (r < 0 && errno != EINTR))
				return 0;
			continue;
		}
		watchers_poll(ow->w);
		ow->next = clock_mono_ms() + (int64_t)
		    watchers_poll_seconds(ow->w) * 1000;
		if (push(ow, out, err) != 0)
			return -1;
	}
}
