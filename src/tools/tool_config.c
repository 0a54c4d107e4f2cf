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
 *  3. The chat and recall sections (thatch's own, issue 27) are shown by
 *     config_get only when the file sets them, each field with the value
 *     in effect when unset: a file that does not reads exactly as §4.13
 *     has it (the original's output).
 */
#include "tools/tool_rows.h"

#include <stdlib.h>
#include <string.h>

#include "core/config.h"
#include "core/notify.h"
#include "tools/budget/tool_cut.h"
#include "tools/tool_memory.h"
#include "util/err.h"
#include "util/path.h"
#include "util/sbuf.h"
#include "util/xmalloc.h"

static char *
config_path(const struct tool_ctx *ctx)
{
	return path_join(ctx->paths->db_dir, "config.json");
}

void
tool_config_read(const struct tool_ctx *ctx, struct config *c)
{
	struct sbuf	 ignored = SBUF_INIT;
	char		*path = config_path(ctx);

	config_load(path, c, &ignored);
	sbuf_release(&ignored);
	free(path);
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

/* What recall applies to a field the file leaves unset. */
static int
recall_default(const char *field)
{
	return strcmp(field, "limit") == 0 ? TOOL_RECALL_LIMIT :
	    strcmp(field, "cut") == 0 ? TOOL_RECALL_CUT : TOOL_RECALL_BUDGET;
}

/* Invariant 3. */
static void
own_sections(const struct config *c, struct sbuf *out)
{
	const char	*f;
	size_t		 i, set = 0;
	int		 v;

	if (c->chat.set)
		sbuf_addf(out, "chat:\n  enabled: %s (default: false)\n",
		    c->chat.enabled ? "true" : "false");
	for (i = 0; config_recall_field(&c->recall, i, &v) != NULL; i++)
		set += v > 0;
	if (set == 0)
		return;
	sbuf_adds(out, "recall:\n");
	for (i = 0; (f = config_recall_field(&c->recall, i, &v)) != NULL;
	    i++) {
		if (v > 0)
			sbuf_addf(out, "  %s: %d", f, v);
		else
			sbuf_addf(out, "  %s: <unset>", f);
		sbuf_addf(out, " (default: %d)\n", recall_default(f));
	}
}

static int
config_get(struct tool_ctx *ctx, const json_t *args, struct sbuf *out,
    struct err *err)
{
	struct config	 c;
	struct sbuf	 warning = SBUF_INIT;
	char		*path = config_path(ctx);

	(void)err;
	sbuf_init(&warning);
	config_load(path, &c, &warning);
	if (warning.len > 0)
		sbuf_addf(out, "[warning] %s\n\n", warning.buf);
	notifications_block(ctx, &c, out);
	/* section (validated): notifications, the only one it may name */
	if (tool_arg_str(args, "section", NULL) == NULL)
		own_sections(&c, out);
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
	  .description = "Only this section" },
	{ .name = NULL }
};

static const struct tool_arg notification_fields[] = {
	{ .name = "mode", .type = ARG_STRING, .choices = config_modes,
	  .description = "notify_user's channels" },
	{ .name = "voice", .type = ARG_STRING,
	  .description = "Speech voice" },
	{ .name = "sound", .type = ARG_STRING,
	  .description = "Banner sound (macOS)" },
	{ .name = NULL }
};

static const struct tool_arg set_args[] = {
	{ .name = "notifications", .type = ARG_OBJECT,
	  .fields = notification_fields,
	  .description = "Fields to change" },
	{ .name = NULL }
};

static const struct tool_arg notify_args[] = {
	{ .name = "message", .type = ARG_STRING, .flags = ARG_REQUIRED,
	  .description = "One sentence" },
	{ .name = "title", .type = ARG_STRING,
	  .description = "Banner title" },
	{ .name = "source", .type = ARG_STRING,
	  .description = "The work item, spoken first" },
	{ .name = "channel", .type = ARG_STRING, .choices = channels,
	  .description = "Overrides the configured mode" },
	{ .name = "voice", .type = ARG_STRING,
	  .description = "Speech voice" },
	{ .name = NULL }
};

const struct tool tool_config_get = {
	.name = "config_get",
	.family = "config",
	.title = "Show the configuration",
	.description = "Show config.json with defaults.",
	.args = get_args,
	.flags = TOOL_MCP | TOOL_READONLY,
	.run = config_get,
};

const struct tool tool_config_set = {
	.name = "config_set",
	.family = "config",
	.title = "Change the configuration",
	.description = "Change config.json fields (how notifications reach "
	    "the user).",
	.args = set_args,
	.flags = TOOL_MCP,
	.run = config_set,
};

const struct tool tool_notify_user = {
	.name = "notify_user",
	.family = "notification",
	.title = "Notify the user",
	.description = "Desktop banner and/or speech for the user, when "
	    "long work ends or needs them.",
	.args = notify_args,
	.flags = TOOL_MCP,
	.run = notify_user,
};
