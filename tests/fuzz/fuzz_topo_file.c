/* Fuzz target: the two topology families that read a user's file, BookSim's
 * anynet network_file (`anynet:file=`) and the edge list (`graph:file=`).
 * Byte 0 picks the family (bit 0: graph), the rest is the file. A refusal
 * must have a message (the one-line error users see); a file that builds
 * must give a canonical spec that builds again to itself, with the same
 * numbers of routers, ports and endpoints. */
#include <stdio.h>
#include <string.h>

#include "core/error.h"
#include "fuzz.h"
#include "fuzz_refusal.h"
#include "fuzz_file.h"
#include "topo/topo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = size >= 1 && size <= (1u << 16) ? fuzz_file(data + 1, size - 1) : NULL;
	if (!path)
		return 0;
	char spec[128];
	snprintf(spec, sizeof spec, "%s:file=%s", (data[0] & 1) ? "graph" : "anynet", path);
	struct topo *t = NULL, *again = NULL;
	struct nl_err err = {0};
	int rc = topo_new(spec, &t, &err);
	if (rc < 0) {
		fuzz_refusal(&err, rc, spec);
		return 0;
	}
	err = (struct nl_err){0};
	if (topo_new(t->spec, &again, &err) < 0)
		NL_BUG("the canonical spec '%s' of '%s' is refused: %s", t->spec, spec, err.msg);
	if (strcmp(t->spec, again->spec) || t->n_routers != again->n_routers || t->n_ports != again->n_ports ||
	    t->n_endpoints != again->n_endpoints)
		NL_BUG("'%s' builds '%s' (%u routers, %u ports, %u endpoints), which builds '%s' (%u, %u, %u)", spec,
		       t->spec, t->n_routers, t->n_ports, t->n_endpoints, again->spec, again->n_routers, again->n_ports,
		       again->n_endpoints);
	topo_free(again);
	topo_free(t);
	return 0;
}
