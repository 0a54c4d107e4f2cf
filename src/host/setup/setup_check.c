/*
 * setup_check.c — what `thatch doctor` finds of a host's setup: the
 * pieces setup writes (hosts-hooks-cli §3), read back and judged.
 *
 * Invariants:
 *  1. Nothing here writes, creates or repairs anything: files are only
 *     read, and a file that does not parse is a finding, not a backup.
 *  2. A hook or server is thatch's by the rule setup replaces it by (its
 *     command contains "thatch", §3.6; the server named "thatch", §3.2),
 *     so doctor and setup never disagree on what is there.
 *  3. A problem says what is wrong with which file; what to run about it
 *     is the caller's (it knows the host's setup flags).
 */
#include "host/setup/setup_check.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/fileio.h"
#include "util/jsonx.h"
#include "util/os/spawn.h"
#include "util/xmalloc.h"

void
setup_check_init(struct setup_check *c)
{
	c->found = c->expected = 0;
	sbuf_init(&c->problems);
	c->fix = NULL;
}

void
setup_check_release(struct setup_check *c)
{
	sbuf_release(&c->problems);
	free(c->fix);
}

void
setup_check_problem(struct setup_check *c, const char *fmt, ...)
{
	char	buf[1024];
	va_list	ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (c->problems.len > 0)
		sbuf_adds(&c->problems, "; ");
	sbuf_adds(&c->problems, buf);
}

json_t *
setup_check_load(const char *path)
{
	struct sbuf	 sb = SBUF_INIT;
	json_t		*v = NULL;

	sbuf_init(&sb);
	if (fileio_read(path, &sb, NULL) == 0)
		v = json_loadb(sb.buf, sb.len, JSON_DECODE_ANY, NULL);
	sbuf_release(&sb);
	if (!json_is_object(v)) {
		json_decref(v);
		return NULL;
	}
	return v;
}

void
setup_check_block(struct setup_check *c, const char *path, const char *start,
    const char *end)
{
	struct sbuf	 sb = SBUF_INIT;
	const char	*s;

	sbuf_init(&sb);
	c->expected++;
	if (fileio_read(path, &sb, NULL) == 0 &&
	    (s = strstr(sb.buf, start)) != NULL) {
		c->found++;
		if (strstr(s, end) == NULL)
			setup_check_problem(c, "the thatch block in %s has no "
			    "end marker (delete the damaged block by hand)",
			    path);
	} else
		setup_check_problem(c, "no thatch block in %s", path);
	sbuf_release(&sb);
}

/* The first shell word of cmd, unquoted ('...' with '\'' inside). */
static char *
first_word(const char *cmd)
{
	struct sbuf	sb = SBUF_INIT;
	const char	*p = cmd;

	sbuf_init(&sb);
	while (*p != '\0' && *p != ' ' && *p != '\t') {
		if (*p == '\'') {
			for (p++; *p != '\0' && *p != '\''; p++)
				sbuf_addc(&sb, *p);
			if (*p == '\'')
				p++;
		} else if (*p == '\\' && p[1] != '\0') {
			sbuf_addc(&sb, p[1]);
			p += 2;
		} else
			sbuf_addc(&sb, *p++);
	}
	return sbuf_detach(&sb, NULL);
}

void
setup_check_program(struct setup_check *c, const char *command, bool shell,
    const char *what)
{
	struct stat	 st;
	char		*prog, *found = NULL;

	prog = shell ? first_word(command) : xstrdup(command);

	if (strchr(prog, '/') == NULL)
		found = spawn_which(prog);
	else if (stat(prog, &st) == 0 && S_ISREG(st.st_mode) &&
	    access(prog, X_OK) == 0)
		found = xstrdup(prog);
	if (found == NULL)
		setup_check_problem(c, "%s runs %s, which is not an executable "
		    "program", what, *prog ? prog : "nothing");
	free(found);
	free(prog);
}

/* The first thatch command among an event's hooks (invariant 2). */
static const char *
thatch_command(const json_t *event, bool nested)
{
	const json_t	*e, *h;
	const char	*cmd;
	size_t		 i, j;

	json_array_foreach(event, i, e) {
		if (!nested) {
			cmd = jsonx_str(e, "command");
			if (cmd != NULL && strstr(cmd, "thatch") != NULL)
				return cmd;
			continue;
		}
		json_array_foreach(json_object_get(e, "hooks"), j, h) {
			cmd = jsonx_str(h, "command");
			if (cmd != NULL && strstr(cmd, "thatch") != NULL)
				return cmd;
		}
	}
	return NULL;
}

void
setup_check_hooks(struct setup_check *c, const char *path,
    const char *const (*events)[2], size_t n, bool nested)
{
	json_t		*cfg = setup_check_load(path), *hooks;
	const char	*cmd;
	char		 what[256];
	size_t		 i;

	hooks = json_object_get(cfg, "hooks");
	for (i = 0; i < n; i++) {
		c->expected++;
		cmd = thatch_command(json_object_get(hooks, events[i][0]),
		    nested);
		snprintf(what, sizeof(what), "the %s hook in %s", events[i][0],
		    path);
		if (cmd == NULL) {
			setup_check_problem(c, "no thatch %s hook in %s",
			    events[i][0], path);
			continue;
		}
		c->found++;
		setup_check_program(c, cmd, true, what);
	}
	json_decref(cfg);
}

void
setup_check_mcp(struct setup_check *c, const char *path)
{
	json_t		*cfg = setup_check_load(path);
	const char	*cmd;
	char		 what[256];

	c->expected++;
	cmd = jsonx_str(json_object_get(json_object_get(cfg, "mcpServers"),
	    "thatch"), "command");
	if (cmd == NULL)
		setup_check_problem(c, "no thatch MCP server in %s", path);
	else {
		c->found++;
		snprintf(what, sizeof(what), "the MCP server in %s", path);
		setup_check_program(c, cmd, false, what);
	}
	json_decref(cfg);
}
