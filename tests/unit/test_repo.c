/*
 * test_repo.c — store identity from git (store-and-tools §2.3-§2.7) against
 * real temporary repositories: remote URL forms, worktree-safe names, the
 * repo_paths cache with its validation and eviction table, branch listing.
 */
#include "check.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/repo.h"
#include "core/repo_cache.h"
#include "core/store/store.h"
#include "util/os/clock.h"
#include "util/err.h"
#include "util/xmalloc.h"

static char	 tmpl[] = "/tmp/thatch-test-repo.XXXXXX";
static char	*top;
static struct store	*st;
static struct clock	 clk;
static struct repo_cache_sql	rc;

/* Run cmd with sh in the test's top directory. */
static void
sh(const char *cmd)
{
	char	*full = xasprintf("cd '%s' && (%s) >/dev/null 2>&1", top, cmd);

	if (system(full) != 0)
		CHECK_FAIL("shell failed: %s", cmd);
	free(full);
}

static char *
at(const char *rel)
{
	return xasprintf("%s/%s", top, rel);
}

static void
setup(void)
{
	struct err	 err = { "" };
	char		*db, *home;

	top = mkdtemp(tmpl);
	home = at("home");
	setenv("HOME", home, 1);
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	unsetenv("GIT_DIR");
	unsetenv("GIT_WORK_TREE");
	sh("mkdir -p home && git config --global user.name t && "
	    "git config --global user.email t@example.com && "
	    "git config --global init.defaultBranch main");
	db = at("db/thatch.db");
	if (store_open(db, &st, &err) != 0)
		CHECK_FAIL("store_open: %s", err.msg);
	clk = clock_fixed(1700000000000);
	repo_cache_init(&rc, st, &clk);
	free(db);
	free(home);
}

static void
remote_urls_parse_as_the_spec_lists(void)
{
	static const char *const ok[][2] = {
		{ "git@github.com:owner/repo.git", "owner/repo" },
		{ "git@github.com:owner/repo.git/", "owner/repo" },
		{ "  git@github.com:owner/repo.git  \n", "owner/repo" },
		{ "git@gitlab.internal:team/project.git", "team/project" },
		{ "git@gitlab.com:group/sub/repo.git", "group/sub/repo" },
		{ "git@github.com:my-org/my-repo.name.git",
		  "my-org/my-repo.name" },
		{ "https://github.com/owner/repo", "owner/repo" },
		{ "http://github.com/owner/repo.git", "owner/repo" },
		{ "https://user:tok@github.com/owner/repo.git", "owner/repo" },
		{ "https://github.com:443/owner/repo.git", "owner/repo" },
		{ "https://gitlab.com/a/b/c.git", "a/b/c" },
		{ "https://github.com/Owner/Repo.git", "Owner/Repo" },
		{ "https://github.com/owner/repo.git.git", "owner/repo.git" },
		{ "git@github.com:owner/repo.GIT", "owner/repo.GIT" },
		{ "ssh://git@github.com/owner/repo.git", "owner/repo" },
		{ "ssh://git@github.com:22/owner/repo.git", "owner/repo" },
		{ "git://github.com/owner/repo.git", "owner/repo" },
	};
	static const char *const bad[] = {
		"https://github.com/repo", "git@host:repo.git",
		"user@host:owner/repo.git", "ssh://user@host/owner/repo.git",
		"ssh://host/owner/repo", "file:///srv/git/owner/repo.git",
		"/srv/git/repo.git", "not-a-url", "",
	};
	size_t	i;
	char	*got;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		got = repo_parse_remote(ok[i][0]);
		CHECK_STR(got, ok[i][1]);
		free(got);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		got = repo_parse_remote(bad[i]);
		if (got != NULL)
			CHECK_FAIL("\"%s\" parsed as \"%s\"", bad[i], got);
		free(got);
	}
}

static char *
detect(const char *rel)
{
	char	*dir = at(rel), *r = repo_detect(dir, &rc.cache);

	free(dir);
	return r;
}

static void
origin_remote_names_the_store(void)
{
	char	*r;

	sh("git init -q withremote && cd withremote && "
	    "git remote add origin git@github.com:acme/api.git && "
	    "mkdir -p sub/deeper");
	r = detect("withremote/sub/deeper");
	CHECK_STR(r, "acme/api");
	free(r);
}

static void
no_remote_uses_the_main_checkout_name(void)
{
	char	*r;

	sh("git init -q plain && cd plain && mkdir sub && "
	    "git commit -q --allow-empty -m one && "
	    "git remote add origin /srv/not/a/url.git && "
	    "git worktree add -q ../feature-x -b feature-x");
	r = detect("plain");
	CHECK_STR(r, "plain");
	free(r);
	r = detect("plain/sub");	/* 0.1.30 said ".." here */
	CHECK_STR(r, "plain");
	free(r);
	r = detect("feature-x");	/* a linked worktree: not the branch */
	CHECK_STR(r, "plain");
	free(r);
}

static void
outside_git_uses_the_directory_name(void)
{
	char	*r;

	sh("mkdir -p loose/notes");
	r = detect("loose/notes");
	CHECK_STR(r, "notes");
	free(r);
	r = repo_detect("/", &rc.cache);
	CHECK_STR(r, "unknown");
	free(r);
	CHECK_STR(repo_store_name("unknown"), "global");
	CHECK_STR(repo_store_name("acme/api"), "acme/api");
}

