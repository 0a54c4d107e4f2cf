/*
 * fuzz_sideband.c — the sideband request handler
 * (src/host/sideband/sideband.c, through sideband_answer_line). An input
 * is what a hook sends: the server answers its first line, as it does on
 * a connection, with a private database holding a few memories, a
 * prediction and a behavior, and the tiny fixture model, so match,
 * predictions and behaviors all embed and score for real.
 *
 * Properties (hosts-hooks-cli §6.3): every answer is a JSON object with a
 * boolean ok; ok:true carries the method's array ("matches" for match),
 * ok:false a string error.
 */
#include <fcntl.h>
#include <unistd.h>

#include <jansson.h>

#include "fuzz.h"

#include "core/store/store.h"
#include "host/mcp.h"
#include "host/sideband/sideband.h"
#include "tools/tool.h"
#include "util/err.h"
#include "util/path.h"
#include "util/sbuf.h"

static struct paths		 paths;
static struct store		*store;
static struct tool_ctx		 tools;
static struct mcp_server	*srv;
static struct sideband		*sb;

/* What the harness's store holds: tools/call lines, as an agent sends. */
static const char *const seed[] = {
	"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":"
	"{\"name\":\"memory_remember\",\"arguments\":{\"label\":\"tabs\","
	"\"content\":\"The user prefers tabs over spaces.\"}}}",
	"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":"
	"{\"name\":\"memory_remember\",\"arguments\":{\"label\":\"build\","
	"\"content\":\"Build with make; test with make test.\",\"store\":"
	"\"global\"}}}",
	"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":"
	"{\"name\":\"prediction_update\",\"arguments\":{\"matcher\":\"the "
	"user asks to run the tests\",\"prediction\":\"they want make test\","
	"\"signal\":\"create\",\"rationale\":\"seen\"}}}",
	"{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":"
	"{\"name\":\"behavior_codify\",\"arguments\":{\"situation\":\"editing "
	"C files\",\"behavior\":\"use tabs\",\"rationale\":\"house style\"}}}",
	NULL
};

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct sbuf	out = SBUF_INIT;
	struct err	err;
	size_t		i;

	(void)argc;
	(void)argv;
	fuzz_env();
	paths_init(&paths);
	if (store_open(paths.db_path, &store, &err) != 0) {
		fprintf(stderr, "store_open: %s\n", err.msg);
		abort();
	}
	tool_ctx_init(&tools, store, "fuzz", &paths);
	srv = mcp_new(&tools, open("/dev/null", O_RDONLY),
	    open("/dev/null", O_WRONLY));
	sbuf_init(&out);
	for (i = 0; seed[i] != NULL; i++)
		mcp_handle(srv, seed[i], strlen(seed[i]), &out);
	FUZZ_ASSERT(strstr(out.buf, "\"isError\":true") == NULL);
	sbuf_release(&out);
	if (sideband_open(srv, &paths, &sb, &err) != 0) {
		fprintf(stderr, "sideband_open: %s\n", err.msg);
		abort();
	}
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char	*line = (const char *)data, *nl;
	const char	*method, *key;
	json_t		*req, *res;
	char		*s;
	size_t		 len = size;

	if ((nl = memchr(line, '\n', size)) != NULL)
		len = (size_t)(nl - line);
	s = sideband_answer_line(sb, line, len);
	res = json_loads(s, 0, NULL);
	FUZZ_ASSERT(json_is_object(res));
	FUZZ_ASSERT(json_is_boolean(json_object_get(res, "ok")));
	if (json_is_true(json_object_get(res, "ok"))) {
		req = json_loadb(line, len, 0, NULL);
		method = json_string_value(json_object_get(req, "method"));
		key = method != NULL && strcmp(method, "match") != 0 ? method :
		    "matches";
		FUZZ_ASSERT(json_is_array(json_object_get(res, key)));
		json_decref(req);
	} else
		FUZZ_ASSERT(json_is_string(json_object_get(res, "error")));
	json_decref(res);
	free(s);
	return 0;
}
