/*
 * xfer_foreign.c — importers for what users already keep elsewhere: the
 * MCP memory server's knowledge graph (memory.jsonl), folders of markdown
 * notes (Basic Memory, Serena's .serena/memories, Obsidian; and thatch's
 * own markdown export) and Claude Code's memory files (CLAUDE.md,
 * MEMORY.md). docs/export.md shows what each becomes.
 *
 * Every reader turns its input into "memory" records and hands them to
 * xfer_import_record, so conflicts, store choice and embedding work as
 * for our own exports.
 *  1. Input is outside input: any bytes. A line, note or section that
 *     cannot be read (not JSON, not UTF-8, a NUL byte, a field of the
 *     wrong type) is reported with FILE:LINE and skipped; the others are
 *     still imported.
 *  2. A memory's content is "# <label>\n\n<body>", as memory_remember
 *     stores it (store-and-tools §4.3 step 2), so an imported note is
 *     recalled like one the agent wrote.
 *  3. thatch's own instruction block in CLAUDE.md (between the markers
 *     of text/block.h) is instructions, not memories, and is left out.
 *  4. A memory document goes to the import's store, under its label's
 *     slug, whatever its front matter says (issue 31), unless it sits
 *     where a markdown export puts that store's memories
 *     (DIR/<store>/<slug>.md); its dates pass the gate like any imported
 *     memory's.
 */
#include "core/xfer/xfer.h"

#include <stdlib.h>
#include <string.h>

#include "core/sync/memdoc.h"
#include "core/store/store.h"
#include "text/block.h"
#include "util/err.h"
#include "util/jsonx.h"
#include "util/path.h"
#include "util/sbuf.h"
#include "util/xmalloc.h"

/* Blank: only spaces, tabs, CR and LF. */
static bool
blank(const char *s, size_t n)
{
	for (; n > 0; s++, n--)
		if (strchr(" \t\r\n", *s) == NULL)
			return false;
	return true;
}

json_t *
xfer_memory_new(const char *store, const char *label, const char *body,
    size_t bodylen)
{
	struct sbuf	 sb = SBUF_INIT;
	json_t		*rec = NULL, *l, *c;

	/* trim blank lines around the body, keep its indentation */
	while (bodylen > 0 && (*body == '\n' || *body == '\r')) {
		body++;
		bodylen--;
	}
	while (bodylen > 0 && strchr(" \t\r\n", body[bodylen - 1]) != NULL)
		bodylen--;
	sbuf_init(&sb);
	sbuf_addf(&sb, "# %s\n\n", label);
	sbuf_add(&sb, body, bodylen);
	l = json_string(label);
	c = json_stringn(sb.buf, sb.len);
	if (l != NULL && c != NULL && memchr(sb.buf, '\0', sb.len) == NULL) {
		rec = json_object();
		json_object_set_new(rec, "type", json_string("memory"));
		json_object_set_new(rec, "store", json_string(store));
		json_object_set_new(rec, "label", json_incref(l));
		json_object_set_new(rec, "content", json_incref(c));
	}
	json_decref(l);
	json_decref(c);
	sbuf_release(&sb);
	return rec;
}

/* Import rec (NULL: the text was not UTF-8) from where. */
static int
import_memory(struct xfer_import *imp, json_t *rec, const char *where,
    struct err *err)
{
	int	rc;

	if (rec == NULL) {
		imp->failed++;
		if (imp->report != NULL)
			imp->report(imp->report_arg, where,
			    "not UTF-8 text, or holds a NUL byte");
		return 0;
	}
	rc = xfer_import_record(imp, rec, where, err);
	json_decref(rec);
	return rc;
}

static void
bad(struct xfer_import *imp, const char *name, int line, const char *why)
{
	char	where[4200];

	snprintf(where, sizeof(where), "%s:%d", name, line);
	imp->failed++;
	if (imp->report != NULL)
		imp->report(imp->report_arg, where, why);
}

/* The line [*ls, *le) of buf after *p (without "\n"); false at the end. */
static bool
line_next(const char **p, const char *end, const char **ls, const char **le)
{
	const char	*nl;

	if (*p >= end)
		return false;
	*ls = *p;
	nl = memchr(*p, '\n', (size_t)(end - *p));
	*le = nl != NULL ? nl : end;
	*p = nl != NULL ? nl + 1 : end;
	return true;
}

/* ---- the MCP memory server's knowledge graph ---------------------------- */

static bool
strings_array(const json_t *a)
{
	const json_t	*v;
	size_t		 i;

	if (!json_is_array(a))
		return false;
	json_array_foreach(a, i, v)
		if (!json_is_string(v))
			return false;
	return true;
}

