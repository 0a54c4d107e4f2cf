/* tool_list.h — memory_list's lines and its bounded page (tool_list.c),
 * for memory_list's handler in tool_memory.c. */
#ifndef THATCH_TOOLS_BUDGET_TOOL_LIST_H
#define THATCH_TOOLS_BUDGET_TOOL_LIST_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

struct err;
struct sbuf;
struct store_entry;
struct tool_ctx;

/*
 * memory_list's lines: tool_memory_list_line appends one
 * entry's line to w->out (a newline before all but the first) and counts
 * it in w->n; a store_list_lines walker. It stops the walk once out
 * holds more than cap bytes (0: never).
 */
struct tool_list_walk {
	struct sbuf	*out;
	size_t		 n;
	size_t		 cap;
};
int	tool_memory_list_line(const struct store_entry *, void *w);

/*
 * memory_list's page (tool_list.c): unless args ask for a page (limit,
 * offset, prefix, branch) and the store holds at most TOOL_LIST_PAGE
 * memories, append a header and one page of lines, newest-updated first,
 * and set *paged; otherwise append nothing and leave *paged false, for
 * the original's full listing. Returns 0 or -1.
 */
#define TOOL_LIST_PAGE	50
#define TOOL_LIST_MAX	200	/* a page's most lines: ~14 KB */
int	tool_memory_list_page(struct tool_ctx *, const json_t *args,
	    const char *store, struct sbuf *out, bool *paged, struct err *);


#endif
