/*
 * cmd_edit.c — `thatch edit <label> [store]`: change a memory in an
 * editor, saved through the memory_remember tool (overwrite, the memory's
 * own label, store and archived state), so that the new content gets its
 * new embedding exactly as an agent's rewrite would (issue 15).
 *
 * The editor is $VISUAL, else $EDITOR, else vi — vi only on a terminal
 * (git's rule for a dumb one: no editor is better than one that cannot
 * draw). It runs through sh like git's, so "code --wait" works, on a
 * private temporary file (mkstemp: 0600, O_EXCL, in TMP_DIR) holding the
 * content without its heading; the file is removed whatever happens.
 *  1. An editor that exits non-zero or dies aborts: nothing is saved.
 *  2. Unchanged content (trailing newlines aside) saves nothing, and says
 *     so; empty content saves nothing and fails — `thatch forget` deletes.
 */
#include "cli/cmd.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/slug.h"
#include "core/store/store.h"
#include "util/fileio.h"
#include "util/path.h"
#include "util/sbuf.h"
#include "util/xmalloc.h"

static const char *
editor(void)
{
	const char	*e;

	if ((e = path_env("VISUAL")) != NULL || (e = path_env("EDITOR")) !=
	    NULL)
		return e;
	return isatty(STDIN_FILENO) && isatty(STDOUT_FILENO) ? "vi" : NULL;
}

/* Run `<ed> "<path>"` through sh as git does (so the editor may carry
 * arguments), on our terminal. Returns 0 or -1. */
static int
run_editor(struct cli_ctx *ctx, const char *ed, const char *path)
{
	char	*cmd = xasprintf("%s \"$@\"", ed);
	pid_t	 pid;
	int	 status;

	fflush(stdout);
	if ((pid = fork()) == 0) {
		execl("/bin/sh", "sh", "-c", cmd, ed, path, (char *)NULL);
		_exit(127);
	}
	free(cmd);
	if (pid < 0)
		return err_errno(&ctx->err, "cannot start the editor");
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return err_errno(&ctx->err, "cannot wait for the "
			    "editor");
	if (WIFSIGNALED(status))
		return err_set(&ctx->err, "editor '%s' was killed by signal "
		    "%d; nothing saved", ed, WTERMSIG(status));
	if (WEXITSTATUS(status) != 0)
		return err_set(&ctx->err, "editor '%s' exited with status %d; "
		    "nothing saved", ed, WEXITSTATUS(status));
	return 0;
}

/* Write body to a new private file and let the user edit it into out. */
static int
edit_text(struct cli_ctx *ctx, const char *ed, const char *body,
    struct sbuf *out)
{
	char	*path = path_join(ctx->paths.tmp_dir, "thatch-edit-XXXXXX");
	int	 fd, rc = -1;

	if ((fd = mkstemp(path)) < 0) {
		err_errno(&ctx->err, "cannot create a file in '%s'",
		    ctx->paths.tmp_dir);
		free(path);
		return -1;
	}
	if (fileio_write_fd(fd, body, strlen(body)) != 0 ||
	    fileio_write_fd(fd, "\n", 1) != 0)
		err_errno(&ctx->err, "cannot write '%s'", path);
	else if (run_editor(ctx, ed, path) == 0) {
		/* the editor may have replaced the file: read it by name */
		close(fd);
		fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			err_errno(&ctx->err, "cannot read '%s'", path);
		else
			rc = cli_read_text(ctx, fd, path, out);
	}
	if (fd >= 0)
		close(fd);
	unlink(path);
	free(path);
	return rc;
}

static size_t
chomped(const char *s)
{
	size_t	n = strlen(s);

	while (n > 0 && s[n - 1] == '\n')
		n--;
	return n;
}

/* Save the edited content as memory_remember with overwrite. */
static int
save(struct cli_ctx *ctx, const struct store_entry *e, const struct sbuf *text)
{
	struct sbuf	 out = SBUF_INIT;
	json_t		*args, *content;
	int		 rc;

	if ((content = cli_json_arg(ctx, "the edited content", text->buf,
	    text->len)) == NULL)
		return CMD_FAILED;
	args = json_pack("{s:s, s:o, s:s, s:b, s:b}", "label", e->label,
	    "content", content, "store", e->store, "overwrite", 1, "archived",
	    e->archived);
	if ((rc = cli_tool(ctx, "memory_remember", args, &out)) == 0)
		cli_print_text(&out);
	json_decref(args);
	sbuf_release(&out);
	return rc;
}

static int
cmd_edit_exec(struct cli_ctx *ctx, int argc, char **argv)
{
	struct store_entry	 e;
	struct sbuf		 text = SBUF_INIT;
	const char		*store, *body, *ed;
	char			*slug = slug_make(argv[0], strlen(argv[0]));
	bool			 found;
	int			 rc = CMD_FAILED;

	store = argc > 1 && *argv[1] != '\0' ? argv[1] : cli_default_store(ctx);
	if (store_get(ctx->store, store, slug, &e, &found, &ctx->err) != 0)
		goto out;
	if (!found) {
		err_set(&ctx->err, "no memory labeled \"%s\" in \"%s\"",
		    argv[0], store);
		goto out;
	}
	body = cli_memory_body(e.content);
	if ((ed = editor()) == NULL)
		err_set(&ctx->err, "no editor: set VISUAL or EDITOR");
	else if (edit_text(ctx, ed, body, &text) != 0)
		;
	else if (text.len == chomped(body) && (text.len == 0 ||
	    memcmp(text.buf, body, text.len) == 0)) {
		printf("No change to %s :: %s; nothing saved.\n", e.store,
		    e.label);
		rc = 0;
	} else if (text.len == 0)
		err_set(&ctx->err, "the edited content is empty; nothing saved "
		    "(`thatch forget` deletes a memory)");
	else
		rc = save(ctx, &e, &text);
	store_entry_release(&e);
out:
	sbuf_release(&text);
	free(slug);
	return rc;
}

const struct cmd_entry cmd_edit_entry = {
	.name = "edit",
	.args = "<label> [store]",
	.min_args = 1,
	.max_args = 2,
	.env = "VISUAL EDITOR",
	.reads = READS_PROJECT | READS_MODEL,
	.example = "EDITOR=nano thatch edit \"login flow\"",
	.summary = "edit a memory in $VISUAL/$EDITOR",
	.flags = CMD_STORE,
	.exec = cmd_edit_exec,
};
