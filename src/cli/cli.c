/*
 * cli.c — what every subcommand is handed.
 *
 * The context is the only state a command sees (DESIGN principle 5):
 * environment-derived paths are computed once here, so every subcommand,
 * hook and the MCP server agree on the same DB path and socket.
 */
#include "cli/cli.h"

#include <assert.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/anchor/anchor.h"
#include "core/repo.h"
#include "core/repo_cache.h"
#include "core/slug.h"
#include "core/store/store.h"
#include "tools/tool.h"
#include "util/fileio.h"
#include "util/jsonx.h"
#include "util/sbuf.h"
#include "util/utf8.h"
#include "util/xmalloc.h"

void
cli_ctx_init(struct cli_ctx *ctx, const char *name)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->name = name;
	paths_init(&ctx->paths);
	ctx->clock = clock_system();
}

void
cli_ctx_release(struct cli_ctx *ctx)
{
	store_close(ctx->store);
	free(ctx->args);
	free(ctx->repo);
	paths_release(&ctx->paths);
	memset(ctx, 0, sizeof(*ctx));
}

static int
is_help(const char *a)
{
	return strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0;
}

/* The index of e's option matching a (`--name` or `--name=...`), or -1. */
static int
find_opt(const struct cmd_entry *e, const char *a, const char **value)
{
	size_t	n;
	int	i;

	for (i = 0; e->opts != NULL && e->opts[i].name != NULL &&
	    i < CMD_MAXOPTS; i++) {
		n = strlen(e->opts[i].name);
		if (strncmp(a, e->opts[i].name, n) != 0)
			continue;
		if (a[n] == '\0') {
			*value = NULL;
			return i;
		}
		if (a[n] == '=' && e->opts[i].arg != NULL) {
			*value = a + n + 1;
			return i;
		}
	}
	return -1;
}

