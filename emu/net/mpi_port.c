/* Open MPI opened on demand (mpi_port.h says why). Built with
 * NL_MPI_PORT only (meson.build). */
#include <dlfcn.h>
#include <stdbool.h>
#include <stddef.h>

#define NL_MPI_PORT_IMPL
#include "core/dl.h"
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
	/* Global: Open MPI's components, which it opens itself, resolve
	 * libmpi's symbols from the global scope (mpi4py opens it so too).
	 * libmpi.so.40 is the soname of Open MPI 3.0 to 5.0. */
	static const struct nl_dl_lib lib = {"MPI", "libmpi", "NETLOOM_LIBMPI", "libmpi.so.40",
					     "Open MPI's libmpi.so.40 (Debian: libopenmpi3)", "Open MPI's libmpi",
					     RTLD_NOW | RTLD_GLOBAL};
#define NL_MPI_SYM(ret, name, args) {"MPI_" #name, offsetof(struct nl_mpi_api, name)},
#define NL_MPI_SYM_GLOBAL(global) {#global, offsetof(struct nl_mpi_api, global)},
	static const struct nl_dl_sym syms[] = {NL_MPI_FUNCS(NL_MPI_SYM) NL_MPI_GLOBALS(NL_MPI_SYM_GLOBAL)};
#undef NL_MPI_SYM
#undef NL_MPI_SYM_GLOBAL
	struct nl_mpi_api api;
	NL_CHECK(nl_dl_open(&lib, syms, sizeof syms / sizeof syms[0], &api, err));
	nl_mpi = api;
	opened = true;
	return 0;
}
