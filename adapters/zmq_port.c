/* libzmq opened on demand (zmq_port.h says why). */
#include <dlfcn.h>
#include <stdbool.h>
#include <stddef.h>

#define NL_ZMQ_PORT_IMPL
#include "adapters/zmq_port.h"
#include "core/dl.h"
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
	/* Local: libzmq's symbols stay out of the global scope, where they
	 * could interpose on another copy a plug-in brought. libzmq.so.5 is
	 * the soname of every libzmq since 4.1. */
	static const struct nl_dl_lib lib = {"live", "libzmq", "NETLOOM_LIBZMQ", "libzmq.so.5",
					     "libzmq 4.1 or later (Debian: libzmq5)", "libzmq 4.1 or later",
					     RTLD_NOW | RTLD_LOCAL};
#define NL_ZMQ_SYM(ret, name, args) {"zmq_" #name, offsetof(struct nl_zmq_api, name)},
	static const struct nl_dl_sym syms[] = {NL_ZMQ_FUNCS(NL_ZMQ_SYM)};
#undef NL_ZMQ_SYM
	struct nl_zmq_api api;
	NL_CHECK(nl_dl_open(&lib, syms, sizeof syms / sizeof syms[0], &api, err));
	nl_zmq = api;
	opened = true;
	return 0;
}
