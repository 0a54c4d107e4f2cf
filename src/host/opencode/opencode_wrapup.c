/*
 * opencode_wrapup.c — the wrap-up commands of engines-and-extras B8 and
 * hosts-hooks-cli §9.4: /thatch/compact and /thatch/exit ask the agent to
 * wrap up (text/wrapups.c), and only a reply ending in the greenlight
 * token makes opencode compact the session or exit.
 *
 *  1. Pending state is per session and lives in memory: marked by
 *     command.execute.before, cleared at the idle that ends the command's
 *     turn (token or not) and on an error or deletion. A lost core loses
 *     a pending wrap-up; the user runs the command again.
 *  2. Only an idle after a busy resolves: the command's own turn, not an
 *     idle that was already on its way when the command was typed.
 *  3. The token is looked for in the text parts of the session's last
 *     assistant message only, as opencode stored it (core/session/ocdb.c): the
 *     model's own words, not a tool's output that might quote it.
 *  4. Exit leaves the chat directory first (before_exit), then asks the
 *     plugin to close the app; compaction runs on the provider and model
 *     of that last message.
 */
#include "host/opencode/opencode_wrapup.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/session/ocdb.h"
#include "text/wrapups.h"
#include "tools/tool.h"
#include "util/err.h"
#include "util/jsonx.h"
#include "util/log.h"
#include "util/path.h"
#include "util/sbuf.h"
#include "util/xmalloc.h"

#define LOG_TAG	"wrapup:resolve"

struct pending {
	char		*sid;		/* owned */
	bool		 exit;		/* else compact */
	bool		 busy;		/* its turn has started (invariant 2) */
};

struct opencode_wrapups {
	struct pending	*v;
	size_t		 n;
	void		(*before_exit)(void *, const char *);
	void		*arg;
};

struct opencode_wrapups *
opencode_wrapups_new(void)
{
	return xcalloc(1, sizeof(struct opencode_wrapups));
}

void
opencode_wrapups_free(struct opencode_wrapups *w)
{
	if (w == NULL)
		return;
	while (w->n > 0)
		free(w->v[--w->n].sid);
	free(w->v);
	free(w);
}

void
opencode_wrapups_before_exit(struct opencode_wrapups *w,
    void (*fn)(void *, const char *), void *arg)
{
	w->before_exit = fn;
	w->arg = arg;
}

static struct pending *
find(struct opencode_wrapups *w, const char *sid)
{
	size_t	i;

	for (i = 0; i < w->n; i++)
		if (strcmp(w->v[i].sid, sid) == 0)
			return &w->v[i];
	return NULL;
}

static void
clear(struct opencode_wrapups *w, struct pending *p)
{
	free(p->sid);
	*p = w->v[--w->n];
}

void
opencode_wrapups_command(struct opencode_wrapups *w, const char *command,
    const char *sid)
{
	const struct text_action	*a;
	struct pending			*p;

	if (command == NULL || sid == NULL)
		return;
	if (*command == '/')
		command++;
	if (strncmp(command, "thatch/", 7) != 0 ||
	    (a = text_wrapup_find(command + 7)) == NULL)
		return;
	if ((p = find(w, sid)) == NULL) {
		w->v = xreallocarray(w->v, w->n + 1, sizeof(*w->v));
		p = &w->v[w->n++];
		p->sid = xstrdup(sid);
	}
	p->exit = strcmp(a->name, "exit") == 0;
	p->busy = false;
	log_debug(LOG_TAG, "%s: %s pending", sid, a->name);
}

/* Invariant 3: 1 when the token is there, 0 when not, -1 unreadable. */
static int
greenlit(struct tool_ctx *ctx, const char *sid, char **provider,
    char **model)
{
	struct ocdb	*db = NULL;
	struct sbuf	 text = SBUF_INIT;
	struct err	 err;
	char		*path = ocdb_path(ctx->paths->home);
	int		 r = -1;

	*provider = *model = NULL;
	sbuf_init(&text);
	if (ocdb_open(path, &db, &err) == 0 &&
	    (r = ocdb_last_reply(db, sid, &text, provider, model, &err)) > 0)
		r = strstr(text.buf, TEXT_GREENLIGHT) != NULL;
	if (r < 0)
		log_warn("wrap-up of %s not resolved: %s", sid, err.msg);
	ocdb_close(db);
	sbuf_release(&text);
	free(path);
	return r;
}

static enum opencode_wrapup_outcome
resolve(struct opencode_wrapups *w, struct tool_ctx *ctx, struct pending *p,
    json_t *actions)
{
	enum opencode_wrapup_outcome	 out = WRAPUP_NONE;
	char				*sid = xstrdup(p->sid), *prov, *model;
	bool				 exit = p->exit;
	int				 r;

	clear(w, p);
	r = greenlit(ctx, sid, &prov, &model);
	log_debug(LOG_TAG, "%s: %s, %s", sid, exit ? "exit" : "compact",
	    r > 0 ? "green light" : r == 0 ? "no token: nothing" :
	    "unreadable: nothing");
	if (r > 0 && exit) {
		if (w->before_exit != NULL)
			w->before_exit(w->arg, sid);	/* invariant 4 */
		json_array_append_new(actions, json_pack("{s:s,s:s}", "do",
		    "exit", "session", sid));
		out = WRAPUP_EXIT;
	} else if (r > 0) {
		json_array_append_new(actions, json_pack("{s:s,s:s,s:s?,s:s?}",
		    "do", "compact", "session", sid, "providerID", prov,
		    "modelID", model));
		out = WRAPUP_COMPACT;
	}
	free(prov);
	free(model);
	free(sid);
	return out;
}

enum opencode_wrapup_outcome
opencode_wrapups_event(struct opencode_wrapups *w, struct tool_ctx *ctx,
    const char *type, const json_t *props, json_t *actions)
{
	const json_t	*info = json_object_get(props, "info");
	const char	*sid = jsonx_str(props, "sessionID"), *status;
	struct pending	*p;

	if (sid == NULL)
		sid = jsonx_str(info, "id");
	if (sid == NULL || (p = find(w, sid)) == NULL)
		return WRAPUP_NONE;
	status = jsonx_str(json_object_get(props, "status"), "type");
	if (strcmp(type, "session.error") == 0 ||
	    strcmp(type, "session.deleted") == 0) {
		log_debug(LOG_TAG, "%s: cleared by %s", sid, type);
		clear(w, p);
	} else if (strcmp(type, "session.status") == 0 && status != NULL &&
	    strcmp(status, "idle") != 0)
		p->busy = true;
	else if (p->busy && (strcmp(type, "session.idle") == 0 ||
	    (strcmp(type, "session.status") == 0 && status != NULL)))
		return resolve(w, ctx, p, actions);
	return WRAPUP_NONE;
}
