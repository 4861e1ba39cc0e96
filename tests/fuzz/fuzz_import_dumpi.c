/* Fuzz target: the DUMPI importer. The input is one rank's .bin file, read
 * as rank 0 of a 16-rank job; every op it produces is round-tripped
 * through the op codec (the builder's check mode aborts on a mismatch).
 * Communicator creation on MPI_COMM_WORLD waits for the 15 ranks that have
 * no records there, so an input that stops at it is read again as the
 * whole of a 1-rank job, where pass 1 resolves it (dumpi_comms.c). */
#include <string.h>

#include "core/error.h"
#include "fuzz.h"
#include "traces/traces_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nl_err e = {0};
	if (trace_dumpi_import_mem(data, size, &e) == NL_EFORMAT && strstr(e.msg, "members never make"))
		trace_dumpi_import_mem_ranks(data, size, 1, &e);
	return 0;
}
