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

static inline void put8(struct dw *w, uint8_t v) { w->p[w->n++] = v; }
static inline void put16(struct dw *w, uint16_t v) { put8(w, (uint8_t)(v >> 8)); put8(w, (uint8_t)v); }
static inline void put32(struct dw *w, uint32_t v) { put16(w, (uint16_t)(v >> 16)); put16(w, (uint16_t)v); }
static inline void put64(struct dw *w, uint64_t v) { put32(w, (uint32_t)(v >> 32)); put32(w, (uint32_t)v); }

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

static inline void put_iarr(struct dw *w, const int32_t *v, uint32_t n)
{
	put32(w, n);
	for (uint32_t i = 0; i < n; i++)
		put32(w, (uint32_t)v[i]);
}

#endif
