/*
 * wrapups.c — the wrap-up commands /thatch/compact and /thatch/exit
 * (engines-and-extras B8, hosts-hooks-cli §9.4), in thatch's own words.
 *
 *  1. Both bodies end by telling the agent to put TEXT_GREENLIGHT at the
 *     end of its reply only when nothing needs the user: the host acts on
 *     the token alone, so the instruction must be unmissable and the
 *     condition explicit.
 *  2. Templates name tools as `{tool}` (actions.c invariant 1) and carry
 *     opencode's $ARGUMENTS, what the user typed after the command.
 */
#include "text/wrapups.h"

#include <string.h>

#define STEPS(what) \
"1. Save what this session learnt that a later one needs: decisions, conventions,\n" \
"   corrections and facts, each with `{memory_remember}` (check `{memory_recall}`\n" \
"   first so you do not save it twice).\n" \
"2. Check the session is really finished: nothing half-edited, the tests and\n" \
"   build you touched pass, work in progress is committed or written down,\n" \
"   and no background task is still running.\n" \
"3. Report in a few lines what is done and anything the user must decide or do.\n" \
"4. If nothing at all needs the user's attention, end your reply with the\n" \
"   exact token " TEXT_GREENLIGHT " and thatch will " what ". If anything\n" \
"   needs them, do not write the token: nothing happens and they can run\n" \
"   the command again later.\n" \
"\n" \
"What the user added: $ARGUMENTS\n"

const struct text_action text_wrapups[] = {
	{
		.name = "compact",
		.description = "Wrap up, then compact this session once "
		    "nothing needs you",
		.summary = "Wrap this session up so that it can be "
		    "compacted: save what matters, check that nothing is "
		    "left open, and give the green light.",
		.body = STEPS("compact the session"),
	},
	{
		.name = "exit",
		.description = "Wrap up, then exit opencode once nothing "
		    "needs you",
		.summary = "Wrap this session up so that opencode can "
		    "exit: save what matters, check that nothing is left "
		    "open, and give the green light.",
		.body = STEPS("exit opencode"),
	},
};

const size_t text_nwrapups = sizeof(text_wrapups) / sizeof(text_wrapups[0]);

const struct text_action *
text_wrapup_find(const char *name)
{
	size_t	i;

	for (i = 0; name != NULL && i < text_nwrapups; i++)
		if (strcmp(text_wrapups[i].name, name) == 0)
			return &text_wrapups[i];
	return NULL;
}
