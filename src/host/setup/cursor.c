/*
 * cursor.c — Cursor's setup artifacts.
 *
 * hooks.json is flat: each event maps to an array of {command} entries
 * (host-contracts §2.1), each with a 30 s timeout (C11):
 *   sessionStart        -> <SELF> reminder --json
 *   postToolUse         -> <SELF> buffer-tool
 *   postToolUseFailure  -> <SELF> buffer-tool   (C7: failed calls too)
 *   beforeSubmitPrompt  -> <SELF> flush-tools --json
 * beforeSubmitPrompt cannot add context, so flush-tools leaves its nudge
 * for buffer-tool to deliver on the next postToolUse (C2).
 *  1. An entry is thatch's when its command contains "thatch" (§3.6);
 *     those are replaced by one entry appended last, everything else keeps
 *     its place. A non-array event value is replaced after the file was
 *     saved as hooks.json.bak.
 *  2. version is set to 1 only when missing or falsy; other keys stay.
 */
#include "host/setup/cursor.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "host/setup/setup.h"
#include "host/setup/setup_check.h"
#include "host/setup/setup_undo.h"
#include "text/block.h"
#include "util/err.h"
#include "util/jsonx.h"
#include "util/path.h"
#include "util/xmalloc.h"

static const char *const	cursor_events[][2] = {
	{ "sessionStart", "reminder --json" },
	{ "postToolUse", "buffer-tool" },
	{ "postToolUseFailure", "buffer-tool" },
	{ "beforeSubmitPrompt", "flush-tools --json" },
};

static const struct text_block_host	cursor_block = {
	TEXT_BLOCK_START_CURSOR, "Cursor", "AGENTS.md", ""
};

/*
 * Returns false when the old value had to be dropped (invariant 1). With
 * cmd NULL (setup --remove) thatch's entries only go, and so does an event
 * they alone made up.
 */
static bool
merge_event(json_t *all, const char *event, const char *cmd)
{
	json_t		*old = json_object_get(all, event), *list, *e;
	const char	*c;
	size_t		 i;
	bool		 clean = old == NULL || json_is_array(old);

	if (cmd == NULL && !json_is_array(old))
		return true;	/* nothing setup could have written */
	list = json_array();
	json_array_foreach(old, i, e) {
		c = jsonx_str(e, "command");
		if (c == NULL || strstr(c, "thatch") == NULL)
			json_array_append(list, e);
	}
	if (cmd != NULL)
		json_array_append_new(list, json_pack("{s:s, s:i}", "command",
		    cmd, "timeout", SETUP_HOOK_TIMEOUT));
	if (cmd == NULL && json_array_size(list) == json_array_size(old))
		json_decref(list);	/* none of thatch's: left as it is */
	else if (cmd == NULL && json_array_size(list) == 0) {
		json_decref(list);
		json_object_del(all, event);
	} else
		json_object_set_new(all, event, list);	/* frees old */
	return clean;
}

void
cursor_paths(const struct setup_opts *o, struct setup_report *r)
{
	const char	*base = o->global ? o->paths->cursor_dir :
			    o->paths->project_dir;
	char		*dot = o->global ? xstrdup(base) :
			    path_join(base, ".cursor");

	memset(r, 0, sizeof(*r));
	r->mcp_config = path_join(dot, "mcp.json");
	r->instructions = path_join(base, "AGENTS.md");
	r->hooks = path_join(dot, "hooks.json");
	r->skills_dir = path_join(dot, "skills");
	free(dot);
}

int
cursor_install(const struct setup_opts *o, struct setup_report *r,
    struct err *err)
{
	cursor_paths(o, r);
	if (setup_preflight(r, err) != 0 ||
	    setup_mcp_entry(o, r->mcp_config, err) != 0 ||
	    setup_instructions(o, r->instructions, &cursor_block, &r->broken,
	    err) != 0 ||
	    setup_hooks(o, r->hooks, cursor_events, sizeof(cursor_events) /
	    sizeof(cursor_events[0]), true, merge_event, err) != 0)
		return -1;
	return setup_skills(r->skills_dir, &r->skills_written,
	    &r->skills_unchanged, err);
}

int
cursor_remove(const struct setup_opts *o, struct setup_report *r,
    struct err *err)
{
	char	*dot;

	cursor_paths(o, r);
	if (setup_preflight(r, err) != 0 ||
	    setup_undo_mcp(o, r->mcp_config, &r->undo_mcp, err) != 0 ||
	    setup_undo_block(o, r->instructions, cursor_block.start,
	    TEXT_BLOCK_END, &r->undo_instructions, err) != 0 ||
	    setup_undo_hooks(o, r->hooks, cursor_events, sizeof(cursor_events) /
	    sizeof(cursor_events[0]), true, merge_event, &r->undo_hooks,
	    err) != 0 ||
	    setup_undo_skills(r->skills_dir, false, &r->skills_removed,
	    err) != 0)
		return -1;
	dot = path_dirname(r->hooks);
	setup_undo_prune(dot);
	free(dot);
	return 0;
}

void
cursor_check(const struct setup_opts *o, struct setup_check *c)
{
	struct setup_report	r;

	cursor_paths(o, &r);
	setup_check_block(c, r.instructions, cursor_block.start,
	    TEXT_BLOCK_END);
	setup_check_hooks(c, r.hooks, cursor_events, sizeof(cursor_events) /
	    sizeof(cursor_events[0]), false);
	setup_check_mcp(c, r.mcp_config);
	setup_report_release(&r);
}
