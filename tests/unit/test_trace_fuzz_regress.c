/* Unit tests: the inputs that crashed the DUMPI importer under libFuzzer
 * (issue 9 §6; tests/fuzz/corpus/import_dumpi/crash-*.bin) now end in the
 * one-line error that names what is wrong with them.
 *
 * The fuzz_import_dumpi test replays the same files, but only the
 * sanitizer build sees a wrapped pointer or an overflowed int64 there;
 * here the unfixed code fails in any build, since it returned another
 * error, or none, for all but the empty-group input (whose bug was a
 * memcpy from NULL of 0 bytes: only UBSan sees it, in build-asan). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/error.h"
#include "test.h"
#include "traces/traces_internal.h"

#define CORPUS TEST_SRC("tests/fuzz/corpus/import_dumpi")

static const struct {
	const char *file, *msg;
} crashes[] = {
	/* Was a heap-buffer-overflow WRITE in req_list: the request list was
	 * sized for the requests array but took each completed index again. */
	{"crash-testsome-index-twice.bin", "rank 0, offset 39: MPI_Testsome lists request index 0 twice"},
	/* Offsets near 2^64 wrapped the bound checks (pointer overflow). */
	{"crash-size-table-offset-wraps.bin", "offset 18446744073709551615: truncated datatype size table"},
	{"crash-body-offset-wraps.bin", "index record offsets out of range"},
	/* Signed int64 overflow in a derived datatype's size. */
	{"crash-hvector-size-overflow.bin", "offset 448: MPI_Type_hvector: the new datatype's size overflows 64 bits"},
	{"crash-indexed-size-overflow.bin", "offset 73: MPI_Type_indexed: the new datatype's size overflows 64 bits"},
	/* MPI_Comm_create with MPI_GROUP_EMPTY: memcpy(dst, NULL, 0). */
	{"crash-comm-create-empty-group.bin", "offset 204: unknown call label 19456"},
};

static void test_crash_inputs(void)
{
	for (size_t i = 0; i < sizeof crashes / sizeof *crashes; i++) {
		char path[4096];
		snprintf(path, sizeof path, CORPUS "/%s", crashes[i].file);
		FILE *f = fopen(path, "rb");
		if (!f) {
			TEST_FAIL_("cannot open %s", path);
			continue;
		}
		static uint8_t buf[1 << 16];
		size_t n = fread(buf, 1, sizeof buf, f);
		fclose(f);
		/* An exact-size heap copy, so ASan sees a read past the end. */
		uint8_t *p = malloc(n);
		memcpy(p, buf, n);
		struct nl_err e = {0};
		CHECK_ERR(trace_dumpi_import_mem(p, n, &e), NL_EFORMAT, &e, crashes[i].msg);
		free(p);
	}
}

int main(void)
{
	TEST_RUN(test_crash_inputs);
	return test_done();
}
