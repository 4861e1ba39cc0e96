/* uniform: uniform random destinations, "uniform:self=1".
 *
 * Dally & Towles §3.2. As in BookSim2, a source may pick itself unless
 * self=0 (then the destination is uniform over the other endpoints).
 */
#include "traffic/traffic.h"

#include "core/rng.h"

struct uniform_params {
	bool self; /* a source may send to itself */
};

static const struct param_def uniform_params_def[] = {
	{"self", PARAM_BOOL, offsetof(struct uniform_params, self), "1", 0, 0,
	 "include the source among the destinations (BookSim does)", NULL},
	{NULL, 0, 0, NULL, 0, 0, NULL, NULL},
};

static uint32_t uniform_dest(const struct traffic *tr, uint32_t src, struct rng *rng)
{
	const struct uniform_params *p = tr->params;
	if (p->self || tr->n_active < 2)
		return (uint32_t)rng_below(rng, tr->n_active);
	uint32_t d = (uint32_t)rng_below(rng, tr->n_active - 1);
	return d >= src ? d + 1 : d;
}

const struct traffic_ops traffic_uniform_ops = {
	.name = "uniform",
	.help = "uniform random destination (Dally & Towles 3.2)",
	.params = uniform_params_def,
	.params_size = sizeof(struct uniform_params),
	.dest = uniform_dest,
};
