/*
 * tool_arg.c — what handlers read their validated arguments with: the
 * target store of a store-scoped tool and one getter per argument type,
 * each giving the default when the argument is absent (tool_validate has
 * already refused a wrong type).
 */
#include "tools/tool.h"

#include <string.h>

const char *
tool_target_store(const struct tool_ctx *ctx, const json_t *args)
{
	const char	*s = tool_arg_str(args, "store", "");

	if (*s == '\0')
		s = ctx->default_store;
	/* [newer] store-and-tools §2.6: writes to "unknown" would vanish */
	if (s == NULL || strcmp(s, "unknown") == 0)
		return "global";
	return s;
}

const char *
tool_arg_str(const json_t *args, const char *name, const char *dflt)
{
	json_t	*v = args ? json_object_get(args, name) : NULL;

	return json_is_string(v) ? json_string_value(v) : dflt;
}

long long
tool_arg_int(const json_t *args, const char *name, long long dflt)
{
	json_t	*v = args ? json_object_get(args, name) : NULL;

	return json_is_number(v) ? (long long)json_number_value(v) : dflt;
}

double
tool_arg_num(const json_t *args, const char *name, double dflt)
{
	json_t	*v = args ? json_object_get(args, name) : NULL;

	return json_is_number(v) ? json_number_value(v) : dflt;
}

int
tool_arg_bool(const json_t *args, const char *name)
{
	json_t	*v = args ? json_object_get(args, name) : NULL;

	return json_is_boolean(v) ? json_is_true(v) : -1;
}
