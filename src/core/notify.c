/*
 * notify.c — out-of-band notifications to the human: a desktop banner and
 * speech, chosen by config.json's notifications section and the call
 * (store-and-tools §4.15, engines-and-extras §B2).
 *
 * Linux: notify-send for the banner; spd-say -w, else espeak, for speech.
 * macOS: /usr/bin/osascript "display notification" and /usr/bin/say.
 *  1. Every text reaches a command as one argv element, byte for byte
 *     (quotes, $(...), newlines): nothing goes through a shell. Only the
 *     AppleScript source has its string literals escaped, since osascript
 *     parses it.
 *  2. A text handed to a speech tool that starts with '-' gets a leading
 *     space, so the tool does not read it as an option; notify-send gets
 *     "--" before its texts for the same reason.
 *  3. The result is "[notified]" when at least one channel's command
 *     exited 0, "[failed]" when every requested one failed; a failure is
 *     text in the result, never an error (notifying must not break a
 *     tool call).
 */
#include "core/notify.h"

#include <stdlib.h>
#include <string.h>

#include "core/config.h"
#include "util/err.h"
#include "util/log.h"
#include "util/sbuf.h"
#include "util/os/spawn.h"
#include "util/xmalloc.h"

#define NOTIFY_TIMEOUT_MS	60000	/* speech is awaited (§4.15) */

static int
system_run(void *ud, const char *const argv[], int *status)
{
	struct sbuf	out = SBUF_INIT;
	struct err	err;
	int		rc;

	(void)ud;
	sbuf_init(&out);
	rc = spawn_capture(argv, NULL, NOTIFY_TIMEOUT_MS, &out, status, &err);
	sbuf_release(&out);
	return rc;
}

static bool
system_have(void *ud, const char *program)
{
	char	*p = spawn_which(program);

	(void)ud;
	free(p);
	return p != NULL;
}

struct notify_spawner
notify_spawner_system(void)
{
#if defined(__APPLE__)
	static const char	platform[] = "darwin";
#elif defined(__linux__)
	static const char	platform[] = "linux";
#else
	static const char	platform[] = "other";
#endif

	return (struct notify_spawner){ system_run, system_have, platform,
	    NULL };
}

/* Run argv and append "<what>: <program> ok|exited N|did not start". */
static bool
step(const struct notify_spawner *sp, const char *const argv[],
    const char *what, struct sbuf *detail)
{
	int	status = 0;
	bool	ok;

	log_debug("notify:spawn", "%s %s", what, argv[0]);
	if (sp->run(sp->ud, argv, &status) != 0) {
		sbuf_addf(detail, "; %s: %s did not start", what, argv[0]);
		return false;
	}
	ok = status == 0;
	if (ok)
		sbuf_addf(detail, "; %s: %s ok", what, argv[0]);
	else
		sbuf_addf(detail, "; %s: %s exited %d", what, argv[0], status);
	return ok;
}

/* Invariant 2: what a speech tool is given to say. New string. */
static char *
spoken(const struct notify_msg *m)
{
	const char	*lead = "";

	if ((m->source != NULL ? m->source : m->message)[0] == '-')
		lead = " ";
	if (m->source != NULL)
		return xasprintf("%s%s: %s", lead, m->source, m->message);
	return xasprintf("%s%s", lead, m->message);
}

/* An AppleScript string literal of s (invariant 1). */
static void
applescript_string(struct sbuf *sb, const char *s)
{
	sbuf_addc(sb, '"');
	for (; *s != '\0'; s++) {
		if (*s == '"' || *s == '\\')
			sbuf_addc(sb, '\\');
		sbuf_addc(sb, *s);
	}
	sbuf_addc(sb, '"');
}

static bool
banner(const struct notify_spawner *sp, const struct config *cfg,
    const struct notify_msg *m, const char *title, struct sbuf *detail)
{
	struct sbuf	 script = SBUF_INIT;
	const char	*sound = cfg->notifications.sound;
	bool		 ok;

	if (strcmp(sp->platform, "linux") == 0) {
		const char *const argv[] = {
			"notify-send", "-a", "thatch", "--", title, m->message,
			NULL
		};

		return step(sp, argv, "banner", detail);
	}
	if (sound == NULL)
		sound = config_default(sp->platform, "sound");
	sbuf_init(&script);
	sbuf_adds(&script, "display notification ");
	applescript_string(&script, m->message);
	sbuf_adds(&script, " with title ");
	applescript_string(&script, title);
	sbuf_adds(&script, " sound name ");
	applescript_string(&script, sound);
	{
		const char *const argv[] = {
			"/usr/bin/osascript", "-e", script.buf, NULL
		};

		ok = step(sp, argv, "banner", detail);
	}
	sbuf_release(&script);
	return ok;
}

static bool
speech(const struct notify_spawner *sp, const struct config *cfg,
    const struct notify_msg *m, struct sbuf *detail)
{
	const char	*voice = m->voice ? m->voice : cfg->notifications.voice;
	char		*text = spoken(m);
	bool		 ok;

	if (strcmp(sp->platform, "darwin") == 0) {
		const char *const argv[] = {
			"/usr/bin/say", "-v", voice ? voice :
			    config_default(sp->platform, "voice"), text, NULL
		};

		ok = step(sp, argv, "voice", detail);
	} else if (sp->have(sp->ud, "spd-say")) {
		const char *const argv[] = { "spd-say", "-w", text, NULL };

		ok = step(sp, argv, "voice", detail);
	} else if (sp->have(sp->ud, "espeak")) {
		const char *const with[] = {
			"espeak", "-v", voice, text, NULL
		};
		const char *const without[] = { "espeak", text, NULL };

		ok = step(sp, voice ? with : without, "voice", detail);
	} else {
		sbuf_adds(detail, "; voice: neither spd-say nor espeak is "
		    "installed");
		ok = false;
	}
	free(text);
	return ok;
}

void
notify_send(const struct notify_spawner *sp, const struct config *cfg,
    const struct notify_msg *m, struct sbuf *out)
{
	struct sbuf	 detail = SBUF_INIT;
	const char	*mode = cfg->notifications.mode;
	const char	*channel, *title;
	bool		 any = false;

	if (mode != NULL && strcmp(mode, "none") == 0) {
		sbuf_adds(out, "[skipped] notifications are off "
		    "(notifications.mode is none)");
		return;
	}
	if (strcmp(sp->platform, "linux") != 0 &&
	    strcmp(sp->platform, "darwin") != 0) {
		sbuf_addf(out, "[unsupported] no notifier for platform %s",
		    sp->platform);
		return;
	}
	channel = m->channel ? m->channel : mode ? mode : "both";
	title = m->title ? m->title : m->source ? m->source : "thatch";
	sbuf_init(&detail);
	if (strcmp(channel, "voice") != 0)
		any |= banner(sp, cfg, m, title, &detail);
	if (strcmp(channel, "banner") != 0)
		any |= speech(sp, cfg, m, &detail);
	sbuf_addf(out, "%s channel %s%s", any ? "[notified]" : "[failed]",
	    channel, detail.buf);
	sbuf_release(&detail);
}
