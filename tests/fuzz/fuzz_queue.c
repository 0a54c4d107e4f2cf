/*
 * fuzz_queue.c — the queue readers (src/core/session/queue.c). An input is the
 * contents of one queue file, which other versions of thatch and other
 * people may have written (issue 12): it is put in place as a session's
 * <sid>.jsonl, .count and .nudge, and read the ways the hooks and the MCP
 * server read them: queue_peek, queue_title and queue_summary of every
 * record that has args, queue_payload, queue_missed, queue_pending_take,
 * and the capped rewrite of queue_append.
 *
 * Properties: peek returns one record per line that holds one (the
 * newest QUEUE_CAP), whatever the other lines hold; the payload, when
 * there is one, is a JSON object with one interaction per record; a
 * taken nudge is gone afterwards.
 */
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "fuzz.h"

#include "core/session/queue.h"
#include "util/err.h"
#include "util/jsonx.h"
#include "util/sbuf.h"

#define SID	"s1"

static char	*dir;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char	*root = fuzz_env();
	size_t		 n = strlen(root) + 8;

	(void)argc;
	(void)argv;
	if ((dir = malloc(n)) == NULL)
		abort();
	snprintf(dir, n, "%s/queue", root);
	FUZZ_ASSERT(mkdir(dir, 0700) == 0);
	return 0;
}

static void
put(const char *ext, const uint8_t *data, size_t size)
{
	char	path[4096];
	int	fd;

	snprintf(path, sizeof(path), "%s/%s.%s", dir, SID, ext);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	FUZZ_ASSERT(fd >= 0);
	FUZZ_ASSERT(write(fd, data, size) == (ssize_t)size);
	close(fd);
}

/* How many lines of the file hold a record — a JSON object whose "tool"
 * is a string — of which readers keep the newest QUEUE_CAP: what peek
 * must return, whatever the other lines hold (a torn write, NUL bytes,
 * garbage). */
static size_t
objects_in(const uint8_t *data, size_t size)
{
	const uint8_t	*p = data, *end = data + size, *nl;
	json_t		*v;
	size_t		 n = 0;

	for (; p <= end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		v = json_loadb((const char *)p, (size_t)(nl - p),
		    JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
		n += json_is_object(v) && json_is_string(json_object_get(v,
		    "tool"));
		json_decref(v);
	}
	return n < QUEUE_CAP ? n : QUEUE_CAP;
}

/* title and summary of each record with args, as the append and the
 * payload compute them */
static void
describe(const json_t *recs)
{
	const json_t	*rec, *args;
	const char	*tool;
	char		*s;
	size_t		 i;

	json_array_foreach(recs, i, rec) {
		FUZZ_ASSERT(json_is_object(rec));
		if ((args = jsonx_get(rec, "args")) == NULL)
			continue;
		tool = jsonx_str(rec, "tool") ? jsonx_str(rec, "tool") : "";
		free(queue_title(tool, args));
		s = queue_summary(tool, args);
		FUZZ_ASSERT(s != NULL);
		free(s);
	}
}

static void
check_payload(size_t nrecs)
{
	struct sbuf	 out = SBUF_INIT;
	struct err	 err;
	json_t		*p;
	int		 rc;

	sbuf_init(&out);
	rc = queue_payload(dir, SID, "proj", NULL, &out, &err);
	FUZZ_ASSERT(rc == (nrecs > 0 ? 1 : 0));
	if (rc == 1) {
		p = json_loadb(out.buf, out.len, JSON_ALLOW_NUL, NULL);
		FUZZ_ASSERT(json_is_object(p));
		FUZZ_ASSERT(json_array_size(json_object_get(p,
		    "interactions")) == nrecs);
		json_decref(p);
	}
	sbuf_release(&out);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct queue_call	 call = { "Bash", NULL, NULL, QUEUE_KEEP };
	struct sbuf		 text = SBUF_INIT;
	struct err		 err;
	json_t			*recs = NULL, *args;
	size_t			 want, n;
	bool			 extraction;

	want = objects_in(data, size);
	put("jsonl", data, size);
	put("count", data, size);
	put("nudge", data, size);

	FUZZ_ASSERT(queue_peek(dir, SID, &recs, &err) == 0);
	n = json_array_size(recs);
	FUZZ_ASSERT(n == want);
	describe(recs);
	check_payload(n);
	(void)queue_missed(dir, SID);

	sbuf_init(&text);
	if (queue_pending_take(dir, SID, &text, &extraction, &err) == 1)
		FUZZ_ASSERT(queue_pending_take(dir, SID, &text, &extraction,
		    &err) == 0);
	sbuf_release(&text);

	/* the append rewrites what it read, keeping the newest records */
	args = json_pack("{s:s}", "command", "ls");
	call.args = args;
	FUZZ_ASSERT(queue_append(dir, SID, &call, 1, &err) == 0);
	json_decref(recs);
	FUZZ_ASSERT(queue_peek(dir, SID, &recs, &err) == 0);
	FUZZ_ASSERT(json_array_size(recs) >= 1 &&
	    json_array_size(recs) <= QUEUE_CAP);
	describe(recs);
	json_decref(recs);
	json_decref(args);
	FUZZ_ASSERT(queue_drain(dir, SID, &err) == 0);
	return 0;
}
