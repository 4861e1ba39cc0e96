/* The size rule of the targets that build topologies from fuzzed text
 * (fuzz_topo_spec.c: the whole input; fuzz_compare.c: each topology value
 * of a study): a spec is built only when it is small enough to build
 * within libFuzzer's 10 s timeout under the sanitizers. One rule, so a
 * family found too large by one target's campaign is bounded in all
 * (fuzz_compare.c skipped only numbers above 32 and built
 * 'fattree:k=8,n=7', 1.8 million routers in 15 s, a timeout of the
 * 2026-12-06 campaign). */
#ifndef NETLOOM_TESTS_FUZZ_FUZZ_SMALL_H
#define NETLOOM_TESTS_FUZZ_FUZZ_SMALL_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Small enough to build within the suite's time and memory: at most six
 * numbers, none above 8 (8x8x8x8 routers at most). A spec with a
 * parenthesis may wrap a base in a permutation (p1/p2/p3), which builds
 * `trials` (20) rewirings and measures each one's diameter and path
 * lengths: there the numbers' product stays at most 256 ('p3(hyperx:
 * s=5x6x5x6)', 900 routers, took 20 s in the sanitizer build, a timeout
 * of the 2026-12-04 campaign; 1.6 s in release for `topo describe`). */
static inline bool fuzz_small(const char *s)
{
	int numbers = 0;
	unsigned long product = 1, largest = 2, exponent = 0;
	for (const char *p = s; *p;) {
		if (*p < '0' || *p > '9') {
			p++;
			continue;
		}
		char *end;
		unsigned long v = strtoul(p, &end, 10);
		if (++numbers > 6 || v > 8 || end - p > 2)
			return false;
		product *= v ? v : 1;
		/* n= is an exponent in the families whose size is a radix to
		 * the n-th power: 'fattree:k=7,n=8' has 7^8 endpoints and 6.6
		 * million routers (17 s to build twice in the sanitizer build,
		 * a timeout of the 2026-12-06 campaign). */
		if (p >= s + 2 && p[-1] == '=' && p[-2] == 'n')
			exponent = v > exponent ? v : exponent;
		else if (v > largest)
			largest = v;
		p = end;
	}
	/* Elsewhere n= counts routers or terminals (equality, dln, clos). */
	static const char *const powers[] = {"fattree", "flatfly", "torus", "mesh", "hypercube", "ndt", "fly"};
	bool is_power = false;
	for (size_t i = 0; i < sizeof powers / sizeof *powers; i++)
		is_power |= strstr(s, powers[i]) != NULL;
	unsigned long size = 1;
	for (unsigned long i = 0; is_power && i < exponent; i++)
		size *= largest;
	if (size > 4096)
		return false;
	return !strchr(s, '(') || product <= 256;
}

#endif
