/* Fuzz target: the topology spec reader (topo/topo.h), the text a user
 * gives as `-s topology=...` or `topology =` in a file. Every input is
 * parsed without building (topo_spec_files: families, parameters, nested
 * specs); small ones are also built (topo_new). A refusal must have a
 * message. A spec that builds must give a canonical spec that builds
 * again to the same spec and the same numbers of routers, ports and
 * endpoints (the canonical spec is what results files record to rerun
 * with). Inputs that would read files ('@' spec files, file= parameters)
 * are skipped: a path such as /dev/zero never ends. */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "fuzz.h"
#include "fuzz_refusal.h"
#include "fuzz_small.h"
#include "topo/topo.h"

static int fuzz_no_file(void *ctx, const struct topo_spec_file *f)
{
	(void)ctx;
	(void)f;
	return -1; /* not reached: inputs naming files are skipped */
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
