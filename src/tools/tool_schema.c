/*
 * tool_schema.c — what is generated from a tool row's arguments: their
 * validation, the MCP input schema and the help text. The server
 * (host/mcp.c), the CLI and any adapter call these with a row of
 * tool_table[] and then t->run; nothing here knows MCP framing or hosts.
 *
 *  1. Validation reports every problem, in schema order, as
 *     "<name>: <reason>" items joined by "; " (§4.1); JSON null is a type
 *     error; unknown keys are accepted and ignored. A string holding a
 *     NUL ("\u0000") is refused, whatever the argument: handlers see C
 *     strings, which would silently end there. An ARG_NONBLANK string
 *     (a label that names a memory) holding nothing but whitespace is
 *     refused the same way, by every caller (issue 15).
 */
#include "tools/tool.h"

#include <math.h>
#include <string.h>

#include "core/slug.h"
#include "util/sbuf.h"

static const char *
json_kind(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT:	return "object";
	case JSON_ARRAY:	return "array";
	case JSON_STRING:	return "string";
	case JSON_INTEGER:	return "integer";
	case JSON_REAL:		return "number";
	case JSON_TRUE:
	case JSON_FALSE:	return "boolean";
	default:		return "null";
	}
}

static const char *const type_names[] = {
	[ARG_STRING] = "string",
	[ARG_INTEGER] = "integer",
	[ARG_NUMBER] = "number",
	[ARG_BOOLEAN] = "boolean",
	[ARG_OBJECT] = "object",
	[ARG_STRINGS] = "array",
};

static bool
all_strings(const json_t *v)
{
	size_t	i;
	json_t	*x;

	json_array_foreach(v, i, x)
		if (!json_is_string(x))
			return false;
	return true;
}

static bool
type_ok(const struct tool_arg *a, const json_t *v)
{
	switch (a->type) {
	case ARG_STRING:
		return json_is_string(v);
	case ARG_BOOLEAN:
		return json_is_boolean(v);
	case ARG_NUMBER:
		return json_is_number(v);
	case ARG_INTEGER:
		return json_is_integer(v) || (json_is_real(v) &&
		    floor(json_real_value(v)) == json_real_value(v));
	case ARG_OBJECT:
		return json_is_object(v);
	case ARG_STRINGS:
		return json_is_array(v) && all_strings(v);
	}
	return false;
}

/* Append the reason v does not satisfy a, or nothing when it does. */
static void
check_arg(const struct tool_arg *a, const json_t *v, struct sbuf *why)
{
	const char *const	*c;
	double			 x;

	if (!type_ok(a, v)) {
		if (a->type == ARG_INTEGER && json_is_real(v))
			sbuf_adds(why, "Expected integer, received float");
		else if (a->type == ARG_STRINGS && json_is_array(v))
			sbuf_adds(why, "Expected an array of strings");
		else
			sbuf_addf(why, "Expected %s, received %s",
			    type_names[a->type], json_kind(v));
		return;
	}
	if (a->type == ARG_INTEGER || a->type == ARG_NUMBER) {
		x = json_number_value(v);
		if ((a->flags & ARG_MIN) && x < a->min)
			sbuf_addf(why, "Number must be greater than or equal "
			    "to %g", a->min);
		else if ((a->flags & ARG_MAX) && x > a->max)
			sbuf_addf(why, "Number must be less than or equal "
			    "to %g", a->max);
		return;
	}
	if (a->type != ARG_STRING)
		return;
	/* C strings end at a NUL: the rest would vanish without a word */
	if (strlen(json_string_value(v)) != json_string_length(v)) {
		sbuf_adds(why, "contains a NUL character");
		return;
	}
	if ((a->flags & ARG_NONBLANK) && slug_is_blank(json_string_value(v),
	    json_string_length(v))) {
		sbuf_adds(why, "must not be empty or only whitespace");
		return;
	}
	if (a->choices == NULL)
		return;
	for (c = a->choices; *c != NULL; c++)
		if (strcmp(*c, json_string_value(v)) == 0)
			return;
	sbuf_adds(why, "Invalid enum value. Expected ");
	for (c = a->choices; *c != NULL; c++)
		sbuf_addf(why, "%s'%s'", c == a->choices ? "" : " | ", *c);
	sbuf_addf(why, ", received '%s'", json_string_value(v));
}

/* One "<path>: <reason>" item of the Invalid arguments text. */
static void
problem(struct sbuf *msg, int *problems, const char *parent,
    const char *name, const char *why)
{
	sbuf_adds(msg, (*problems)++ ? "; " : "Invalid arguments: ");
	sbuf_addf(msg, "%s%s%s: %s", parent ? parent : "", parent ? "." : "",
	    name, why);
}

