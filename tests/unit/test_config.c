/*
 * test_config.c — config.json (store-and-tools §4.13-§4.14) and
 * notify_user's dispatch (§4.15) with a recording spawner: what a user
 * sees when the file is missing, valid or broken, a set-then-get round
 * trip with field-level merge, and the exact argv each notifier gets.
 */
#include "check.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/config.h"
#include "core/notify.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/sbuf.h"
#include "util/xmalloc.h"

static char	tmpl[] = "/tmp/thatch-test-config.XXXXXX";
static char	*dir;

static char *
fresh(const char *name, const char *text)
{
	char		*path;
	struct err	 err;

	if (dir == NULL)
		dir = mkdtemp(tmpl);
	path = xasprintf("%s/%s/config.json", dir, name);
	if (text != NULL && fileio_write_atomic(path, text, strlen(text),
	    0600, &err) != 0)
		CHECK_FAIL("%s", err.msg);
	return path;
}

/* Load text as a file; the warning (or "") in *warning, owned. */
static void
load(const char *name, const char *text, struct config *c, char **warning)
{
	struct sbuf	 w = SBUF_INIT;
	char		*path = fresh(name, text);

	sbuf_init(&w);
	config_load(path, c, &w);
	*warning = sbuf_detach(&w, NULL);
	free(path);
}

static void
missing_and_valid_files(void)
{
	struct config	 c;
	char		*w;

	load("missing", NULL, &c, &w);
	CHECK_STR(w, "");
	CHECK(c.notifications.mode == NULL && c.notifications.voice == NULL);
	free(w);
	load("valid", "{\"notifications\":{\"mode\":\"voice\",\"voice\":"
	    "\"Alex\"}}", &c, &w);
	CHECK_STR(w, "");
	CHECK_STR(c.notifications.mode, "voice");
	CHECK_STR(c.notifications.voice, "Alex");
	CHECK(c.notifications.sound == NULL);
	config_release(&c);
	free(w);
	load("empty-object", "{}", &c, &w);
	CHECK_STR(w, "");
	free(w);
}

/* Invalid files load as the empty config with a warning naming the path. */
static void
invalid_files_are_ignored_whole(void)
{
	static const char *const cases[][2] = {
		{ "{\"notifications\":", "not valid JSON" },
		{ "[1]", "not a JSON object" },
		{ "{\"alerts\":{}}", "unknown section \"alerts\"" },
		{ "{\"notifications\":{\"mode\":\"both\",\"colour\":\"x\"}}",
		  "unknown key \"notifications.colour\"" },
		{ "{\"notifications\":{\"voice\":\"a\",\"mode\":3}}",
		  "\"notifications.mode\" is not a string" },
		{ "{\"notifications\":{\"mode\":\"loud\"}}", "\"loud\"" },
		{ "{\"notifications\":true}", "is not an object" },
		{ "{\"chat\":{\"enabled\":\"yes\"}}",
		  "\"chat.enabled\" is not true or false" },
		{ "{\"chat\":{\"on\":true}}", "unknown key \"chat.on\"" },
		{ "{\"recall\":{\"limit\":21}}",
		  "\"recall.limit\" is not a whole number from 1 to 20" },
		{ "{\"recall\":{\"cut\":1.5}}", "\"recall.cut\" is not" },
		{ "{\"recall\":{\"budget\":999}}",
		  "\"recall.budget\" is not a whole number from 1000 to 16000" },
		{ "{\"notifications\":{\"voice\":\"a\"},\"recall\":{\"x\":1}}",
		  "unknown key \"recall.x\"" },
	};
	struct config	 c;
	char		*w, name[16];
	size_t		 i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(name, sizeof(name), "bad%zu", i);
		load(name, cases[i][0], &c, &w);
		if (strstr(w, cases[i][1]) == NULL || strstr(w, dir) == NULL ||
		    strstr(w, "config.json") == NULL)
			CHECK_FAIL("%s: warning \"%s\"", cases[i][0], w);
		/* all or nothing: the valid voice of case 4 is dropped too */
		CHECK(c.notifications.voice == NULL);
		CHECK(c.notifications.mode == NULL);
		config_release(&c);
		free(w);
	}
}

