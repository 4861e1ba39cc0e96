/* Fuzz target: the OTF2 importer (traces/import_otf2.c and the OTF2
 * library's reader under it). The OTF2 reader works on files, so the
 * input replaces one file of a small valid archive (SST Ember's 4-rank
 * Score-P archive, OTF2_FUZZ_BASE) copied once into a temporary
 * directory: data[0] % 4 picks rank 0's events, the global definitions,
 * rank 0's local definitions or the anchor file, data[1..] is the new
 * content. Every op produced is round-tripped through the op codec.
 * The corpus has no anchor file: a damaged anchor costs the OTF2 library
 * up to ~0.3 s (it sizes buffers from it), too slow for the test suite;
 * mutations of the first byte still reach it, and libFuzzer runs can seed
 * one (the byte 3 followed by an anchor file). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"
#include "fuzz.h"
#include "traces/traces_internal.h"

#ifndef OTF2_FUZZ_BASE
#define OTF2_FUZZ_BASE "tests/data/traces/otf2/ember"
#endif

static const char *const files[] = {"traces/0.evt", "traces.def", "traces/0.def", "traces.otf2",
				    "traces/1.evt", "traces/1.def", "traces/2.evt", "traces/2.def",
				    "traces/3.evt", "traces/3.def"};

static char fuzz_dir[64]; /* one copy of the base archive per process */

static void remove_copy(void)
{
	char p[512];
	for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
		snprintf(p, sizeof p, "%s/%s", fuzz_dir, files[i]);
		unlink(p);
	}
	snprintf(p, sizeof p, "%s/traces", fuzz_dir);
	rmdir(p);
	rmdir(fuzz_dir);
}

/* Each file written anew (unlinked first), not truncated and rewritten:
 * ext4 writes such a file back to disk at its close (auto_da_alloc), and
 * the inputs waited on the disk (fuzz_compare.c: 21 s of 23). */
static FILE *fopen_new(const char *path)
{
	unlink(path);
	return fopen(path, "wb");
}

static int copy_file(const char *from, const char *to)
{
	FILE *in = fopen(from, "rb"), *out = in ? fopen_new(to) : NULL;
	char buf[8192];
	size_t n;
	int rc = in && out ? 0 : -1;
	while (!rc && (n = fread(buf, 1, sizeof buf, in)) > 0)
		rc = fwrite(buf, 1, n, out) == n ? 0 : -1;
	if (in)
		fclose(in);
	if (out && fclose(out))
		rc = -1;
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *dir = fuzz_dir;
	char from[512], to[512];
	if (!fuzz_dir[0]) {
		const char *tmp = getenv("TMPDIR");
		snprintf(fuzz_dir, sizeof fuzz_dir, "%s/netloom-fuzz-otf2-%ld", tmp && *tmp ? tmp : "/tmp", (long)getpid());
		snprintf(to, sizeof to, "%s/traces", fuzz_dir);
		mkdir(fuzz_dir, 0700);
		mkdir(to, 0700);
		atexit(remove_copy);
	}
	/* Restore every file, then overwrite the chosen one. */
	for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
		snprintf(from, sizeof from, "%s/%s", OTF2_FUZZ_BASE, files[i]);
		snprintf(to, sizeof to, "%s/%s", dir, files[i]);
		if (copy_file(from, to))
			return 0;
	}
	if (size >= 1) {
		snprintf(to, sizeof to, "%s/%s", dir, files[data[0] % 4]);
		FILE *f = fopen_new(to);
		if (!f)
			return 0;
		if (size > 1)
			fwrite(data + 1, 1, size - 1, f);
		fclose(f);
	}
	snprintf(to, sizeof to, "%s/traces.otf2", dir);
	struct nl_err e = {0};
	struct trace_skips skips = {0};
	trace_import_otf2_ops.import(to, NULL, NULL, &skips, NULL, NULL, NULL, &e);
	trace_skips_release(&skips);
	return 0;
}
