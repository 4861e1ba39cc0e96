/* Unit tests: the inputs that crashed the DUMPI importer under libFuzzer
 * (issue 9 §6; tests/fuzz/corpus/import_dumpi/crash-*.bin) now end in the
 * one-line error that names what is wrong with them; and the same patterns
 * in the other readers: offsets that wrap (bundle index), sizes that
 * overflow (SimGrid actions).
 *
 * The fuzz_import_dumpi test replays the same files, but only the
 * sanitizer build sees a wrapped pointer or an overflowed int64 there;
 * here the unfixed code fails in any build, since it returned another
 * error, or none, for all but the empty-group input (whose bug was a
 * memcpy from NULL of 0 bytes: only UBSan sees it, in build-asan). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <zstd.h>

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
	/* Offsets near 2^64 wrapped the bound checks (pointer overflow). The
	 * error gives the offset of the index field that holds the bad value
	 * (2910-byte file: index at 2846, the table's offset its 2nd u64). */
	{"crash-size-table-offset-wraps.bin", "rank 0, offset 2854: index record: datatype size table offset "
					      "18446744073709551615 is past the end of the file (2910 bytes)"},
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

/* Found by reading dumpi_comms.c for the same pattern, not by the fuzzer
 * (whose 16-rank job never resolved a communicator): MPI_Group_incl with
 * ranks {0, 0} of a 1-member group filled a list sized for one member, a
 * heap-buffer-overflow WRITE that ASan reports (build-asan). Now the group
 * is unknown (MPI requires distinct ranks), so the MPI_Comm_create on it is
 * skipped and the import succeeds. */
static void test_group_incl_repeated_rank(void)
{
	FILE *f = fopen(CORPUS "/crash-group-incl-repeated-rank.bin", "rb");
	static uint8_t buf[4096];
	size_t n = f ? fread(buf, 1, sizeof buf, f) : 0;
	if (f)
		fclose(f);
	CHECK(n > 0);
	uint8_t *p = malloc(n);
	memcpy(p, buf, n);
	struct nl_err e = {0};
	CHECK_OK(trace_dumpi_import_mem_ranks(p, n, 1, &e), &e);
	/* As rank 0 of 16 it waits on world's other members (the fuzz target
	 * then reads it as a 1-rank job). */
	CHECK_ERR(trace_dumpi_import_mem(p, n, &e), NL_EFORMAT, &e, "15 of its 16 members never make");
	free(p);
}

/* A bundle of n empty entries named names[i] (docs/trace-format.md §9;
 * all share one empty zstd frame), whose trailer gives the index offset +
 * ioff_delta and the index length + ilen_delta. Returns its path. */
static const char *write_bundle(const char *file, const char *const *names, uint32_t n, uint64_t ioff_delta,
				uint64_t ilen_delta)
{
	uint8_t hdr[32] = {0}, empty[64], idx[256], cidx[512], tr[32];
	size_t len = 0, elen = ZSTD_compress(empty, sizeof empty, "", 0, 3);
	CHECK(!ZSTD_isError(elen));
	memcpy(hdr, "\x89NLB\r\n\x1a\n", 8);
	trace_put_u32(hdr + 8, 1);
	trace_put_u32(hdr + 12, n);
	trace_put_u64(hdr + 24, trace_xxh64(hdr, 24, 0));
	for (uint32_t i = 0; i < n; i++) {
		size_t nl = strlen(names[i]);
		len += trace_varint_put(idx + len, 0); /* kind: trace */
		len += trace_varint_put(idx + len, nl);
		memcpy(idx + len, names[i], nl);
		len += nl;
		len += trace_varint_put(idx + len, 0); /* size */
		trace_put_u64(idx + len, trace_xxh64("", 0, 0));
		len += 8;
		len += trace_varint_put(idx + len, 32); /* offset */
		len += trace_varint_put(idx + len, elen); /* compressed length */
	}
	size_t clen = ZSTD_compress(cidx, sizeof cidx, idx, len, 3);
	CHECK(!ZSTD_isError(clen));
	memcpy(tr, "NLBUNEND", 8);
	trace_put_u64(tr + 8, 32 + elen + ioff_delta);
	trace_put_u64(tr + 16, clen + ilen_delta);
	trace_put_u64(tr + 24, trace_xxh64(cidx, clen, 0));
	const char *path = test_tmppath(file);
	FILE *f = fopen(path, "wb");
	fwrite(hdr, 1, sizeof hdr, f);
	fwrite(empty, 1, elen, f);
	fwrite(cidx, 1, clen, f);
	fwrite(tr, 1, sizeof tr, f);
	fclose(f);
	return path;
}