/* The fields of the strict object obj (argument a), then unknown keys. */
static void
check_fields(const struct tool_arg *a, const json_t *obj, struct sbuf *msg,
    int *problems)
{
	const struct tool_arg	*f;
	struct sbuf		 why = SBUF_INIT;
	const char		*key;
	json_t			*v;

	for (f = a->fields; f->name != NULL; f++) {
		sbuf_reset(&why);
		if ((v = json_object_get(obj, f->name)) == NULL) {
			if (f->flags & ARG_REQUIRED)
				sbuf_adds(&why, "Required");
		} else
			check_arg(f, v, &why);
		if (why.len > 0)
			problem(msg, problems, a->name, f->name, why.buf);
	}
	json_object_foreach((json_t *)obj, key, v) {
		for (f = a->fields; f->name != NULL; f++)
			if (strcmp(f->name, key) == 0)
				break;
		if (f->name != NULL)
			continue;
		sbuf_reset(&why);
		sbuf_addf(&why, "Unrecognized key in object: '%s'", key);
		problem(msg, problems, NULL, a->name, why.buf);
	}
	sbuf_release(&why);
}

int
tool_validate(const struct tool *t, const json_t *args, struct sbuf *msg)
{
	const struct tool_arg	*a;
	struct sbuf		 why = SBUF_INIT;
	size_t			 start = msg->len;
	int			 problems = 0;

	if (args != NULL && !json_is_object(args)) {
		sbuf_addf(msg, "Invalid arguments: : Expected object, "
		    "received %s", json_kind(args));
		return -1;
	}
	for (a = t->args; a->name != NULL; a++) {
		json_t	*v = args ? json_object_get(args, a->name) : NULL;

		sbuf_reset(&why);
		if (v == NULL) {
			if (a->flags & ARG_REQUIRED)
				sbuf_adds(&why, "Required");
		} else
			check_arg(a, v, &why);
		if (why.len == 0 && a->type == ARG_OBJECT && v != NULL)
			check_fields(a, v, msg, &problems);
		if (why.len == 0)
			continue;
		sbuf_adds(msg, problems++ ? "; " : "Invalid arguments: ");
		sbuf_addf(msg, "%s: %s", a->name, why.buf);
	}
	sbuf_release(&why);
	if (problems == 0)
		sbuf_setlen(msg, start);
	return problems ? -1 : 0;
}

static json_t *
bound_json(const struct tool_arg *a, double x)
{
	if (a->type == ARG_INTEGER)
		return json_integer((json_int_t)x);
	return json_real(x);
}

static json_t *object_schema(const struct tool_arg *);

/* The JSON Schema of one property. */
static json_t *
arg_schema(const struct tool_arg *a)
{
	const char *const	*c;
	json_t			*p, *e;

	if (a->type == ARG_OBJECT)
		p = object_schema(a->fields);
	else {
		p = json_object();
		json_object_set_new(p, "type",
		    json_string(type_names[a->type]));
		if (a->type == ARG_STRINGS)
			json_object_set_new(p, "items",
			    json_pack("{s:s}", "type", "string"));
		if (a->choices != NULL) {
			e = json_array();
			for (c = a->choices; *c != NULL; c++)
				json_array_append_new(e, json_string(*c));
			json_object_set_new(p, "enum", e);
		}
		if (a->flags & ARG_NONBLANK)
			json_object_set_new(p, "minLength", json_integer(1));
		if (a->flags & ARG_MIN)
			json_object_set_new(p, "minimum",
			    bound_json(a, a->min));
		if (a->flags & ARG_MAX)
			json_object_set_new(p, "maximum",
			    bound_json(a, a->max));
	}
	json_object_set_new(p, "description", json_string(a->description));
	return p;
}

/* {"type":"object","properties":..,"required":..,"additionalProperties":
 * false} of args. */
static json_t *
object_schema(const struct tool_arg *args)
{
	const struct tool_arg	*a;
	json_t			*schema = json_object(), *props, *req;

	props = json_object();
	req = json_array();
	json_object_set_new(schema, "type", json_string("object"));
	for (a = args; a->name != NULL; a++) {
		json_object_set_new(props, a->name, arg_schema(a));
		if (a->flags & ARG_REQUIRED)
			json_array_append_new(req, json_string(a->name));
	}
	json_object_set_new(schema, "properties", props);
	if (json_array_size(req) > 0)
		json_object_set_new(schema, "required", req);
	else
		json_decref(req);
	json_object_set_new(schema, "additionalProperties", json_false());
	return schema;
}

/* No "$schema" key: its ~17 tokens a tool bought nothing (issue 27). */
json_t *
tool_schema(const struct tool *t)
{
	return object_schema(t->args);
}

void
tool_help(const struct tool *t, struct sbuf *out)
{
	const struct tool_arg	*a;

	sbuf_addf(out, "%s%s — %s\n", t->name, (t->flags & TOOL_MCP) ? "" :
	    " (opencode only)", t->description);
	for (a = t->args; a->name != NULL; a++) {
		sbuf_addf(out, "  %-16s %s%s", a->name, type_names[a->type],
		    (a->flags & ARG_REQUIRED) ? ", required" : "");
		if ((a->flags & ARG_MIN) && (a->flags & ARG_MAX))
			sbuf_addf(out, ", %g-%g", a->min, a->max);
		sbuf_addf(out, ": %s\n", a->description);
	}
}
