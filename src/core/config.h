/* config.h — the user's config.json beside the database (config.c). */
#ifndef THATCH_CORE_CONFIG_H
#define THATCH_CORE_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

struct err;
struct sbuf;

/*
 * config.json (store-and-tools §4.13) holds sections of optional
 * fields: notifications {mode, voice, sound}, strings, NULL when unset;
 * chat and recall below. Environment variables never override it (§4.14).
 */
struct config_notifications {
	char	*mode;		/* owned; "both", "banner", "voice", "none" */
	char	*voice;		/* owned */
	char	*sound;		/* owned */
};

/*
 * chat {enabled} and recall {limit, cut, budget} (issue 27) hold a
 * boolean and integers. Zero and false-with-set-false are unset: the
 * built-in behaviour (chat tools not offered over MCP; recall's limit
 * 10, cut 1,500 bytes and budget 4,000).
 */
struct config_chat {
	bool	set, enabled;
};

struct config_recall {
	int	limit;		/* CONFIG_RECALL_LIMIT_MIN..MAX, or 0 */
	int	cut;		/* CONFIG_RECALL_CUT_MIN..MAX bytes, or 0 */
	int	budget;		/* CONFIG_RECALL_BUDGET_MIN..MAX bytes, or 0 */
};

#define CONFIG_RECALL_LIMIT_MIN	1
#define CONFIG_RECALL_LIMIT_MAX	20
#define CONFIG_RECALL_CUT_MIN	200
#define CONFIG_RECALL_CUT_MAX	16000
#define CONFIG_RECALL_BUDGET_MIN	1000
#define CONFIG_RECALL_BUDGET_MAX	16000

struct config {
	struct config_notifications	notifications;
	struct config_chat		chat;
	struct config_recall		recall;
};

/* The recall section's field i in file order: its name, and its value in
 * r into *value (0: unset); NULL past the last. */
const char *config_recall_field(const struct config_recall *r, size_t i,
	    int *value);

/* The modes of notifications.mode, NULL-terminated. */
extern const char *const config_modes[];

/* The field names of a section in file order, NULL-terminated, and the
 * field's slot in c; for the tools that print and merge them. */
extern const char *const config_notification_fields[];
char	**config_field(struct config *c, const char *field);

/* The platform default of a notifications field (§4.13: macOS has a voice
 * and a sound; every platform's mode is "both"), or NULL. Static. */
const char *config_default(const char *platform, const char *field);

void	config_init(struct config *);
void	config_release(struct config *);

/*
 * Load path into c (initialised here). A missing file is the empty
 * config. A file that cannot be read or is invalid (not JSON, not an
 * object, an unknown section or key anywhere, a value of the wrong type or
 * out of its range, a mode outside config_modes) is ignored: c is empty and the
 * reason, naming path, is appended to warning. Never fails otherwise.
 */
void	config_load(const char *path, struct config *c, struct sbuf *warning);

/*
 * Apply fields to the file at path under an exclusive lock on
 * <path>.lock, so that concurrent writers (two MCP servers) neither tear
 * the file nor lose each other's fields: load (an invalid file counts as
 * empty and is replaced), set each (field, value) pair of the
 * NULL-terminated list of pairs into section notifications, write
 * atomically through fileio_rewrite (new files 0600; two-space JSON with
 * a trailing newline).
 * The resulting config is left in c. Returns 0, or -1 with err set and
 * the file untouched.
 */
int	config_update(const char *path, const char *const *fields,
	    struct config *c, struct err *);

#endif
