/*
 * log.c — warnings on stderr and the opt-in debug log.
 *
 * THATCH_DEBUG is "1", "all" or "*" for everything, else a comma-separated
 * list of filters, each matching a whole tag ("chat:startup") or its
 * feature part ("chat"); unset, empty, "0", "false" and "off" disable it
 * (engines-and-extras §B4).
 *  1. The file is opened per line in append mode and each line is one
 *     write(2), so concurrent processes (server, hooks) interleave whole
 *     lines; a newline inside a message is written as the two characters
 *     "\n", so one entry is one line.
 *  2. Size cap: a file that has grown past LOG_DEBUG_MAX when a line is
 *     about to be written is renamed to debug.log.1 (replacing the
 *     previous one) first, so a long-lived server cannot fill the disk:
 *     at most two files of about LOG_DEBUG_MAX each.
 *  3. Nothing here ever reports a failure: the log must not break a
 *     command.
 */
#include "util/log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/os/clock.h"
#include "util/err.h"
#include "util/path.h"
#include "util/sbuf.h"
#include "util/xmalloc.h"

static struct {
	char		*file;		/* owned; NULL when debug is off */
	const char	*filter;	/* borrowed from the environment */
} logcfg;

void
log_open(const char *db_dir)
{
	const char	*v = path_env("THATCH_DEBUG");

	log_close();
	if (v == NULL || db_dir == NULL || strcmp(v, "0") == 0 ||
	    strcmp(v, "false") == 0 || strcmp(v, "off") == 0)
		return;
	logcfg.filter = v;
	logcfg.file = path_join(db_dir, "debug.log");
}

void
log_close(void)
{
	free(logcfg.file);
	logcfg.file = NULL;
	logcfg.filter = NULL;
}

const char *
log_file(void)
{
	return logcfg.file;
}

const char *
log_filter(void)
{
	return logcfg.filter;
}

int
log_debug_enabled(const char *tag)
{
	const char	*f, *e, *colon;
	size_t		 n, feature;

	if (logcfg.file == NULL)
		return 0;
	if (strcmp(logcfg.filter, "1") == 0 || strcmp(logcfg.filter, "all") == 0
	    || strcmp(logcfg.filter, "*") == 0)
		return 1;
	colon = strchr(tag, ':');
	feature = colon ? (size_t)(colon - tag) : strlen(tag);
	for (f = logcfg.filter; *f != '\0'; f = *e ? e + 1 : e) {
		e = strchr(f, ',');
		if (e == NULL)
			e = f + strlen(f);
		while (f < e && *f == ' ')
			f++;
		n = (size_t)(e - f);
		while (n > 0 && f[n - 1] == ' ')
			n--;
		if ((n == strlen(tag) && strncmp(f, tag, n) == 0) ||
		    (n == feature && strncmp(f, tag, n) == 0))
			return 1;
	}
	return 0;
}

void
log_warn(const char *fmt, ...)
{
	va_list	ap;

	fputs("[thatch] ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* Invariant 2. */
static void
rotate(void)
{
	struct stat	 st;
	char		*old;

	if (stat(logcfg.file, &st) != 0 || st.st_size <= LOG_DEBUG_MAX)
		return;
	old = xasprintf("%s.1", logcfg.file);
	if (rename(logcfg.file, old) != 0) {
		/* ignored (invariant 3): the next line tries again */
	}
	free(old);
}

void
log_debug(const char *tag, const char *fmt, ...)
{
	struct sbuf	sb = SBUF_INIT;
	struct clock	c = clock_system();
	char		iso[CLOCK_ISO_LEN];
	va_list		ap;
	struct err	err;
	char		*msg, *p, *dir;
	int		fd, n;

	if (!log_debug_enabled(tag))
		return;
	sbuf_init(&sb);
	sbuf_addf(&sb, "%s [%s] ", clock_iso(clock_now(&c), iso), tag);
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n > 0) {
		msg = xmalloc((size_t)n + 1);
		va_start(ap, fmt);
		vsnprintf(msg, (size_t)n + 1, fmt, ap);
		va_end(ap);
		for (p = msg; *p != '\0'; p++) {
			if (*p == '\n')
				sbuf_adds(&sb, "\\n");	/* invariant 1 */
			else
				sbuf_addc(&sb, *p);
		}
		free(msg);
	}
	sbuf_addc(&sb, '\n');
	rotate();
	fd = open(logcfg.file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	if (fd < 0 && errno == ENOENT) {
		/* before the first store command: DB_DIR does not exist yet */
		dir = path_dirname(logcfg.file);
		if (path_mkdir_p(dir, 0700, &err) == 0)
			fd = open(logcfg.file, O_WRONLY | O_CREAT | O_APPEND |
			    O_CLOEXEC, 0600);
		free(dir);
	}
	if (fd >= 0) {
		if (write(fd, sb.buf, sb.len) < 0) {
			/* ignored: the debug log must never break a command */
		}
		close(fd);
	}
	sbuf_release(&sb);
}