int
cli_parse(struct cli_ctx *ctx, const struct cmd_entry *e, int argc,
    char **argv, int *pargc, char ***pargv)
{
	const char	*value;
	int		 i, n = 0, o;
	bool		 dashdash = false;

	ctx->cmd = e;
	for (i = 0; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (is_help(argv[i]))
			return 1;	/* help wins over any mistake */
	ctx->args = xcalloc((size_t)argc + 1, sizeof(*ctx->args));
	for (i = 0; i < argc; i++) {
		if (dashdash || argv[i][0] != '-' || argv[i][1] == '\0') {
			ctx->args[n++] = argv[i];
			continue;
		}
		if (strcmp(argv[i], "--") == 0) {
			dashdash = true;
			continue;
		}
		if ((o = find_opt(e, argv[i], &value)) < 0) {
			err_set(&ctx->err, "unknown option '%s'", argv[i]);
			return CMD_USAGE;
		}
		if (e->opts[o].arg != NULL && value == NULL) {
			if (i + 1 == argc) {
				err_set(&ctx->err, "option '%s' needs a "
				    "value %s", argv[i], e->opts[o].arg);
				return CMD_USAGE;
			}
			value = argv[++i];
		}
		ctx->optval[o] = value != NULL ? value : "";
	}
	if (n < e->min_args) {
		err_set(&ctx->err, "missing argument (expected %s)", e->args);
		return CMD_USAGE;
	}
	if (e->max_args != CMD_ANY && n > e->max_args) {
		err_set(&ctx->err, "unexpected argument '%s'",
		    ctx->args[e->max_args]);
		return CMD_USAGE;
	}
	*pargc = n;
	*pargv = ctx->args;
	return 0;
}

const char *
cli_opt(const struct cli_ctx *ctx, const char *name)
{
	int	i;

	for (i = 0; ctx->cmd->opts != NULL && ctx->cmd->opts[i].name != NULL;
	    i++)
		if (strcmp(ctx->cmd->opts[i].name, name) == 0)
			return ctx->optval[i];
	return NULL;
}

int
cli_open_store(struct cli_ctx *ctx)
{
	if (ctx->store != NULL)
		return 0;
	return store_open(ctx->paths.db_path, &ctx->store, &ctx->err);
}

const char *
cli_repo(struct cli_ctx *ctx)
{
	struct repo_cache_sql	rc;
	struct err		saved = ctx->err;

	if (ctx->repo != NULL)
		return ctx->repo;
	if (cli_open_store(ctx) == 0) {
		repo_cache_init(&rc, ctx->store, &ctx->clock);
		ctx->repo = repo_detect(ctx->paths.project_dir, &rc.cache);
	} else {
		ctx->err = saved;	/* detection never fails */
		ctx->repo = repo_detect(ctx->paths.project_dir, NULL);
	}
	return ctx->repo;
}

const char *
cli_default_store(struct cli_ctx *ctx)
{
	return repo_store_name(cli_repo(ctx));
}

int
cli_hashed_label(struct cli_ctx *ctx, const char *label, const char *slug,
    const char *store)
{
	if (!slug_is_hashed(label, strlen(label)))
		return 0;
	err_set(&ctx->err, "label \"%s\" has no letter or digit, so it names "
	    "memory \"%s\", and store \"%s\" has none", label, slug, store);
	return 1;
}

int
cli_tool(struct cli_ctx *ctx, const char *name, const json_t *args,
    struct sbuf *out)
{
	const struct tool	*t = tool_find(name);
	struct tool_ctx		 tools;
	struct sbuf		 text = SBUF_INIT;
	int			 rc = 0;

	assert(t != NULL);
	if (tool_validate(t, args, &text) != 0) {
		err_set(&ctx->err, "%s", text.buf ? text.buf : "");
		sbuf_release(&text);
		return CMD_USAGE;
	}
	tool_ctx_init(&tools, ctx->store, cli_default_store(ctx), &ctx->paths);
	tools.clock = ctx->clock;
	tools.cli = true;
	tools.refused = false;	/* tool.h: the reader clears it */
	if (t->run(&tools, args, &text, &ctx->err) != 0)
		rc = CMD_FAILED;
	else if (tools.refused) {
		err_set(&ctx->err, "%s", text.buf ? text.buf : "");
		rc = CMD_FAILED;
	} else
		sbuf_add(out, text.buf, text.len);
	tool_ctx_release(&tools);
	sbuf_release(&text);
	return rc;
}

const char *
cli_memory_body(const char *content)
{
	const char	*nl;

	if (content == NULL || strncmp(content, "# ", 2) != 0)
		return content != NULL ? content : "";
	nl = strchr(content + 2, '\n');
	if (nl == NULL || nl == content + 2 || nl[1] != '\n')
		return content;
	return nl + 2;
}

int
cli_read_text(struct cli_ctx *ctx, int fd, const char *what, struct sbuf *sb)
{
	struct err	e = { "" };

	sbuf_reset(sb);
	if (fileio_read_fd(fd, sb, &e) != 0)
		return err_set(&ctx->err, "cannot read %s: %s", what, e.msg);
	while (sb->len > 0 && sb->buf[sb->len - 1] == '\n')
		sbuf_setlen(sb, sb->len - 1);
	return 0;
}

json_t *
cli_json_arg(struct cli_ctx *ctx, const char *what, const char *s, size_t n)
{
	json_t	*j = json_stringn(s != NULL ? s : "", n);

	if (j == NULL)
		err_set(&ctx->err, "%s is not valid UTF-8", what);
	return j;
}

int
cli_json_set(struct cli_ctx *ctx, json_t *obj, const char *key,
    const char *v)
{
	json_t	*j;

	if (v == NULL)
		return 0;
	if ((j = cli_json_arg(ctx, key, v, strlen(v))) == NULL)
		return -1;
	json_object_set_new(obj, key, j);
	return 0;
}

void
cli_print_text(const struct sbuf *text)
{
	struct sbuf	sb = SBUF_INIT;

	utf8_escape(&sb, text->len > 0 ? text->buf : "", UTF8_ESC_TEXT);
	sbuf_addc(&sb, '\n');
	fputs(sb.buf, stdout);
	sbuf_release(&sb);
}

/* JSON strings must be UTF-8: bytes that are not are shown as \xHH. */
json_t *
cli_json_str(const char *s)
{
	struct sbuf	 sb = SBUF_INIT;
	json_t		*j;

	if ((j = json_string(s)) != NULL)
		return j;
	utf8_escape(&sb, s, UTF8_ESC_TEXT);
	j = json_string(sb.buf);
	sbuf_release(&sb);
	return j;
}

static json_t *
str_or_null(const char *s)
{
	return s != NULL && *s != '\0' ? cli_json_str(s) : json_null();
}

json_t *
cli_entry_json(const struct store_entry *e, bool content)
{
	json_t	*o = json_object();

	json_object_set_new(o, "store", cli_json_str(e->store));
	json_object_set_new(o, "slug", cli_json_str(e->slug));
	json_object_set_new(o, "label", cli_json_str(e->label));
	json_object_set_new(o, "branch", str_or_null(e->branch));
	json_object_set_new(o, "confidence", e->confidence != 0 ?
	    json_integer(e->confidence) : json_null());
	json_object_set_new(o, "archived", json_boolean(e->archived));
	json_object_set_new(o, "created_at", str_or_null(e->created_at));
	json_object_set_new(o, "updated_at", str_or_null(e->updated_at));
	json_object_set_new(o, "last_recalled_at",
	    str_or_null(e->last_recalled_at));
	json_object_set_new(o, "recall_count", json_integer(e->recall_count));
	if (content)
		json_object_set_new(o, "content",
		    cli_json_str(e->content));
	return o;
}

/* Where the memory came from (issue 31), or NULL when unknown. */
static json_t *
origin_json(struct cli_ctx *ctx, const struct store_entry *e)
{
	struct store_origin	 o = { STORE_ORIGIN_NONE, NULL, NULL };
	struct err		 ignored;
	json_t			*doc = NULL;

	if (store_origin_get(ctx->store, e->store, e->slug, &o,
	    &ignored) == 0 && o.kind != STORE_ORIGIN_NONE)
		doc = json_pack("{s:s, s:s?, s:s?}", "kind",
		    store_origin_kind_name(o.kind), "source", o.source,
		    "commit", o.ref);
	store_origin_release(&o);
	return doc;
}

json_t *
cli_memory_json(struct cli_ctx *ctx, const struct store_entry *e,
    bool content)
{
	json_t	*doc = cli_entry_json(e, content), *a;

	if ((a = anchor_json(ctx->store, ctx->paths.project_dir,
	    e->store, e->slug)) != NULL)
		json_object_set_new(doc, "anchors", a);
	if ((a = origin_json(ctx, e)) != NULL)
		json_object_set_new(doc, "origin", a);
	return doc;
}

void
cli_print_json(json_t *doc)
{
	char	*s = jsonx_dump(doc, 0);

	puts(s);
	free(s);
	json_decref(doc);
}
