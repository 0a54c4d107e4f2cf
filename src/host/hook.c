/*
 * hook.c — hook stdin and stdout for Claude Code and Cursor.
 *
 * What the hosts send (host-contracts §1.3, §2.2) and what they read back
 * (§1.4, §2.3), in one place, so every hook command parses and answers the
 * same way. Nothing here exits or fails a hook: callers decide.
 *  1. Field fallbacks follow "first present" (key exists, value not null;
 *     "" is present), hosts-hooks-cli §0.3.
 *  2. Output is one line: plain text starting with "[thatch]" or compact
 *     JSON, never both.
 *  3. A hook's time and memory do not grow with what arrives on stdin:
 *     hook_read keeps HOOK_STRING_MAX bytes of each JSON string as it
 *     reads (queue_clip_feed: a 50 MB tool output costs a pass over it,
 *     not 50 MB), refuses input with more than HOOK_INPUT_MAX bytes of
 *     the rest, and stops reading after HOOK_STDIN_MAX. Bytes that are not
 *     UTF-8 read as U+FFFD (utf8_repair), as the hosts' JavaScript would
 *     have decoded them: one bad byte in a tool's output costs that byte,
 *     not the hook. Everything a hook
 *     uses of a string is far shorter than the bound (outputs and args
 *     are cut to at most 1000 units when queued, a prompt is embedded
 *     from its first 512 tokens).
 */
#include "host/hook.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/engine/behavior.h"
#include "core/engine/engine.h"
#include "core/engine/predict.h"
#include "host/sideband/sideband_client.h"
#include "text/nudge.h"
#include "tools/tool.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/jsonx.h"
#include "util/log.h"
#include "util/num.h"
#include "util/path.h"
#include "util/sbuf.h"
#include "util/utf8.h"
#include "util/xmalloc.h"

json_t *
hook_read(int fd, struct err *err)
{
	struct queue_clip c = { .state = QUEUE_CLIP_OUT };
	struct sbuf	 sb = SBUF_INIT, text = SBUF_INIT;
	unsigned char	 buf[65536];
	size_t		 total = 0;
	ssize_t		 n;
	json_t		*v = NULL;

	sbuf_init(&sb);
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err_errno(err, "cannot read hook input");
			goto out;
		}
		if ((total += (size_t)n) > HOOK_STDIN_MAX) {
			err_set(err, "hook input is over %d MiB; ignored",
			    HOOK_STDIN_MAX >> 20);
			goto out;
		}
		queue_clip_feed(&c, buf, (size_t)n, HOOK_STRING_MAX, &sb);
		if (sb.len > HOOK_INPUT_MAX) {
			err_set(err, "hook input is over %d MiB outside its "
			    "long strings; ignored", HOOK_INPUT_MAX >> 20);
			goto out;
		}
	}
	sbuf_init(&text);
	utf8_repair(&text, sb.buf, sb.len);
	v = jsonx_parse(text.buf, text.len, "hook input", err);
	if (v != NULL && !json_is_object(v)) {
		json_decref(v);
		v = json_object();
	}
out:
	sbuf_release(&text);
	sbuf_release(&sb);
	return v;
}

/* The first of keys present in in (borrowed), or NULL. */
static const json_t *
first_present(const json_t *in, const char *const *keys)
{
	const json_t	*v;

	for (; *keys != NULL; keys++)
		if ((v = jsonx_get(in, *keys)) != NULL)
			return v;
	return NULL;
}

const char *
hook_session(const json_t *in)
{
	static const char *const	keys[] = { "conversation_id",
		"session_id", NULL };

	return json_string_value(first_present(in, keys));
}

const json_t *
hook_prompt(const json_t *in)
{
	static const char *const	keys[] = { "prompt", "message", "text",
		"user_input", "input", NULL };

	return first_present(in, keys);
}

const json_t *
hook_tool_response(const json_t *in)
{
	static const char *const	keys[] = { "tool_output", "tool_result",
		"tool_response", "result_json", "result", "output",
		"error_message", NULL };

	return first_present(in, keys);
}

bool
hook_in_cursor(const json_t *in)
{
	return path_env("CURSOR_VERSION") != NULL ||
	    jsonx_get(in, "cursor_version") != NULL;
}