/* An entity's memory: its type, observations and the relations from it. */
static json_t *
entity_memory(const char *store, const json_t *ent, const json_t *rels)
{
	struct sbuf	 body = SBUF_INIT;
	const json_t	*v;
	const char	*type = jsonx_str(ent, "entityType");
	json_t		*rec;
	size_t		 i;

	sbuf_init(&body);
	if (type != NULL && *type != '\0')
		sbuf_addf(&body, "Type: %s\n\n", type);
	if (json_array_size(json_object_get(ent, "observations")) > 0)
		sbuf_adds(&body, "## Observations\n");
	json_array_foreach(json_object_get(ent, "observations"), i, v)
		sbuf_addf(&body, "- %s\n", json_string_value(v));
	if (json_array_size(rels) > 0)
		sbuf_adds(&body, body.len > 0 ? "\n## Relations\n" :
		    "## Relations\n");
	json_array_foreach(rels, i, v)
		sbuf_addf(&body, "- %s %s\n", jsonx_str(v, "relationType"),
		    jsonx_str(v, "to"));
	rec = xfer_memory_new(store, jsonx_str(ent, "name"), body.buf,
	    body.len);
	sbuf_release(&body);
	return rec;
}

/* Attach each relation to the entity it is from, or report its line. */
static void
attach_relations(struct xfer_import *imp, const json_t *rels,
    const json_t *rlines, json_t *byname, const char *name)
{
	const json_t	*r;
	json_t		*list;
	size_t		 i;

	json_array_foreach(rels, i, r) {
		if ((list = json_object_get(byname, jsonx_str(r, "from"))) !=
		    NULL)
			json_array_append(list, (json_t *)r);
		else
			bad(imp, name, (int)json_integer_value(
			    json_array_get(rlines, i)),
			    "a relation from an entity the file does not have");
	}
}

static const char *
graph_line_error(const json_t *v, const char *type)
{
	if (v == NULL)
		return "not JSON";
	if (type == NULL || (strcmp(type, "entity") != 0 &&
	    strcmp(type, "relation") != 0))
		return "not an entity or a relation";
	if (strcmp(type, "entity") == 0)
		return "an entity needs a name, an entityType and "
		    "observations (strings), and a name of its own";
	return "a relation needs from, to and relationType (strings)";
}

int
xfer_read_mcp_memory(struct xfer_import *imp, const char *buf, size_t n,
    const char *name, struct err *err)
{
	const char	*p = buf, *end = buf + n, *ls, *le, *type, *ename;
	json_t		*ents = json_array(), *elines = json_array();
	json_t		*rels = json_array(), *rlines = json_array();
	json_t		*byname = json_object(), *v;
	char		 where[4200];
	size_t		 i;
	int		 line = 0, rc = 0;

	/* entities in file order, then the relations from each of them,
	 * wherever in the file they are */
	while (line_next(&p, end, &ls, &le)) {
		line++;
		if (blank(ls, (size_t)(le - ls)))
			continue;
		v = json_loadb(ls, (size_t)(le - ls), 0, NULL);
		type = jsonx_str(v, "type");
		ename = jsonx_str(v, "name");
		if (type != NULL && strcmp(type, "entity") == 0 &&
		    ename != NULL && *ename != '\0' &&
		    jsonx_str(v, "entityType") != NULL &&
		    strings_array(json_object_get(v, "observations")) &&
		    json_object_get(byname, ename) == NULL) {
			json_object_set_new(byname, ename, json_array());
			json_array_append(ents, v);
			json_array_append_new(elines, json_integer(line));
		} else if (type != NULL && strcmp(type, "relation") == 0 &&
		    jsonx_str(v, "from") != NULL && jsonx_str(v, "to") &&
		    jsonx_str(v, "relationType") != NULL) {
			json_array_append(rels, v);
			json_array_append_new(rlines, json_integer(line));
		} else
			bad(imp, name, line, graph_line_error(v, type));
		json_decref(v);
	}
	attach_relations(imp, rels, rlines, byname, name);
	json_array_foreach(ents, i, v) {
		if (rc != 0)
			break;
		snprintf(where, sizeof(where), "%s:%lld", name,
		    (long long)json_integer_value(json_array_get(elines, i)));
		rc = import_memory(imp, entity_memory(imp->default_store, v,
		    json_object_get(byname, jsonx_str(v, "name"))), where,
		    err);
	}
	json_decref(ents);
	json_decref(elines);
	json_decref(rels);
	json_decref(rlines);
	json_decref(byname);
	return rc;
}

/* ---- markdown notes --------------------------------------------------- */

/* The file name without its directory and ".md". New string. */
static char *
stem(const char *name)
{
	char	*base = path_basename(name);
	size_t	 n = strlen(base);

	if (n > 3 && strcmp(base + n - 3, ".md") == 0)
		base[n - 3] = '\0';
	return base;
}

