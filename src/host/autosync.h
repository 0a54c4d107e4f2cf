/* autosync.h — the MCP server's background `thatch sync` (autosync.c). */
#ifndef THATCH_HOST_AUTOSYNC_H
#define THATCH_HOST_AUTOSYNC_H

struct mcp_server;
struct paths;

/* One server's background sync. Opaque. */
struct autosync;

/*
 * Sync store with remote in the background of srv (docs/sync.md
 * "Automatic sync"): once now (the pull at start), then after every
 * write the server makes, one child at a time; a write during a run
 * queues one more. paths (DB_DIR/sync.log gets the children's lines) is
 * borrowed for the life of the result. Never fails: a child that cannot
 * start is logged and retried at the next write.
 */
struct autosync *autosync_start(struct mcp_server *srv,
	    const struct paths *paths, const char *store, const char *remote);

/*
 * Stop watching; a write still queued starts its child now, which
 * outlives the server. Accepts NULL.
 */
void	autosync_free(struct autosync *);

#endif
