/* A test topology no registered family builds: two disjoint triangles
 * (graph refuses a disconnected graph), for the tests of what
 * distances, diameters and faults say of a disconnected network
 * (test_topo, test_analyze). */
#ifndef NETLOOM_TEST_TWO_TRIANGLES_H
#define NETLOOM_TEST_TWO_TRIANGLES_H

#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "topo/topo.h"

static inline int two_triangles_build(struct topo *t, struct nl_err *err)
{
	NL_CHECK(topo_alloc(t, 6, NULL, 2, 0, err));
	for (uint32_t b = 0; b < 6; b += 3)
		for (uint32_t i = 0; i < 3; i++)
			topo_connect(t, b + i, 0, b + (i + 1) % 3, 1);
	return 0;
}

/* The built topology in *out (topo_free it), or an error. */
static inline int two_triangles_new(struct topo **out, struct nl_err *err)
{
	static const struct param_def none[] = {{NULL, 0, 0, NULL, 0, 0, NULL, NULL}};
	static const struct topo_ops ops = {
		.name = "two_triangles", .help = "test", .params = none, .build = two_triangles_build,
	};
	struct topo *t = calloc(1, sizeof *t);
	if (!t || !(t->spec = strdup("two_triangles"))) {
		free(t);
		return nl_errf(err, NL_ENOMEM, "out of memory");
	}
	t->ops = &ops;
	int rc = two_triangles_build(t, err);
	if (rc) {
		topo_free(t);
		return rc;
	}
	*out = t;
	return 0;
}

#endif
