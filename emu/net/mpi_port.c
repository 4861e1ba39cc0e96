/* Open MPI opened on demand (mpi_port.h says why). Built with
 * NL_MPI_PORT only (meson.build). */
#include <dlfcn.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define NL_MPI_PORT_IMPL
#include "core/error.h"
#include "net/mpi_port.h"

struct nl_mpi_api nl_mpi;

/* Each entry's type is Open MPI's own declaration's, checked here. */
#define NL_MPI_TYPECHECK(ret, name, args) \
	_Static_assert(__builtin_types_compatible_p(__typeof__(&MPI_##name), ret(*) args), "MPI_" #name);
NL_MPI_FUNCS(NL_MPI_TYPECHECK)
#undef NL_MPI_TYPECHECK

int nl_mpi_open(struct nl_err *err)
{
	static bool opened;
	if (opened)
		return 0;
	const char *env = getenv("NETLOOM_LIBMPI");
	const char *lib = env && *env ? env : "libmpi.so.40";
	/* Global: Open MPI's components, which it opens itself, resolve
	 * libmpi's symbols from the global scope (mpi4py opens it so too). */
	void *h = dlopen(lib, RTLD_NOW | RTLD_GLOBAL);
	if (!h)
		return nl_errf(err, NL_EIO,
			       "MPI: cannot load libmpi (%s); expected Open MPI's libmpi.so.40 (Debian: libopenmpi3), "
			       "or NETLOOM_LIBMPI naming it",
			       dlerror());
	struct nl_mpi_api api;
	void *sym;
	/* dlsym's void * to a function pointer: POSIX requires the two to
	 * have one form; copied, not cast, as ISO C has no such conversion. */
#define NL_MPI_RESOLVE(ret, name, args)                                                                   \
	sym = dlsym(h, "MPI_" #name);                                                                     \
	memcpy(&api.name, &sym, sizeof sym);                                                              \
	if (!sym) {                                                                                       \
		dlclose(h);                                                                               \
		return nl_errf(err, NL_EIO, "MPI: %s has no MPI_" #name "; expected Open MPI's libmpi", lib); \
	}
	NL_MPI_FUNCS(NL_MPI_RESOLVE)
#undef NL_MPI_RESOLVE
#define NL_MPI_RESOLVE_GLOBAL(global)                                                                     \
	if (!(api.global = dlsym(h, #global))) {                                                          \
		dlclose(h);                                                                               \
		return nl_errf(err, NL_EIO, "MPI: %s has no " #global "; expected Open MPI's libmpi", lib); \
	}
	NL_MPI_GLOBALS(NL_MPI_RESOLVE_GLOBAL)
#undef NL_MPI_RESOLVE_GLOBAL
	nl_mpi = api;
	opened = true;
	return 0;
}
