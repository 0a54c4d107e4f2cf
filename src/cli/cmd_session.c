/*
 * cmd_session.c — `thatch session list|get|transcript|search`: what earlier
 * opencode sessions did, read from opencode's own database, read-only
 * (engines-and-extras B6, hosts-hooks-cli §1.3; the reader is core/session/ocdb.c).
 * Works from any shell; no thatch store is opened.
 */
#include "cli/cmd.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/session/ocdb.h"
#include "util/err.h"
#include "util/jsonx.h"
#include "util/sbuf.h"
#include "util/utf8.h"

#define SESSION_LIMIT	20

static int
parse_limit(struct cli_ctx *ctx, size_t *limit)
{
	const char	*s = cli_opt(ctx, "--limit");
	char		*end;
	long		 v;

	*limit = SESSION_LIMIT;
	if (s == NULL)
		return 0;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v < 1 || v > 100000) {
		err_set(&ctx->err, "--limit must be a whole number from 1 to "
		    "100000, not '%s'", s);
		return CMD_USAGE;
	}
	*limit = (size_t)v;
	return 0;
}

static int
open_db(struct cli_ctx *ctx, struct ocdb **db)
{
	char	*path = ocdb_path(ctx->paths.home);
	int	 rc = ocdb_open(path, db, &ctx->err);

	free(path);
	return rc == 0 ? 0 : CMD_FAILED;
}

static void
print_sbuf(struct sbuf *sb)
{
	fwrite(sb->buf, 1, sb->len, stdout);
}

static int
session_list(struct cli_ctx *ctx, struct ocdb *db, int argc, char **argv)
{
	struct ocdb_filter	 f = { NULL, false, false, 0 };
	struct ocdb_sessions	 l;
	struct sbuf		 sb = SBUF_INIT;
	char			 t[OCDB_TIME_LEN], cwd[4096];
	size_t			 i;
	int			 rc;

	(void)argv;
	if (argc != 0)
		return CMD_USAGE;
	if ((rc = parse_limit(ctx, &f.limit)) != 0)
		return rc;
	/* opencode stores the directory it ran in, as getcwd says it */
	if (!cli_flag(ctx, "--all"))
		f.directory = getcwd(cwd, sizeof(cwd)) ? cwd :
		    ctx->paths.project_dir;
	f.children = cli_flag(ctx, "--children");
	f.archived = cli_flag(ctx, "--archived");
	if (ocdb_list(db, &f, &l, &ctx->err) != 0)
		return CMD_FAILED;
	sbuf_init(&sb);
	for (i = 0; i < l.n; i++) {
		utf8_addf(&sb, "%s  ", l.v[i].id);
		sbuf_addf(&sb, "%s  ", ocdb_time(l.v[i].updated, t));
		utf8_addf(&sb, "%s  (%s)\n", l.v[i].title, l.v[i].directory);
	}
	print_sbuf(&sb);
	sbuf_release(&sb);
	ocdb_sessions_release(&l);
	return 0;
}

/* The session named by argv[0], or CMD_FAILED with "no session" said. */
static int
get_one(struct cli_ctx *ctx, struct ocdb *db, int argc, char **argv,
    json_t **got)
{
	if (argc != 1) {
		err_set(&ctx->err, "expected one session id");
		return CMD_USAGE;
	}
	if (ocdb_get(db, argv[0], got, &ctx->err) != 0)
		return CMD_FAILED;
	if (*got == NULL) {
		err_set(&ctx->err, "no opencode session '%s'", argv[0]);
		return CMD_FAILED;
	}
	return 0;
}

static int
session_get(struct cli_ctx *ctx, struct ocdb *db, int argc, char **argv)
{
	struct sbuf	 sb = SBUF_INIT;
	json_t		*got;
	int		 rc;

	if ((rc = get_one(ctx, db, argc, argv, &got)) != 0)
		return rc;
	if (cli_flag(ctx, "--json")) {
		cli_print_json(got);
		return 0;
	}
	sbuf_init(&sb);
	ocdb_render(got, 0, false, &sb);
	print_sbuf(&sb);
	sbuf_release(&sb);
	json_decref(got);
	return 0;
}

static int
session_transcript(struct cli_ctx *ctx, struct ocdb *db, int argc,
    char **argv)
{
	json_t	*got;
	int	 rc;

	if ((rc = get_one(ctx, db, argc, argv, &got)) != 0)
		return rc;
	cli_print_json(ocdb_transcript(got, cli_flag(ctx,
	    "--include-synthetic")));
	json_decref(got);
	return 0;
}

static int
session_search(struct cli_ctx *ctx, struct ocdb *db, int argc, char **argv)
{
	struct ocdb_query	 q = { NULL, NULL, NULL, 0 };
	struct sbuf		 sb = SBUF_INIT;
	size_t			 n;
	int			 rc;

	if (argc != 1 || *argv[0] == '\0') {
		err_set(&ctx->err, "expected one non-empty query");
		return CMD_USAGE;
	}
	if ((rc = parse_limit(ctx, &q.limit)) != 0)
		return rc;
	q.text = argv[0];
	q.session = cli_opt(ctx, "--session");
	sbuf_init(&sb);
	if (ocdb_search(db, &q, &sb, &n, &ctx->err) != 0) {
		sbuf_release(&sb);
		return CMD_FAILED;
	}
	if (n == 0)
		utf8_addf(&sb, "No session content matches \"%s\".\n", q.text);
	print_sbuf(&sb);
	sbuf_release(&sb);
	return 0;
}

static const struct {
	const char	*name;
	int		(*exec)(struct cli_ctx *, struct ocdb *, int, char **);
} verbs[] = {
	{ "list", session_list },
	{ "get", session_get },
	{ "transcript", session_transcript },
	{ "search", session_search },
};

static int
cmd_session_exec(struct cli_ctx *ctx, int argc, char **argv)
{
	struct ocdb	*db = NULL;
	size_t		 i;
	int		 rc;

	for (i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		if (strcmp(argv[0], verbs[i].name) == 0)
			break;
	if (i == sizeof(verbs) / sizeof(verbs[0])) {
		err_set(&ctx->err, "unknown verb '%s' (list, get, transcript "
		    "or search)", argv[0]);
		return CMD_USAGE;
	}
	if ((rc = open_db(ctx, &db)) != 0)
		return rc;
	rc = verbs[i].exec(ctx, db, argc - 1, argv + 1);
	ocdb_close(db);
	return rc;
}

static const struct cmd_opt session_opts[] = {
	{ "--limit", "<n>", "list, search: at most n (default 20)" },
	{ "--all", NULL, "list: sessions of every directory" },
	{ "--children", NULL, "list: sub-agent sessions too" },
	{ "--archived", NULL, "list: archived sessions too" },
	{ "--json", NULL, "get: the decoded messages and parts as JSON" },
	{ "--include-synthetic", NULL, "transcript: keep synthetic parts" },
	{ "--session", "<id>", "search: only this session" },
	{ NULL, NULL, NULL },
};

const struct cmd_entry cmd_session_entry = {
	.name = "session",
	.args = "list | get <id> | transcript <id> | search <query>",
	.min_args = 1,
	.max_args = 2,
	.opts = session_opts,
	.env = "OPENCODE_DB XDG_DATA_HOME",
	.reads = READS_PROJECT,
	.example = "thatch session search 'migration failed' --limit 5",
	.summary = "read earlier opencode sessions (read-only)",
	.exec = cmd_session_exec,
};
