/* fly: BookSim2's k-ary n-fly, "fly:k=10,n=1" (Dally & Towles §4.1;
 * BookSim2 networks/fly.cpp). netloom builds n = 1 only: one k x k
 * crossbar with its k endpoints on local ports 0 .. k-1 (endpoint e on
 * port e, as BookSim's injection and ejection channel e).
 *
 * A k-ary n-fly with n > 1 is unidirectional: an endpoint injects into a
 * stage-0 router and ejects from a stage n-1 router, two different
 * routers. netloom attaches every endpoint to one terminal port of one
 * router (struct topo's ep_port), so n > 1 is refused with that reason
 * rather than approximated by a different network.
 */
#include "topo/topo.h"
#include "topo/topo_internal.h"

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

struct fly_params {
	int64_t k; /* radix: ports per router, endpoints per first-stage router */
	int64_t n; /* stages */
};

static const struct param_def fly_params_def[] = {
	{"k", PARAM_INT, offsetof(struct fly_params, k), NULL, 2, 65535, "router radix (a k x k crossbar)", NULL},
	{"n", PARAM_INT, offsetof(struct fly_params, n), "1", 1, 16,
	 "stages; only 1 is modelled (endpoints inject and eject at different routers when n > 1)", NULL},
	{NULL, 0, 0, NULL, 0, 0, NULL, NULL},
};

static int fly_build(struct topo *t, struct nl_err *err)
{
	const struct fly_params *pr = t->params;
	uint32_t k = (uint32_t)pr->k;
	if (pr->n != 1)
		return nl_errf(err, NL_EUNSUPPORTED,
			       "topology 'fly': parameter 'n' value '%lld': expected 1 (a k-ary n-fly with n > 1 injects at stage 0 and ejects at stage n-1, two different routers; netloom attaches each endpoint to one router)",
			       (long long)pr->n);
	NL_CHECK(topo_alloc(t, 1, NULL, k, k, err));
	for (uint32_t e = 0; e < k; e++)
		topo_attach(t, e, 0, e);
	return 0;
}

static uint32_t fly_distance(const struct topo *t, uint32_t a, uint32_t b)
{
	(void)t;
	(void)a;
	(void)b;
	return 0;
}

static uint32_t fly_diameter(const struct topo *t)
{
	(void)t;
	return 0;
}

const struct topo_ops topo_fly_ops = {
	.name = "fly",
	.help = "k-ary n-fly with n = 1: one k x k crossbar (Dally & Towles 4.1; BookSim2 fly)",
	.params = fly_params_def,
	.params_size = sizeof(struct fly_params),
	.flags = TOPO_F_VERTEX_TRANSITIVE,
	.build = fly_build,
	.distance = fly_distance,
	.diameter = fly_diameter,
};