static void
update_merges_fields_and_replaces_an_invalid_file(void)
{
	const char *const	 first[] = { "mode", "banner", "voice", "Alex",
				    NULL };
	const char *const	 second[] = { "voice", "Fred", NULL };
	struct config		 c;
	struct sbuf		 text = SBUF_INIT;
	struct stat		 st;
	struct err		 err;
	char			*path = fresh("update", "not json"), *w;

	CHECK_INT(config_update(path, first, &c, &err), 0);
	config_release(&c);
	CHECK_INT(config_update(path, second, &c, &err), 0);
	CHECK_STR(c.notifications.mode, "banner");
	CHECK_STR(c.notifications.voice, "Fred");
	config_release(&c);
	sbuf_init(&text);
	CHECK_INT(fileio_read(path, &text, &err), 0);
	CHECK_STR(text.buf, "{\n  \"notifications\": {\n    \"mode\": "
	    "\"banner\",\n    \"voice\": \"Fred\"\n  }\n}\n");
	CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600);
	sbuf_release(&text);
	free(path);
	load("update", NULL, &c, &w);
	CHECK_STR(w, "");
	CHECK_STR(c.notifications.mode, "banner");
	config_release(&c);
	free(w);
}

/* chat and recall (issue 27): read, and kept by a notifications update. */
static void
chat_and_recall_sections(void)
{
	const char *const	 fields[] = { "mode", "none", NULL };
	struct config		 c;
	struct sbuf		 text = SBUF_INIT;
	struct err		 err;
	char			*path = fresh("sections", "{\"chat\":{\"enabled\":"
				    "true},\"recall\":{\"limit\":5,\"cut\":400,"
				    "\"budget\":2500}}"),
				*w;

	load("sections", NULL, &c, &w);
	CHECK_STR(w, "");
	CHECK(c.chat.set && c.chat.enabled);
	CHECK_INT(c.recall.limit, 5);
	CHECK_INT(c.recall.cut, 400);
	CHECK_INT(c.recall.budget, 2500);
	config_release(&c);
	free(w);
	CHECK_INT(config_update(path, fields, &c, &err), 0);
	config_release(&c);
	sbuf_init(&text);
	CHECK_INT(fileio_read(path, &text, &err), 0);
	CHECK_STR(text.buf, "{\n  \"notifications\": {\n    \"mode\": "
	    "\"none\"\n  },\n  \"chat\": {\n    \"enabled\": true\n  },\n"
	    "  \"recall\": {\n    \"limit\": 5,\n    \"cut\": 400,\n"
	    "    \"budget\": 2500\n  }\n}\n");
	sbuf_release(&text);
	free(path);
	load("missing2", NULL, &c, &w);
	CHECK(!c.chat.set && c.recall.limit == 0 && c.recall.cut == 0 &&
	    c.recall.budget == 0);
	free(w);
}

static void
platform_defaults(void)
{
	CHECK_STR(config_default("linux", "mode"), "both");
	CHECK(config_default("linux", "voice") == NULL);
	CHECK(config_default("linux", "sound") == NULL);
	CHECK_STR(config_default("darwin", "voice"), "Zarvox");
	CHECK_STR(config_default("darwin", "sound"), "Submarine");
}

/* ---- notify_send with a recorder --------------------------------------- */

struct recorder {
	struct sbuf	 log;		/* one "argv0|argv1|...\n" per run */
	const char	*fail;		/* this program exits 1 */
	const char	*absent;	/* not on PATH, does not start */
};

static int
rec_run(void *ud, const char *const argv[], int *status)
{
	struct recorder	*r = ud;
	size_t		 i;

	if (r->absent != NULL && strcmp(argv[0], r->absent) == 0)
		return -1;
	for (i = 0; argv[i] != NULL; i++)
		sbuf_addf(&r->log, "%s%s", i ? "|" : "", argv[i]);
	sbuf_addc(&r->log, '\n');
	*status = r->fail != NULL && strcmp(argv[0], r->fail) == 0;
	return 0;
}

static bool
rec_have(void *ud, const char *program)
{
	struct recorder	*r = ud;

	return r->absent == NULL || strcmp(program, r->absent) != 0;
}

/* Send m with mode on platform; the result line in *out, argv log in r. */
static char *
send(struct recorder *r, const char *platform, const char *mode,
    const struct notify_msg *m)
{
	struct notify_spawner	 sp = { rec_run, rec_have, platform, r };
	struct config		 c;
	struct sbuf		 out = SBUF_INIT;

	config_init(&c);
	c.notifications.mode = mode ? xstrdup(mode) : NULL;
	sbuf_init(&out);
	sbuf_reset(&r->log);
	notify_send(&sp, &c, m, &out);
	config_release(&c);
	return sbuf_detach(&out, NULL);
}

