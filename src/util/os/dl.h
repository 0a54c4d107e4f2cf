/* dl.h — load a shared library and a table of its symbols on demand (dl.c). */
#ifndef THATCH_UTIL_DL_H
#define THATCH_UTIL_DL_H

#include <stdbool.h>
#include <stddef.h>

struct err;

/* One symbol to resolve: its name, where to store its address, and
 * whether the library may lack it (the slot is then NULL). */
struct dl_sym {
	const char	*name;
	void		**slot;
	bool		 optional;
};

/*
 * dlopen soname (RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE: libraries that
 * start threads or hold TLS state must never be unloaded) and resolve
 * every symbol of syms[0..n). Returns the handle, or NULL with err set to
 * one line naming the library and what provides it (package: "the Debian
 * package libcurl4").
 */
void	*dl_load(const char *soname, const char *package,
	    const struct dl_sym *, size_t n, struct err *);

#endif
