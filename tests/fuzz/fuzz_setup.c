/*
 * fuzz_setup.c — the user's files as setup, setup --remove and doctor
 * read them (src/host/setup*.c, claude.c, cursor.c, opencode_setup.c).
 * An input is the bytes of a file the user had; it is written to every
 * project-scope file of the three hosts (CLAUDE.md, AGENTS.md, .mcp.json,
 * .claude/settings{,.local}.json, .cursor/{mcp,hooks}.json,
 * opencode.json), and then:
 *
 *  1. doctor's checks read them and change nothing;
 *  2. --remove on them never crashes, and a second --remove changes
 *     nothing (it took all there was of thatch's the first time);
 *  3. after Claude Code's and Cursor's setup and --remove, no thatch hook
 *     or server is left, only a block setup would not touch (a damaged
 *     one, or a second one).
 */
#include <stdbool.h>
#include <sys/stat.h>

#include "fuzz.h"

#include "host/setup/claude.h"
#include "host/setup/cursor.h"
#include "host/setup/opencode_setup.h"
#include "host/setup/setup.h"
#include "host/setup/setup_check.h"
#include "text/block.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/path.h"
#include "util/sbuf.h"

static const char *const files[] = {
	"CLAUDE.md", "AGENTS.md", ".mcp.json", ".claude/settings.json",
	".claude/settings.local.json", ".cursor/mcp.json",
	".cursor/hooks.json", "opencode.json",
};
#define NFILES	(sizeof(files) / sizeof(files[0]))

static char	proj[4096];

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	snprintf(proj, sizeof(proj), "%s/proj", fuzz_env());
	setenv("CLAUDE_PROJECT_DIR", proj, 1);
	return 0;
}

static char *
file(size_t i)
{
	return path_join(proj, files[i]);
}

/* Every file's bytes, one after another with their lengths. */
static void
snapshot(struct sbuf *sb)
{
	char	*p;
	size_t	 i, before;

	sbuf_reset(sb);
	for (i = 0; i < NFILES; i++) {
		p = file(i);
		before = sb->len;
		if (fileio_read(p, sb, NULL) != 0)
			sbuf_adds(sb, "<none>");
		sbuf_addf(sb, "|%zu|", sb->len - before);
		free(p);
	}
}

static void
put_all(const uint8_t *data, size_t size)
{
	struct err	 err;
	char		*p;
	size_t		 i;
	char		 cmd[4200];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", proj);
	FUZZ_ASSERT(system(cmd) == 0);
	for (i = 0; i < NFILES; i++) {
		p = file(i);
		FUZZ_ASSERT(fileio_write_atomic(p, data, size, 0644,
		    &err) == 0);
		free(p);
	}
}

static void
check_all(const struct setup_opts *o, int *found)
{
	struct setup_check	c;

	*found = 0;
	setup_check_init(&c);
	claude_check(o, &c);
	*found += c.found;
	setup_check_release(&c);
	setup_check_init(&c);
	cursor_check(o, &c);
	*found += c.found;
	setup_check_release(&c);
	setup_check_init(&c);
	opencode_check(o, &c);
	setup_check_release(&c);
}

static void
remove_all(const struct setup_opts *o)
{
	struct setup_report	r;
	struct opencode_report	oc;
	struct err		err;

	(void)claude_remove(o, &r, &err);
	setup_report_release(&r);
	(void)cursor_remove(o, &r, &err);
	setup_report_release(&r);
	(void)opencode_remove(o, &oc, &err);
	opencode_report_release(&oc);
}

/* The files that still hold a block's start marker: what may remain. */
static int
blocks_left(void)
{
	struct sbuf	 sb = SBUF_INIT;
	char		*p;
	int		 n = 0;

	sbuf_init(&sb);
	p = path_join(proj, "CLAUDE.md");
	if (fileio_read(p, &sb, NULL) == 0 &&
	    strstr(sb.buf, TEXT_BLOCK_START_CLAUDE) != NULL)
		n++;
	free(p);
	sbuf_reset(&sb);
	p = path_join(proj, "AGENTS.md");
	if (fileio_read(p, &sb, NULL) == 0 &&
	    strstr(sb.buf, TEXT_BLOCK_START_CURSOR) != NULL)
		n++;
	free(p);
	sbuf_release(&sb);
	return n;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct paths		 paths;
	struct setup_opts	 o = { &paths, "/usr/bin/thatch", false };
	struct setup_report	 r;
	struct sbuf		 a = SBUF_INIT, b = SBUF_INIT;
	struct err		 err;
	int			 found;

	paths_init(&paths);
	sbuf_init(&a);
	sbuf_init(&b);
	put_all(data, size);
	snapshot(&a);
	check_all(&o, &found);
	snapshot(&b);
	FUZZ_ASSERT(a.len == b.len && memcmp(a.buf, b.buf, a.len) == 0);

	remove_all(&o);
	snapshot(&a);
	remove_all(&o);
	snapshot(&b);
	FUZZ_ASSERT(a.len == b.len && memcmp(a.buf, b.buf, a.len) == 0);

	put_all(data, size);
	if (claude_install(&o, &r, &err) == 0) {
		setup_report_release(&r);
		if (cursor_install(&o, &r, &err) == 0) {
			setup_report_release(&r);
			remove_all(&o);
			check_all(&o, &found);
			FUZZ_ASSERT(found == blocks_left());
		}
	}
	setup_report_release(&r);
	sbuf_release(&a);
	sbuf_release(&b);
	paths_release(&paths);
	return 0;
}
