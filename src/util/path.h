/* path.h — where thatch's files live, computed once per process (path.c). */
#ifndef THATCH_UTIL_PATH_H
#define THATCH_UTIL_PATH_H

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
	char	*project_dir;	/* PROJECT_DIR */
	char	*claude_dir;	/* CLAUDE_DIR */
	char	*cursor_dir;	/* CURSOR_DIR */
};

/* Fill p from the environment and the working directory. Empty variables
 * count as unset (XDG rules; a deviation from the original, §0.4). */
void	 paths_init(struct paths *);
void	 paths_release(struct paths *);

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

/* An environment value, or NULL when unset or empty. */
const char *path_env(const char *);

#endif
