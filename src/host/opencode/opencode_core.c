/*
 * opencode_core.c — what every part of the opencode core shares: the
 * sets of sessions it tracks, the project store asked once, the failure
 * line of a step (opencode.c invariant 2) and the actions an answer
 * carries (invariant 3).
 *
 * The bottom of the module (opencode_int.h): the request handlers
 * (opencode_context.c, opencode_events.c, opencode_tools.c) and the
 * dispatch (opencode.c) call down into it, and it calls none of them.
 */
#include "host/opencode/opencode_int.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/err.h"
#include "util/log.h"
#include "util/xmalloc.h"

bool
opencode_core_ids_has(const struct opencode_core_ids *s, const char *id)
{
	size_t	i;

	for (i = 0; id != NULL && i < s->n; i++)
		if (strcmp(s->v[i], id) == 0)
			return true;
	return false;
}

void
opencode_core_ids_add(struct opencode_core_ids *s, const char *id)
{
	if (id == NULL || opencode_core_ids_has(s, id))
		return;
	s->v = xreallocarray(s->v, s->n + 1, sizeof(*s->v));
	s->v[s->n++] = xstrdup(id);
}

void
opencode_core_ids_del(struct opencode_core_ids *s, const char *id)
{
	size_t	i;

	for (i = 0; id != NULL && i < s->n; i++)
		if (strcmp(s->v[i], id) == 0) {
			free(s->v[i]);
			s->v[i] = s->v[--s->n];
			return;
		}
}

void
opencode_core_ids_free(struct opencode_core_ids *s)
{
	while (s->n > 0)
		free(s->v[--s->n]);
	free(s->v);
}

double
opencode_core_now_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

const char *
opencode_core_repo(struct opencode *oc)
{
	if (oc->tools->default_store == NULL)
		oc->tools->default_store = oc->repo_fn(oc->repo_arg);
	return oc->tools->default_store;
}

void
opencode_core_report(const char *op, const struct err *err)
{
	log_warn("%s: %s", op, err->msg);
	log_debug("opencode:error", "%s: %s", op, err->msg);
}

json_t *
opencode_core_act(json_t *actions, const char *what)
{
	json_t	*a = json_pack("{s:s}", "do", what);

	json_array_append_new(actions, a);
	return a;
}

void
opencode_core_act_text(json_t *actions, const char *what,
    const char *text)
{
	json_object_set_new(opencode_core_act(actions, what), "text",
	    json_string(text));
}

void
opencode_core_act_toast(json_t *actions, const char *text,
    const char *variant, int ms)
{
	json_t	*a = opencode_core_act(actions, "toast");

	json_object_set_new(a, "message", json_string(text));
	json_object_set_new(a, "variant", json_string(variant));
	if (ms > 0)
		json_object_set_new(a, "duration", json_integer(ms));
}

void
opencode_core_act_session(json_t *actions, const char *what,
    const char *session)
{
	json_object_set_new(opencode_core_act(actions, what), "session",
	    json_string(session));
}
