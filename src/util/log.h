/* log.h — warnings on stderr and the opt-in debug log (log.c). */
#ifndef THATCH_UTIL_LOG_H
#define THATCH_UTIL_LOG_H

/*
 * Lower layers never print (STYLE §6.2); they report through these, which
 * the process routes once at startup with log_open. Warnings go to stderr
 * as "[thatch] <msg>" (stdout is the MCP transport). Debug lines go only to
 * DB_DIR/debug.log when THATCH_DEBUG enables their tag (hosts-hooks-cli
 * §1.6), as "<ISO time> [<feature>:<aspect>] <msg>"; failures to write
 * them are ignored.
 *
 * This is the one piece of process-wide state in thatch: a log sink, set
 * once before any other work, like git's usage routines.
 */
/* debug.log is rotated to debug.log.1 once it is larger than this. */
#define LOG_DEBUG_MAX	(10L << 20)

void	log_open(const char *db_dir);
void	log_close(void);

void	log_warn(const char *, ...) __attribute__((format(printf, 1, 2)));
void	log_debug(const char *tag, const char *, ...)
	    __attribute__((format(printf, 2, 3)));

/* True if THATCH_DEBUG enables tag; lets callers skip building messages. */
int	log_debug_enabled(const char *tag);

/*
 * The debug log's file and THATCH_DEBUG's filter while log_open found it
 * on, else NULL (both borrowed until log_close).
 */
const char *log_file(void);
const char *log_filter(void);

#endif
