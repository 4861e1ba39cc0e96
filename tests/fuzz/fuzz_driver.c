/* Corpus replay and seeded mutations for a fuzz target, without libFuzzer:
 * the normal test suite builds each target with this main() (gcc, and the
 * sanitizer build), feeds it every file of its corpus, then a bounded,
 * deterministic number of mutations of each (bit flips, interesting
 * values, deletions, insertions, truncations, duplications, splices with
 * another corpus file). Any crash, sanitizer report or leak fails the
 * test; error returns are the expected outcome for damaged inputs.
 *
 * usage: fuzz_<target> CORPUS_DIR [MUTATIONS_PER_FILE [SEED]]
 */
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "fuzz.h"

#define FUZZ_MAX_INPUT (1u << 20)

struct input {
	char *name;
	uint8_t *data;
	size_t len;
};

static int cmp_input(const void *a, const void *b)
{
	return strcmp(((const struct input *)a)->name, ((const struct input *)b)->name);
}

static int load_corpus(const char *dir, struct input **out, size_t *n_out)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	struct input *v = NULL;
	size_t n = 0, cap = 0;
	if (!d) {
		fprintf(stderr, "fuzz: cannot open corpus directory %s\n", dir);
		return -1;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char path[4096];
		snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
		FILE *f = fopen(path, "rb");
		if (!f)
			continue;
		uint8_t *buf = malloc(FUZZ_MAX_INPUT);
		size_t len = buf ? fread(buf, 1, FUZZ_MAX_INPUT, f) : 0;
		fclose(f);
		if (!buf)
			return -1;
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			v = realloc(v, cap * sizeof *v);
			if (!v)
				return -1;
		}
		v[n].name = strdup(de->d_name);
		v[n].data = buf;
		v[n].len = len;
		n++;
	}
	closedir(d);
	/* readdir order is the file system's: sort for determinism. */
	qsort(v, n, sizeof *v, cmp_input);
	*out = v;
	*n_out = n;
	return 0;
}

/* Uniform-enough draw in [0, n) for n > 0 (test use). */
static uint64_t pick(struct rng *r, uint64_t n)
{
	return rng_u64(r) % n;
}

static const uint32_t interesting32[] = {0, 1, 0x7f, 0x80, 0xff, 0x100, 0xffff, 0x10000,
					 0x7fffffff, 0x80000000u, 0xffffffffu, 64, 4096};

/* Apply 1..4 random edits to buf (len bytes, capacity FUZZ_MAX_INPUT). */
static size_t mutate(struct rng *r, uint8_t *buf, size_t len, const struct input *other)
{
	int edits = 1 + (int)pick(r, 4);
	for (int k = 0; k < edits; k++) {
		uint64_t pos = len ? pick(r, len) : 0;
		switch (pick(r, 8)) {
		case 0: /* flip a bit */
			if (len)
				buf[pos] ^= (uint8_t)(1u << pick(r, 8));
			break;
		case 1: /* an interesting byte */
			if (len)
				buf[pos] = (uint8_t)interesting32[pick(r, 5)];
			break;
		case 2: { /* an interesting 32-bit value, either endianness */
			uint32_t v = interesting32[pick(r, sizeof interesting32 / sizeof *interesting32)];
			bool be = pick(r, 2);
			for (int i = 0; i < 4 && pos + (uint64_t)i < len; i++)
				buf[pos + (uint64_t)i] = (uint8_t)(be ? v >> (24 - 8 * i) : v >> (8 * i));
			break;
		}
		case 3: { /* delete up to 16 bytes */
			size_t n = 1 + pick(r, 16);
			if (pos + n > len)
				n = len - pos;
			memmove(buf + pos, buf + pos + n, len - pos - n);
			len -= n;
			break;
		}
		case 4: { /* insert up to 16 random bytes */
			size_t n = 1 + pick(r, 16);
			if (len + n > FUZZ_MAX_INPUT)
				break;
			memmove(buf + pos + n, buf + pos, len - pos);
			for (size_t i = 0; i < n; i++)
				buf[pos + i] = (uint8_t)rng_u64(r);
			len += n;
			break;
		}
		case 5: /* truncate */
			len = pos;
			break;
		case 6: { /* copy a chunk over another place */
			if (!len)
				break;
			size_t from = pick(r, len), n = 1 + pick(r, 64);
			if (from + n > len)
				n = len - from;
			if (pos + n > len)
				n = len - pos;
			memmove(buf + pos, buf + from, n);
			break;
		}
		default: { /* splice: our prefix, another input's suffix */
			if (!other->len)
				break;
			size_t from = pick(r, other->len);
			size_t n = other->len - from;
			if (pos + n > FUZZ_MAX_INPUT)
				n = FUZZ_MAX_INPUT - pos;
			memcpy(buf + pos, other->data + from, n);
			len = pos + n;
			break;
		}
		}
	}
	return len;
}

int main(int argc, char **argv)
{
	struct input *in;
	size_t n;
	if (argc < 2) {
		fprintf(stderr, "usage: %s CORPUS_DIR [MUTATIONS_PER_FILE [SEED]]\n", argv[0]);
		return 2;
	}
	long per_file = argc > 2 ? strtol(argv[2], NULL, 10) : 500;
	uint64_t seed = argc > 3 ? strtoull(argv[3], NULL, 10) : 1;
	if (load_corpus(argv[1], &in, &n) || !n) {
		fprintf(stderr, "fuzz: empty corpus %s\n", argv[1]);
		return 2;
	}
	uint8_t *buf = malloc(FUZZ_MAX_INPUT);
	if (!buf)
		return 2;
	uint64_t runs = 0;
	for (size_t i = 0; i < n; i++) {
		/* A heap copy of exactly len bytes, so ASan sees reads past the end. */
		uint8_t *exact = malloc(in[i].len ? in[i].len : 1);
		memcpy(exact, in[i].data, in[i].len);
		LLVMFuzzerTestOneInput(exact, in[i].len);
		free(exact);
		runs++;
		for (long m = 0; m < per_file; m++) {
			struct rng r;
			/* Test stream: component = (corpus file, mutation). */
			rng_init(&r, seed, 0, ((uint64_t)i << 32) | (uint64_t)m);
			memcpy(buf, in[i].data, in[i].len);
			size_t len = mutate(&r, buf, in[i].len, &in[(i + 1 + pick(&r, n)) % n]);
			exact = malloc(len ? len : 1);
			memcpy(exact, buf, len);
			LLVMFuzzerTestOneInput(exact, len);
			free(exact);
			runs++;
		}
	}
	printf("%s: %zu corpus files, %llu runs, no crash\n", argv[0], n, (unsigned long long)runs);
	for (size_t i = 0; i < n; i++) {
		free(in[i].name);
		free(in[i].data);
	}
	free(in);
	free(buf);
	return 0;
}
