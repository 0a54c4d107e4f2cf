/*
 * opencode_setup.c — what `thatch setup --opencode [--global]` writes:
 * the plugin entry in opencode.json and the skills (docs/opencode.md
 * "Setup"; hosts-hooks-cli §8.2, §9.6; host-contracts §3).
 *
 * Invariants:
 *  1. Only thatch's entries change: the plugin entries that name thatch's
 *     module (or the original's npm package) are replaced by one, and an
 *     old mcp.thatch server is removed (the plugin registers the same
 *     thatch_<tool> names; opencode must not see them twice,
 *     host-contracts C15). Every other key and plugin stays, in order.
 *  2. JSONC (comments, trailing commas) is never rewritten: comments
 *     would be lost, so the install stops with the line to add by hand and
 *     the file is left as it was. Text that is not even JSONC is kept as
 *     .bak and replaced (§3.7).
 *  3. Nothing goes under the project's .opencode/ (host-contracts §3.3).
 *  4. Writes go through setup.c's writers: atomic, skipped when the bytes
 *     would not change, so a re-run touches nothing.
 */
#include "host/setup/opencode_setup.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/setup/setup.h"
#include "host/setup/setup_check.h"
#include "host/setup/setup_undo.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/jsonx.h"
#include "util/os/plat.h"
#include "util/path.h"
#include "util/sbuf.h"
#include "util/xmalloc.h"

/* The $schema a config thatch creates starts with. */
#define OPENCODE_SCHEMA	"https://opencode.ai/config.json"

void
opencode_report_release(struct opencode_report *r)
{
	free(r->config);
	free(r->plugin);
	free(r->skills_dir);
	free(r->commands_dir);
	memset(r, 0, sizeof(*r));
}

/* This executable, resolved: the plugin module is found beside it. */
static char *
self_exe(struct err *err)
{
	char	*exe = plat_exe_path();

	if (exe == NULL)
		err_errno(err, "cannot find the thatch executable");
	return exe;
}

/*
 * The installed module: PREFIX/share/thatch/thatch.js beside PREFIX/bin,
 * else share/opencode/thatch.js of a source tree whose ./thatch runs.
 */
static char *
plugin_module(const char *exe, struct err *err)
{
	static const char *const	rel[] = {
		"../share/thatch/" OPENCODE_PLUGIN_FILE,
		"share/opencode/" OPENCODE_PLUGIN_FILE,
	};
	char				*dir = path_dirname(exe), *p, *r;
	size_t				 i;

	for (i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		p = path_join(dir, rel[i]);
		r = realpath(p, NULL);
		free(p);
		if (r != NULL) {
			free(dir);
			return r;
		}
	}
	err_set(err, "cannot find the opencode plugin %s beside %s (in "
	    "../share/thatch/); run `make install`", OPENCODE_PLUGIN_FILE,
	    exe);
	free(dir);
	return NULL;
}

