/* block.h — the instruction block of CLAUDE.md / AGENTS.md (block.c). */
#ifndef THATCH_TEXT_BLOCK_H
#define THATCH_TEXT_BLOCK_H

struct sbuf;

/*
 * The markers are a compatibility contract with the original
 * (hosts-hooks-cli §3.5): blocks it wrote must be found, and every block
 * thatch writes starts with the host's start marker and ends with the end
 * marker.
 */
#define TEXT_BLOCK_START_CLAUDE	"# Persistence\n\nThatch provides persistent " \
	"memory across Claude Code sessions."
#define TEXT_BLOCK_START_CURSOR	"# Persistence\n\nThatch provides persistent " \
	"memory across Cursor sessions."
#define TEXT_BLOCK_END		"\"Forget X\" - `memory_recall` to find it, " \
	"then `memory_forget`."

/* What differs between the hosts' blocks. Borrowed. */
struct text_block_host {
	const char	*start;		/* TEXT_BLOCK_START_* */
	const char	*name;		/* "Claude Code" */
	const char	*file;		/* "CLAUDE.md" */
	const char	*prefix;	/* how the host spells tools */
};

/*
 * Append the whole block, start marker to end marker, no trailing
 * newline. tools is the tool table's MCP names in registry order
 * (NULL-terminated), so the block and tools/list cannot drift.
 */
void	text_block_render(struct sbuf *, const struct text_block_host *,
	    const char *const *tools);

#endif
