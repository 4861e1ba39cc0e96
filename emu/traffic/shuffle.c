/* shuffle: perfect shuffle, d_i = s_{(i-1) mod b}: rotate left one bit
 * (Dally & Towles 3.2). Power-of-two subset of endpoints. */
#include "traffic/traffic.h"

static const struct param_def none_params[] = {
	{NULL, 0, 0, NULL, 0, 0, NULL, NULL},
};

static uint32_t shuffle_dest(const struct traffic *tr, uint32_t s, struct rng *rng)
{
	const uint32_t b = tr->bits, mask = tr->n_active - 1;
	(void)rng;
	return ((s << 1) | (s >> (b - 1))) & mask;
}

const struct traffic_ops traffic_shuffle_ops = {
	.name = "shuffle",
	.help = "perfect shuffle: d_i = s_(i-1 mod b), rotate left (Dally & Towles 3.2)",
	.params = none_params,
	.flags = TRAFFIC_F_POW2,
	.dest = shuffle_dest,
};