static void test_bundle_index(void)
{
	struct nl_err e = {0};
	const char *ab[] = {"a", "b"}, *aa[] = {"b", "a", "a"};
	CHECK_OK(trace_bundle_unpack(write_bundle("ok.nlb", ab, 2, 0, 0), test_tmppath("ok"), NULL, NULL, NULL, &e), &e);
	CHECK_ERR(trace_bundle_unpack(write_bundle("dup.nlb", aa, 3, 0, 0), test_tmppath("dup"), NULL, NULL, NULL, &e),
		  NL_ECORRUPT, &e, "index names 'a' twice");
	/* Index offset and length that only add up to the trailer's place
	 * modulo 2^64: out of range, not a read at offset 2^64 - 32. */
	CHECK_ERR(trace_bundle_unpack(write_bundle("wrap.nlb", ab, 2, (uint64_t)-64, 64), test_tmppath("wrap"), NULL,
				      NULL, NULL, &e),
		  NL_ECORRUPT, &e, ": index offset 18446744073709551");
	/* Each trailer field named at its offset with its range (all were
	 * "trailer fields out of range"), and a bundle with bytes after its
	 * trailer said as such (it was "bad trailer (bundle truncated?)"). */
	CHECK_ERR(trace_bundle_unpack(write_bundle("len.nlb", ab, 2, 0, 1), test_tmppath("len"), NULL, NULL, NULL, &e),
		  NL_ECORRUPT, &e, ": index length ");
	CHECK(strstr(e.msg, ": expected ") && strstr(e.msg, " (from the index offset "));
	CHECK_ERR(trace_bundle_unpack(write_bundle("none.nlb", ab, 0, 0, 0), test_tmppath("none"), NULL, NULL, NULL, &e),
		  NL_ECORRUPT, &e, "none.nlb: offset 12: n_entries 0: expected 1 .. 100000");
	const char *tail = write_bundle("tail.nlb", ab, 2, 0, 0);
	FILE *f = fopen(tail, "ab");
	fputc('x', f);
	fclose(f);
	CHECK_ERR(trace_bundle_unpack(tail, test_tmppath("tail"), NULL, NULL, NULL, &e), NL_ECORRUPT, &e,
		  ": no trailer: expected 'NLBUNEND' in the last 32 bytes (the bundle is cut short, or has bytes after "
		  "its end)");
}

static void test_simgrid_sizes(void)
{
	struct nl_err e = {0};
	/* 9e18 floats (4 bytes each) are 3.6e19 bytes: more than 2^64. */
	static const char big[] = "0 send 1 0 9e18 5\n1 recv 0 0 9e18 5\n";
	CHECK_ERR(trace_simgrid_import_mem((const uint8_t *)big, strlen(big), &e), NL_EFORMAT, &e,
		  "(memory):1: send: 9000000000000000000 elements of 4 bytes overflow 64 bits");
	static const char ok[] = "0 send 1 0 4e18 5\n1 recv 0 0 4e18 5\n";
	CHECK_OK(trace_simgrid_import_mem((const uint8_t *)ok, strlen(ok), &e), &e);
	static const char v[] = "0 alltoallv 100 9e18 1 100 1 1 5 5\n1 alltoallv 100 1 1 100 1 1 5 5\n";
	CHECK_ERR(trace_simgrid_import_mem((const uint8_t *)v, strlen(v), &e), NL_EFORMAT, &e,
		  "(memory):1: 9e18: 9000000000000000000 elements of 4 bytes overflow 64 bits");
}

int main(void)
{
	test_tmpdir_make("fuzz_regress");
	TEST_RUN(test_crash_inputs);
	TEST_RUN(test_group_incl_repeated_rank);
	TEST_RUN(test_bundle_index);
	TEST_RUN(test_simgrid_sizes);
	test_tmpdir_remove();
	return test_done();
}
