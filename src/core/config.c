/*
 * config.c — the user's config.json beside the database: strict load,
 * field-level merge, atomic save (store-and-tools §4.13-§4.14,
 * engines-and-extras §B1).
 *
 * Knows the file's schema and nothing of the tools' output; tools/tool_config.c
 * prints it, core/notify.c reads it.
 *  1. Sections and their fields are strict: one unknown key anywhere, or a
 *     value of the wrong type or range, makes the whole file invalid, and an
 *     invalid file loads as the empty config (never half of it) with a
 *     warning that names the path.
 *  2. A save holds an exclusive flock on <path>.lock from the read to the
 *     rename, so concurrent writers (several MCP servers on one machine)
 *     merge one after the other and none loses another's field; the
 *     rename means a reader sees the old file or the new one, never a mix.
 *  3. The file is the user's private config: new files are 0600, an
 *     existing one keeps its mode, and a symbolic link to it (a dotfile
 *     manager's) is written through.
 */
#include "core/config.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include <jansson.h>

#include "util/err.h"
#include "util/fileio.h"
#include "util/jsonx.h"
#include "util/log.h"
#include "util/path.h"
#include "util/sbuf.h"
#include "util/xmalloc.h"

const char *const config_modes[] = { "both", "banner", "voice", "none", NULL };

const char *const config_notification_fields[] = {
	"mode", "voice", "sound", NULL
};

void
config_init(struct config *c)
{
	memset(c, 0, sizeof(*c));
}

void
config_release(struct config *c)
{
	free(c->notifications.mode);
	free(c->notifications.voice);
	free(c->notifications.sound);
	config_init(c);
}

const char *
config_default(const char *platform, const char *field)
{
	bool	mac = strcmp(platform, "darwin") == 0;

	if (strcmp(field, "mode") == 0)
		return "both";
	if (mac && strcmp(field, "voice") == 0)
		return "Zarvox";
	if (mac && strcmp(field, "sound") == 0)
		return "Submarine";
	return NULL;
}

char **
config_field(struct config *c, const char *field)
{
	if (strcmp(field, "mode") == 0)
		return &c->notifications.mode;
	if (strcmp(field, "voice") == 0)
		return &c->notifications.voice;
	if (strcmp(field, "sound") == 0)
		return &c->notifications.sound;
	return NULL;
}

static bool
is_mode(const char *v)
{
	const char *const	*m;

	for (m = config_modes; *m != NULL; m++)
		if (strcmp(*m, v) == 0)
			return true;
	return false;
}

/* The notifications section: strings, mode one of config_modes. */
static int
load_notifications(const json_t *sec, struct config *c, struct sbuf *why)
{
	const char	*field;
	json_t		*v;
	char		**slot;

	json_object_foreach((json_t *)sec, field, v) {
		if ((slot = config_field(c, field)) == NULL) {
			sbuf_addf(why, "unknown key \"notifications.%s\"",
			    field);
			return -1;
		}
		if (!json_is_string(v)) {
			sbuf_addf(why, "\"notifications.%s\" is not a string",
			    field);
			return -1;
		}
		if (strcmp(field, "mode") == 0 &&
		    !is_mode(json_string_value(v))) {
			sbuf_addf(why, "\"notifications.mode\" is \"%s\", not "
			    "one of both, banner, voice, none",
			    json_string_value(v));
			return -1;
		}
		*slot = xstrdup(json_string_value(v));
	}
	return 0;
}

/* The chat section: {enabled: true|false}. */
static int
load_chat(const json_t *sec, struct config *c, struct sbuf *why)
{
	const char	*field;
	json_t		*v;

	json_object_foreach((json_t *)sec, field, v) {
		if (strcmp(field, "enabled") != 0) {
			sbuf_addf(why, "unknown key \"chat.%s\"", field);
			return -1;
		}
		if (!json_is_boolean(v)) {
			sbuf_adds(why, "\"chat.enabled\" is not true or false");
			return -1;
		}
		c->chat.set = true;
		c->chat.enabled = json_is_true(v);
	}
	return 0;
}

/* The recall section's integers, each within its bounds; 0 is unset. */
static const struct {
	const char	*name;
	size_t		 off;
	int		 min, max;
} recall_fields[] = {
	{ "limit", offsetof(struct config_recall, limit),
	  CONFIG_RECALL_LIMIT_MIN, CONFIG_RECALL_LIMIT_MAX },
	{ "cut", offsetof(struct config_recall, cut),
	  CONFIG_RECALL_CUT_MIN, CONFIG_RECALL_CUT_MAX },
	{ "budget", offsetof(struct config_recall, budget),
	  CONFIG_RECALL_BUDGET_MIN, CONFIG_RECALL_BUDGET_MAX },
};
#define NRECALL_FIELDS	(sizeof(recall_fields) / sizeof(recall_fields[0]))

static int
recall_value(const struct config_recall *r, size_t i)
{
	return *(const int *)((const char *)r + recall_fields[i].off);
}

const char *
config_recall_field(const struct config_recall *r, size_t i, int *value)
{
	if (i >= NRECALL_FIELDS)
		return NULL;
	*value = recall_value(r, i);
	return recall_fields[i].name;
}

static int
load_recall(const json_t *sec, struct config *c, struct sbuf *why)
{
	const char	*field;
	json_t		*v;
	size_t		 i;

	json_object_foreach((json_t *)sec, field, v) {
		for (i = 0; i < NRECALL_FIELDS; i++)
			if (strcmp(recall_fields[i].name, field) == 0)
				break;
		if (i == NRECALL_FIELDS) {
			sbuf_addf(why, "unknown key \"recall.%s\"", field);
			return -1;
		}
		if (!json_is_integer(v) ||
		    json_integer_value(v) < recall_fields[i].min ||
		    json_integer_value(v) > recall_fields[i].max) {
			sbuf_addf(why, "\"recall.%s\" is not a whole number "
			    "from %d to %d", field, recall_fields[i].min,
			    recall_fields[i].max);
			return -1;
		}
		*(int *)((char *)&c->recall + recall_fields[i].off) =
		    (int)json_integer_value(v);
	}
	return 0;
}

