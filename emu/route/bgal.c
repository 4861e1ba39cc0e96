/* bgal: bottleneck-UGAL on Equality networks, "bgal:threshold=2".
 *
 * Liang et al., J. Supercomputing 2023 (seed 002) §3.5.3: eq_ugal, except
 * that a pair with more than `threshold` shortest paths (the paper fixes
 * 2 and says it is adjustable) routes on its shortest paths only; only the
 * bottleneck pairs, with few shortest paths, may take a sub-shortest path.
 * "Shortest paths" counts whole paths of R^ (n_paths in eq_rprime.c), not
 * first hops. VC k on hop k as eq_ugal: num_vcs >= 4 at diameter 2,
 * diameter + 1 otherwise.
 */
#include <stddef.h>

#include "route/eq_rprime.h"

static const char *const bgal_families[] = {"equality", NULL};

struct bgal_params {
	int64_t threshold;
};

static const struct param_def bgal_params_def[] = {
	{"threshold", PARAM_INT, offsetof(struct bgal_params, threshold), "2", 0, 254,
	 "a pair with more shortest paths than this routes minimally (seed 002 3.5.3: 2)", NULL},
	{NULL, 0, 0, NULL, 0, 0, NULL, NULL},
};

static int bgal_init(struct route *r, struct nl_err *err)
{
	const struct bgal_params *p = r->params;
	return eq_route_init(r, r->state, true, (uint32_t)p->threshold, err);
}

const struct route_ops route_bgal_ops = {
	.name = "bgal",
	.help = "Equality bottleneck-UGAL: eq_ugal, but pairs with > threshold shortest paths stay minimal (seed 002 3.5.3)",
	.params = bgal_params_def,
	.params_size = sizeof(struct bgal_params),
	.state_size = sizeof(struct eq_route),
	.families = bgal_families,
	.is_deterministic = false,
	.init = bgal_init,
	.release = eq_route_release,
	.inject = eq_route_inject,
	.compute = eq_route_compute,
};
