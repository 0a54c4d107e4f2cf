/* setup_undo.h — `setup --remove`: setup.c's writers reversed (setup_undo.c). */
#ifndef THATCH_HOST_SETUP_UNDO_H
#define THATCH_HOST_SETUP_UNDO_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "host/setup/setup.h"

struct err;

/*
 * Take thatch's part out of the JSON config at path: strip(cfg, arg)
 * removes it, and deletes any container it emptied. Nothing happens (NONE)
 * when the file is missing, does not parse (nothing thatch wrote would be
 * in it), or strip changes nothing. A config left with no key at all is
 * deleted (DELETED) — unless path is a symbolic link, which the user made
 * and which keeps pointing at "{}", or setup kept its bytes from before
 * (it existed) — else written back (EDITED) through fileio_rewrite like
 * every setup write: the kept bytes when what is left means the same,
 * else what is left.
 */
int	setup_undo_json(const struct setup_opts *, const char *path,
	    void (*strip)(json_t *, void *), void *arg, enum setup_undo *,
	    struct err *);

/* setup_undo_json of mcpServers.thatch (and mcpServers, left empty). */
int	setup_undo_mcp(const struct setup_opts *, const char *path,
	    enum setup_undo *, struct err *);

/*
 * setup_hooks in reverse: merge(hooks, event, NULL) must strip thatch's
 * entries of event and drop the event when that emptied it; "hooks" goes
 * when it is left empty, and with versioned a lone "version" too (Cursor's
 * file, which setup may have created for it).
 */
int	setup_undo_hooks(const struct setup_opts *, const char *path,
	    const char *const (*events)[2],
	    size_t n, bool versioned,
	    bool (*merge)(json_t *hooks, const char *event, const char *cmd),
	    enum setup_undo *, struct err *);

/*
 * setup_block in reverse: remove the block (start marker to end marker)
 * with the newline after it and the blank line setup_block put before it,
 * so the user's text is what it was. A file left with nothing but white
 * space is deleted (a regular file only: a link's target is emptied).
 * Start without end: *u = BROKEN, nothing written.
 */
int	setup_undo_block(const struct setup_opts *, const char *path,
	    const char *start, const char *end, enum setup_undo *u,
	    struct err *);

/*
 * setup_skills_for in reverse: every thatch-* skill in dir goes (a
 * shipped one's SKILL.md and then its folder if nothing else is in it; an
 * older one as setup's stale cleanup removes it), and dir itself when it
 * is left empty. Other skills are never touched. *removed counts them.
 */
int	setup_undo_skills(const char *dir, bool opencode, int *removed,
	    struct err *);

/*
 * setup_commands in reverse: every *.md of dir (thatch's own folder, file
 * or link) goes, then dir and its parent when they are left empty.
 */
int	setup_undo_commands(const char *dir, int *removed, struct err *);

/* After a removal: the folder of kept originals goes when empty. */
void	setup_undo_done(const struct setup_opts *);

/* rmdir(dir) if it is empty; anything else leaves it (and is no error). */
void	setup_undo_prune(const char *dir);

#endif