static int
cache_rows(void)
{
	sqlite3_stmt	*stmt = NULL;
	struct err	 err;
	int		 n = -1;

	if (store_prepare(st, &stmt, "SELECT COUNT(*) FROM repo_paths",
	    &err) == 0 && sqlite3_step(stmt) == SQLITE_ROW)
		n = sqlite3_column_int(stmt, 0);
	sqlite3_finalize(stmt);
	return n;
}

static void
deleted_worktree_is_recovered_from_the_cache(void)
{
	char	*r, *dir, **br;
	size_t	 n, i;
	bool	 has_feature = false;

	sh("git init -q app && cd app && git commit -q --allow-empty -m one "
	    "&& git remote add origin https://github.com/acme/app.git && "
	    "git worktree add -q ../app-wt -b topic");
	r = detect("app-wt");
	CHECK_STR(r, "acme/app");
	free(r);
	sh("rm -rf app-wt");
	r = detect("app-wt");
	CHECK_STR(r, "acme/app");	/* not "app-wt" */
	free(r);
	dir = at("app-wt");
	repo_branches(dir, &rc.cache, &br, &n);
	for (i = 0; i < n; i++)
		has_feature |= strcmp(br[i], "topic") == 0;
	CHECK(n == 2 && has_feature);	/* run from the main checkout */
	repo_branches_free(br, n);
	free(dir);
	r = detect("never-existed");
	CHECK_STR(r, "unknown");	/* never the basename */
	free(r);
}

/* Issue 30: a removed worktree's subdirectory resolves through its cached
 * ancestor, and one kept inside its repository through git there. */
static void
deleted_directories_walk_up(void)
{
	char	*r;

	sh("git init -q up && cd up && git commit -q --allow-empty -m one "
	    "&& git remote add origin https://github.com/acme/up.git && "
	    "git worktree add -q ../up-wt -b topic && "
	    "git worktree add -q .wt/inside -b inner");
	r = detect("up-wt");
	CHECK_STR(r, "acme/up");
	free(r);
	sh("rm -rf up-wt up/.wt/inside");
	r = detect("up-wt/src/deep");
	CHECK_STR(r, "acme/up");	/* the cached ancestor's row */
	free(r);
	r = detect("up/.wt/inside");	/* never seen: git in up/.wt */
	CHECK_STR(r, "acme/up");
	free(r);
	r = detect("loose-gone/sub");	/* top is no repository */
	CHECK_STR(r, "unknown");
	free(r);
}

static void
cache_rows_are_kept_or_evicted_as_the_table_says(void)
{
	char	*r;
	int	 before;

	sh("git init -q gone && cd gone && "
	    "git remote add origin git@h:o/gone.git && "
	    "git commit -q --allow-empty -m x && "
	    "git worktree add -q ../gone-wt -b w");
	r = detect("gone-wt");
	CHECK_STR(r, "o/gone");
	free(r);
	sh("rm -rf gone-wt && mv gone gone-moved");
	before = cache_rows();
	r = detect("gone-wt");		/* main checkout missing: keep */
	CHECK_STR(r, "unknown");
	free(r);
	CHECK_INT(cache_rows(), before);
	sh("mv gone-moved gone && cd gone && "
	    "git remote set-url origin git@h:o/other.git");
	r = detect("gone-wt");		/* re-cloned elsewhere: evict */
	CHECK_STR(r, "unknown");
	free(r);
	CHECK_INT(cache_rows(), before - 1);
}

static void
not_a_repo_anymore_evicts(void)
{
	char	*r;
	int	 before;

	sh("git init -q was && cd was && git commit -q --allow-empty -m x && "
	    "git worktree add -q ../was-wt -b w");
	r = detect("was-wt");
	CHECK_STR(r, "was");
	free(r);
	before = cache_rows();
	sh("rm -rf was-wt was/.git");
	r = detect("was-wt");
	CHECK_STR(r, "unknown");
	free(r);
	CHECK_INT(cache_rows(), before - 1);
}

static void
branches_of_a_non_repo_are_unknown(void)
{
	char	*dir = at("loose"), **br;
	size_t	 n;

	repo_branches(dir, &rc.cache, &br, &n);
	CHECK_INT(n, 0);
	repo_branches_free(br, n);
	free(dir);
}

static void
teardown(void)
{
	char	*cmd = xasprintf("rm -rf '%s'", top);

	store_close(st);
	if (system(cmd) != 0)
		CHECK_FAIL("cannot remove %s", top);
	free(cmd);
}

CHECK_MAIN(
	TEST(setup),
	TEST(remote_urls_parse_as_the_spec_lists),
	TEST(origin_remote_names_the_store),
	TEST(no_remote_uses_the_main_checkout_name),
	TEST(outside_git_uses_the_directory_name),
	TEST(deleted_worktree_is_recovered_from_the_cache),
	TEST(deleted_directories_walk_up),
	TEST(cache_rows_are_kept_or_evicted_as_the_table_says),
	TEST(not_a_repo_anymore_evicts),
	TEST(branches_of_a_non_repo_are_unknown),
	TEST(teardown)
)