/* The tool-table name inside a host's spelling of a thatch tool, or NULL. */
static const struct tool *
own_tool(const char *name)
{
	const char	*p;

	if (strncmp(name, "mcp__", 5) == 0 &&
	    (p = strstr(name + 5, "__")) != NULL)
		name = p + 2;
	else if (strncasecmp(name, "MCP:", 4) == 0)
		name = name + 4;
	else if (strncmp(name, "thatch_", 7) == 0)
		name = name + 7;
	return tool_find(name);
}

enum queue_verdict
hook_verdict(const char *tool, bool failed)
{
	const struct tool	*t = own_tool(tool);

	if (t != NULL) {
		if (!failed && (strcmp(t->name, "memory_remember") == 0 ||
		    strcmp(t->name, "extraction_done") == 0))
			return QUEUE_DRAIN;
		return QUEUE_SKIP;
	}
	if (strcasecmp(tool, "skill") == 0 || strcasecmp(tool, "task") == 0 ||
	    strcasecmp(tool, "agent") == 0)
		return QUEUE_SKIP;
	return QUEUE_KEEP;
}

static int
queue_payload_of(struct tool_ctx *ctx, const char *sid, struct sbuf *out,
    struct err *err)
{
	return queue_payload(ctx->paths->queue_dir, sid, ctx->default_store,
	    ctx->paths->project_dir, out, err);
}

static int
queue_drain_of(struct tool_ctx *ctx, const char *sid, struct err *err)
{
	return queue_drain(ctx->paths->queue_dir, sid, err);
}

void
hook_wire_queue(struct tool_ctx *ctx)
{
	ctx->payload = queue_payload_of;
	ctx->drain = queue_drain_of;
}

/* A prediction or behavior block from the sideband's items (§5.8). */
static void
render_engine(const struct engine *eng, const json_t *items, struct sbuf *out)
{
	struct engine_hit	*hits;
	const json_t		*it;
	size_t			 i;

	hits = xcalloc(json_array_size(items) + 1, sizeof(*hits));
	json_array_foreach(items, i, it) {
		hits[i].confidence = json_number_value(
		    json_object_get(it, "confidence"));
		hits[i].evidence = (long)json_number_value(
		    json_object_get(it, "evidence_count"));
		hits[i].matcher_description = (char *)jsonx_str(it,
		    "matcher_description");
		hits[i].statement = (char *)jsonx_str(it, "statement");
		if (hits[i].matcher_description == NULL)
			hits[i].matcher_description = (char *)"";
		if (hits[i].statement == NULL)
			hits[i].statement = (char *)"";
	}
	engine_render_nudge(eng, hits, json_array_size(items), out);
	free(hits);
}

static void
render_recall(const json_t *matches, struct sbuf *out)
{
	const char	*labels[2] = { "", "" };
	size_t		 i;

	for (i = 0; i < 2 && i < json_array_size(matches); i++)
		if (jsonx_str(json_array_get(matches, i), "label") != NULL)
			labels[i] = jsonx_str(json_array_get(matches, i),
			    "label");
	text_nudge_recall(out, json_array_size(matches), labels);
	for (i = 0; i < 2 && i < json_array_size(matches); i++) {
		if (jsonx_str(json_array_get(matches, i), "drift") != NULL)
			text_nudge_drift(out, labels[i], jsonx_str(
			    json_array_get(matches, i), "drift"));
		if (jsonx_str(json_array_get(matches, i), "from") != NULL)
			text_nudge_origin(out, labels[i], jsonx_str(
			    json_array_get(matches, i), "from"));
	}
}

/* The cache file of paths->project_dir, and its .git/config. */
static void
repo_files(const struct paths *paths, char **cache, char **config)
{
	char	*safe = queue_safe_id(paths->project_dir), *dir;

	dir = path_join(paths->cache_home, "thatch/repo");
	*cache = path_join(dir, safe);
	*config = path_join(paths->project_dir, ".git/config");
	free(dir);
	free(safe);
}

char *
hook_repo_get(const struct paths *paths)
{
	struct stat	 c, g;
	struct sbuf	 sb = SBUF_INIT;
	char		*cache, *config, *nl, *store = NULL;

	repo_files(paths, &cache, &config);
	sbuf_init(&sb);
	if (stat(config, &g) != 0 || stat(cache, &c) != 0 ||
	    c.st_mtim.tv_sec < g.st_mtim.tv_sec ||
	    (c.st_mtim.tv_sec == g.st_mtim.tv_sec &&
	    c.st_mtim.tv_nsec <= g.st_mtim.tv_nsec) ||
	    fileio_read(cache, &sb, NULL) != 0)
		goto out;
	/* line 1 is the directory itself: safe names may collide */
	if ((nl = strchr(sb.buf, '\n')) != NULL && strncmp(sb.buf,
	    paths->project_dir, (size_t)(nl - sb.buf)) == 0 &&
	    strlen(paths->project_dir) == (size_t)(nl - sb.buf) && nl[1] != '\0')
		store = xstrdup(nl + 1);
out:
	sbuf_release(&sb);
	free(cache);
	free(config);
	return store;
}

