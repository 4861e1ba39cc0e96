/* Fuzz target: a placement map file (`placement_map =`, "rank endpoint"
 * per line, place/place.h), read as a user's. Byte 0 is the job's ranks
 * (1..64), byte 1 the endpoints (1..256), the rest the file. A refusal
 * must have a message (the one-line error users see); a map that is read
 * must give every rank an endpoint that exists. */
#include <string.h>

#include "core/error.h"
#include "fuzz.h"
#include "fuzz_refusal.h"
#include "fuzz_file.h"
#include "place/place.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = size >= 2 && size <= (1u << 16) ? fuzz_file(data + 2, size - 2) : NULL;
	if (!path)
		return 0;
	uint32_t n_ranks = data[0] % 64 + 1, n_endpoints = (uint32_t)data[1] + 1, endpoint[64];
	struct nl_err err = {0};
	int rc = place_read_map(path, n_ranks, n_endpoints, endpoint, &err);
	if (rc < 0) {
		fuzz_refusal(&err, rc, "place_read_map");
		return 0;
	}
	for (uint32_t r = 0; r < n_ranks; r++)
		if (endpoint[r] >= n_endpoints)
			NL_BUG("rank %u on endpoint %u of %u", r, endpoint[r], n_endpoints);
	return 0;
}
