/* sync_state.h — thatch's own sync tables: bases, auto, private (sync_state.c). */
#ifndef THATCH_CORE_SYNC_STATE_H
#define THATCH_CORE_SYNC_STATE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/sync/sync_merge.h"

struct err;
struct store;

/* Create thatch_sync and thatch_sync_private if missing. */
int	sync_state_setup(struct store *, struct err *);

/* The remote commit last merged for (store, remote), "" when none. */
int	sync_state_base(struct store *, const char *store, const char *remote,
	    char base[SYNC_OID_LEN + 1], struct err *);
int	sync_state_set_base(struct store *, const char *store,
	    const char *remote, const char *base, struct err *);

/* The private slugs of store, sorted by strcmp: a new array of new
 * strings; free with sync_state_free_list. */
int	sync_state_privates(struct store *, const char *store, char ***out,
	    size_t *n, struct err *);
void	sync_state_free_list(char **, size_t);

#endif