void
hook_repo_put(const struct paths *paths, const char *store)
{
	char	*cache, *config, *body;

	repo_files(paths, &cache, &config);
	if (fileio_exists(config)) {
		body = xasprintf("%s\n%s", paths->project_dir, store);
		fileio_replace(cache, body, strlen(body), 0600, NULL);
		free(body);
	}
	free(cache);
	free(config);
}

bool
hook_sideband_up(const struct paths *paths)
{
	return sideband_client_up(paths);
}

/*
 * The parts of the prompt-aware tier (§5.3), in the order they print:
 * the sideband method asking for each, its threshold (the environment's,
 * else the default) and limit, and the engine rendering its items (none:
 * the recall nudge).
 */
static const struct {
	unsigned			 part;
	enum sideband_wire_method	 method;
	const char			*env;
	double				 threshold;
	int				 limit;
	const struct engine		*eng;
} related[] = {
	{ HOOK_RECALL, SIDEBAND_WIRE_MATCH, "THATCH_RECALL_THRESHOLD", 0.55,
	    5, NULL },
	{ HOOK_PREDICTIONS, SIDEBAND_WIRE_PREDICTIONS,
	    "THATCH_PREDICTION_THRESHOLD", ENGINE_THRESHOLD, ENGINE_LIMIT,
	    &predict_engine },
	{ HOOK_BEHAVIORS, SIDEBAND_WIRE_BEHAVIORS, "THATCH_BEHAVIOR_THRESHOLD",
	    ENGINE_THRESHOLD, ENGINE_LIMIT, &behavior_engine },
};

#define HOOK_NRELATED	(sizeof(related) / sizeof(related[0]))

int
hook_related(const struct paths *paths, const char *repo, const char *prompt,
    unsigned parts, struct sbuf *out)
{
	const char *const		 stores[] = { repo, "global" };
	struct sideband_client_ask	 ask[HOOK_NRELATED];
	size_t				 row[HOOK_NRELATED], n = 0, i;
	int				 added = 0;

	memset(ask, 0, sizeof(ask));
	for (i = 0; i < HOOK_NRELATED; i++) {
		if (!(parts & related[i].part))
			continue;
		ask[n].req.method = related[i].method;
		ask[n].req.text = prompt;
		ask[n].req.stores = stores;
		ask[n].req.nstores = 2;
		ask[n].req.threshold = num_env(related[i].env,
		    related[i].threshold);
		ask[n].req.limit = related[i].limit;
		row[n++] = i;
	}
	sideband_client_ask(paths, ask, n, SIDEBAND_WIRE_TIMEOUT_MS);
	for (i = 0; i < n; i++) {
		log_debug("sideband:client", "%s: %s",
		    sideband_wire_method_name(ask[i].req.method),
		    ask[i].result == NULL ? "no answer" : "answered");
		if (json_array_size(ask[i].result) == 0)
			continue;
		if (added++ > 0)
			sbuf_adds(out, "\n\n");
		if (related[row[i]].eng == NULL)
			render_recall(ask[i].result, out);
		else
			render_engine(related[row[i]].eng, ask[i].result, out);
	}
	for (i = 0; i < n; i++)
		json_decref(ask[i].result);
	return added;
}

void
hook_emit(FILE *fp, enum hook_form form, const char *event, const char *text)
{
	json_t	*o, *inner;
	char	*s;

	if (form == HOOK_PLAIN) {
		fprintf(fp, "%s\n", text);
		return;
	}
	o = json_object();
	if (form == HOOK_CURSOR)
		json_object_set_new(o, "additional_context", json_string(text));
	else {
		inner = json_object();
		json_object_set_new(inner, "hookEventName", json_string(event));
		json_object_set_new(inner, "additionalContext",
		    json_string(text));
		json_object_set_new(o, "hookSpecificOutput", inner);
	}
	s = jsonx_dump(o, 0);
	fprintf(fp, "%s\n", s);
	free(s);
	json_decref(o);
}
