#include "core/cpus.h"

#include <unistd.h>

uint32_t nl_online_cpus(void)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	return cpus > 0 ? (cpus > (long)UINT32_MAX ? UINT32_MAX : (uint32_t)cpus) : 1u;
}

uint32_t nl_threads_for_items(int64_t threads, uint32_t n_items)
{
	uint64_t t = threads > 0 ? (uint64_t)threads : nl_online_cpus();
	return t < n_items ? (uint32_t)t : n_items;
}
