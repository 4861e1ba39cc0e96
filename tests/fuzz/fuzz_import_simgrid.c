/* Fuzz target: the SimGrid time-independent importer. The input is an
 * actions file (one or several ranks); every op it produces is
 * round-tripped through the op codec. */
#include "core/error.h"
#include "fuzz.h"
#include "traces/traces_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nl_err e = {0};
	trace_simgrid_import_mem(data, size, &e);
	return 0;
}
