/* Fuzz target: the archive reader. The input is tried two ways:
 * - as an .nlt file: opened, verified (every rank decoded, hashes and op
 *   semantics checked) and summarised;
 * - as the decompressed content of a frame: ops are decoded until the end
 *   or the first error, and every op that decodes must re-encode to exactly
 *   the bytes it came from (one op, one encoding), else the target aborts.
 * The second way reaches the op decoder with arbitrary bytes, which the
 * archive's hashes would otherwise keep away from it. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/error.h"
#include "fuzz.h"
#include "traces/trace.h"
#include "traces/traces_internal.h"

static void decode_frame(const uint8_t *data, size_t size)
{
	struct trace_op_arrays arr = {0};
	struct trace_op op;
	uint64_t base_r = 0, base_w = 0;
	size_t pos = 0;
	uint8_t *enc = NULL;
	while (pos < size) {
		const char *what = NULL;
		int n = trace_op_decode(data + pos, size - pos, &op, &base_r, &arr, &what);
		if (n <= 0)
			break;
		enc = realloc(enc, trace_op_encoded_max(&op));
		if (!enc)
			abort();
		size_t m = trace_op_encode(enc, &op, &base_w);
		if (m != (size_t)n || memcmp(enc, data + pos, m))
			NL_BUG("op at %zu: %d bytes decode to an op that encodes to %zu different bytes", pos, n, m);
		pos += (size_t)n;
	}
	free(enc);
	trace_op_arrays_release(&arr);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nl_err e = {0};
	struct trace_archive *a;
	struct trace_stats s;
	char path[64];
	decode_frame(data, size);
	int fd = memfd_create("nlt", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	if (trace_archive_open(&a, path, &e) == 0) {
		if (trace_archive_verify(a, &e) == 0)
			trace_archive_stats(a, &s, &e);
		trace_archive_close(a);
	}
	close(fd);
	return 0;
}