/* A "# " heading line's text, trimmed, or NULL. New string. */
static char *
heading(const char *ls, const char *le, const char *marks)
{
	const char	*q;
	size_t		 k = strlen(marks);

	if ((size_t)(le - ls) <= k || memcmp(ls, marks, k) != 0)
		return NULL;
	ls += k;
	while (ls < le && (*ls == ' ' || *ls == '\t'))
		ls++;
	while (le > ls && strchr(" \t\r", le[-1]) != NULL)
		le--;
	/* a closing run of '#' after a space is markup ("## Build ##"),
	 * one inside a word is text ("## C#") */
	for (q = le; q > ls && q[-1] == '#'; q--)
		;
	if (q < le && (q == ls || q[-1] == ' ' || q[-1] == '\t'))
		for (le = q; le > ls && (le[-1] == ' ' || le[-1] == '\t'); le--)
			;
	return ls < le ? xstrndup(ls, (size_t)(le - ls)) : NULL;
}

/* A front matter "title:" value, unquoted. New string or NULL. */
static char *
fm_title(const char *ls, const char *le)
{
	if (le - ls < 6 || memcmp(ls, "title:", 6) != 0)
		return NULL;
	for (ls += 6; ls < le && (*ls == ' ' || *ls == '\t'); ls++)
		;
	while (le > ls && strchr(" \t\r", le[-1]) != NULL)
		le--;
	if (le - ls >= 2 && (*ls == '"' || *ls == '\'') && le[-1] == *ls) {
		ls++;
		le--;
	}
	return ls < le ? xstrndup(ls, (size_t)(le - ls)) : NULL;
}

static bool
fence_line(const char *ls, const char *le)
{
	while (le > ls && le[-1] == '\r')
		le--;
	return le - ls == 3 && memcmp(ls, "---", 3) == 0;
}

/* A note of another tool: front matter (title) if any, then the body. */
static int
read_foreign_note(struct xfer_import *imp, const char *buf, size_t n,
    const char *name, struct err *err)
{
	const char	*p = buf, *end = buf + n, *ls, *le, *body = buf;
	char		*label = NULL, *h;
	char		 where[4200];
	bool		 found;
	int		 rc;

	if (line_next(&p, end, &ls, &le) && fence_line(ls, le)) {
		while (line_next(&p, end, &ls, &le) && !fence_line(ls, le))
			if (label == NULL)
				label = fm_title(ls, le);
		body = fence_line(ls, le) ? p : buf;
		if (body == buf) {
			free(label);
			label = NULL;
		}
	}
	/* the first non-blank line of the body, if a "# " heading, is the
	 * title: the memory's own heading replaces it */
	for (p = body, found = false; !found && line_next(&p, end, &ls,
	    &le);)
		found = !blank(ls, (size_t)(le - ls));
	if (found && (h = heading(ls, le, "# ")) != NULL) {
		if (label == NULL || strcmp(label, h) == 0)
			body = p;
		if (label == NULL)
			label = h;
		else
			free(h);
	}
	if (label == NULL)
		label = stem(name);
	snprintf(where, sizeof(where), "%s:1", name);
	rc = import_memory(imp, xfer_memory_new(imp->default_store, label,
	    body, (size_t)(end - body)), where, err);
	free(label);
	return rc;
}

/* Whether buf starts like a thatch memory document ("---", "label:"). */
static bool
looks_like_memdoc(const char *buf, size_t n)
{
	return (n >= 11 && memcmp(buf, "---\nlabel: ", 11) == 0) ||
	    (n >= 12 && memcmp(buf, "---\r\nlabel: ", 12) == 0);
}

/*
 * Whether the document at path sits where a markdown export puts a
 * memory of store: DIR/<store>/<slug>.md (xfer_file_name). Only there is
 * it taken as thatch's own export, every column as written.
 */
static bool
in_export_layout(const char *path, const char *store)
{
	struct sbuf	 want = SBUF_INIT;
	const char	*end, *dir;
	bool		 ok;

	if (store == NULL || (end = strrchr(path, '/')) == NULL)
		return false;
	for (dir = end; dir > path && dir[-1] != '/'; dir--)
		;
	sbuf_init(&want);
	xfer_file_name(&want, store);
	ok = (size_t)(end - dir) == want.len &&
	    memcmp(dir, want.buf, want.len) == 0;
	sbuf_release(&want);
	return ok;
}

