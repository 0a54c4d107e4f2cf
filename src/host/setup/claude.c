/*
 * claude.c — Claude Code's setup artifacts.
 *
 * Hooks go into settings.json as arrays of matcher groups, the shape
 * Claude Code 2.x validates (host-contracts §1.2, C1), each with a 30 s
 * timeout (C11):
 *   SessionStart     -> <SELF> reminder
 *   PostToolBatch    -> <SELF> buffer-batch
 *   UserPromptSubmit -> <SELF> flush-tools
 *  1. A hook is thatch's when its command contains "thatch" (§3.6). Only
 *     those entries are removed (deviation §10.6: the original dropped
 *     whole groups); a group left empty by that goes too.
 *  2. Other events, other groups, groups without a hooks array and
 *     entries without a command are kept as they are, in order; thatch's
 *     group is appended last.
 *  3. An event whose value is an object is wrapped into a one-element
 *     array (C1); any other non-array value is replaced, after the whole
 *     file was saved as <file>.bak.
 */
#include "host/setup/claude.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/setup/setup.h"
#include "host/setup/setup_check.h"
#include "host/setup/setup_undo.h"
#include "text/block.h"
#include "tools/tool.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/jsonx.h"
#include "util/path.h"
#include "util/sbuf.h"
#include "util/xmalloc.h"

static const char *const	claude_events[][2] = {
	{ "SessionStart", "reminder" },
	{ "PostToolBatch", "buffer-batch" },
	{ "UserPromptSubmit", "flush-tools" },
};

static const struct text_block_host	claude_block = {
	TEXT_BLOCK_START_CLAUDE, "Claude Code", "CLAUDE.md", "mcp__thatch__"
};

static bool
is_thatch(const json_t *hook)
{
	const char	*cmd = jsonx_str(hook, "command");

	return cmd != NULL && strstr(cmd, "thatch") != NULL;
}

/* Invariant 1: a group without its thatch entries, or NULL when empty. */
static json_t *
strip_group(json_t *group)
{
	json_t	*hooks = json_object_get(group, "hooks"), *keep, *h;
	size_t	 i;
	bool	 had = false;

	if (!json_is_array(hooks))
		return json_incref(group);
	keep = json_array();
	json_array_foreach(hooks, i, h) {
		if (is_thatch(h))
			had = true;
		else
			json_array_append(keep, h);
	}
	if (had && json_array_size(keep) == 0) {
		json_decref(keep);
		return NULL;
	}
	group = json_deep_copy(group);
	json_object_set_new(group, "hooks", keep);
	return group;
}

/*
 * Returns false when the file must be backed up first (invariant 3). With
 * cmd NULL (setup --remove) thatch's entries only go, and so does an event
 * they alone made up.
 */
static bool
merge_event(json_t *all, const char *event, const char *cmd)
{
	json_t	*old = json_object_get(all, event), *groups, *g, *kept;
	size_t	 i;
	bool	 clean = true;

	if (cmd == NULL && !json_is_array(old) && !json_is_object(old))
		return true;	/* nothing setup could have written */
	groups = json_array();
	if (json_is_object(old))
		old = json_pack("[O]", old);
	else if (json_is_array(old))
		json_incref(old);
	else {
		clean = old == NULL;
		old = json_array();
	}
	json_array_foreach(old, i, g)
		if ((kept = strip_group(g)) != NULL)
			json_array_append_new(groups, kept);
	if (cmd != NULL)
		json_array_append_new(groups, json_pack("{s:[{s:s, s:s, s:i}]}",
		    "hooks", "type", "command", "command", cmd, "timeout",
		    SETUP_HOOK_TIMEOUT));
	if (cmd == NULL && json_equal(groups, old))
		json_decref(groups);	/* none of thatch's: as it is */
	else if (cmd == NULL && json_array_size(groups) == 0) {
		json_decref(groups);
		json_object_del(all, event);
	} else
		json_object_set_new(all, event, groups);
	json_decref(old);
	return clean;
}

/* host-contracts C5: a project .mcp.json server waits for approval. */
static int
approve_server(const struct setup_opts *o, const char *path,
    struct err *err)
{
	json_t	*cfg, *list, *v;
	size_t	 i;
	int	 rc;

	if ((cfg = setup_json_load(path, err)) == NULL)
		return -1;
	list = json_object_get(cfg, "enabledMcpjsonServers");
	if (!json_is_array(list)) {
		list = json_array();
		json_object_set_new(cfg, "enabledMcpjsonServers", list);
	}
	json_array_foreach(list, i, v)
		if (json_is_string(v) && strcmp(json_string_value(v),
		    "thatch") == 0)
			break;
	if (i == json_array_size(list))
		json_array_append_new(list, json_string("thatch"));
	rc = setup_json_save(o, path, cfg, err);
	json_decref(cfg);
	return rc;
}

