/*
 * version_watch.c — notice that thatch was upgraded (or removed) on disk
 * while a long-lived thatch process (the MCP server, opencode's core)
 * keeps running the old executable, and say so once (engines-and-extras
 * §B10).
 *
 * No network: the evidence is the file system. At start the watch notes
 * the path of the running executable (plat_exe_path) and its device and
 * inode; an upgrade that installs a new file at that path (install(1),
 * a package manager, `make install`) leaves the running inode behind.
 *  1. Checks run only when the caller has somewhere to say it (a tool
 *     result, opencode's next user message) and one is due: the first VERSION_WATCH_FIRST_MS after start, then every
 *     VERSION_WATCH_INTERVAL_MS; so an idle server does no work.
 *  2. The warning is given once per process; after that the watch is
 *     silent.
 *  3. The installed binary is run (`<path> --version`, 5 s limit, no
 *     shell) only after the inode changed, to name the new version.
 */
#include "host/version_watch.h"

#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/os/clock.h"
#include "util/err.h"
#include "util/log.h"
#include "util/os/plat.h"
#include "util/path.h"
#include "util/sbuf.h"
#include "util/os/spawn.h"
#include "util/xmalloc.h"

struct version_watch {
	char		*exe;		/* owned; path of the running binary */
	const char	*host;
	const char	*runner;	/* "MCP server", "opencode plugin" */
	dev_t		 dev;
	ino_t		 ino;
	int64_t		 next_ms;	/* monotonic time of the next check */
	int64_t		 interval_ms;
	bool		 warned;
};

struct version_watch *
version_watch_new(const char *host, const char *runner)
{
	struct version_watch	*w;
	const char		*env = path_env("THATCH_VERSION_CHECK_MS");
	struct stat		 st;
	long long		 ms = 0;
	char			*end, *exe;

	if (env != NULL) {
		ms = strtoll(env, &end, 10);
		if (*end != '\0' || ms < 0)
			ms = -1;	/* not a number: the defaults */
		else if (ms == 0)
			return NULL;
	}
	if ((exe = plat_exe_path()) == NULL || stat(exe, &st) != 0) {
		free(exe);
		return NULL;	/* unknown path: nothing to watch */
	}
	w = xcalloc(1, sizeof(*w));
	w->exe = exe;
	w->host = host;
	w->runner = runner;
	w->dev = st.st_dev;
	w->ino = st.st_ino;
	w->interval_ms = ms > 0 ? ms : VERSION_WATCH_INTERVAL_MS;
	w->next_ms = clock_mono_ms() + (ms > 0 ? ms : VERSION_WATCH_FIRST_MS);
	return w;
}

void
version_watch_free(struct version_watch *w)
{
	if (w == NULL)
		return;
	free(w->exe);
	free(w);
}

/* The first line `exe --version` prints, or NULL. New string. */
static char *
installed_version(const char *exe)
{
	const char *const	 argv[] = { exe, "--version", NULL };
	struct sbuf		 out = SBUF_INIT;
	struct err		 err;
	int			 status;
	char			*v = NULL;

	sbuf_init(&out);
	if (spawn_capture(argv, NULL, 5000, &out, &status, &err) == 0 &&
	    status == 0 && out.len > 0) {
		v = xstrndup(out.buf, strcspn(out.buf, "\n"));
		if (*v == '\0' || strlen(v) > 64) {
			free(v);
			v = NULL;
		}
	}
	sbuf_release(&out);
	return v;
}

char *
version_watch_notice(void *arg)
{
	struct version_watch	*w = arg;
	struct stat		 st;
	const char		*host;
	char			*v, *msg;
	int64_t			 now = clock_mono_ms();

	if (w == NULL || w->warned || now < w->next_ms)
		return NULL;
	w->next_ms = now + w->interval_ms;
	host = w->host != NULL ? w->host : "the program that started thatch";
	if (stat(w->exe, &st) != 0) {
		log_debug("version:check", "%s is gone", w->exe);
		w->warned = true;
		return xasprintf("the thatch executable this %s runs "
		    "(%s, version %s) was removed from disk. Ask the user to "
		    "restart %s: until then thatch keeps running the old "
		    "version, and after reinstalling, the new one starts "
		    "only with a restart.", w->runner, w->exe, THATCH_VERSION,
		    host);
	}
	if (st.st_dev == w->dev && st.st_ino == w->ino) {
		log_debug("version:check", "%s unchanged", w->exe);
		return NULL;
	}
	w->warned = true;
	v = installed_version(w->exe);
	log_debug("version:check", "%s replaced: %s", w->exe, v ? v : "?");
	msg = xasprintf("thatch was upgraded on disk (%s%s) but this %s "
	    "still runs version %s. Ask the user to restart %s so that the "
	    "new thatch is used.", v ? "now version " : "a new build at ",
	    v ? v : w->exe, w->runner, THATCH_VERSION, host);
	free(v);
	return msg;
}
