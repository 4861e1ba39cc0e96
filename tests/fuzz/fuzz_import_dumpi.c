/* Fuzz target: the DUMPI importer. The input is one rank's .bin file, read
 * as rank 0 of a 16-rank job; every op it produces is round-tripped
 * through the op codec (the builder's check mode aborts on a mismatch). */
#include "core/error.h"
#include "fuzz.h"
#include "traces/traces_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nl_err e = {0};
	trace_dumpi_import_mem(data, size, &e);
	return 0;
}
