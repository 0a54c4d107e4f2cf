/*
 * opencode_watch.c — the opencode side of watchers (engines-and-extras
 * B7, hosts-hooks-cli §9.2): one process-wide timer, the busy / idle
 * gate, and delivery as a prompt to the watching session.
 *
 *  1. The timer runs only while watchers exist, inside the core's loop
 *     (opencode_watch_wait). A due round runs on a thread of its own, so
 *     the loop keeps answering the plugin meanwhile (a round may wait on
 *     gh or a 30 s command); the thread says it is done through a pipe
 *     the loop polls with the plugin's input, and only the loop writes
 *     to the plugin. One round at a time; the next is due poll_seconds
 *     after one ends.
 *  2. Freeing waits for a round still running (bounded by the runners'
 *     limits), then frees the registry: nothing keeps running.
 *  3. Events reach a session only when it is idle: at its idle event (in
 *     that answer) or, when it is idle already, as an unsolicited line
 *     written before the next answer (opencode_watch_flush) or when the
 *     round ends, whichever comes first. So an answer that shows a
 *     round's results comes after that round's prompts.
 */
#include "host/opencode/opencode_watch.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/session/watch.h"
#include "tools/tool.h"
#include "util/os/clock.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/jsonx.h"
#include "util/log.h"
#include "util/path.h"
#include "util/xmalloc.h"

struct opencode_watch {
	struct watchers	*w;		/* owned */
	int64_t		 next;		/* monotonic ms of the next round */
	pthread_t	 round;
	bool		 running;	/* round is a thread to join */
	int		 done[2];	/* its pipe: a byte when it ends */
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
	if (pipe(ow->done) == 0) {
		fcntl(ow->done[0], F_SETFD, FD_CLOEXEC);
		fcntl(ow->done[1], F_SETFD, FD_CLOEXEC);
	} else {
		log_warn("watchers: no pipe (%s): rounds hold requests up",
		    strerror(errno));
		ow->done[0] = ow->done[1] = -1;
	}
	return ow;
}

/* Invariant 1: the round's thread. */
static void *
round_main(void *arg)
{
	struct opencode_watch	*ow = arg;
	char			 byte = 1;

	watchers_poll(ow->w);
	while (write(ow->done[1], &byte, 1) < 0 && errno == EINTR)
		;
	return NULL;
}

/* The round ended (its byte read, or it ran inline): schedule the next. */
static void
round_ended(struct opencode_watch *ow)
{
	if (ow->running)
		pthread_join(ow->round, NULL);
	ow->running = false;
	ow->next = clock_mono_ms() + (int64_t)watchers_poll_seconds(ow->w) *
	    1000;
}

static void
round_start(struct opencode_watch *ow)
{
	if (ow->done[1] >= 0 && pthread_create(&ow->round, NULL, round_main,
	    ow) == 0) {
		ow->running = true;
		return;
	}
	watchers_poll(ow->w);		/* no thread: the loop waits for it */
	round_ended(ow);
}

void
opencode_watch_free(struct opencode_watch *ow)
{
	if (ow == NULL)
		return;
	if (ow->running)		/* invariant 2 */
		pthread_join(ow->round, NULL);
	if (ow->done[0] >= 0) {
		close(ow->done[0]);
		close(ow->done[1]);
	}
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

/* Invariant 3: what idle sessions have waiting, one line each. */
int
opencode_watch_flush(struct opencode_watch *ow, int out, struct err *err)
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
	struct pollfd	pfd[2] = { { in, POLLIN, 0 }, { -1, POLLIN, 0 } };
	int64_t		now;
	int		r, timeout;
	char		byte;

	for (;;) {
		if (!ow->running && !watchers_any(ow->w)) {
			ow->next = 0;
			return 0;
		}
		now = clock_mono_ms();
		if (!ow->running && ow->next == 0)	/* the first: at once */
			ow->next = now;
		if (!ow->running && now >= ow->next) {
			round_start(ow);
			if (!ow->running && opencode_watch_flush(ow, out,
			    err) != 0)
				return -1;
			continue;
		}
		pfd[1].fd = ow->running ? ow->done[0] : -1;
		timeout = ow->running ? -1 : (int)(ow->next - now);
		r = poll(pfd, 2, timeout);
		if (r < 0 && errno != EINTR)
			return 0;
		if (r > 0 && (pfd[1].revents & POLLIN) &&
		    read(ow->done[0], &byte, 1) == 1) {
			round_ended(ow);
			if (opencode_watch_flush(ow, out, err) != 0)
				return -1;
			continue;
		}
		if (r > 0 && pfd[0].revents != 0)
			return 0;
	}
}
