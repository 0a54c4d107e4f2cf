/*
 * dl.c — load a shared library and a table of its symbols on demand.
 *
 * Why not link them: a hook command must start in a couple of
 * milliseconds, and libcurl (with its TLS, HTTP/2 and LDAP dependency tree)
 * and OpenBLAS (whose constructor starts a thread pool) cost tens of
 * milliseconds of dynamic loading before main() runs. Only the commands
 * that download or embed pay for them, through this file.
 */
#include "util/os/dl.h"

#include <dlfcn.h>

#include "util/err.h"

void *
dl_load(const char *soname, const char *package, const struct dl_sym *syms,
    size_t n, struct err *err)
{
	void	*dl;
	size_t	 i;

	dl = dlopen(soname, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
	if (dl == NULL) {
		err_set(err, "cannot load %s (%s); install %s", soname,
		    dlerror(), package);
		return NULL;
	}
	for (i = 0; i < n; i++) {
		*syms[i].slot = dlsym(dl, syms[i].name);
		if (*syms[i].slot == NULL && !syms[i].optional) {
			err_set(err, "%s lacks %s", soname, syms[i].name);
			dlclose(dl);
			return NULL;
		}
	}
	return dl;
}
