/* bitcomp: bit complement, d_i = NOT s_i (Dally & Towles 3.2).
 *
 * Uses the largest power-of-two subset of endpoints; the rest stay idle. */
#include "traffic/traffic.h"

static const struct param_def none_params[] = {
	{NULL, 0, 0, NULL, 0, 0, NULL, NULL},
};

static uint32_t bitcomp_dest(const struct traffic *tr, uint32_t s, struct rng *rng)
{
	const uint32_t mask = tr->n_active - 1;
	(void)rng;
	return ~s & mask;
}

const struct traffic_ops traffic_bitcomp_ops = {
	.name = "bitcomp",
	.help = "bit complement: d_i = not s_i (Dally & Towles 3.2)",
	.params = none_params,
	.flags = TRAFFIC_F_POW2,
	.dest = bitcomp_dest,
};
