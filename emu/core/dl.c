/* Libraries opened on demand (dl.h). */
#include "core/dl.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"

int nl_dl_open(const struct nl_dl_lib *lib, const struct nl_dl_sym *syms, size_t n, void *api, struct nl_err *err)
{
	const char *env = getenv(lib->env);
	const char *name = env && *env ? env : lib->dflt;
	void *h = dlopen(name, lib->flags);
	if (!h)
		return nl_errf(err, NL_EIO, "%s: cannot load %s (%s); expected %s, or %s naming it", lib->who,
			       lib->label, dlerror(), lib->expect_load, lib->env);
	for (size_t i = 0; i < n; i++) {
		void *sym = dlsym(h, syms[i].name);
		if (!sym) {
			dlclose(h);
			return nl_errf(err, NL_EIO, "%s: %s has no %s; expected %s", lib->who, name, syms[i].name,
				       lib->expect_sym);
		}
		/* dlsym's void * into a function pointer: POSIX requires the
		 * two to have one form; copied, not cast, as ISO C has no such
		 * conversion. */
		memcpy((unsigned char *)api + syms[i].offset, &sym, sizeof sym);
	}
	return 0;
}
