/* Helpers of the importer tests: the importer's warning lines collected,
 * and a minimal DUMPI rank-file writer (big-endian, the layout of
 * sst-dumpi's io.c/iodefs.h), to exercise calls the public traces lack. */
#ifndef NETLOOM_TESTS_IMPORT_HELPERS_H
#define NETLOOM_TESTS_IMPORT_HELPERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "test.h"
#include "traces/traces_internal.h"

struct warns {
	int n;
	char lines[32][256];
};

static inline void collect(void *ctx, const char *line)
{
	struct warns *w = ctx;
	if (w->n < 32)
		snprintf(w->lines[w->n++], sizeof w->lines[0], "%s", line);
}

static inline bool has_warn(const struct warns *w, const char *line)
{
	for (int i = 0; i < w->n; i++)
		if (!strcmp(w->lines[i], line))
			return true;
	return false;
}


struct dw {
	uint8_t p[8192];
	size_t n;
};

/* Not inlined: a record writer of a few hundred puts inlined into one
 * function of thousands of checked stores took gcc's variable tracking 19
 * of the 23 s test_trace_import.c compiled in for (-O1 -g, address and
 * undefined sanitizers: 42 s of CI's sanitizer build, loaded). */
#define DW_PUT static __attribute__((noinline, unused))
DW_PUT void put8(struct dw *w, uint8_t v) { w->p[w->n++] = v; }
DW_PUT void put16(struct dw *w, uint16_t v) { put8(w, (uint8_t)(v >> 8)); put8(w, (uint8_t)v); }
DW_PUT void put32(struct dw *w, uint32_t v) { put16(w, (uint16_t)(v >> 16)); put16(w, (uint16_t)v); }
DW_PUT void put64(struct dw *w, uint64_t v) { put32(w, (uint32_t)(v >> 32)); put32(w, (uint32_t)v); }

/* Record header: label, mask (wall time only), start/stop (s + ns). */
static inline void rec(struct dw *w, uint16_t label, uint32_t t_us)
{
	put16(w, label);
	put8(w, 0x08);
	put16(w, 0);
	put32(w, t_us * 1000);
	put16(w, 0);
	put32(w, t_us * 1000 + 500);
}

/* Start a rank file: the stream magic and the two clock biases (CPU 0,
 * wall 10^9 s). Returns the body's offset for dw_finish(). */
static inline uint64_t dw_begin(struct dw *w)
{
	put64(w, 0xffaadd44554d5049ull);
	uint64_t body = w->n;
	put32(w, 0);          /* cpu bias */
	put32(w, 1000000000); /* wall bias, s */
	return body;
}

/* End the stream, add the header (version 1.1.0, start 1234, host "host")
 * and the index, and write the file to path. */
static inline void dw_finish(struct dw *w, uint64_t body, const char *path)
{
	put16(w, DUMPI_END_OF_STREAM);
	uint64_t header = w->n;
	put8(w, 1); put8(w, 1); put8(w, 0);
	put64(w, 1234);
	put16(w, 4);
	memcpy(w->p + w->n, "host", 4);
	w->n += 4;
	put16(w, 0); /* username */
	put32(w, 0); /* mesh dims */
	put32(w, 0);
	/* index: magic, size table, addresses, perf labels, header, body, footer, keyval */
	put64(w, 0xffaadd44554d5049ull);
	put64(w, 0);
	put64(w, 0);
	put64(w, 0);
	put64(w, header);
	put64(w, body);
	put64(w, header);
	put64(w, 0);
	FILE *f = fopen(path, "wb");
	fwrite(w->p, 1, w->n, f);
	fclose(f);
}

/* A DUMPI trace `name` of n_ranks rank files, each from write_rank, in
 * the scratch directory's folder `name`. Returns the .meta file's path. */
static inline const char *dw_write_trace(const char *name, uint32_t n_ranks,
					 void (*write_rank)(const char *path, uint32_t rank))
{
	char path[600];
	mkdir(test_tmppath(name), 0755);
	for (uint32_t r = 0; r < n_ranks; r++) {
		snprintf(path, sizeof path, "%s/%s/%s-%04u.bin", test_tmpdir, name, name, r);
		write_rank(path, r);
	}
	snprintf(path, sizeof path, "%s/%s.meta", name, name);
	const char *meta = test_tmppath(path);
	FILE *f = fopen(meta, "w");
	fprintf(f, "hostname=host\nnumprocs=%u\nstartime=1234\nfileprefix=%s\n", n_ranks, name);
	fclose(f);
	return meta;
}

static inline void put_iarr(struct dw *w, const int32_t *v, uint32_t n)
{
	put32(w, n);
	for (uint32_t i = 0; i < n; i++)
		put32(w, (uint32_t)v[i]);
}

#endif
