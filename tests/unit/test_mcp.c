/*
 * test_mcp.c — the MCP server's contracts with the other host modules:
 * setup detection and its warnings (hosts-hooks-cli §2.6), deferred
 * startup work around initialize, watched descriptors served by the loop,
 * idle steps only once initialize is answered, and the one-shot notice.
 * The wire protocol itself is tested through the official client in
 * tests/mcp/.
 */
#include "check.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/mcp.h"
#include "text/block.h"
#include "tools/tool.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/path.h"
#include "util/sbuf.h"

#define BLOCK	TEXT_BLOCK_START_CLAUDE "\nbody\n" TEXT_BLOCK_END "\n"

static void
write_file(const char *dir, const char *name, const char *text)
{
	char		*p = path_join(dir, name);
	struct err	 err;

	if (fileio_write_atomic(p, text, strlen(text), 0644, &err) != 0)
		CHECK_FAIL("%s", err.msg);
	free(p);
}

/* Detect with PROJECT_DIR and CLAUDE_DIR under a fresh directory. */
static void
detect(const char *local, const char *global, struct mcp_setup *s)
{
	struct paths	 p;
	char		 tpl[] = "/tmp/thatch-test-setup.XXXXXX", cmd[128];
	char		*d = mkdtemp(tpl);

	memset(&p, 0, sizeof(p));
	p.project_dir = path_join(d, "proj");
	p.claude_dir = path_join(d, "claude");
	p.cursor_dir = path_join(d, "cursor");
	if (local != NULL)
		write_file(p.project_dir, "CLAUDE.md", local);
	if (global != NULL)
		write_file(p.claude_dir, "CLAUDE.md", global);
	setenv("CLAUDE_PROJECT_DIR", p.project_dir, 1);
	unsetenv("CURSOR_PROJECT_DIR");
	mcp_setup_detect(&p, s);
	free(p.project_dir);
	free(p.claude_dir);
	free(p.cursor_dir);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", d);
	if (system(cmd) != 0)
		CHECK_FAIL("cannot remove %s", d);
}

static void
setup_outcomes_follow_the_local_then_global_file(void)
{
	struct mcp_setup	 s;
	char			*w;

	detect(NULL, NULL, &s);
	CHECK_INT(s.outcome, MCP_SETUP_NOT_INSTALLED);
	w = mcp_setup_warning(&s);
	CHECK(w != NULL && strstr(w, "thatch setup --claude`") != NULL &&
	    strstr(w, "CLAUDE.md") != NULL);
	free(w);
	mcp_setup_release(&s);

	detect("notes\n\n" BLOCK, TEXT_BLOCK_START_CLAUDE, &s);
	CHECK_INT(s.outcome, MCP_SETUP_INSTALLED);
	CHECK(!s.global);
	CHECK(mcp_setup_warning(&s) == NULL);
	mcp_setup_release(&s);

	detect("no block here\n", BLOCK, &s);
	CHECK_INT(s.outcome, MCP_SETUP_INSTALLED);
	CHECK(s.global);
	mcp_setup_release(&s);

	detect(NULL, TEXT_BLOCK_START_CLAUDE "\nhalf\n", &s);
	CHECK_INT(s.outcome, MCP_SETUP_BROKEN);
	w = mcp_setup_warning(&s);
	CHECK(w != NULL && strstr(w, "--claude --global") != NULL &&
	    strstr(w, s.file) != NULL);
	free(w);
	mcp_setup_release(&s);
}

static void
no_host_means_no_check(void)
{
	struct mcp_setup	s;
	struct paths		p;

	memset(&p, 0, sizeof(p));
	unsetenv("CLAUDE_PROJECT_DIR");
	unsetenv("CURSOR_PROJECT_DIR");
	mcp_setup_detect(&p, &s);
	CHECK_INT(s.host, MCP_HOST_NONE);
	CHECK_INT(s.outcome, MCP_SETUP_SKIPPED);
	CHECK(mcp_setup_warning(&s) == NULL);
	mcp_setup_release(&s);
}

static void
count(void *arg)
{
	(*(int *)arg)++;
}

static void
deferred_work_runs_once_after_initialize(void)
{
	struct tool_ctx		 ctx;
	struct mcp_server	*s;
	struct sbuf		 out = SBUF_INIT;
	const char		*ping1 = "{\"jsonrpc\":\"2.0\",\"id\":1,"
				    "\"method\":\"ping\"}";
	const char		*ping2 = "{\"jsonrpc\":\"2.0\",\"id\":2,"
				    "\"method\":\"ping\"}";
	int			 n = 0;

	memset(&ctx, 0, sizeof(ctx));
	s = mcp_new(&ctx, -1, -1);
	mcp_after_initialize(s, count, &n);
	mcp_handle(s, ping1, strlen(ping1), &out);
	CHECK_INT(n, 1);	/* a client that skips initialize */
	mcp_handle(s, ping2, strlen(ping2), &out);
	CHECK_INT(n, 1);
	CHECK_STR(out.buf, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n"
	    "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\n");
	sbuf_release(&out);
	mcp_free(s);
}

