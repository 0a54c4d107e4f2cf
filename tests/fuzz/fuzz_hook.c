/*
 * fuzz_hook.c — hook stdin (src/host/hook.c and the hook commands of
 * src/cli/ that parse it). An input is what a host writes to a hook's
 * stdin; it is fed, in a private environment, to buffer-batch, buffer-tool,
 * flush-tools and flush-tools --json in turn, then to buffer-tool again
 * (which delivers the nudge the --json flush left), sharing one queue
 * directory, as one session's hooks do.
 *
 * Properties (hosts-hooks-cli §3, host-contracts C2, C8): a hook never
 * fails in a way the dispatcher would not turn into exit 0; buffer-batch
 * prints nothing; buffer-tool prints nothing or one JSON object line;
 * flush-tools --json prints exactly {"continue":true}; flush-tools prints
 * nothing or text ending in one newline.
 */
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "fuzz.h"

#include "cli/cli.h"
#include "cli/cmd.h"
#include "util/fileio.h"
#include "util/sbuf.h"

static char	in_path[4096], out_path[4096];

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char	*root = fuzz_env();

	(void)argc;
	(void)argv;
	snprintf(in_path, sizeof(in_path), "%s/stdin", root);
	snprintf(out_path, sizeof(out_path), "%s/stdout", root);
	return 0;
}

/* Point fd at path, opened with flags. */
static void
redirect(int fd, const char *path, int flags)
{
	int	f = open(path, flags, 0600);

	FUZZ_ASSERT(f >= 0 && dup2(f, fd) == fd);
	close(f);
}

/* Run one hook command on the input file; its stdout into out. */
static void
run(const struct cmd_entry *e, const char *arg, struct sbuf *out)
{
	struct cli_ctx	 ctx;
	struct err	 err;
	char		*argv[] = { (char *)arg, NULL }, **pargv;
	int		 saved = dup(STDOUT_FILENO), rc, pargc;

	FUZZ_ASSERT(e->flags & CMD_HOOK);
	redirect(STDIN_FILENO, in_path, O_RDONLY);
	fflush(stdout);
	redirect(STDOUT_FILENO, out_path, O_WRONLY | O_CREAT | O_TRUNC);
	cli_ctx_init(&ctx, e->name);
	/* options reach a command through its table row, as in main.c */
	FUZZ_ASSERT(cli_parse(&ctx, e, arg != NULL, argv, &pargc, &pargv) == 0);
	rc = e->exec(&ctx, pargc, pargv);
	cli_ctx_release(&ctx);
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	/* CMD_HOOK: the dispatcher prints a failure and exits 0 */
	FUZZ_ASSERT(rc == 0 || rc == CMD_FAILED);
	sbuf_setlen(out, 0);
	FUZZ_ASSERT(fileio_read(out_path, out, &err) == 0);
}

static void
check_json_line(const struct sbuf *out)
{
	json_t	*v;

	if (out->len == 0)
		return;
	FUZZ_ASSERT(memchr(out->buf, '\n', out->len) == out->buf + out->len - 1);
	v = json_loadb(out->buf, out->len, 0, NULL);
	FUZZ_ASSERT(json_is_object(v));
	json_decref(v);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sbuf	out = SBUF_INIT;
	int		fd;

	fd = open(in_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	FUZZ_ASSERT(fd >= 0 && write(fd, data, size) == (ssize_t)size);
	close(fd);
	sbuf_init(&out);

	run(&cmd_buffer_batch_entry, NULL, &out);
	FUZZ_ASSERT(out.len == 0);
	run(&cmd_buffer_tool_entry, NULL, &out);
	check_json_line(&out);
	run(&cmd_flush_tools_entry, NULL, &out);
	FUZZ_ASSERT(out.len == 0 || (out.buf[out.len - 1] == '\n'));
	run(&cmd_flush_tools_entry, "--json", &out);
	FUZZ_ASSERT(strcmp(out.buf, "{\"continue\":true}\n") == 0);
	run(&cmd_buffer_tool_entry, NULL, &out);
	check_json_line(&out);
	sbuf_release(&out);
	return 0;
}