static void
linux_modes_and_verbatim_texts(void)
{
	struct recorder		 r = { SBUF_INIT, NULL, NULL };
	struct notify_msg	 m = { .message = "say \"hi\" $(rm -rf ~)\n"
				    "`x`; done" };
	char			*out;

	sbuf_init(&r.log);
	out = send(&r, "linux", NULL, &m);
	CHECK_STR(out, "[notified] channel both; banner: notify-send ok; "
	    "voice: spd-say ok");
	CHECK_STR(r.log.buf, "notify-send|-a|thatch|--|thatch|say \"hi\" "
	    "$(rm -rf ~)\n`x`; done\nspd-say|-w|say \"hi\" $(rm -rf ~)\n"
	    "`x`; done\n");
	free(out);
	out = send(&r, "linux", "banner", &m);
	CHECK(strncmp(out, "[notified] channel banner;", 26) == 0);
	CHECK(strstr(r.log.buf, "spd-say") == NULL);
	free(out);
	m = (struct notify_msg){ .message = "-rf", .source = NULL,
	    .channel = "voice" };
	out = send(&r, "linux", "banner", &m);
	CHECK_STR(r.log.buf, "spd-say|-w| -rf\n");
	free(out);
	m = (struct notify_msg){ .message = "built", .source = "ci" };
	out = send(&r, "linux", "both", &m);
	CHECK_STR(r.log.buf, "notify-send|-a|thatch|--|ci|built\n"
	    "spd-say|-w|ci: built\n");
	free(out);
	out = send(&r, "linux", "none", &m);
	CHECK_STR(out, "[skipped] notifications are off "
	    "(notifications.mode is none)");
	CHECK_STR(r.log.buf, "");
	free(out);
	sbuf_release(&r.log);
}

static void
failing_and_missing_notifiers(void)
{
	struct recorder		 r = { SBUF_INIT, "notify-send", NULL };
	struct notify_msg	 m = { .message = "m", .voice = "en" };
	char			*out;

	sbuf_init(&r.log);
	out = send(&r, "linux", NULL, &m);
	CHECK_STR(out, "[notified] channel both; banner: notify-send exited 1; "
	    "voice: spd-say ok");
	free(out);
	m.channel = "banner";
	out = send(&r, "linux", NULL, &m);
	CHECK_STR(out, "[failed] channel banner; banner: notify-send exited 1");
	free(out);
	r.fail = NULL;
	r.absent = "spd-say";
	m.channel = "voice";
	out = send(&r, "linux", NULL, &m);
	CHECK_STR(r.log.buf, "espeak|-v|en|m\n");
	free(out);
	r.absent = "notify-send";
	m.channel = "banner";
	out = send(&r, "linux", NULL, &m);
	CHECK_STR(out, "[failed] channel banner; banner: notify-send did not "
	    "start");
	free(out);
	sbuf_release(&r.log);
}

static void
darwin_and_other_platforms(void)
{
	struct recorder		 r = { SBUF_INIT, NULL, NULL };
	struct notify_msg	 m = { .message = "a \"b\" \\c", .title = "T" };
	char			*out;

	sbuf_init(&r.log);
	out = send(&r, "darwin", NULL, &m);
	CHECK_STR(r.log.buf, "/usr/bin/osascript|-e|display notification "
	    "\"a \\\"b\\\" \\\\c\" with title \"T\" sound name \"Submarine\"\n"
	    "/usr/bin/say|-v|Zarvox|a \"b\" \\c\n");
	free(out);
	out = send(&r, "plan9", NULL, &m);
	CHECK_STR(out, "[unsupported] no notifier for platform plan9");
	CHECK_STR(r.log.buf, "");
	free(out);
	sbuf_release(&r.log);
}

static void
cleanup(void)
{
	char	cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CHECK(dir == NULL || system(cmd) == 0);
}

CHECK_MAIN(
	TEST(missing_and_valid_files),
	TEST(invalid_files_are_ignored_whole),
	TEST(update_merges_fields_and_replaces_an_invalid_file),
	TEST(chat_and_recall_sections),
	TEST(platform_defaults),
	TEST(linux_modes_and_verbatim_texts),
	TEST(failing_and_missing_notifiers),
	TEST(darwin_and_other_platforms),
	TEST(cleanup)
)
