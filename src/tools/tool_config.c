/*
 * tool_config.c — the config_get, config_set and notify_user tools
 * (store-and-tools §4.13-§4.15): the user's config.json beside the
 * database, and the notifications it configures.
 *
 * Handlers only: the file is core/config.c's, the sending core/notify.c's.
 *  1. The notifications block is printed the same way by both config
 *     tools, fields in file order, each with its platform default when it
 *     has one.
 *  2. config_get shows why an invalid file was ignored; config_set does
 *     not (it replaces the file, §4.14).
 */
#include "tools/tool_rows.h"

#include <stdlib.h>
#include <string.h>

#include "core/config.h"
#include "core/notify.h"
#include "util/err.h"
#include "util/path.h"
#include "util/sbuf.h"
#include "util/xmalloc.h"

static char *
config_path(const struct tool_ctx *ctx)
{
	return path_join(ctx->paths->db_dir, "config.json");
}

/* Invariant 1. */
static void
notifications_block(const struct tool_ctx *ctx, struct config *c,
    struct sbuf *out)
{
	const char *const	*f;
	const char		*dflt;
	char			*v;

	sbuf_adds(out, "notifications:\n");
	for (f = config_notification_fields; *f != NULL; f++) {
		v = *config_field(c, *f);
		sbuf_addf(out, "  %s: %s", *f, v ? v : "<unset>");
		if ((dflt = config_default(ctx->notify.platform, *f)) != NULL)
			sbuf_addf(out, " (default: %s)", dflt);
		sbuf_addc(out, '\n');
	}
}

static int
config_get(struct tool_ctx *ctx, const json_t *args, struct sbuf *out,
    struct err *err)
{
	struct config	 c;
	struct sbuf	 warning = SBUF_INIT;
	char		*path = config_path(ctx);

	(void)args;		/* section: one known section, validated */
	(void)err;
	sbuf_init(&warning);
	config_load(path, &c, &warning);
	if (warning.len > 0)
		sbuf_addf(out, "[warning] %s\n\n", warning.buf);
	notifications_block(ctx, &c, out);
	sbuf_addf(out, "\nfile: %s", path);
	config_release(&c);
	sbuf_release(&warning);
	free(path);
	return 0;
}

static int
config_set(struct tool_ctx *ctx, const json_t *args, struct sbuf *out,
    struct err *err)
{
	const json_t	*sec = json_object_get(args, "notifications");
	const char	*key, **pairs;
	struct config	 c;
	struct sbuf	 ignored = SBUF_INIT;
	json_t		*v;
	char		*path = config_path(ctx);
	size_t		 n = 0;
	int		 rc = 0;

	pairs = xcalloc(2 * json_object_size(sec) + 2, sizeof(*pairs));
	json_object_foreach((json_t *)sec, key, v) {
		pairs[n++] = key;
		pairs[n++] = json_string_value(v);
	}
	if (n == 0) {
		sbuf_init(&ignored);
		config_load(path, &c, &ignored);
		sbuf_adds(out, "nothing to update; pass a section with "
		    "fields\n");
	} else if ((rc = config_update(path, pairs, &c, err)) == 0)
		sbuf_addf(out, "[saved] %s\n", path);
	if (rc == 0)
		notifications_block(ctx, &c, out);
	sbuf_rtrim(out);
	config_release(&c);
	sbuf_release(&ignored);
	free(pairs);
	free(path);
	return rc;
}

static int
notify_user(struct tool_ctx *ctx, const json_t *args, struct sbuf *out,
    struct err *err)
{
	struct notify_msg	 m = {
		.message = tool_arg_str(args, "message", ""),
		.title = tool_arg_str(args, "title", NULL),
		.source = tool_arg_str(args, "source", NULL),
		.channel = tool_arg_str(args, "channel", NULL),
		.voice = tool_arg_str(args, "voice", NULL),
	};
	struct config		 c;
	struct sbuf		 ignored = SBUF_INIT;
	char			*path = config_path(ctx);

	(void)err;
	sbuf_init(&ignored);
	config_load(path, &c, &ignored);	/* invalid: the defaults */
	notify_send(&ctx->notify, &c, &m, out);
	config_release(&c);
	sbuf_release(&ignored);
	free(path);
	return 0;
}

static const char *const sections[] = { "notifications", NULL };
static const char *const channels[] = { "both", "banner", "voice", NULL };

static const struct tool_arg get_args[] = {
	{ .name = "section", .type = ARG_STRING, .choices = sections,
	  .description = "Show only this section (default: every section)" },
	{ .name = NULL }
};

static const struct tool_arg notification_fields[] = {
	{ .name = "mode", .type = ARG_STRING, .choices = config_modes,
	  .description = "Which channels notify_user uses: both, banner, "
	    "voice or none (off)" },
	{ .name = "voice", .type = ARG_STRING,
	  .description = "Speech voice (macOS say -v, espeak -v)" },
	{ .name = "sound", .type = ARG_STRING,
	  .description = "Banner sound name (macOS)" },
	{ .name = NULL }
};

static const struct tool_arg set_args[] = {
	{ .name = "notifications", .type = ARG_OBJECT,
	  .fields = notification_fields,
	  .description = "Fields of the notifications section to change; "
	    "omitted fields keep their values" },
	{ .name = NULL }
};

static const struct tool_arg notify_args[] = {
	{ .name = "message", .type = ARG_STRING, .flags = ARG_REQUIRED,
	  .description = "What to tell the user, in a sentence" },
	{ .name = "title", .type = ARG_STRING,
	  .description = "Banner title (default: source, then \"thatch\")" },
	{ .name = "source", .type = ARG_STRING,
	  .description = "Short label of the work item, spoken before the "
	    "message" },
	{ .name = "channel", .type = ARG_STRING, .choices = channels,
	  .description = "Override the configured mode for this call" },
	{ .name = "voice", .type = ARG_STRING,
	  .description = "Speech voice for this call" },
	{ .name = NULL }
};

const struct tool tool_config_get = {
	.name = "config_get",
	.family = "config",
	.title = "Show the configuration",
	.description = "Show thatch's user configuration (config.json beside "
	    "the database) with the defaults of unset fields.",
	.args = get_args,
	.flags = TOOL_MCP | TOOL_READONLY,
	.run = config_get,
};

const struct tool tool_config_set = {
	.name = "config_set",
	.family = "config",
	.title = "Change the configuration",
	.description = "Change thatch's user configuration field by field; "
	    "other fields and sections keep their values. Use it when the "
	    "user asks to change how notifications reach them.",
	.args = set_args,
	.flags = TOOL_MCP,
	.run = config_set,
};

const struct tool tool_notify_user = {
	.name = "notify_user",
	.family = "notification",
	.title = "Notify the user",
	.description = "Tell the user something out of band, with a desktop "
	    "banner and/or speech: when a long task finishes or needs their "
	    "input while they may be looking elsewhere. Reports whether the "
	    "notifier ran, not whether they saw it.",
	.args = notify_args,
	.flags = TOOL_MCP,
	.run = notify_user,
};
