/* LD_PRELOAD shim for tests/e2e/mpi_engine.sh: sysconf says one online
 * processor, so that one rank of a launch stands for a node with fewer
 * cores than the others' (threads = 0 resolves on each node's own). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <unistd.h>

long sysconf(int name)
{
	static long (*next)(int);
	if (name == _SC_NPROCESSORS_ONLN)
		return 1;
	if (!next)
		*(void **)&next = dlsym(RTLD_NEXT, "sysconf");
	return next ? next(name) : -1;
}