static void
the_notice_prefixes_the_first_tool_result_only(void)
{
	struct tool_ctx		 ctx;
	struct mcp_server	*s;
	struct sbuf		 out = SBUF_INIT;
	const char		*call = "{\"jsonrpc\":\"2.0\",\"id\":1,"
				    "\"method\":\"tools/call\",\"params\":"
				    "{\"name\":\"memory_show\"}}";

	memset(&ctx, 0, sizeof(ctx));
	s = mcp_new(&ctx, -1, -1);
	mcp_set_warning(s, "run setup");
	mcp_handle(s, call, strlen(call), &out);
	CHECK(strstr(out.buf, "\"isError\":true,\"content\":[{\"type\":"
	    "\"text\",\"text\":\"[thatch] run setup\\n\\nInvalid arguments: "
	    "label: Required\"}]") != NULL);
	sbuf_reset(&out);
	mcp_handle(s, call, strlen(call), &out);
	CHECK(strstr(out.buf, "[thatch]") == NULL);
	sbuf_release(&out);
	mcp_free(s);
}

struct watched {
	int	fd, calls;
	struct mcp_server *s;
};

static void
on_ready(void *arg, int fd)
{
	struct watched	*w = arg;
	char		 c;

	if (read(fd, &c, 1) == 1)
		w->calls++;
	mcp_unwatch(w->s, fd);
}

static void
watched_descriptors_are_served_by_the_loop(void)
{
	struct tool_ctx		 ctx;
	struct watched		 w = { -1, 0, NULL };
	const char		*ping = "{\"jsonrpc\":\"2.0\",\"id\":7,"
				    "\"method\":\"ping\"}\n";
	struct err		 err;
	int			 in[2], out[2], side[2];
	char			 buf[256];
	ssize_t			 n;

	memset(&ctx, 0, sizeof(ctx));
	if (pipe(in) != 0 || pipe(out) != 0 || pipe(side) != 0)
		CHECK_FAIL("pipe");
	w.s = mcp_new(&ctx, in[0], out[1]);
	mcp_watch(w.s, side[0], on_ready, &w);
	CHECK_INT(write(side[1], "x", 1), 1);
	CHECK_INT(write(in[1], ping, strlen(ping)), (long long)strlen(ping));
	close(in[1]);
	CHECK_INT(mcp_run(w.s, &err), 0);
	CHECK_INT(w.calls, 1);
	close(out[1]);
	n = read(out[0], buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	CHECK_STR(buf, "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}\n");
	mcp_free(w.s);
	close(in[0]);
	close(out[0]);
	close(side[0]);
	close(side[1]);
}

struct idler {
	int	in_w, out_r, calls;
	char	seen[512];
};

/* First idle tick: look at what was answered; second: end the input. */
static bool
idle_step(void *arg)
{
	struct idler	*d = arg;
	ssize_t		 n;

	if (d->calls++ == 0) {
		n = read(d->out_r, d->seen, sizeof(d->seen) - 1);
		d->seen[n > 0 ? n : 0] = '\0';
		return true;
	}
	close(d->in_w);
	return false;
}

static void
idle_steps_run_after_the_initialize_answer(void)
{
	struct tool_ctx		 ctx;
	struct mcp_server	*s;
	struct idler		 d;
	const char		*init = "{\"jsonrpc\":\"2.0\",\"id\":1,"
				    "\"method\":\"initialize\"}\n";
	struct err		 err;
	int			 in[2], out[2];

	memset(&ctx, 0, sizeof(ctx));
	memset(&d, 0, sizeof(d));
	if (pipe(in) != 0 || pipe(out) != 0)
		CHECK_FAIL("pipe");
	fcntl(out[0], F_SETFL, O_NONBLOCK);
	d.in_w = in[1];
	d.out_r = out[0];
	s = mcp_new(&ctx, in[0], out[1]);
	mcp_when_idle(s, idle_step, &d);
	CHECK_INT(write(in[1], init, strlen(init)), (long long)strlen(init));
	CHECK_INT(mcp_run(s, &err), 0);	/* ends when the second step closes */
	CHECK_INT(d.calls, 2);
	CHECK(strncmp(d.seen, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":"
	    "{\"protocolVersion\"", 44) == 0);
	mcp_free(s);
	close(in[0]);
	close(out[0]);
	close(out[1]);
}

CHECK_MAIN(
	TEST(setup_outcomes_follow_the_local_then_global_file),
	TEST(no_host_means_no_check),
	TEST(deferred_work_runs_once_after_initialize),
	TEST(the_notice_prefixes_the_first_tool_result_only),
	TEST(watched_descriptors_are_served_by_the_loop),
	TEST(idle_steps_run_after_the_initialize_answer)
)
