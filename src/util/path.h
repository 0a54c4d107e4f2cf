/* path.h — where thatch's files live, computed once per process (path.c). */
#ifndef THATCH_UTIL_PATH_H
#define THATCH_UTIL_PATH_H

#include <stdbool.h>

struct err;

/*
 * Every location of hosts-hooks-cli §0.4, resolved from the environment by
 * one function so that every process (CLI, hook, MCP server) derives the
 * same strings; the sideband socket path depends on db_path being
 * byte-identical everywhere. All fields are owned.
 */
struct paths {
	char	*home;		/* HOME_DIR */
	char	*config_home;	/* CONFIG_HOME */
	char	*db_path;	/* DB_PATH (THATCH_DB_PATH verbatim) */
	char	*db_dir;	/* DB_DIR */
	char	*cache_home;	/* CACHE_HOME */
	char	*queue_dir;	/* QUEUE_DIR */
	char	*tmp_dir;	/* TMP_DIR */
	char	*runtime_dir;	/* $XDG_RUNTIME_DIR, or NULL when unset */
	char	*project_dir;	/* PROJECT_DIR */
	char	*claude_dir;	/* CLAUDE_DIR */
	char	*cursor_dir;	/* CURSOR_DIR */
};

/* Fill p from the environment and the working directory. Empty variables
 * count as unset (XDG rules; a deviation from the original, §0.4). */
void	 paths_init(struct paths *);
void	 paths_release(struct paths *);

/*
 * A host's word on where its session stands (a hook's stdin "cwd"):
 * it becomes p->project_dir when no environment variable named the
 * project, dir is absolute, and dir no longer exists (a removed worktree,
 * which only the repo_paths cache can name; the host may have started
 * this process elsewhere). An existing dir changes nothing: the process's
 * own directory keeps its say. dir may be NULL.
 */
void	 paths_host_cwd(struct paths *, const char *dir);

/* Node's path.join: join with '/', collapse '//', drop '.', resolve '..'
 * lexically, drop a trailing '/'. Either argument may be "". New string. */
char	*path_join(const char *, const char *);

/* The directory part of p ("." when there is none). New string. */
char	*path_dirname(const char *);

/* The last segment of p, ignoring trailing slashes (borrowed from p, up to
 * the first trailing slash; returns a new string). */
char	*path_basename(const char *);

/* mkdir -p with the given mode for created directories. */
int	 path_mkdir_p(const char *, unsigned int mode, struct err *);

/*
 * A directory only the effective user can enter, for the sideband's
 * sockets (hosts-hooks-cli §6.2): p->runtime_dir when it passes the check,
 * else <tmp_dir>/thatch-<euid>, made 0700 first when create is set. The
 * check is lstat's, so a symlink fails it: a directory, owned by geteuid(),
 * with every owner bit and no group or other bit. Returns a new string, or
 * NULL with err set when the fallback is missing (and not created) or
 * fails the check: someone else made it, or it was loosened.
 */
char	*path_private_dir(const struct paths *, bool create, struct err *);

/* An environment value, or NULL when unset or empty. */
const char *path_env(const char *);

#endif
