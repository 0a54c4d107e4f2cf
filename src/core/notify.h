/* notify.h — out-of-band notifications to the human (notify.c). */
#ifndef THATCH_CORE_NOTIFY_H
#define THATCH_CORE_NOTIFY_H

#include <stdbool.h>

struct config;
struct sbuf;

/*
 * How notifications reach the desktop, injected so that tests never fire
 * real ones (engines-and-extras §B2, DESIGN principle 5). run executes
 * argv (argv[0] looked up in PATH or absolute; never a shell) and waits
 * for it: 0 with *status its exit status, or -1 when it could not be
 * started. have tells whether a program is on PATH. platform is "linux",
 * "darwin" or anything else (unsupported).
 */
struct notify_spawner {
	int		(*run)(void *ud, const char *const argv[], int *status);
	bool		(*have)(void *ud, const char *program);
	const char	 *platform;
	void		 *ud;
};

/* The real one: spawn_capture with a 60 s limit, spawn_which, and the
 * platform this binary was built for. */
struct notify_spawner notify_spawner_system(void);

/* One notification; borrowed. NULL means absent. */
struct notify_msg {
	const char	*message;	/* required */
	const char	*title;		/* default: source, then "thatch" */
	const char	*source;	/* spoken before the message */
	const char	*channel;	/* "both", "banner", "voice": overrides */
	const char	*voice;		/* speech voice */
};

/*
 * Send m as cfg says (store-and-tools §4.15) and append one result line:
 * "[skipped] ..." when notifications.mode is none (whatever the call
 * asks), "[unsupported] ..." on another platform, else "[notified]"
 * when at least one channel's command exited 0 or "[failed]" when none
 * did, followed by what each step did. Never fails; reports exit
 * statuses, not delivery. The texts go to the commands as single
 * arguments, byte for byte.
 */
void	notify_send(const struct notify_spawner *, const struct config *cfg,
	    const struct notify_msg *m, struct sbuf *out);

#endif
