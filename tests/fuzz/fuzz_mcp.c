/*
 * fuzz_mcp.c — the MCP line handler (mcp_handle, src/host/mcp.c). An input
 * is a session: each of its lines goes to one server, in order, as
 * mcp_run would hand it over, with a private database, the tiny fixture
 * model and the file queue wired in (a queued call waits for session
 * "s1"), so tools/call runs every tool for real.
 *
 * Properties: each line gets at most one response line; every response is
 * one JSON-RPC 2.0 object with an id and exactly one of result and error;
 * a request that parses and carries a string or integer id and a method
 * gets exactly one, with that id.
 */
#include <fcntl.h>
#include <unistd.h>

#include <jansson.h>

#include "fuzz.h"

#include "core/session/queue.h"
#include "core/store/store.h"
#include "host/hook.h"
#include "host/mcp.h"
#include "tools/tool.h"
#include "util/err.h"
#include "util/path.h"
#include "util/sbuf.h"

static struct paths		 paths;
static struct store		*store;
static struct tool_ctx		 tools;
static struct mcp_server	*srv;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct err	err;

	(void)argc;
	(void)argv;
	fuzz_env();
	paths_init(&paths);
	if (store_open(paths.db_path, &store, &err) != 0) {
		fprintf(stderr, "store_open: %s\n", err.msg);
		abort();
	}
	tool_ctx_init(&tools, store, "fuzz", &paths);
	hook_wire_queue(&tools);
	srv = mcp_new(&tools, open("/dev/null", O_RDONLY),
	    open("/dev/null", O_WRONLY));
	return 0;
}

/* The id a well-formed request must be answered with, or NULL. */
static json_t *
expected_id(const char *line, size_t len)
{
	json_t	*msg = json_loadb(line, len, 0, NULL), *id = NULL;

	if (json_is_object(msg) && json_is_string(json_object_get(msg,
	    "method")) && (json_is_string(json_object_get(msg, "id")) ||
	    json_is_integer(json_object_get(msg, "id"))))
		id = json_incref(json_object_get(msg, "id"));
	json_decref(msg);
	return id;
}

static void
check_response(const char *line, size_t len, const struct sbuf *out,
    size_t from)
{
	const char	*r = out->buf + from, *nl;
	json_t		*want = expected_id(line, len), *resp;

	if (out->len == from) {
		FUZZ_ASSERT(want == NULL);
		return;
	}
	nl = memchr(r, '\n', out->len - from);
	FUZZ_ASSERT(nl == out->buf + out->len - 1);	/* one line */
	resp = json_loadb(r, (size_t)(nl - r), 0, NULL);
	FUZZ_ASSERT(json_is_object(resp));
	FUZZ_ASSERT(json_is_string(json_object_get(resp, "jsonrpc")) &&
	    strcmp(json_string_value(json_object_get(resp, "jsonrpc")),
	    "2.0") == 0);
	FUZZ_ASSERT(json_object_get(resp, "id") != NULL);
	FUZZ_ASSERT((json_object_get(resp, "result") != NULL) !=
	    (json_object_get(resp, "error") != NULL));
	if (want != NULL)
		FUZZ_ASSERT(json_equal(json_object_get(resp, "id"), want));
	json_decref(resp);
	json_decref(want);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char		*p = (const char *)data, *end = p + size, *nl;
	struct queue_call	 call = { "Bash", NULL, NULL, QUEUE_KEEP };
	struct sbuf		 out = SBUF_INIT;
	struct err		 err;
	json_t			*args = json_pack("{s:s}", "command", "ls");
	size_t			 from;

	call.args = args;
	FUZZ_ASSERT(queue_append(paths.queue_dir, "s1", &call, 1, &err) == 0);
	json_decref(args);
	sbuf_init(&out);
	for (; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		from = out.len;
		mcp_handle(srv, p, (size_t)(nl - p), &out);
		check_response(p, (size_t)(nl - p), &out, from);
	}
	sbuf_release(&out);
	return 0;
}