/* A file:// URL of an absolute path, bytes outside [A-Za-z0-9/._~-] escaped. */
static char *
file_url(const char *path)
{
	struct sbuf	 sb = SBUF_INIT;
	const char	*p;

	sbuf_init(&sb);
	sbuf_adds(&sb, "file://");
	for (p = path; *p != '\0'; p++) {
		if (strchr("/._~-", *p) != NULL || (*p >= 'a' && *p <= 'z') ||
		    (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9'))
			sbuf_addc(&sb, *p);
		else
			sbuf_addf(&sb, "%%%02X", (unsigned char)*p);
	}
	return sbuf_detach(&sb, NULL);
}

/*
 * JSONC to JSON: comments become spaces and a comma before '}' or ']' is
 * dropped, strings untouched. Whether the result parses tells JSONC from
 * text that is not even that.
 */
static void
jsonc_strip(const char *s, size_t n, struct sbuf *out)
{
	size_t	i, j;

	for (i = 0; i < n; i++) {
		if (s[i] == '"') {
			for (j = i + 1; j < n && s[j] != '"'; j++)
				if (s[j] == '\\')
					j++;
			sbuf_add(out, s + i, (j < n ? j + 1 : n) - i);
			i = j;
		} else if (s[i] == '/' && i + 1 < n && s[i + 1] == '/') {
			while (i < n && s[i] != '\n')
				i++;
			sbuf_addc(out, '\n');
		} else if (s[i] == '/' && i + 1 < n && s[i + 1] == '*') {
			for (i += 2; i + 1 < n && !(s[i] == '*' &&
			    s[i + 1] == '/'); i++)
				;
			i++;
			sbuf_addc(out, ' ');
		} else if (s[i] == ',') {
			for (j = i + 1; j < n && strchr(" \t\r\n", s[j]); j++)
				;
			if (j >= n || (s[j] != '}' && s[j] != ']'))
				sbuf_addc(out, ',');
		} else
			sbuf_addc(out, s[i]);
	}
}

/* The config to merge (invariant 2). Returns a new object or NULL. */
static json_t *
load_config(const char *path, const char *entry, struct err *err)
{
	struct sbuf	 sb = SBUF_INIT, plain = SBUF_INIT;
	json_t		*v = NULL, *loose;
	int		 rc;

	sbuf_init(&sb);
	sbuf_init(&plain);
	if ((rc = fileio_read(path, &sb, err)) < 0)
		goto out;
	if (rc == 1) {
		v = json_pack("{s:s}", "$schema", OPENCODE_SCHEMA);
		goto out;
	}
	if ((v = json_loadb(sb.buf, sb.len, JSON_DECODE_ANY, NULL)) != NULL &&
	    json_is_object(v))
		goto out;
	json_decref(v);
	v = NULL;
	jsonc_strip(sb.buf, sb.len, &plain);
	loose = json_loadb(plain.buf, plain.len, JSON_DECODE_ANY, NULL);
	if (json_is_object(loose)) {
		err_set(err, "%s has comments, which thatch would lose if it "
		    "rewrote the file; it was left as it was. Add this entry "
		    "to its \"plugin\" array by hand:\n  %s", path, entry);
		json_decref(loose);
		goto out;
	}
	json_decref(loose);
	if (setup_backup(path, err) == 0)
		v = json_object();
out:
	sbuf_release(&plain);
	sbuf_release(&sb);
	return v;
}

/* Invariant 1: is this plugin entry thatch's? */
static bool
ours(const json_t *e)
{
	const char	*s = json_is_array(e) ? json_string_value(
			    json_array_get(e, 0)) : json_string_value(e);
	size_t		 n, k = strlen("/" OPENCODE_PLUGIN_FILE);

	if (s == NULL)
		return false;
	n = strlen(s);
	if (strncmp(s, "@jeffober/thatch", 16) == 0 && (s[16] == '\0' ||
	    s[16] == '@'))
		return true;
	return strncmp(s, "file://", 7) == 0 && n > k &&
	    strcmp(s + n - k, "/" OPENCODE_PLUGIN_FILE) == 0 &&
	    strstr(s, "thatch") != NULL;
}

/* opencode.json, or an existing opencode.jsonc when there is no .json. */
static char *
config_path(const char *dir)
{
	char	*json = path_join(dir, "opencode.json");
	char	*jsonc = path_join(dir, "opencode.jsonc");

	if (!fileio_exists(json) && fileio_exists(jsonc)) {
		free(json);
		return jsonc;
	}
	free(jsonc);
	return json;
}

int
opencode_install(const struct setup_opts *o, struct opencode_report *r,
    struct err *err)
{
	json_t	*cfg = NULL, *plugins, *entry, *mcp, *kept;
	char	*exe, *dir, *url = NULL, *line = NULL;
	size_t	 i;
	int	 rc = -1;

	memset(r, 0, sizeof(*r));
	if ((exe = self_exe(err)) == NULL)
		return -1;
	if ((r->plugin = plugin_module(exe, err)) == NULL)
		goto out;
	url = file_url(r->plugin);
	/* the program beside the module, not PATH's: the two must match */
	entry = json_pack("[s,{s:s}]", url, "thatch", exe);
	line = jsonx_dump(entry, 0);
	dir = o->global ? path_join(o->paths->config_home, "opencode") :
	    xstrdup(o->paths->project_dir);
	r->config = config_path(dir);
	free(dir);
	if ((cfg = load_config(r->config, line, err)) == NULL) {
		json_decref(entry);
		goto out;
	}
	plugins = json_object_get(cfg, "plugin");
	kept = json_array();
	for (i = 0; json_is_array(plugins) && i < json_array_size(plugins);
	    i++)
		if (!ours(json_array_get(plugins, i)))
			json_array_append(kept, json_array_get(plugins, i));
	json_array_append_new(kept, entry);
	json_object_set_new(cfg, "plugin", kept);
	mcp = json_object_get(cfg, "mcp");
	if (json_is_object(mcp) && json_object_get(mcp, "thatch") != NULL) {
		json_object_del(mcp, "thatch");
		r->dropped_mcp = true;
	}
	dir = path_dirname(r->config);
	if (path_mkdir_p(dir, 0755, err) != 0 ||
	    setup_json_save(o, r->config, cfg, err) != 0) {
		free(dir);
		goto out;
	}
	free(dir);
	r->skills_dir = path_join(o->paths->config_home, "opencode/skills");
	if (setup_skills_for(r->skills_dir, true, &r->skills_written,
	    &r->skills_unchanged, err) != 0)
		goto out;
	r->commands_dir = path_join(o->paths->config_home,
	    "opencode/command/thatch");
	rc = setup_commands(r->commands_dir, TEXT_HOST_OPENCODE,
	    &r->commands_written, &r->commands_unchanged, err);
out:
	json_decref(cfg);
	free(line);
	free(url);
	free(exe);
	return rc;
}

/* Strip thatch's plugin entries (invariant 1), and what setup made. */
static void
strip_plugin(json_t *cfg, void *arg)
{
	json_t		*plugins = json_object_get(cfg, "plugin");
	const char	*schema;
	size_t		 i;

	(void)arg;
	for (i = 0; json_is_array(plugins) && i < json_array_size(plugins); )
		if (ours(json_array_get(plugins, i)))
			json_array_remove(plugins, i);
		else
			i++;
	if (json_is_array(plugins) && json_array_size(plugins) == 0)
		json_object_del(cfg, "plugin");
	schema = jsonx_str(cfg, "$schema");
	if (json_object_size(cfg) == 1 && schema != NULL &&
	    strcmp(schema, OPENCODE_SCHEMA) == 0)
		json_object_del(cfg, "$schema");  /* load_config's */
}

/* A JSONC config (invariant 2) that still names thatch: edit by hand. */
static int
refuse_jsonc(const char *path, struct err *err)
{
	struct sbuf	 sb = SBUF_INIT, plain = SBUF_INIT;
	json_t		*v = NULL, *plugins;
	size_t		 i;
	int		 rc = 0;

	sbuf_init(&sb);
	sbuf_init(&plain);
	if (fileio_read(path, &sb, NULL) == 0 && (v = json_loadb(sb.buf,
	    sb.len, JSON_DECODE_ANY, NULL)) == NULL) {
		jsonc_strip(sb.buf, sb.len, &plain);
		v = json_loadb(plain.buf, plain.len, JSON_DECODE_ANY, NULL);
		plugins = json_object_get(v, "plugin");
		for (i = 0; json_is_array(plugins) &&
		    i < json_array_size(plugins); i++)
			if (ours(json_array_get(plugins, i)))
				rc = err_set(err, "%s has comments, which "
				    "thatch would lose if it rewrote the file; "
				    "remove thatch's entry from its \"plugin\" "
				    "array by hand", path);
	}
	json_decref(v);
	sbuf_release(&plain);
	sbuf_release(&sb);
	return rc;
}

/*
 * Whether the other scope's opencode.json (global when o is the project,
 * the project when o is global) still has thatch's plugin: the skills and
 * commands are shared by both, so removing one scope keeps them for the
 * other instead of leaving it without them until its next start.
 */
static bool
other_scope_uses_thatch(const struct setup_opts *o)
{
	struct setup_opts	other = *o;
	struct setup_check	c;
	bool			used;

	other.global = !o->global;
	setup_check_init(&c);
	opencode_check(&other, &c);
	used = c.found > 0;
	setup_check_release(&c);
	return used;
}

int
opencode_remove(const struct setup_opts *o, struct opencode_report *r,
    struct err *err)
{
	char	*dir;
	int	 rc;

	memset(r, 0, sizeof(*r));
	dir = o->global ? path_join(o->paths->config_home, "opencode") :
	    xstrdup(o->paths->project_dir);
	r->config = config_path(dir);
	free(dir);
	r->skills_dir = path_join(o->paths->config_home, "opencode/skills");
	r->commands_dir = path_join(o->paths->config_home,
	    "opencode/command/thatch");
	if ((dir = fileio_resolve(r->config, err)) == NULL)
		return -1;
	free(dir);
	r->shared_kept = other_scope_uses_thatch(o);
	if (setup_undo_json(o, r->config, strip_plugin, NULL, &r->undo_config,
	    err) != 0 ||
	    (!r->shared_kept && (setup_undo_skills(r->skills_dir, true,
	    &r->skills_removed, err) != 0 ||
	    setup_undo_commands(r->commands_dir, &r->commands_removed,
	    err) != 0)))
		return -1;
	rc = refuse_jsonc(r->config, err);
	dir = path_join(o->paths->config_home, "opencode");
	setup_undo_prune(dir);
	free(dir);
	return rc;
}

/* The path of a file:// URL, %XX decoded (file_url's reverse). */
static char *
url_path(const char *url)
{
	struct sbuf	 sb = SBUF_INIT;
	const char	*p;
	unsigned int	 byte;

	sbuf_init(&sb);
	for (p = url + 7; *p != '\0'; p++) {
		if (*p == '%' && sscanf(p + 1, "%2x", &byte) == 1) {
			sbuf_addc(&sb, (char)byte);
			p += 2;
		} else
			sbuf_addc(&sb, *p);
	}
	return sbuf_detach(&sb, NULL);
}

void
opencode_check(const struct setup_opts *o, struct setup_check *c)
{
	json_t		*cfg, *plugins, *e = NULL;
	const char	*url, *prog;
	char		*dir, *config, *module, what[512];
	size_t		 i;

	dir = o->global ? path_join(o->paths->config_home, "opencode") :
	    xstrdup(o->paths->project_dir);
	config = config_path(dir);
	free(dir);
	cfg = setup_check_load(config);
	plugins = json_object_get(cfg, "plugin");
	for (i = 0; json_is_array(plugins) && i < json_array_size(plugins) &&
	    e == NULL; i++)
		if (ours(json_array_get(plugins, i)))
			e = json_array_get(plugins, i);
	c->expected++;
	snprintf(what, sizeof(what), "the plugin entry in %s", config);
	url = json_is_array(e) ? json_string_value(json_array_get(e, 0)) :
	    json_string_value(e);
	if (e == NULL)
		setup_check_problem(c, "no thatch plugin entry in %s", config);
	else if (strncmp(url, "file://", 7) == 0) {
		c->found++;
		module = url_path(url);
		if (!fileio_exists(module))
			setup_check_problem(c, "%s names %s, which does not "
			    "exist", what, module);
		free(module);
		prog = jsonx_str(json_array_get(e, 1), "thatch");
		if (prog != NULL)
			setup_check_program(c, prog, false, what);
	} else
		c->found++;	/* the original's npm package */
	json_decref(cfg);
	free(config);
}