int
xfer_read_note(struct xfer_import *imp, const char *buf, size_t n,
    const char *name, struct err *err)
{
	struct store_entry	 e;
	struct err		 perr;
	char			 where[4200];
	json_t			*rec;
	int			 rc;

	if (!looks_like_memdoc(buf, n))
		return read_foreign_note(imp, buf, n, name, err);
	if (memdoc_parse(buf, n, &e, &perr) != 0) {
		store_entry_release(&e);
		snprintf(where, sizeof(where), "%s", name);
		imp->failed++;
		if (imp->report != NULL)
			imp->report(imp->report_arg, where, perr.msg);
		return 0;
	}
	snprintf(where, sizeof(where), "%s:1", name);
	rec = xfer_entry_record(&e);
	store_entry_release(&e);
	if (rec == NULL)
		return import_memory(imp, NULL, where, err);
	if (!in_export_layout(name, jsonx_str(rec, "store"))) {
		/* issue 31: a stray note picks neither its store nor its slug
		 * (the label makes it), and brings no telemetry */
		json_object_set_new(rec, "store",
		    json_string(imp->default_store));
		json_object_del(rec, "slug");
		json_object_del(rec, "recall_count");
		json_object_del(rec, "last_recalled_at");
	}
	rc = xfer_import_record(imp, rec, where, err);
	json_decref(rec);
	return rc;
}

/* ---- CLAUDE.md, MEMORY.md ------------------------------------------------ */

/* The first occurrence of needle in [s, s + n), or NULL. */
static const char *
find(const char *s, size_t n, const char *needle)
{
	size_t		 k = strlen(needle);
	const char	*end = s + n;

	for (; (size_t)(end - s) >= k; s++)
		if ((s = memchr(s, *needle, (size_t)(end - s) - k + 1)) ==
		    NULL)
			return NULL;
		else if (memcmp(s, needle, k) == 0)
			return s;
	return NULL;
}

/* buf without thatch's instruction blocks (invariant 3). */
static void
strip_blocks(const char *buf, size_t n, struct sbuf *out)
{
	static const char *const	starts[] = { TEXT_BLOCK_START_CLAUDE,
		TEXT_BLOCK_START_CURSOR };
	const char			*p = buf, *end = buf + n, *s, *e, *best;
	size_t				 i;

	sbuf_init(out);
	while (p < end) {
		best = NULL;
		for (i = 0; i < 2; i++) {
			s = find(p, (size_t)(end - p), starts[i]);
			if (s != NULL && (best == NULL || s < best))
				best = s;
		}
		if (best == NULL ||
		    (e = find(best, (size_t)(end - best), TEXT_BLOCK_END)) ==
		    NULL)
			break;
		sbuf_add(out, p, (size_t)(best - p));
		p = e + strlen(TEXT_BLOCK_END);
	}
	sbuf_add(out, p, (size_t)(end - p));
}

struct section {
	char		*label;		/* owned */
	const char	*body, *end;
	int		 line;
};

static int
flush_section(struct xfer_import *imp, struct section *sec, const char *name,
    struct err *err)
{
	char	where[4200];
	int	rc = 0;

	if (sec->label != NULL && !blank(sec->body,
	    (size_t)(sec->end - sec->body))) {
		snprintf(where, sizeof(where), "%s:%d", name, sec->line);
		rc = import_memory(imp, xfer_memory_new(imp->default_store,
		    sec->label, sec->body, (size_t)(sec->end - sec->body)),
		    where, err);
	}
	free(sec->label);
	sec->label = NULL;
	return rc;
}

int
xfer_read_claude(struct xfer_import *imp, const char *buf, size_t n,
    const char *name, struct err *err)
{
	struct sbuf	 text;
	struct section	 sec = { NULL, NULL, NULL, 0 };
	const char	*p, *end, *ls, *le;
	char		*h;
	bool		 code = false, first = true;
	int		 line = 0, rc = 0;

	strip_blocks(buf, n, &text);
	p = text.buf;
	end = text.buf + text.len;
	/* the text before the first "## " is a memory of its own, named
	 * by the file's "# " title or the file */
	sec.label = stem(name);
	sec.body = p;
	sec.line = 1;
	while (rc == 0 && line_next(&p, end, &ls, &le)) {
		line++;
		if (le - ls >= 3 && (memcmp(ls, "```", 3) == 0 ||
		    memcmp(ls, "~~~", 3) == 0))
			code = !code;
		if (first && !blank(ls, (size_t)(le - ls))) {
			first = false;
			if (!code && (h = heading(ls, le, "# ")) != NULL) {
				free(sec.label);
				sec.label = h;
				sec.body = p;
				continue;
			}
		}
		if (code)
			continue;
		if ((h = heading(ls, le, "## ")) == NULL)
			continue;
		sec.end = ls;
		rc = flush_section(imp, &sec, name, err);
		sec.label = h;
		sec.body = p;
		sec.line = line;
	}
	sec.end = end;
	if (rc == 0)
		rc = flush_section(imp, &sec, name, err);
	free(sec.label);
	sbuf_release(&text);
	return rc;
}
