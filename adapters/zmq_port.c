/* libzmq opened on demand (zmq_port.h says why). */
#include <dlfcn.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define NL_ZMQ_PORT_IMPL
#include "adapters/zmq_port.h"
#include "core/error.h"

struct nl_zmq_api nl_zmq;

/* Each entry's type is libzmq's own declaration's, checked here. */
#define NL_ZMQ_TYPECHECK(ret, name, args) \
	_Static_assert(__builtin_types_compatible_p(__typeof__(&zmq_##name), ret(*) args), "zmq_" #name);
NL_ZMQ_FUNCS(NL_ZMQ_TYPECHECK)
#undef NL_ZMQ_TYPECHECK

int nl_zmq_open(struct nl_err *err)
{
	static bool opened;
	if (opened)
		return 0;
	const char *env = getenv("NETLOOM_LIBZMQ");
	const char *lib = env && *env ? env : "libzmq.so.5";
	/* Local: libzmq's symbols stay out of the global scope, where they
	 * could interpose on another copy a plug-in brought. */
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return nl_errf(err, NL_EIO,
			       "live: cannot load libzmq (%s); expected libzmq 4.1 or later (Debian: libzmq5), or "
			       "NETLOOM_LIBZMQ naming it",
			       dlerror());
	struct nl_zmq_api api;
	void *sym;
	/* dlsym's void * to a function pointer: POSIX requires the two to
	 * have one form; copied, not cast, as ISO C has no such conversion. */
#define NL_ZMQ_RESOLVE(ret, name, args)                                                                   \
	sym = dlsym(h, "zmq_" #name);                                                                     \
	memcpy(&api.name, &sym, sizeof sym);                                                              \
	if (!sym) {                                                                                       \
		dlclose(h);                                                                               \
		return nl_errf(err, NL_EIO, "live: %s has no zmq_" #name "; expected libzmq 4.1 or later", lib); \
	}
	NL_ZMQ_FUNCS(NL_ZMQ_RESOLVE)
#undef NL_ZMQ_RESOLVE
	nl_zmq = api;
	opened = true;
	return 0;
}
