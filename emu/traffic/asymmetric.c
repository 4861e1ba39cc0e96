/* asymmetric: BookSim2's asymmetric pattern (seed 000 §IV-B uses it):
 * d = (s mod N/2), plus N/2 with probability 1/2. Sources s and s + N/2
 * share the same two destinations, so traffic is uneven across links. */
#include "traffic/traffic.h"

#include "core/rng.h"

static const struct param_def none_params[] = {
	{NULL, 0, 0, NULL, 0, 0, NULL, NULL},
};

static uint32_t asymmetric_dest(const struct traffic *tr, uint32_t s, struct rng *rng)
{
	uint32_t half = tr->n_active / 2;
	if (half == 0)
		return s;
	return (s % half) + ((rng_u64(rng) & 1) ? half : 0);
}

const struct traffic_ops traffic_asymmetric_ops = {
	.name = "asymmetric",
	.help = "d = (s mod N/2) + either 0 or N/2 at random (BookSim2; seed 000)",
	.params = none_params,
	.dest = asymmetric_dest,
};