/* Strip "thatch" from enabledMcpjsonServers (the list too, if emptied). */
static void
strip_approval(json_t *cfg, void *arg)
{
	json_t	*list = json_object_get(cfg, "enabledMcpjsonServers"), *v;
	size_t	 i;

	(void)arg;
	for (i = 0; json_is_array(list) && i < json_array_size(list); ) {
		v = json_array_get(list, i);
		if (json_is_string(v) && strcmp(json_string_value(v),
		    "thatch") == 0)
			json_array_remove(list, i);
		else
			i++;
	}
	if (json_is_array(list) && json_array_size(list) == 0)
		json_object_del(cfg, "enabledMcpjsonServers");
}

void
claude_paths(const struct setup_opts *o, struct setup_report *r)
{
	const char	*base = o->global ? o->paths->claude_dir :
			    o->paths->project_dir;
	char		*dot = o->global ? xstrdup(base) :
			    path_join(base, ".claude");

	memset(r, 0, sizeof(*r));
	r->instructions = path_join(base, "CLAUDE.md");
	r->hooks = path_join(dot, "settings.json");
	r->skills_dir = path_join(dot, "skills");
	r->commands_dir = path_join(dot, "commands/thatch");
	if (!o->global) {
		r->mcp_config = path_join(base, ".mcp.json");
		r->approval = path_join(dot, "settings.local.json");
	}
	free(dot);
}

int
claude_install(const struct setup_opts *o, struct setup_report *r,
    struct err *err)
{
	claude_paths(o, r);
	if (setup_preflight(r, err) != 0)
		return -1;
	if (r->mcp_config != NULL &&
	    setup_mcp_entry(o, r->mcp_config, err) != 0)
		return -1;
	if (setup_instructions(o, r->instructions, &claude_block, &r->broken,
	    err) != 0 ||
	    setup_hooks(o, r->hooks, claude_events, sizeof(claude_events) /
	    sizeof(claude_events[0]), false, merge_event, err) != 0 ||
	    setup_skills(r->skills_dir, &r->skills_written,
	    &r->skills_unchanged, err) != 0 ||
	    setup_commands(r->commands_dir, TEXT_HOST_CLAUDE,
	    &r->commands_written, &r->commands_unchanged, err) != 0)
		return -1;
	return r->approval != NULL ? approve_server(o, r->approval, err) : 0;
}

int
claude_remove(const struct setup_opts *o, struct setup_report *r,
    struct err *err)
{
	char	*dot;
	int	 rc;

	claude_paths(o, r);
	if (setup_preflight(r, err) != 0)
		return -1;
	if ((r->mcp_config != NULL && setup_undo_mcp(o, r->mcp_config,
	    &r->undo_mcp, err) != 0) ||
	    setup_undo_block(o, r->instructions, claude_block.start,
	    TEXT_BLOCK_END, &r->undo_instructions, err) != 0 ||
	    setup_undo_hooks(o, r->hooks, claude_events, sizeof(claude_events) /
	    sizeof(claude_events[0]), false, merge_event, &r->undo_hooks,
	    err) != 0 ||
	    setup_undo_skills(r->skills_dir, false, &r->skills_removed,
	    err) != 0 ||
	    setup_undo_commands(r->commands_dir, &r->commands_removed,
	    err) != 0)
		return -1;
	rc = r->approval != NULL ? setup_undo_json(o, r->approval,
	    strip_approval, NULL, &r->undo_approval, err) : 0;
	dot = path_dirname(r->hooks);
	setup_undo_prune(dot);
	free(dot);
	return rc;
}

void
claude_check(const struct setup_opts *o, struct setup_check *c)
{
	struct setup_report	 r;
	char			*user, *self;
	bool			 rest;
	int			 found;

	claude_paths(o, &r);
	setup_check_block(c, r.instructions, claude_block.start,
	    TEXT_BLOCK_END);
	setup_check_hooks(c, r.hooks, claude_events, sizeof(claude_events) /
	    sizeof(claude_events[0]), true);
	if (r.mcp_config != NULL)
		setup_check_mcp(c, r.mcp_config);
	else {
		/* `claude mcp add --scope user` keeps it in .claude.json */
		user = path_join(path_env("CLAUDE_CONFIG_DIR") != NULL ?
		    o->paths->claude_dir : o->paths->home, ".claude.json");
		found = c->found;
		rest = found == c->expected && c->problems.len == 0;
		setup_check_mcp(c, user);
		if (c->found == found && (self = setup_self(NULL)) != NULL) {
			c->fix = xasprintf("run %s`claude mcp add --scope user "
			    "thatch -- %s mcp`", rest ? "" : "`thatch setup "
			    "--claude --global` and ", self);
			free(self);
		}
		free(user);
	}
	setup_report_release(&r);
}
