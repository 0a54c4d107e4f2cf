/*
 * prompts.c — the /thatch actions served as MCP prompts (prompts/list,
 * prompts/get), for Cursor, which has no command files, and any other MCP
 * client (engines-and-extras §B8).
 *
 * An adapter only: the names, descriptions and texts are the registry's
 * (text/actions.c), the protocol is mcp.c's.
 *  1. Prompt i is action i; a prompt's name is "thatch-<action>" whatever
 *     the host, and its text is the action rendered for the host detected
 *     at startup (mcp_setup_detect), so tool names match what the agent
 *     sees.
 *  2. The prompts take no arguments: a client passing some gets the same
 *     text.
 */
#include "host/prompts.h"

#include <stdlib.h>
#include <string.h>

#include "text/actions.h"
#include "util/sbuf.h"
#include "util/xmalloc.h"

struct prompts {
	struct mcp_prompt	*items;		/* owned */
	char			**names;	/* owned */
	const struct mcp_prompt	**list;		/* owned; NULL-terminated */
};

static char *
render(const struct mcp_prompt *p, enum text_host h)
{
	const struct text_action	*a;
	struct sbuf			 sb = SBUF_INIT;

	a = text_action_find(p->name + strlen("thatch-"));
	sbuf_init(&sb);
	text_action_render(&sb, a, h);
	return sbuf_detach(&sb, NULL);
}

static char *
render_claude(const struct mcp_prompt *p, const json_t *args)
{
	(void)args;
	return render(p, TEXT_HOST_CLAUDE);
}

static char *
render_bare(const struct mcp_prompt *p, const json_t *args)
{
	(void)args;
	return render(p, TEXT_HOST_CURSOR);
}

struct prompts *
prompts_new(enum mcp_host host)
{
	struct prompts	*p = xcalloc(1, sizeof(*p));
	struct sbuf	 name = SBUF_INIT;
	size_t		 i;

	p->items = xcalloc(text_nactions, sizeof(*p->items));
	p->names = xcalloc(text_nactions, sizeof(*p->names));
	p->list = xcalloc(text_nactions + 1, sizeof(*p->list));
	for (i = 0; i < text_nactions; i++) {
		sbuf_init(&name);
		text_action_name(&name, &text_actions[i], TEXT_HOST_CURSOR);
		p->names[i] = sbuf_detach(&name, NULL);
		p->items[i] = (struct mcp_prompt){
			.name = p->names[i],
			.description = text_actions[i].description,
			.render = host == MCP_HOST_CLAUDE ? render_claude :
			    render_bare,
		};
		p->list[i] = &p->items[i];
	}
	return p;
}

void
prompts_free(struct prompts *p)
{
	size_t	i;

	if (p == NULL)
		return;
	for (i = 0; i < text_nactions; i++)
		free(p->names[i]);
	free(p->names);
	free(p->items);
	free(p->list);
	free(p);
}

const struct mcp_prompt *const *
prompts_list(const struct prompts *p)
{
	return p->list;
}
