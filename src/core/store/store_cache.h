/*
 * store_cache.h — the search cache's structures, shared by store_search.c
 * (which keeps the cache exact and queries it) and store_sidecar.c (which
 * saves it to the vector file and maps it back). Private to the store
 * module, like store_int.h.
 */
#ifndef THATCH_CORE_STORE_CACHE_H
#define THATCH_CORE_STORE_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "core/store/vecfile.h"

struct err;
struct store;
struct store_space;

#define ROW_ARCHIVED	VECFILE_ARCHIVED
#define ROW_SEEN	2	/* cache_refresh: still in the table */

/* How many of a store's rows of one dimension carry a model tag. */
struct mat_tag {
	char		*tag;		/* owned; NULL: SQL NULL */
	uint64_t	 count;
};

/*
 * The cached rows of one (store, dim), in ascending rowid order. A
 * borrowed matrix's arrays c, k, e, rowid, sig, flags and its branch
 * strings lie in the vector file's read-only mapping (branch, the array
 * of pointers, is owned); mat_own copies them before any change.
 */
struct store_mat {
	char			*store;		/* owned */
	int			 dim;
	size_t			 n, cap;
	signed char		*c;		/* n * dim, b ~ s * c */
	float			*k;		/* s / |b| */
	float			*e;		/* s / (2 |b|) */
	sqlite3_int64		*rowid;
	uint64_t		*sig;		/* blob_sig */
	char			**branch;	/* NULL: SQL NULL */
	unsigned char		*flags;		/* ROW_* */
	bool			 borrowed;
	bool			 pending;	/* cache_refresh it */
	size_t			 old_n, cur;	/* cache_refresh's walk */
	/* the store's rows in other spaces, exact while stats is set */
	bool			 stats;
	uint64_t		 nother;	/* NULL or another length */
	struct mat_tag		*tags;		/* owned */
	size_t			 ntags;
	struct store_mat	*next;		/* owned */
};

struct store_cache {
	sqlite3			*db;		/* borrowed; hooks set on it */
	struct store_mat	*mats;		/* owned */
	int			 data_version;
	bool			 stale;		/* unannounced own write */
	bool			 expect;	/* announced write running */
	bool			 reading;	/* in store_search's txn */
	bool			 txn_touched;	/* changed in a transaction */
	bool			 invalid;	/* which rolled back */
	bool			 warned;
	float			*scratch;	/* owned; approximate scores */
	size_t			 scratch_cap;
	/* the database's key (store_sidecar_key) read in this search's
	 * snapshot, and the one the matrices were last made exact at */
	struct vecfile_key	 txn_key, key;
	bool			 txn_key_read, txn_key_ok, key_ok;
	/* the vector file (store_sidecar.c) */
	bool			 file_tried;	/* looked for once */
	bool			 file_save;	/* save after this search */
	void			*map;		/* owned mapping, or NULL */
	size_t			 map_len;
	int			 guard;		/* mapguard of map */
};

/* Setup step (store.c): the generation table, its triggers, the list
 * index. */
int	store_sidecar_setup(struct store *, bool write, int *todo,
	    struct err *);

/* The key of the snapshot being read: 0, or 1 when this database cannot
 * have one (no or altered triggers, another byte order, no file name). */
int	store_sidecar_key(struct store *, struct vecfile_key *);

/* Borrow matrices of dim from the vector file: as they are when its key
 * is txn_key, pending a refresh when it is older; nothing when there is
 * no file, or it does not parse or is of another dimension. */
void	store_sidecar_load(struct store *, int dim);

/* Write the matrices of dim with exact stats, at key, to the vector file;
 * best effort (a read-only folder keeps searching through SQLite). */
void	store_sidecar_save(struct store *, int dim);

/*
 * The store's memories in another space than sp (store_space.c's count of
 * entries) from the cache, when its matrix of sp's dimension has exact
 * stats and nobody has written since: true and *n, or false (count with
 * SQL).
 */
bool	store_cache_other_space(struct store *, const char *store,
	    const struct store_space *sp, long long *n);

/* Drop the mapping (the matrices borrowing from it are gone). */
void	store_sidecar_unmap(struct store_cache *);

/* A new empty matrix of (store, dim), linked in; nothing reserved. */
struct store_mat *store_mat_new(struct store_cache *, const char *store,
	    int dim);
void	store_mat_free(struct store_mat *);

#endif
