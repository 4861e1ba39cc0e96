/* bitrot: bit rotation, d_i = s_{(i+1) mod b}: rotate right one bit (Dally &
 * Towles 3.2; seed 002 §4, seed 001 §4). Power-of-two subset. */
#include "traffic/traffic.h"

static const struct param_def none_params[] = {
	{NULL, 0, 0, NULL, 0, 0, NULL, NULL},
};

static uint32_t bitrot_dest(const struct traffic *tr, uint32_t s, struct rng *rng)
{
	const uint32_t b = tr->bits, mask = tr->n_active - 1;
	(void)rng;
	return ((s >> 1) | (s << (b - 1))) & mask;
}

const struct traffic_ops traffic_bitrot_ops = {
	.name = "bitrot",
	.help = "bit rotation: d_i = s_(i+1 mod b), rotate right (seeds 001, 002)",
	.params = none_params,
	.flags = TRAFFIC_F_POW2,
	.dest = bitrot_dest,
};