static const struct {
	const char	*name;
	int		(*load)(const json_t *, struct config *, struct sbuf *);
} sections[] = {
	{ "notifications", load_notifications },
	{ "chat", load_chat },
	{ "recall", load_recall },
};

/* Fill c from the parsed file, or describe the first violation in why. */
static int
from_json(const json_t *root, struct config *c, struct sbuf *why)
{
	const char	*key;
	json_t		*sec;
	size_t		 i;

	if (!json_is_object(root)) {
		sbuf_adds(why, "it is not a JSON object");
		return -1;
	}
	json_object_foreach((json_t *)root, key, sec) {
		for (i = 0; i < sizeof(sections) / sizeof(sections[0]); i++)
			if (strcmp(sections[i].name, key) == 0)
				break;
		if (i == sizeof(sections) / sizeof(sections[0])) {
			sbuf_addf(why, "unknown section \"%s\"", key);
			return -1;
		}
		if (!json_is_object(sec)) {
			sbuf_addf(why, "\"%s\" is not an object", key);
			return -1;
		}
		if (sections[i].load(sec, c, why) != 0)
			return -1;
	}
	return 0;
}

void
config_load(const char *path, struct config *c, struct sbuf *warning)
{
	struct sbuf	 text = SBUF_INIT, why = SBUF_INIT;
	struct err	 err;
	json_t		*root = NULL;
	json_error_t	 jerr;
	int		 rc;

	config_init(c);
	sbuf_init(&text);
	sbuf_init(&why);
	if ((rc = fileio_read(path, &text, &err)) == 1)
		goto out;		/* missing: the empty config */
	if (rc < 0)
		sbuf_adds(&why, err.msg);
	else if ((root = json_loadb(text.buf, text.len, JSON_DECODE_ANY,
	    &jerr)) == NULL)
		sbuf_addf(&why, "it is not valid JSON (line %d: %s)",
		    jerr.line, jerr.text);
	else if (from_json(root, c, &why) != 0)
		config_release(c);	/* invariant 1: all or nothing */
	if (why.len > 0) {
		sbuf_addf(warning, "ignored %s: %s; using the defaults", path,
		    why.buf);
		log_debug("config:load", "ignored %s: %s", path, why.buf);
	}
out:
	json_decref(root);
	sbuf_release(&text);
	sbuf_release(&why);
}

static json_t *
to_json(const struct config *c)
{
	const char *const	*f;
	json_t			*root = json_object(), *sec = json_object();
	char			**slot;
	size_t			 i;

	for (f = config_notification_fields; *f != NULL; f++) {
		slot = config_field((struct config *)c, *f);
		if (*slot != NULL)
			json_object_set_new(sec, *f, json_string(*slot));
	}
	json_object_set_new(root, "notifications", sec);
	/* what the user set by hand survives a config_set */
	if (c->chat.set)
		json_object_set_new(root, "chat", json_pack("{s:b}",
		    "enabled", c->chat.enabled));
	sec = json_object();
	for (i = 0; i < NRECALL_FIELDS; i++)
		if (recall_value(&c->recall, i) > 0)
			json_object_set_new(sec, recall_fields[i].name,
			    json_integer(recall_value(&c->recall, i)));
	if (json_object_size(sec) > 0)
		json_object_set_new(root, "recall", sec);
	else
		json_decref(sec);
	return root;
}

/* Invariant 2: the lock file's descriptor, held until closed. */
static int
lock(const char *path, struct err *err)
{
	char	*name = xasprintf("%s.lock", path);
	int	 fd;

	fd = open(name, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		err_errno(err, "cannot open '%s'", name);
	else
		while (flock(fd, LOCK_EX) != 0)
			if (errno != EINTR) {
				err_errno(err, "cannot lock '%s'", name);
				close(fd);
				fd = -1;
				break;
			}
	free(name);
	return fd;
}

int
config_update(const char *path, const char *const *fields, struct config *c,
    struct err *err)
{
	struct sbuf	 out = SBUF_INIT, ignored = SBUF_INIT;
	json_t		*root = NULL;
	char		*dir = path_dirname(path), **slot;
	int		 fd = -1, rc = -1;

	config_init(c);
	sbuf_init(&out);
	sbuf_init(&ignored);
	if (path_mkdir_p(dir, 0700, err) != 0 || (fd = lock(path, err)) < 0)
		goto out;
	config_load(path, c, &ignored);	/* §4.14: an invalid file is replaced */
	for (; fields[0] != NULL && fields[1] != NULL; fields += 2) {
		if ((slot = config_field(c, fields[0])) == NULL) {
			err_set(err, "unknown notifications field '%s'",
			    fields[0]);
			goto out;
		}
		free(*slot);
		*slot = xstrdup(fields[1]);
	}
	root = to_json(c);
	jsonx_dump_sbuf(&out, root, 2);
	sbuf_addc(&out, '\n');
	/* the user's file: a link to it stays a link (fileio_rewrite) */
	rc = fileio_rewrite(path, out.buf, out.len, 0600, err);
out:
	if (fd >= 0)
		close(fd);		/* drops the lock */
	json_decref(root);
	sbuf_release(&out);
	sbuf_release(&ignored);
	free(dir);
	return rc;
}
