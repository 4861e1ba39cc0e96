/* Fuzz target: the topology spec reader (topo/topo.h), the text a user
 * gives as `-s topology=...` or `topology =` in a file. Every input is
 * parsed without building (topo_spec_files: families, parameters, nested
 * specs); small ones are also built (topo_new). A refusal must have a
 * message. A spec that builds must give a canonical spec that builds
 * again to the same spec and the same numbers of routers, ports and
 * endpoints (the canonical spec is what results files record to rerun
 * with). Inputs that would read files ('@' spec files, file= parameters)
 * are skipped: a path such as /dev/zero never ends. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "fuzz.h"
#include "fuzz_refusal.h"
#include "topo/topo.h"

static int fuzz_no_file(void *ctx, const struct topo_spec_file *f)
{
	(void)ctx;
	(void)f;
	return -1; /* not reached: inputs naming files are skipped */
}

/* Small enough to build within the suite's time and memory: at most six
 * numbers, none above 8 (8x8x8x8 routers at most). A spec with a
 * parenthesis may wrap a base in a permutation (p1/p2/p3), which builds
 * `trials` (20) rewirings and measures each one's diameter and path
 * lengths: there the numbers' product stays at most 256 ('p3(hyperx:
 * s=5x6x5x6)', 900 routers, took 20 s in the sanitizer build, a timeout
 * of the 2026-12-04 campaign; 1.6 s in release for `topo describe`). */
static bool fuzz_small(const char *s)
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 4096)
		return 0;
	char *spec = malloc(size + 1);
	if (!spec)
		return 0;
	memcpy(spec, data, size);
	spec[size] = '\0';
	if (strchr(spec, '@') || strstr(spec, "file")) {
		free(spec);
		return 0;
	}
	struct nl_err err = {0};
	int rc = topo_spec_files(spec, fuzz_no_file, NULL, &err);
	if (rc < 0)
		fuzz_refusal(&err, rc, "topo_spec_files");
	struct topo *t = NULL, *again = NULL;
	err = (struct nl_err){0};
	if (!fuzz_small(spec)) {
		free(spec);
		return 0;
	}
	rc = topo_new(spec, &t, &err);
	if (rc < 0) {
		fuzz_refusal(&err, rc, "topo_new");
	} else {
		err = (struct nl_err){0};
		if (topo_new(t->spec, &again, &err) < 0)
			NL_BUG("the canonical spec '%s' of '%s' is refused: %s", t->spec, spec, err.msg);
		if (strcmp(t->spec, again->spec) || t->n_routers != again->n_routers ||
		    t->n_ports != again->n_ports || t->n_endpoints != again->n_endpoints)
			NL_BUG("'%s' builds '%s' (%u routers, %u ports, %u endpoints), which builds '%s' (%u, %u, %u)",
			       spec, t->spec, t->n_routers, t->n_ports, t->n_endpoints, again->spec, again->n_routers,
			       again->n_ports, again->n_endpoints);
	}
	topo_free(again);
	topo_free(t);
	free(spec);
	return 0;
}
